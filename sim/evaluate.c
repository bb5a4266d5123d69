/* evaluate.c — point -> result row (see evaluate.h). */
#include "evaluate.h"

#include <math.h>
#include <string.h>
#include "power.h"
#include "serving_sim.h"
#include "simgrid_backend.h"
#include "precision.h"

static void engine_label(GString *s, const char *prefix, const EngineSpec *e)
{
  g_string_append_printf(s, "%s%s%dx tp%d", *s->str ? " " : "", prefix, e->workers, e->tp);
  if (e->pp > 1)
    g_string_append_printf(s, " pp%d", e->pp);
  if (e->ep > 1)
    g_string_append_printf(s, " ep%d", e->ep);
  if (e->attention_dp)
    g_string_append(s, " dp");
}

/* Mode, parallelism and precision: what a chart colours by. */
char *point_family_label(const Point *pt)
{
  const ScenarioParams *p = &pt->p;
  GString *s = g_string_new(NULL);
  if (p->mode == MODE_AGGREGATED) {
    engine_label(s, "agg ", &p->agg);
  } else {
    engine_label(s, "P ", &p->prefill);
    engine_label(s, "D ", &p->decode);
  }
  if (p->green_prefill_sms > 0)
    g_string_append_printf(s, " gc%.0f%%", 100 * p->green_prefill_sms);
  g_string_append_printf(s, " %s", precision_names[p->precision]);
  if (p->weight_only && system_compute_precision(&pt->system, p->precision) != p->precision)
    g_string_append(s, " weight-only");
  if (p->spec_method == SPEC_MTP)
    g_string_append(s, " mtp");
  return g_string_free(s, FALSE);
}

char *point_config_label(const Point *pt)
{
  const ScenarioParams *p = &pt->p;
  g_autofree char *family = point_family_label(pt);
  GString *s = g_string_new(family);
  /* the family ends with the precision (and " mtp"): the stack and load go between and after */
  char *mtp = p->spec_method == SPEC_MTP ? strstr(s->str, " mtp") : NULL;
  if (mtp)
    g_string_truncate(s, (gsize)(mtp - s->str));
  g_string_append_printf(s, " %s", framework_names[p->framework]);
  if (p->spec_method == SPEC_MTP)
    g_string_append_printf(s, " mtp%d", p->spec_tokens);
  if (p->arrival == ARRIVAL_CLOSED)
    g_string_append_printf(s, " c%d", p->users);
  return g_string_free(s, FALSE);
}

static Stack stack_of(int framework)
{
  switch (framework) {
  case FW_SGLANG:
  case FW_DYNAMO_SGLANG: return STACK_SGLANG;
  case FW_VLLM: return STACK_VLLM;
  default: return STACK_TRTLLM;
  }
}

void evaluate_engine(const Point *pt, const Profile *prof, const EngineSpec *es, Engine *out)
{
  const ScenarioParams *p = &pt->p;
  *out = (Engine){
    .sys = &pt->system, .model = &pt->model, .prof = prof, .precision = p->precision,
    .kv_precision = p->kv_precision != KVP_AUTO ? (Precision)(p->kv_precision - 1)
                    : p->precision == PREC_BF16    ? PREC_BF16
                                                   : (Precision)prof->stack[stack_of(p->framework)].kv_cache,
    .stack = stack_of(p->framework), .gpus = es->tp * es->pp, .pp = es->pp, .ep = es->ep,
    .dp_attention = es->attention_dp, .native_only = !p->weight_only,
    .draft_tokens = p->spec_method == SPEC_MTP ? p->spec_tokens : 0, .acceptance = p->spec_acceptance,
  };
}

void evaluate_fill_row(const SteadyState *ss, ResultRow *row)
{
  row->deployment_gpus = ss->gpus;
  row->batch = ss->batch;
  row->tok_s_per_user = ss->tok_s_per_user;
  row->out_tok_s_per_gpu = ss->out_tok_s_per_gpu;
  row->ttft_p50_ms = ss->ttft * 1e3;
  row->tpot_p50_ms = ss->tpot * 1e3;
  row->step_ms = ss->step * 1e3;
}

