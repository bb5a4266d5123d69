/* memory.h — what one GPU of an engine holds: weights under the sharding, the KV pool the serving
 * stack sizes by its own rule, and the rest for activations and the runtime, hence how many
 * sequences an engine can keep in flight. */
#ifndef AIF_MEMORY_H
#define AIF_MEMORY_H

#include "engine.h"

typedef struct {
  double weights;     /* B per GPU (the fullest GPU) */
  double reserve;     /* B per GPU the stack's KV-pool rule leaves to activations, runtime, fragmentation */
  double kv_free;     /* B per GPU left for the KV cache; negative when the weights do not fit */
  double kv_per_seq;  /* B per GPU for one sequence of the planned context */
  double max_seqs;    /* sequences of that context the whole engine holds */
} MemoryPlan;

/* Bytes of KV cache one token adds to one layer of the whole model (every head, no sharding). */
double memory_kv_bytes_per_token_layer(const LlmSpec *m, Precision kv);
/* Bytes one sequence of CTX tokens holds on one GPU of the engine (all its layers). */
double memory_kv_bytes_per_seq_gpu(const Engine *e, double ctx);
/* Weight bytes on one GPU. */
double memory_weight_bytes_gpu(const Engine *e);

/* The context one sequence reserves KV cache for, the same rule for the steady state and the event
 * simulation: a prefill engine holds the prompt (ISL) only; any other holds the prompt and the
 * answer, whole (OSL) when the stack guarantees no eviction (kv_reserve_full: TensorRT-LLM's
 * GUARANTEED_NO_EVICT admission), half of it on average when the stack admits on an estimate and
 * evicts (SGLang, vLLM). */
double memory_context(const Engine *e, double isl, double osl, gboolean prompt_only);

/* Bytes per GPU the engine's stack gives its KV pool beside WEIGHTS bytes of weights, by the
 * stack's rule (profile.h, KvPoolRule; negative when the weights do not fit); RESERVE (may be
 * NULL) gets what is left for the rest. */
double memory_kv_pool(const Engine *e, double weights, double *reserve);
/* Plans memory for sequences of CTX tokens. Returns NULL when it fits, or why not, with the
 * numbers ("needs 98.3 GB per GPU for weights and reserve, has 80 GB"), newly allocated. */
char *memory_plan(const Engine *e, double ctx, MemoryPlan *out);

#endif
