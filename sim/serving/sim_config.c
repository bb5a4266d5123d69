/* sim_config.c — the event simulation's configuration from a scenario (see sim_config.h). */
#include "sim_config.h"
#include "scenario.h"

#include <string.h>

/* A scenario's batch cap counts per attention rank under attention-DP (TensorRT-LLM's
 * max_batch_size and vLLM's max_num_seqs are per rank there); the simulation's, per engine. */
static EngineSpec per_engine(EngineSpec es)
{
  if (es.attention_dp)
    es.max_batch = (int)MIN((gint64)es.max_batch * es.tp, 1 << 24);
  return es;
}

void sim_config_from_scenario(const ScenarioParams *p, SimConfig *out)
{
  *out = (SimConfig){
    .seed = p->seed, .input = p->workload.input, .output = p->workload.output, .trace = p->workload.trace, .arrival = p->workload.arrival,
    .users = p->workload.users, .rate = p->workload.rate, .curve = p->workload.curve, .mix = p->workload.mix,
    .curve_period = p->workload.curve_period, .burst_cv = p->workload.burst_cv, .start = p->workload.start, .think_time = p->workload.think_time,
    .requests = p->workload.requests, .duration = p->workload.duration, .warmup = p->workload.warmup, .window = p->workload.window,
    .shift_at = p->workload.shift_at, .shift_input = p->workload.shift_input, .shift_output = p->workload.shift_output,
    .agg = per_engine(p->serving.agg), .prefill = per_engine(p->serving.prefill), .decode = per_engine(p->serving.decode),
    .router = p->serving.router, .kv_overlap_weight = p->serving.kv_overlap_weight, .planner = p->serving.planner,
    .plan_interval = p->serving.plan_interval, .plan_reconfigure = p->serving.plan_reconfigure,
    .plan_threshold = p->serving.plan_threshold, .green_prefill_sms = p->serving.green_prefill_sms,
    .oversubscription = p->factory.oversubscription, .min_tok_s_per_user = p->plan.min_tok_s_per_user,
    .max_ttft = p->plan.max_ttft, .turns = p->workload.turns, .shared_prefix = p->workload.shared_prefix,
    .prefix_groups = p->workload.prefix_groups, .prefix_cache = p->serving.prefix_cache,
    .cache_block = p->serving.cache_block, .cache_host = p->serving.cache_host,
    .cache_storage = p->serving.cache_storage, .cache_remote = p->serving.cache_remote,
    .failures = p->factory.failures, .retry = p->factory.retry, .gpu_mtbf = p->factory.gpu_mtbf,
    .node_mtbf = p->factory.node_mtbf, .tray_mtbf = p->factory.tray_mtbf, .repair_time = p->factory.repair_time,
    .maint_interval = p->factory.maint_interval, .maint_duration = p->factory.maint_duration,
    .power_policy = p->factory.power_policy, .power_period = p->factory.power_period,
    .autoscale = p->factory.autoscale, .autoscale_interval = p->factory.autoscale_interval,
    .autoscale_target = p->factory.autoscale_target, .autoscale_start = p->factory.autoscale_start,
    .autoscale_min = p->factory.autoscale_min,
  };
  /* a mix of request classes: the workload's means are the mix's (each class draws at its own) */
  g_autofree char *why = NULL;
  g_autoptr(GArray) mix = p->workload.mix ? scenario_mix_parse(p->workload.mix, &why) : NULL;
  if (mix) {
    double in = 0, o = 0;
    for (guint k = 0; k < mix->len; k++) {
      const MixClass *c = &g_array_index(mix, MixClass, k);
      in += c->share * c->input, o += c->share * c->output;
    }
    out->input.mean = in, out->output.mean = o;
  }
}

void sim_config_defaults(SimConfig *out)
{
  ScenarioParams p;
  memset(&p, 0, sizeof p);
  kt_defaults(&scenario_table, &p); /* the scenario table is where every default is declared */
  sim_config_from_scenario(&p, out);
  out->trace = NULL, out->curve = NULL, out->mix = NULL; /* no default trace, curve or mix; P's strings go with it */
  kt_clear(&scenario_table, &p);
}
