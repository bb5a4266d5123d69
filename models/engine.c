/* engine.c — engine layout helpers and the front end before an engine (see engine.h). */
#include "engine.h"

int engine_stage_gpus(const Engine *e) { return e->gpus / e->pp; }

double engine_front_end(const Engine *e, double isl)
{
  const StackProfile *sp = &e->prof->stack[e->stack];
  double per_token = e->dynamo_front ? e->prof->dynamo_token_overhead : sp->request_token_overhead;
  return sp->request_overhead + per_token * MAX(isl, 0);
}

int engine_attn_tp(const Engine *e) { return e->dp_attention ? 1 : engine_stage_gpus(e); }
int engine_attn_dp(const Engine *e) { return e->dp_attention ? engine_stage_gpus(e) : 1; }
int engine_moe_tp(const Engine *e) { return engine_stage_gpus(e) / e->ep; }
int engine_shared_expert_split(const Engine *e)
{
  /* SGLang does so only beside an all-to-all backend (DeepEP); by default it gathers every rank's
   * tokens for the experts and splits the shared one over the group like a dense FFN */
  gboolean whole = e->dp_attention && engine_moe_tp(e) == 1 && (e->stack != STACK_SGLANG || e->deepep);
  return whole ? 1 : engine_stage_gpus(e);
}

double engine_tokens_per_step(const Engine *e)
{
  double t = 1, a = 1;
  for (int i = 0; i < e->draft_tokens; i++) {
    a *= e->acceptance;
    t += a;
  }
  return t;
}

double engine_batch_cap(const Engine *e)
{
  return e->prof->stack[e->stack].max_seqs_per_rank * engine_attn_dp(e);
}

double engine_launch_cap(const Engine *e, double max_batch)
{
  return max_batch < ENGINE_BATCH_UNSET ? max_batch : engine_batch_cap(e);
}

double engine_graph_batch(const Engine *e, double rank_seqs)
{
  const GraphBatches *g = &e->graphs;
  if (g->n <= 0)
    return rank_seqs;
  for (int i = 0; i < g->n; i++) /* a fractional mean batch pads as the batches around it do */
    if (g->size[i] >= rank_seqs - 1e-9)
      return g->size[i];
  return 0;
}

gboolean engine_routes_padding(const Engine *e)
{
  return !(e->stack == STACK_SGLANG && e->ep > 1);
}

gboolean engine_block_fp8_past_hopper(const Engine *e)
{
  return e->sys->arch != ARCH_HOPPER && e->precision == PREC_FP8 && e->model->fp8_block > 0;
}

gboolean engine_flashinfer_fp8(const Engine *e)
{
  return e->stack == STACK_SGLANG && !e->deepep && engine_block_fp8_past_hopper(e);
}

gboolean engine_trtllm_gen_moe(const Engine *e)
{
  return (e->stack == STACK_TRTLLM && e->trtllm_gen_moe && engine_block_fp8_past_hopper(e)) || engine_flashinfer_fp8(e);
}

/* One stretch of a capture ladder: FROM, FROM + STEP, ... up to TO and MAX (both inclusive), the
 * last slot kept for MAX itself. */
static void ladder(GraphBatches *g, int from, int to, int step, int max)
{
  for (int b = from; b <= to && b <= max && g->n < GRAPH_BATCHES_MAX - 1; b += step)
    g->size[g->n++] = b;
}

void engine_stack_graphs(Stack stack, int drafts, int max_batch, GraphBatches *out)
{
  out->n = 0;
  int m = MAX(1, max_batch);
  switch (stack) {
  case STACK_TRTLLM:
    ladder(out, 1, 2, 1, m), ladder(out, 4, 4, 1, m), ladder(out, 8, 128, 8, m), ladder(out, 192, m, 64, m);
    break;
  case STACK_SGLANG:
    if (drafts > 0)
      ladder(out, 1, 8, 1, m), ladder(out, 10, 32, 2, m), ladder(out, 40, 64, 4, m), ladder(out, 72, 256, 8, m),
        ladder(out, 272, m, 16, m);
    else
      ladder(out, 1, 2, 1, m), ladder(out, 4, 12, 4, m), ladder(out, 16, 256, 8, m), ladder(out, 272, 496, 16, m),
        ladder(out, 512, m, 32, m);
    break;
  default: /* vLLM: graphs by tokens, for any step up to the profile's graph_max_tokens, unpadded */
    return;
  }
  if (out->n == 0 || out->size[out->n - 1] < m)
    out->size[out->n++] = m;
}

int engine_experts_per_gpu(const Engine *e)
{
  int slots = e->expert_slots > 0 ? e->expert_slots : e->model->experts;
  return (slots + e->ep - 1) / e->ep;
}

gboolean engine_overlaps(const Engine *e)
{
  return e->prof->stack[e->stack].overlap_scheduler && !(e->stack == STACK_SGLANG && e->draft_tokens > 0);
}

double engine_recv_interval(const Engine *e)
{
  return engine_attn_dp(e) > 1 ? 1 : MAX(1, e->prof->stack[e->stack].recv_interval);
}

Precision engine_dense_precision(const Engine *e)
{
  if (e->model->experts > 0 && e->precision == PREC_FP4)
    return PREC_BF16;
  return e->precision;
}

char *engine_check(const Engine *e)
{
  Precision cp = system_compute_precision(e->sys, e->precision);
  if (system_peak_flops(e->sys, cp) <= 0 || (e->native_only && cp != e->precision))
    return g_strdup_printf("%s has no %s tensor cores%s", e->sys->id, precision_names[e->precision],
                           cp != e->precision ? " (weight-only serving is off)" : "");
  if (e->gpus < 1 || e->pp < 1 || e->gpus % e->pp)
    return g_strdup_printf("%d GPUs do not split into %d pipeline stages", e->gpus, e->pp);
  int g = engine_stage_gpus(e);
  if (e->ep < 1 || g % e->ep)
    return g_strdup_printf("EP %d does not divide the %d GPUs of a stage", e->ep, g);
  if (e->ep > 1 && e->model->experts == 0)
    return g_strdup_printf("EP %d on %s, which has no experts", e->ep, e->model->id);
  if (e->model->experts && e->ep > e->model->experts)
    return g_strdup_printf("EP %d exceeds %d experts", e->ep, e->model->experts);
  if (e->expert_slots > 0 && e->expert_slots < e->model->experts)
    return g_strdup_printf("%d expert slots hold fewer than the %d experts", e->expert_slots, e->model->experts);
  if (e->expert_slots > 0 && e->expert_slots % e->ep)
    return g_strdup_printf("EP %d does not divide %d expert slots", e->ep, e->expert_slots);
  if (e->pp > e->model->layers)
    return g_strdup_printf("PP %d exceeds %d layers", e->pp, e->model->layers);
  if (!e->dp_attention && e->model->heads % engine_attn_tp(e))
    return g_strdup_printf("TP %d does not divide %d attention heads", engine_attn_tp(e), e->model->heads);
  if (e->draft_tokens > 0 && e->model->mtp_layers == 0)
    return g_strdup_printf("%s has no MTP head for speculative decoding", e->model->id);
  return NULL;
}
