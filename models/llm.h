/* llm.h — one LLM of the model catalog: the architecture a step-time model needs.
 *
 * Entries live in models/llm/<id>.yaml, taken from each model's published configuration (the entry
 * names it as its source). Dense and MoE FFNs, GQA and MLA attention, sliding-window layers and MTP
 * heads are described by plain counts; llm_param_count() rebuilds the parameter count from them so a
 * test can hold each entry to its published total. */
#ifndef AIF_LLM_H
#define AIF_LLM_H

#include "sources.h"

/* The YAML binding of the type below (keytable.h); declared here without pulling libyaml into
 * the physics that only reads the struct. */
typedef struct KtTable KtTable;

typedef enum { ATTN_GQA, ATTN_MLA } AttentionKind;

typedef struct {
  char *id, *name, *source /* entry-wide source for figures that name none */;
  int layers, hidden, vocab;
  gboolean tied_embeddings;
  /* attention */
  int attn_kind; /* AttentionKind */
  int heads, kv_heads, head_dim;
  int q_lora_rank, kv_lora_rank, qk_nope_head_dim, qk_rope_head_dim, v_head_dim; /* MLA */
  int sliding_window;  /* tokens; 0 = full attention everywhere */
  int sliding_layers;  /* layers that use the sliding window */
  /* FFN */
  int dense_layers;    /* layers with a dense FFN (all of them for a dense model) */
  int intermediate;    /* dense FFN width (gated: 3 matrices) */
  int experts, experts_per_token, shared_experts, expert_intermediate; /* MoE layers */
  double load_cv;      /* spread (coefficient of variation) of the experts' shares of the routing */
  int mtp_layers;      /* multi-token-prediction heads (speculative decoding) */
  int native_precision; /* Precision the weights were released in */
  /* Rows and columns per scale block of the FP8 checkpoint (DeepSeek: 128 x 128 weight blocks,
   * activations scaled per 1 x 128 group); 0 = one scale per tensor. Block-scaled GEMMs run below
   * per-tensor FP8 (the profile's fp8_block_efficiency). */
  int fp8_block;
  int max_context;
  double params_total, params_active; /* published counts (without MTP heads) */
  FigureSources sources;
} LlmSpec;

extern const KtTable llm_table;

/* Parameters implied by the architecture (MTP heads excluded): all of them, and those one token
 * touches (top-k routed experts plus shared ones). */
void llm_param_count(const LlmSpec *m, double *total, double *active);
int llm_moe_layers(const LlmSpec *m);
/* Parameters of one attention block, one dense FFN, one routed expert. */
double llm_attention_params(const LlmSpec *m);
/* The attention weights one of TP attention tensor-parallel ranks holds: the stacks split the
 * heads' projections (MLA's up-projections and output, GQA's queries and output) and replicate
 * what no head owns (MLA's down-projections to the query and KV latents) or what there are fewer
 * of than ranks (GQA's KV heads past kv_heads). */
double llm_attention_params_rank(const LlmSpec *m, int tp);
double llm_dense_ffn_params(const LlmSpec *m);
double llm_expert_params(const LlmSpec *m);

void llm_spec_clear(LlmSpec *m);
void llm_spec_copy(LlmSpec *dst, const LlmSpec *src);

#endif
