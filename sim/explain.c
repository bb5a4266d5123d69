/* explain.c — one measured row or scenario point taken apart (explain.h). The steps it times are
 * the model's own (step_time.h) on the engines as launched: a decode step at the sequences a decode
 * engine ran in the prediction (its mean batch; without one, its users up to its batch cap and what
 * its KV pool has room for) at the mean context (prompt and half the answer), one prompt alone on
 * the engine that prefills, and a full prefill step at the launch's token budget; each beside its
 * floors (step_floor.h). */
#include "explain.h"

#include "memory.h"
#include "step_floor.h"
#include "step_time.h"

#include <math.h>

static const char *const metric_labels[N_METRICS] = { "throughput per GPU (tok/s)", "tok/s per user", "TTFT (ms)",
                                                      "GPU power (W)", "server power (W)" };

static void metrics(GString *out, const ValRow *r, const Prediction *p)
{
  g_string_append_printf(out, "%-28s %12s %12s %10s\n", "", "measured", "predicted", "ratio");
  for (int m = 0; m < N_METRICS; m++) {
    double meas = r->measured[m], pred = p->predicted[m]; /* TTFT in ms, as validate's columns */
    if (isnan(meas) && isnan(pred))
      continue;
    g_string_append_printf(out, "%-28s ", metric_labels[m]);
    if (isnan(meas))
      g_string_append_printf(out, "%12s ", "-");
    else
      g_string_append_printf(out, "%12.5g ", meas);
    if (isnan(pred))
      g_string_append_printf(out, "%12s ", "-");
    else
      g_string_append_printf(out, "%12.5g ", pred);
    if (isnan(meas) || isnan(pred) || meas <= 0)
      g_string_append(out, "         -\n");
    else
      g_string_append_printf(out, "%10.3f\n", pred / meas);
  }
}

/* Prints B's step on E beside its floors; returns the step's seconds. */
static double step_line(GString *out, const char *what, const Engine *e, const StepBatch *b)
{
  StepTime t;
  StepFloor f;
  step_time(e, b, &t);
  step_floor(e, b, &f);
  g_string_append_printf(out, "  %s\n", what);
  g_string_append_printf(out, "    %.3f ms = gemm %.3f, attention %.3f, moe %.3f, elementwise %.3f, comm %.3f, overhead %.3f, "
                              "mtp %.3f; clock %.2f\n",
                         t.total * 1e3, t.gemm * 1e3, t.attention * 1e3, t.moe * 1e3, t.elementwise * 1e3, t.comm * 1e3,
                         t.overhead * 1e3, t.mtp * 1e3, t.clock);
  g_string_append_printf(out, "    floor %.3f ms: %.3f GB a GPU at the HBM's %.2f TB/s = %.3f ms, %.3f TFLOP a GPU at %.0f TFLOP/s "
                              "= %.3f ms; the step is %.2fx its floor\n",
                         f.floor_s * 1e3, f.bytes / 1e9, e->sys->hbm_bandwidth / 1e12, f.memory_s * 1e3, f.flops / 1e12,
                         f.compute_s > 0 ? f.flops / f.compute_s / 1e12 : 0, f.compute_s * 1e3,
                         f.floor_s > 0 ? t.total / f.floor_s : 0);
  return t.total;
}

static void engine_line(GString *out, const char *pool, const Engine *e, int workers)
{
  g_string_append_printf(out, "  %s: %d x %d GPUs, EP %d%s%s%s, %d MTP drafts%s\n", pool, workers, e->gpus, e->ep,
                         e->dp_attention ? ", attention data-parallel" : ", attention tensor-parallel",
                         e->expert_slots > 0 ? ", EPLB slots" : "",
                         engine_trtllm_gen_moe(e) ? ", experts in trtllm-gen's tiles" : "", e->draft_tokens,
                         e->eager ? ", no CUDA graphs" : "");
}