void evaluate_factory_spec(const ScenarioParams *p, FactorySpec *out)
{
  *out = (FactorySpec){
    .budget = p->power_budget, .gpus = p->factory_gpus, .pue = p->pue, .other_it_fraction = p->other_it_fraction,
    .provisioning = p->provisioning, .energy_price = p->energy_price, .amortisation = p->amortisation,
    .fabric = { .radix = p->switch_radix, .tiers = p->fabric_tiers, .optics = p->optics,
                .copper_first_tier = p->copper_first_tier, .transceiver_power = p->transceiver_power,
                .transceiver_cost = p->transceiver_cost, .cpo_port_power = p->cpo_port_power,
                .switch_port_power = p->switch_port_power },
  };
}

/* Power at the simulated load, and the factory a budget (or GPU count) of such GPUs makes. */
static void evaluate_factory(const Point *pt, double activity, double out_per_gpu, double clock, ResultRow *row)
{
  FactorySpec fs;
  FactoryPlan fp;
  PowerShare share;
  evaluate_factory_spec(&pt->p, &fs);
  double gpu_w = power_gpu(&pt->system, activity, clock);
  power_share(&pt->system, gpu_w, &share);
  factory_plan(&pt->system, &fs, gpu_w, out_per_gpu, &fp);
  row->gpu_power_w = gpu_w;
  row->it_w_per_gpu = share.it;
  row->facility_mw = fp.facility_w / 1e6;
  row->it_mw = fp.it_w / 1e6;
  row->racks = fp.racks;
  row->gpus = fp.gpus;
  row->fabric_tiers = fp.fabric.tiers;
  row->optics_w_per_gpu = fp.fabric.optics_w_per_gpu;
  row->tok_s_per_mw = fp.tok_s_per_mw;
  row->tok_s_per_mw_it = fp.tok_s_per_mw_it;
  row->joules_per_token = fp.joules_per_token;
  row->usd_per_mtok = fp.usd_per_mtok;
}

static void set_status(ResultRow *row, OutcomeKind status, char *reason)
{
  g_free(row->reason);
  row->status = status;
  row->reason = reason;
}

/* The point by event simulation: latency distributions, open loops, traces. */
static void evaluate_des(const Point *pt, const Profile *prof, ResultRow *row)
{
  const ScenarioParams *p = &pt->p;
  double clock = power_clock_for_cap(&pt->system, p->gpu_power_cap);
  Engine e, d;
  SimResult sr;
  char *why;
  gboolean sg = p->engine == SIM_SIMGRID;
  SimulateFunc simulate = sg ? simgrid_simulate : serving_simulate;
  row->engine = g_strdup(sg ? "simgrid" : "des");
  if (p->mode == MODE_AGGREGATED) {
    evaluate_engine(pt, prof, &p->agg, &e);
    e.clock = clock;
    why = simulate(p, &e, p->agg.workers, NULL, 0, FALSE, &sr);
  } else {
    evaluate_engine(pt, prof, &p->prefill, &e);
    evaluate_engine(pt, prof, &p->decode, &d);
    e.clock = d.clock = clock;
    double total = (double)p->prefill.workers * e.gpus + (double)p->decode.workers * d.gpus;
    why = simulate(p, &e, p->prefill.workers, &d, p->decode.workers, total <= pt->system.nvlink_domain_gpus, &sr);
  }
  if (why) {
    set_status(row, sr.outcome, why);
    return;
  }
  set_status(row, OUTCOME_OK, NULL);
  row->deployment_gpus = sr.gpus;
  row->batch = sr.mean_batch;
  row->out_tok_s_per_gpu = sr.out_tok_s / sr.gpus;
  row->tok_s_per_user = 1 / sr.tpot[0];
  row->ttft_p50_ms = sr.ttft[0] * 1e3, row->ttft_p90_ms = sr.ttft[1] * 1e3, row->ttft_p99_ms = sr.ttft[2] * 1e3;
  row->tpot_p50_ms = sr.tpot[0] * 1e3, row->tpot_p90_ms = sr.tpot[1] * 1e3, row->tpot_p99_ms = sr.tpot[2] * 1e3;
  row->e2e_p50_ms = sr.e2e[0] * 1e3, row->e2e_p99_ms = sr.e2e[2] * 1e3;
  row->goodput_req_s = sr.goodput;
  row->planner_moves = p->planner ? sr.moves : NAN;
  evaluate_factory(pt, sr.gpu_activity, row->out_tok_s_per_gpu, clock, row);
}

