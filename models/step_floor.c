/* step_floor.c — the datasheet floors of one engine step (step_floor.h). Reuses the memory
 * module's weights per GPU and KV bytes per sequence, so the floor and the model count the same
 * bytes; only the efficiencies and overheads differ. */
#include "step_floor.h"

#include "hardware.h"
#include "llm.h"
#include "memory.h"
#include "moe.h"

#include <math.h>

/* Routed-expert bytes one GPU holds (its EP share, each expert sliced over the expert TP). */
static double routed_expert_bytes(const Engine *e)
{
  const LlmSpec *m = e->model;
  if (m->experts <= 0)
    return 0;
  double layers = (double)llm_moe_layers(m) / e->pp;
  return (double)engine_experts_per_gpu(e) / engine_moe_tp(e) * llm_expert_params(m) * layers *
         precision_bytes(e->precision);
}

void step_floor(const Engine *e, const StepBatch *b, StepFloor *out)
{
  const LlmSpec *m = e->model;
  Engine base = *e;
  base.draft_tokens = 0; /* the floor is the main model's step, without the MTP heads */
  double tokens = b->decode_seqs + b->prefill_tokens;
  double routed = routed_expert_bytes(&base);
  double touched = 1;
  if (m->experts > 0)
    touched = tokens > 0 ? moe_expected_experts(m->experts, m->experts_per_token, tokens, m->load_cv) / m->experts : 0;
  double weights = memory_weight_bytes_gpu(&base) - routed * (1 - touched);
  double kv = b->decode_seqs > 0 ? b->decode_seqs / engine_attn_dp(e) * memory_kv_bytes_per_seq_gpu(e, b->decode_ctx) : 0;
  double total, active;
  llm_param_count(m, &total, &active);
  out->bytes = weights + kv;
  out->flops = 2 * active * tokens / e->gpus;
  out->memory_s = out->bytes / e->sys->hbm_bandwidth;
  double peak = system_peak_flops(e->sys, system_compute_precision(e->sys, e->precision));
  out->compute_s = peak > 0 ? out->flops / peak : 0;
  out->floor_s = fmax(out->memory_s, out->compute_s);
}
