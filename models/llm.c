/* llm.c — the model catalog's key table and parameter arithmetic (see llm.h). */
#include "llm.h"
#include "keytable.h"
#include "precision.h"

static const char *const attn_names[] = { "gqa", "mla", NULL };

#define O(f) offsetof(LlmSpec, f)
#define REQ KT_REQUIRED
#define INT(path, f, def, help, fl) { path, KT_INT, 0, def, help, O(f), NULL, fl, NULL, NULL, 0, 0 }
static const KtKey keys[] = {
  { "id", KT_STRING, 0, NULL, "catalog id", O(id), NULL, REQ, NULL, NULL, 0, 0 },
  { "name", KT_STRING, 0, NULL, "full name", O(name), NULL, REQ, NULL, NULL, 0, 0 },
  { "source", KT_STRING, 0, NULL, "source of the figures that name none", O(source), NULL, 0, NULL, NULL, 0, 0 },
  INT("layers", layers, NULL, "transformer layers", REQ | KT_POSITIVE),
  INT("hidden", hidden, NULL, "hidden size", REQ | KT_POSITIVE),
  INT("vocab", vocab, NULL, "vocabulary size", REQ | KT_POSITIVE),
  { "tied_embeddings", KT_BOOL, 0, "false", "input embedding shared with the LM head", O(tied_embeddings), NULL, 0, NULL, NULL, 0, 0 },
  INT("max_context", max_context, NULL, "maximum context length in tokens", REQ | KT_POSITIVE),
  { "native_precision", KT_ENUM, 0, "bf16", "precision the weights were released in", O(native_precision), precision_names, 0, NULL, NULL, 0, 0 },
  INT("fp8_block", fp8_block, "0", "scale block (rows = columns) of the FP8 weights; 0 = per-tensor scales", KT_NONNEG),
  { "attention", KT_GROUP, 0, NULL, "attention blocks", 0, NULL, 0, NULL, NULL, 0, 0 },
  { "attention.kind", KT_ENUM, 0, "gqa", "gqa (grouped-query) or mla (multi-head latent)", O(attn_kind), attn_names, 0, NULL, NULL, 0, 0 },
  INT("attention.heads", heads, NULL, "query heads", REQ | KT_POSITIVE),
  INT("attention.kv_heads", kv_heads, "0", "KV heads (GQA)", KT_NONNEG),
  INT("attention.head_dim", head_dim, "0", "dimension per head (GQA)", KT_NONNEG),
  INT("attention.q_lora_rank", q_lora_rank, "0", "MLA query compression rank (0 = none)", KT_NONNEG),
  INT("attention.kv_lora_rank", kv_lora_rank, "0", "MLA KV latent rank", KT_NONNEG),
  INT("attention.qk_nope_head_dim", qk_nope_head_dim, "0", "MLA non-rotary query/key head dim", KT_NONNEG),
  INT("attention.qk_rope_head_dim", qk_rope_head_dim, "0", "MLA rotary head dim (cached beside the latent)", KT_NONNEG),
  INT("attention.v_head_dim", v_head_dim, "0", "MLA value head dim", KT_NONNEG),
  INT("attention.sliding_window", sliding_window, "0", "sliding-window length in tokens (0 = none)", KT_NONNEG),
  INT("attention.sliding_layers", sliding_layers, "0", "layers that use the sliding window", KT_NONNEG),
  { "ffn", KT_GROUP, 0, NULL, "feed-forward blocks", 0, NULL, 0, NULL, NULL, 0, 0 },
  INT("ffn.dense_layers", dense_layers, NULL, "layers with a dense FFN", REQ | KT_NONNEG),
  INT("ffn.intermediate", intermediate, "0", "dense FFN intermediate size (gated, 3 matrices)", KT_NONNEG),
  { "moe", KT_GROUP, 0, NULL, "mixture-of-experts layers", 0, NULL, 0, NULL, NULL, 0, 0 },
  INT("moe.experts", experts, "0", "routed experts per MoE layer (0 = dense model)", KT_NONNEG),
  INT("moe.experts_per_token", experts_per_token, "0", "routed experts each token uses (top-k)", KT_NONNEG),
  INT("moe.shared_experts", shared_experts, "0", "experts every token uses", KT_NONNEG),
  INT("moe.expert_intermediate", expert_intermediate, "0", "expert FFN intermediate size", KT_NONNEG),
  { "moe.load_cv", KT_NUMBER, DIM_NONE, "0", "spread of the experts' popularity: coefficient of variation of their shares of the routing (0 = uniform; hot experts load their GPUs, and a batch touches fewer distinct experts, moe.h)", O(load_cv), NULL, KT_NONNEG, NULL, NULL, 100, 0 },
  INT("mtp_layers", mtp_layers, "0", "multi-token-prediction heads", KT_NONNEG),
  { "params", KT_GROUP, 0, NULL, "published parameter counts", 0, NULL, 0, NULL, NULL, 0, 0 },
  { "params.total", KT_NUMBER, DIM_NONE, NULL, "total parameters (without MTP heads)", O(params_total), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "params.active", KT_NUMBER, DIM_NONE, NULL, "parameters active per token", O(params_active), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
};
#undef INT
#undef O
#undef REQ

const KtTable llm_table = { "model", keys, G_N_ELEMENTS(keys) };

/* One attention block's weights in two parts: HEADS, the heads' own projections, which attention-TP
 * ranks divide; SHARED, what every rank keeps whole (MLA's down-projections to the query and KV
 * latents: vLLM and SGLang build q_a_proj and kv_a_proj_with_mqa as ReplicatedLinear, TensorRT-LLM
 * its fused_a as a Linear with no tensor-parallel mode) or divides only up to KV_HEADS ways (GQA's
 * KV projections; returned, else 1). */
static int attention_parts(const LlmSpec *m, double *heads, double *shared)
{
  double h = m->hidden;
  if (m->attn_kind == ATTN_MLA) {
    double qk = m->qk_nope_head_dim + m->qk_rope_head_dim;
    double q_up = m->q_lora_rank ? (double)m->q_lora_rank * m->heads * qk : h * m->heads * qk;
    double kv_b = (double)m->kv_lora_rank * m->heads * (m->qk_nope_head_dim + m->v_head_dim);
    double o = (double)m->heads * m->v_head_dim * h;
    *heads = q_up + kv_b + o;
    *shared = h * (m->kv_lora_rank + m->qk_rope_head_dim) + (m->q_lora_rank ? h * m->q_lora_rank : 0);
    return 1;
  }
  *heads = 2.0 * h * m->heads * m->head_dim;
  *shared = 2.0 * h * m->kv_heads * m->head_dim;
  return MAX(m->kv_heads, 1);
}

double llm_attention_params(const LlmSpec *m) { return llm_attention_params_rank(m, 1); }

double llm_attention_params_rank(const LlmSpec *m, int tp)
{
  double heads, shared;
  int kv_split = attention_parts(m, &heads, &shared);
  tp = MAX(tp, 1);
  return heads / tp + shared / MIN(tp, kv_split);
}

double llm_dense_ffn_params(const LlmSpec *m) { return 3.0 * m->hidden * m->intermediate; }
double llm_expert_params(const LlmSpec *m) { return 3.0 * m->hidden * m->expert_intermediate; }
int llm_moe_layers(const LlmSpec *m) { return m->experts ? m->layers - m->dense_layers : 0; }

void llm_param_count(const LlmSpec *m, double *total, double *active)
{
  double emb = (double)m->vocab * m->hidden * (m->tied_embeddings ? 1 : 2);
  double attn = m->layers * llm_attention_params(m);
  double dense = m->dense_layers * llm_dense_ffn_params(m);
  int moe = llm_moe_layers(m);
  double router = (double)m->hidden * m->experts;
  double e = llm_expert_params(m);
  *total = emb + attn + dense + moe * ((m->experts + m->shared_experts) * e + router);
  *active = emb + attn + dense + moe * ((m->experts_per_token + m->shared_experts) * e + router);
}

void llm_spec_clear(LlmSpec *m)
{
  kt_clear(&llm_table, m);
  figure_sources_clear(&m->sources);
}

void llm_spec_copy(LlmSpec *dst, const LlmSpec *src)
{
  *dst = *src;
  kt_copy(&llm_table, dst, src);
  figure_sources_copy(&dst->sources, &src->sources);
}
