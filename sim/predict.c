/* predict.c — deployment -> outcome, by any method (see predict.h). */
#include "predict.h"
#include "power.h"
#include "serving_sim.h"
#include "floor_sim.h"
#include "simgrid_backend.h"
#include "workload.h"

#include <math.h>
#include <string.h>

const char *const method_names[] = { "steady", "des", "simgrid", NULL };

gboolean framework_parse(const char *name, Framework *out)
{
  if (strcmp(name, "trt") == 0) /* InferenceX's name for TensorRT-LLM */
    return (*out = FW_TRTLLM), TRUE;
  for (int i = 0; framework_names[i]; i++)
    if (strcmp(name, framework_names[i]) == 0)
      return (*out = (Framework)i), TRUE;
  return FALSE;
}

Stack framework_stack(Framework f)
{
  switch (f) {
  case FW_SGLANG:
  case FW_DYNAMO_SGLANG: return STACK_SGLANG;
  case FW_VLLM:
  case FW_DYNAMO_VLLM: return STACK_VLLM;
  default: return STACK_TRTLLM;
  }
}

gboolean framework_dynamo(Framework f)
{
  return f == FW_DYNAMO_TRT || f == FW_DYNAMO_SGLANG || f == FW_DYNAMO_VLLM;
}

Precision kv_precision_for(KvPrecision asked, Precision weights, const Profile *prof, Stack stack)
{
  if (asked != KVP_AUTO)
    return (Precision)(asked - 1);
  return weights == PREC_BF16 ? PREC_BF16 : (Precision)prof->stack[stack].kv_cache;
}

static void steady(const Deployment *d, Outcome *out)
{
  SteadyState ss;
  char *why = d->disaggregated ? steady_disaggregated(&d->prefill, d->pre_workers, &d->decode, d->dec_workers,
                                                      d->same_domain, &d->load, &ss)
                               : steady_aggregated(&d->decode, d->dec_workers, &d->load, &ss);
  /* the memory plan stands whether or not the deployment fits: it says by how much */
  out->weights = ss.weights, out->kv_free = ss.kv_free, out->max_seqs = ss.max_seqs;
  if (why) {
    out->kind = OUTCOME_INFEASIBLE, out->reason = why;
    return;
  }
  out->kind = OUTCOME_OK;
  out->gpus = ss.gpus, out->batch = ss.batch;
  out->out_tok_s_per_gpu = ss.out_tok_s_per_gpu, out->tok_s_per_user = ss.tok_s_per_user;
  out->ttft = ss.ttft, out->tpot = ss.tpot, out->step = ss.step, out->steady_ttft_p99 = ss.ttft_p99;
  out->pool_load = d->disaggregated ? ss.pool_load : NAN;
  out->gpu_activity = ss.gpu_activity;
  out->cache_hit_rate = d->load.isl > 0 && d->load.cached > 0 ? d->load.cached / d->load.isl : NAN;
}

/* The event simulation's figures SR as an outcome. */
static void from_simulation(const SimResult *sr, Outcome *out)
{
  out->kind = OUTCOME_OK;
  out->gpus = sr->gpus, out->batch = sr->mean_batch;
  out->out_tok_s_per_gpu = sr->out_tok_s / sr->gpus, out->tok_s_per_user = 1 / sr->tpot[0];
  out->ttft = sr->ttft[0], out->ttft_p90 = sr->ttft[1], out->ttft_p99 = sr->ttft[2];
  out->tpot = sr->tpot[0], out->tpot_p90 = sr->tpot[1], out->tpot_p99 = sr->tpot[2];
  out->e2e_p50 = sr->e2e[0], out->e2e_p99 = sr->e2e[2];
  out->goodput = sr->goodput, out->served = sr->req_s, out->moves = sr->moves;
  out->gpu_activity = sr->gpu_activity;
  out->backlog_growth = sr->backlog_growth;
  out->backlog_judged = sr->backlog_judged, out->backlog_grew = sr->unstable;
  out->cache_hit_rate = sr->cache_hit_rate;
  out->cache_host_rate = sr->cache_host_rate, out->cache_storage_rate = sr->cache_storage_rate;
  out->cache_remote_rate = sr->cache_remote_rate;
  out->failures = sr->failures, out->lost = sr->lost, out->retried = sr->retried, out->availability = sr->availability;
  out->lost_share = sr->lost_share;
  out->shed = sr->shed, out->mean_cap_w = sr->mean_cap_w;
  out->tray_failures = sr->tray_failures, out->degraded = sr->degraded, out->parked = sr->parked;
  out->maintenance = sr->maintenance;
  out->events = (double)sr->events, out->requests = (double)sr->requests;
  out->n_classes = sr->n_classes;
  memcpy(out->classes, sr->classes, sizeof sr->classes);
}