void explain_steps(GString *out, const Deployment *d, double batch)
{
  g_string_append(out, "engines as launched:\n");
  if (d->disaggregated)
    engine_line(out, "prefill", &d->prefill, d->pre_workers);
  engine_line(out, d->disaggregated ? "decode" : "engines", &d->decode, d->dec_workers);
  const Load *l = &d->load;
  double cap = engine_launch_cap(&d->decode, l->max_batch);
  MemoryPlan plan;
  double reserved = memory_context(&d->decode, l->isl, l->osl, FALSE);
  g_autofree char *no_room = memory_plan(&d->decode, reserved, &plan);
  if (no_room)
    g_string_append_printf(out, "  %s memory: %s\n", d->disaggregated ? "decode engine's" : "engine's", no_room);
  else
    g_string_append_printf(out, "  %s memory: %.1f GB of weights and a %.1f GB KV pool a GPU: room for %.0f sequences of %.0f "
                                "reserved tokens, %.0f a batch at most\n",
                           d->disaggregated ? "decode engine's" : "engine's", plan.weights / 1e9, plan.kv_free / 1e9,
                           plan.max_seqs, reserved, cap);
  g_string_append(out, "where a step's time goes, in ms (the model's step, step_time.h, whose parts overlap where it runs "
                       "them together; the floor, step_floor.h):\n");
  double workers = MAX(d->dec_workers, 1);
  double seqs = l->users > 0 ? MIN(l->users / workers, cap) : cap;
  double ctx = l->isl + l->osl / 2;
  const char *why = "its users, up to its batch cap";
  if (!no_room && plan.max_seqs < seqs) /* the engine holds no more than its KV pool has room for */
    seqs = plan.max_seqs, why = "all its KV pool holds";
  if (batch > 0) /* what the prediction ran: a prefill-bound pool feeds its decode engines fewer */
    seqs = batch, why = "the prediction's mean";
  g_autofree char *what = g_strdup_printf("a decode step of one %s: %.0f sequences (%s) at %.0f tokens of context",
                                          d->disaggregated ? "decode engine" : "engine", seqs, why, ctx);
  StepBatch dec = { .decode_seqs = seqs, .decode_ctx = ctx };
  step_line(out, what, &d->decode, &dec);
  const Engine *pre = d->disaggregated ? &d->prefill : &d->decode;
  g_free(what);
  what = g_strdup_printf("one prompt of %.0f tokens alone on the %s", l->isl, d->disaggregated ? "prefill engine" : "engine");
  StepBatch one = { .prefill_tokens = l->isl, .prefill_seqs = 1, .prefill_ctx = l->isl / 2 };
  step_line(out, what, pre, &one);
  double budget = l->chunk > 0 ? l->chunk : l->isl;
  double ranks = engine_attn_dp(pre), per_rank = MAX(1, floor(budget / l->isl));
  StepBatch full = { .prefill_tokens = per_rank * l->isl * ranks, .prefill_seqs = per_rank * ranks,
                     .prefill_ctx = l->isl / 2 };
  g_free(what);
  what = g_strdup_printf("a prefill step at the launch's token budget (%.0f tokens a rank): %.0f prompt%s on %.0f rank%s",
                         budget, full.prefill_seqs, full.prefill_seqs == 1 ? "" : "s", ranks, ranks == 1 ? "" : "s");
  double full_s = step_line(out, what, pre, &full);
  g_string_append_printf(out, "    %.0f prompt tokens a second a GPU at that step\n", full.prefill_tokens / full_s / pre->gpus);
}

char *explain_row(const ValRow *r, const Prediction *p)
{
  GString *out = g_string_new(NULL);
  g_string_append_printf(out, "%s: %s on %s, %s, %s\n", r->id, r->model->id, r->system, r->framework, r->mode);
  g_string_append_printf(out, "load: %.0f prompt and %.0f answer tokens a request (mean), ", r->load.isl, r->load.osl);
  if (r->load.users > 0)
    g_string_append_printf(out, "%.0f users\n", r->load.users);
  else
    g_string_append(out, "no concurrency (offline or a latency-limited scenario)\n");
  g_string_append_printf(out, "predicted %s: %s%s%s\n", outcome_names[p->status], p->config ? p->config : "-",
                         p->reason ? "; " : "", p->reason ? p->reason : "");
  metrics(out, r, p);
  if (r->unsupported)
    return g_string_free(out, FALSE);
  if (p->status == OUTCOME_INFEASIBLE)
    g_string_append(out, "the row is infeasible: its steps timed as if its engines fitted\n");
  Deployment d;
  validate_deployment(r, &d);
  explain_steps(out, &d, p->batch);
  return g_string_free(out, FALSE);
}
