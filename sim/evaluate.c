/* evaluate.c — point -> result row (see evaluate.h). */
#include "evaluate.h"
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

char *point_config_label(const Point *pt)
{
  const ScenarioParams *p = &pt->p;
  GString *s = g_string_new(NULL);
  if (p->mode == MODE_AGGREGATED) {
    engine_label(s, "agg ", &p->agg);
  } else {
    engine_label(s, "P ", &p->prefill);
    engine_label(s, "D ", &p->decode);
  }
  g_string_append_printf(s, " %s %s", precision_names[p->precision], framework_names[p->framework]);
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
    .dp_attention = es->attention_dp,
    .draft_tokens = p->spec_method == SPEC_MTP ? p->spec_tokens : 0, .acceptance = p->spec_acceptance,
  };
}

void evaluate_fill_row(const SteadyState *ss, ResultRow *row)
{
  row->gpus = ss->gpus;
  row->batch = ss->batch;
  row->tok_s_per_user = ss->tok_s_per_user;
  row->out_tok_s_per_gpu = ss->out_tok_s_per_gpu;
  row->ttft_p50_ms = ss->ttft * 1e3;
  row->tpot_p50_ms = ss->tpot * 1e3;
  row->step_ms = ss->step * 1e3;
}

static void set_status(ResultRow *row, const char *status, char *reason)
{
  g_free(row->status);
  g_free(row->reason);
  row->status = g_strdup(status);
  row->reason = reason;
}

void evaluate_point(const Point *pt, const Profile *prof, ResultRow *row)
{
  const ScenarioParams *p = &pt->p;
  row->system = g_strdup(pt->system.id);
  row->model = g_strdup(pt->model.id);
  row->config = point_config_label(pt);
  if (p->arrival != ARRIVAL_CLOSED) {
    set_status(row, "unsupported", g_strdup("open-loop and trace arrivals need the event simulator (not built yet)"));
    return;
  }
  Load ld = { .isl = p->input.mean, .osl = p->output.mean, .users = p->users, .think_time = p->think_time };
  SteadyState ss;
  char *why;
  Engine e, d;
  if (p->mode == MODE_AGGREGATED) {
    evaluate_engine(pt, prof, &p->agg, &e);
    ld.max_batch = p->agg.max_batch;
    ld.chunk = p->agg.chunked_prefill;
    why = steady_aggregated(&e, p->agg.workers, &ld, &ss);
  } else {
    evaluate_engine(pt, prof, &p->prefill, &e);
    evaluate_engine(pt, prof, &p->decode, &d);
    ld.max_batch = p->decode.max_batch;
    ld.chunk = p->prefill.chunked_prefill;
    int total = p->prefill.workers * e.gpus + p->decode.workers * d.gpus;
    why = steady_disaggregated(&e, p->prefill.workers, &d, p->decode.workers,
                               total <= pt->system.nvlink_domain_gpus, &ld, &ss);
  }
  row->weights_gb_per_gpu = ss.weights / 1e9;
  row->kv_gb_per_gpu = ss.kv_free / 1e9;
  row->max_seqs = ss.max_seqs;
  if (why) {
    set_status(row, "infeasible", why);
    return;
  }
  set_status(row, "ok", NULL);
  evaluate_fill_row(&ss, row);
}