static void simulated(const Deployment *d, gboolean on_simgrid, Outcome *out)
{
  SimResult sr;
  SimulateFunc simulate = on_simgrid ? simgrid_simulate : serving_simulate;
  char *why = d->disaggregated ? simulate(d->sim, &d->prefill, d->pre_workers, &d->decode, d->dec_workers,
                                          d->same_domain, &sr)
                               : simulate(d->sim, &d->decode, d->dec_workers, NULL, 0, FALSE, &sr);
  if (why) {
    out->kind = sr.outcome, out->reason = why;
    return;
  }
  from_simulation(&sr, out);
}

/* OUT with no figures yet (NAN each), infeasible until a method says otherwise. */
static void outcome_init(Outcome *out, PredictMethod method)
{
  *out = (Outcome){ .kind = OUTCOME_INFEASIBLE, .method = method };
  double *figures[] = { &out->gpus, &out->batch, &out->out_tok_s_per_gpu, &out->tok_s_per_user, &out->ttft,
                        &out->tpot, &out->ttft_p90, &out->ttft_p99, &out->tpot_p90, &out->tpot_p99, &out->e2e_p50,
                        &out->e2e_p99, &out->steady_ttft_p99, &out->goodput, &out->served, &out->moves, &out->step,
                        &out->weights, &out->kv_free, &out->max_seqs, &out->pool_load, &out->gpu_activity,
                        &out->gpu_power_w, &out->it_w_per_gpu, &out->slots, &out->capacity_req_s,
                        &out->offered_req_s, &out->cache_hit_rate, &out->cache_host_rate,
                        &out->cache_storage_rate, &out->cache_remote_rate, &out->failures, &out->lost, &out->lost_share,
                        &out->retried, &out->availability, &out->shed, &out->mean_cap_w, &out->tray_failures, &out->degraded, &out->parked, &out->maintenance, &out->events,
                        &out->requests };
  for (gsize i = 0; i < G_N_ELEMENTS(figures); i++)
    *figures[i] = NAN;
}

/* OUT's power at its load's activity, which the steps give at the clocks they ran at (a power cap or
 * the TDP lowers them: step_time.h). */
static void at_power(const Deployment *d, Outcome *out)
{
  PowerShare share;
  out->gpu_power_w = power_gpu(d->decode.sys, out->gpu_activity, 1);
  power_share(d->decode.sys, out->gpu_power_w, &share);
  out->it_w_per_gpu = share.it;
}

void predict(const Deployment *d, PredictMethod method, Outcome *out)
{
  outcome_init(out, method);
  if (method == METHOD_STEADY)
    steady(d, out);
  else
    simulated(d, method == METHOD_SIMGRID, out);
  if (out->kind == OUTCOME_OK)
    at_power(d, out);
}

void predict_floor(FloorMember *m, int n, double floor_gpus, double interval, gboolean move)
{
  g_autofree FloorPart *parts = g_new0(FloorPart, n);
  for (int k = 0; k < n; k++) {
    const Deployment *d = m[k].d;
    outcome_init(&m[k].out, METHOD_DES);
    parts[k] = (FloorPart){ .p = d->sim, .e = d->disaggregated ? &d->prefill : &d->decode,
                            .d = d->disaggregated ? &d->decode : NULL,
                            .engines = d->disaggregated ? d->pre_workers : d->dec_workers,
                            .dec = d->disaggregated ? d->dec_workers : 0, .same_domain = d->same_domain,
                            .spare = m[k].spare, .gpus_each = m[k].gpus_each };
  }
  char *why = floor_simulate(parts, n, floor_gpus, interval, move);
  for (int k = 0; k < n; k++) {
    Outcome *out = &m[k].out;
    m[k].granted = parts[k].granted, m[k].released = parts[k].released;
    if (why) { /* the floor runs together or not at all */
      out->kind = OUTCOME_INFEASIBLE;
      out->reason = g_strdup(why);
      continue;
    }
    if (parts[k].why) { /* it ran, and has no figures */
      out->kind = parts[k].out.outcome;
      out->reason = g_steal_pointer(&parts[k].why);
      continue;
    }
    from_simulation(&parts[k].out, out);
    at_power(m[k].d, out);
  }
  g_free(why);
}