void evaluate_point(const Point *pt, const Profile *prof, ResultRow *row)
{
  const ScenarioParams *p = &pt->p;
  row->system = g_strdup(pt->system.id);
  row->model = g_strdup(pt->model.id);
  row->config = point_config_label(pt);
  row->family = point_family_label(pt);
  if (p->engine == SIM_DES || p->engine == SIM_SIMGRID || p->green_prefill_sms > 0 ||
      (p->engine == SIM_AUTO && (p->arrival != ARRIVAL_CLOSED || p->trace))) {
    evaluate_des(pt, prof, row);
    return;
  }
  row->engine = g_strdup("steady");
  Load ld = { .isl = p->input.mean, .osl = p->output.mean, .users = p->users, .think_time = p->think_time };
  SteadyState ss;
  char *why;
  Engine e, d;
  double clock = power_clock_for_cap(&pt->system, p->gpu_power_cap);
  if (p->mode == MODE_AGGREGATED) {
    evaluate_engine(pt, prof, &p->agg, &e);
    e.clock = clock;
    ld.max_batch = p->agg.max_batch;
    ld.chunk = p->agg.chunked_prefill;
    why = steady_aggregated(&e, p->agg.workers, &ld, &ss);
  } else {
    evaluate_engine(pt, prof, &p->prefill, &e);
    evaluate_engine(pt, prof, &p->decode, &d);
    e.clock = d.clock = clock;
    ld.max_batch = p->decode.max_batch;
    ld.chunk = p->prefill.chunked_prefill;
    double total = (double)p->prefill.workers * e.gpus + (double)p->decode.workers * d.gpus;
    why = steady_disaggregated(&e, p->prefill.workers, &d, p->decode.workers,
                               total <= pt->system.nvlink_domain_gpus, &ld, &ss);
  }
  row->weights_gb_per_gpu = ss.weights / 1e9;
  row->kv_gb_per_gpu = ss.kv_free / 1e9;
  row->max_seqs = ss.max_seqs;
  if (why) {
    set_status(row, OUTCOME_INFEASIBLE, why);
    return;
  }
  set_status(row, OUTCOME_OK, NULL);
  evaluate_fill_row(&ss, row);
  evaluate_factory(pt, ss.gpu_activity, ss.out_tok_s_per_gpu, e.clock, row);
}

GPtrArray *evaluate_scenario(const Scenario *sc, const Catalog *catalog, const Profile *prof)
{
  GPtrArray *rows = g_ptr_array_new();
  for (gsize i = 0; i < sc->n_points; i++) {
    Point pt;
    scenario_point(sc, catalog, i, &pt);
    ResultRow *r = g_new(ResultRow, 1);
    result_row_init(r, i);
    evaluate_point(&pt, prof, r);
    g_ptr_array_add(rows, r);
    point_clear(&pt);
  }
  return rows;
}

void evaluate_rows_free(GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++) {
    result_row_clear(rows->pdata[i]);
    g_free(rows->pdata[i]);
  }
  g_ptr_array_unref(rows);
}
