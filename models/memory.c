/* memory.c — weights, KV cache and capacity per GPU (see memory.h). */
#include "memory.h"

#include <math.h>

double memory_kv_bytes_per_token_layer(const LlmSpec *m, Precision kv)
{
  double elems = m->attn_kind == ATTN_MLA ? (double)(m->kv_lora_rank + m->qk_rope_head_dim)
                                          : 2.0 * m->kv_heads * m->head_dim;
  return elems * precision_bytes(kv);
}

double memory_kv_bytes_per_seq_gpu(const Engine *e, double ctx)
{
  const LlmSpec *m = e->model;
  double per_layer = memory_kv_bytes_per_token_layer(m, e->kv_precision);
  /* GQA heads split over the attention TP ranks (replicated past kv_heads); the MLA latent is shared
   * by all heads, so every TP rank keeps all of it. */
  if (m->attn_kind == ATTN_GQA)
    per_layer /= MIN(engine_attn_tp(e), m->kv_heads);
  double layers = (double)m->layers / e->pp;
  double sliding = (double)m->sliding_layers / e->pp;
  double window = m->sliding_window > 0 ? MIN(ctx, m->sliding_window) : ctx;
  return per_layer * ((layers - sliding) * ctx + sliding * window);
}

double memory_weight_bytes_gpu(const Engine *e)
{
  const LlmSpec *m = e->model;
  int g = engine_stage_gpus(e);
  double dense_b = precision_bytes(engine_dense_precision(e)), w_b = precision_bytes(e->precision);
  double layers = (double)m->layers / e->pp, moe = (double)llm_moe_layers(m) / e->pp;
  double dense_layers = (double)m->dense_layers / e->pp;
  double attn_rank = llm_attention_params_rank(m, engine_attn_tp(e)) * dense_b; /* a layer's, on a GPU */
  double attn = attn_rank * layers;
  double dense = llm_dense_ffn_params(m) * dense_layers / g * w_b;
  double shared = (double)m->shared_experts / engine_shared_expert_split(e); /* shared experts a GPU holds */
  double experts = ((double)engine_experts_per_gpu(e) / engine_moe_tp(e) + shared) * llm_expert_params(m) * moe * w_b;
  double router = (double)m->hidden * m->experts * moe * 2.0;
  double emb = (double)m->vocab * m->hidden * (m->tied_embeddings ? 1 : 2) / g * 2.0;
  double mtp = 0;
  if (e->draft_tokens > 0) /* one MoE layer plus its input projection (2h x h) */
    mtp = m->mtp_layers * (attn_rank +
                           (m->experts / (double)g + shared) * llm_expert_params(m) * w_b +
                           2.0 * m->hidden * m->hidden * dense_b);
  return attn + dense + experts + router + emb + mtp;
}

double memory_context(const Engine *e, double isl, double osl, gboolean prompt_only)
{
  if (prompt_only)
    return isl;
  return isl + (e->prof->stack[e->stack].kv_reserve_full ? osl : osl / 2);
}

double memory_kv_pool(const Engine *e, double weights, double *reserve)
{
  const StackProfile *sp = &e->prof->stack[e->stack];
  double hbm = e->sys->hbm_capacity, act = hbm * e->prof->memory_reserve, kv;
  double f = e->kv_fraction > 0 ? e->kv_fraction : sp->kv_memory_fraction;
  switch (sp->kv_pool) {
  case KV_POOL_STATIC:
    kv = (f > 0 ? f : 1 - e->prof->memory_reserve) * hbm - weights;
    break;
  case KV_POOL_UTILIZATION:
    kv = f * hbm - weights - act;
    break;
  case KV_POOL_FREE:
  default:
    kv = hbm - weights - act;
    kv = kv > 0 ? f * kv : kv;
    break;
  }
  if (reserve) /* whatever the pool and the weights leave */
    *reserve = hbm - weights - kv;
  return kv;
}

char *memory_plan(const Engine *e, double ctx, MemoryPlan *out)
{
  double hbm = e->sys->hbm_capacity;
  out->weights = memory_weight_bytes_gpu(e);
  out->kv_free = memory_kv_pool(e, out->weights, &out->reserve);
  out->kv_per_seq = memory_kv_bytes_per_seq_gpu(e, ctx);
  out->max_seqs = out->kv_free > 0 ? floor(out->kv_free / out->kv_per_seq) * engine_attn_dp(e) : 0;
  if (out->kv_free <= 0)
    return g_strdup_printf("needs %.1f GB per GPU for weights and reserve, has %.1f GB",
                           (out->weights + out->reserve) / 1e9, hbm / 1e9);
  if (out->max_seqs < 1)
    return g_strdup_printf("one sequence of %.0f tokens needs %.2f GB of KV cache per GPU, %.2f GB left",
                           ctx, out->kv_per_seq / 1e9, out->kv_free / 1e9);
  return NULL;
}