void outcome_clear(Outcome *o) { g_clear_pointer(&o->reason, g_free); }

double predict_engine_slots(const Deployment *d, double max_seqs)
{
  return MIN(max_seqs, engine_launch_cap(&d->decode, d->load.max_batch));
}

void predict_ceilings(const Deployment *d, Ceilings *out)
{
  Load ld = d->load;
  ld.users = 0, ld.tpot_limit = 0, ld.ttft_p99_limit = 0;
  SteadyState ss;
  g_autofree char *why = d->disaggregated ? steady_disaggregated(&d->prefill, d->pre_workers, &d->decode,
                                                                 d->dec_workers, d->same_domain, &ld, &ss)
                                          : steady_aggregated(&d->decode, d->dec_workers, &ld, &ss);
  *out = (Ceilings){ .known = !why, .slots = NAN, .capacity_req_s = NAN };
  if (why)
    return;
  out->slots = predict_engine_slots(d, ss.max_seqs) * d->dec_workers;
  out->capacity_req_s = ss.out_tok_s / ld.osl;
  out->weights = ss.weights, out->kv_free = ss.kv_free, out->max_seqs = ss.max_seqs;
}

static void judge_closed(const Deployment *d, Outcome *out)
{
  /* users thinking between requests hold no slot: those in flight are users x R / (R + think) */
  double r = out->ttft + (d->load.osl - 1) * out->tpot, think = d->load.think_time;
  double in_flight = think > 0 && isfinite(r) ? d->load.users * r / (r + think) : d->load.users;
  if (!(in_flight > out->slots + 0.5))
    return;
  out->kind = OUTCOME_QUEUE_BOUND;
  out->reason = g_strdup_printf("%.0f users in flight, %.0f sequences run at once (%d engines x %.0f): %.0f wait "
                                "for a slot", in_flight, out->slots, d->dec_workers, out->slots / d->dec_workers,
                                in_flight - out->slots);
}

void predict_judge_load(const Deployment *d, const Ceilings *c, Outcome *out)
{
  if (out->kind != OUTCOME_OK || !c->known)
    return;
  out->slots = c->slots, out->capacity_req_s = c->capacity_req_s;
  if (isnan(out->weights)) /* the event simulation plans no memory of its own to report */
    out->weights = c->weights, out->kv_free = c->kv_free, out->max_seqs = c->max_seqs;
  gboolean closed = d->sim ? d->sim->arrival == ARRIVAL_CLOSED && !d->sim->trace : d->load.users > 0;
  if (closed) {
    judge_closed(d, out);
    return;
  }
  if (!d->sim)
    return;
  gboolean rated = d->sim->arrival == ARRIVAL_POISSON || d->sim->arrival == ARRIVAL_GAMMA;
  out->offered_req_s = rated && !d->sim->trace ? d->sim->rate * workload_curve_share(d->sim) : NAN;
  double served = out->out_tok_s_per_gpu * out->gpus / d->load.osl;
  if (out->backlog_grew) {
    out->kind = OUTCOME_UNSTABLE;
    out->reason = g_strdup_printf("the queue grew by %d requests over the simulated window: more offered than the "
                                  "deployment serves (%.3g req/s served)", out->backlog_growth, served);
  } else if (!out->backlog_judged && out->offered_req_s > out->capacity_req_s) {
    out->kind = OUTCOME_UNSTABLE;
    out->reason = g_strdup_printf("%.3g req/s offered, the deployment serves at most %.3g saturated (steady state)",
                                  out->offered_req_s, out->capacity_req_s);
  }
}
