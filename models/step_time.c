/* step_time.c — the step-time model (see step_time.h). */
#include "step_time.h"
#include "comm.h"
#include "memory.h"
#include "moe.h"
#include "power.h"

#include <math.h>

/* Token rows a weight-only GEMM pads to: W4A16 kernels (Marlin and its MoE variant, which vLLM runs
 * for MXFP4 on Hopper) issue 16-row mma.sync tiles with the tokens as the narrow operand, so few
 * tokens stay bound by the weight read instead of paying for Hopper's 64-row wgmma tiles. */
#define WEIGHT_ONLY_HALF_M 16.0

/* The rates one GPU reaches, from the catalog peaks and the profile. */
typedef struct {
  double peak;        /* FLOP/s reached by large GEMMs at the serving precision */
  double peak_dense;  /* the same at the attention/dense weight precision */
  double peak_attn;   /* FLOP/s of prompt attention math (BF16 tensor cores; FP8 where fp8_mla_context()) */
  double peak_attn_decode; /* the same for generation attention (FP8 ones where fp8_mla_decode()) */
  double exp_rate;    /* exponentials/s the fused attention gets from the SFUs (0: no such bound) */
  double peak_head;   /* FLOP/s of the BF16 LM head */
  double full, full_dense; /* FLOP/s of a large per-tensor GEMM at the two precisions as the stack
                            * runs it: the tensor cores busy all the time (power) */
  double bw;          /* B/s from HBM */
  double half_m;      /* GEMM rows for half the peak (BF16 LM head) */
  double half_m_w;    /* the same for GEMMs on the serving-precision weights */
  double half_m_dense; /* and on the attention/dense weights */
  double half_n;      /* expert FFN columns per GPU for half the grouped GEMMs' rate */
  double peak_moe;    /* FLOP/s of grouped expert GEMMs on full tiles */
  double tile_m;      /* rows of a grouped GEMM's smallest tile */
  double mem_power;   /* power activity of HBM-bound work */
  double compute_power; /* power activity of compute-bound work at this clock (1 = TDP) */
  CommLinks links;
} Rates;

/* The share of P's peak a large per-tensor-scaled GEMM reaches (the hardware layer). */
static double large_gemm_fraction(const ArchProfile *a, Precision p)
{
  return p == PREC_FP4 ? a->fp4_efficiency : a->gemm_efficiency;
}

/* Whether the engine's FP8 GEMMs at P run on block-scaled weights: only where it serves the FP8
 * checkpoint itself (an FP4 checkpoint's dense layers are requantized or kept wider). */
static gboolean block_scaled(const Engine *e, Precision p)
{
  return p == PREC_FP8 && e->precision == PREC_FP8 && e->model->fp8_block > 0;
}

/* The share of P's peak the hardware's GEMMs reach for the engine's weights. */
static double gemm_fraction(const ArchProfile *a, const Engine *e, Precision p)
{
  if (p != PREC_FP8)
    return large_gemm_fraction(a, p);
  return a->gemm_efficiency * a->fp8_efficiency * (block_scaled(e, p) ? a->fp8_block_efficiency : 1);
}

/* The stacks' share of a large per-tensor GEMM's rate at P. */
static double stack_large_share(const ArchStackProfile *on, Precision p)
{
  return p == PREC_FP4 ? on->fp4 : on->gemm;
}

/* The share of a large GEMM's rate the stacks' dense kernels reach: their FP4 GEMMs, or their
 * BF16/FP8 ones, the block-scaled FP8 ones a share of those (DeepGEMM's, or FlashInfer's where
 * SGLang runs those: engine_flashinfer_fp8; the rows tell them from the experts': their prefill is
 * slow, their large decode batches are not). */
static double stack_gemm_share(const ArchStackProfile *on, const Engine *e, Precision p)
{
  double block = on->fp8_block * (engine_flashinfer_fp8(e) ? on->fp8_block_flashinfer : 1);
  return stack_large_share(on, p) * (block_scaled(e, p) ? block : 1);
}

/* Whether the engine's attention could run on the FP8 tensor cores at all: an MLA model with an
 * FP8 KV cache on a GPU that has them. The stacks decide per phase (below). */
static gboolean fp8_mla(const Engine *e)
{
  return e->model->attn_kind == ATTN_MLA && e->kv_precision == PREC_FP8 && e->sys->flops_fp8 > 0;
}

/* Whether the engine's generation attention runs on the FP8 tensor cores: on Blackwell or later,
 * in a stack whose kernels quantize the queries too. Hopper keeps BF16 math (no stack here
 * documents FP8 MLA generation on it). */
static gboolean fp8_mla_decode(const Engine *e)
{
  return fp8_mla(e) && e->sys->arch != ARCH_HOPPER && e->prof->stack[e->stack].fp8_mla_decode;
}

/* Whether the engine's prompt attention runs on the FP8 tensor cores: in a stack whose context
 * kernels quantize queries, keys and values (TensorRT-LLM on Hopper and Blackwell: profile.c). */
static gboolean fp8_mla_context(const Engine *e)
{
  return fp8_mla(e) && e->prof->stack[e->stack].fp8_mla_context;
}

/* The rates at CLOCK (a fraction of the full tensor-core clock): the hardware layer's, times the
 * shares the stacks' kernels reach on this architecture and this stack's kernel factor. */
static void rates(const Engine *e, double clock, Rates *r)
{
  const ArchProfile *a = &e->prof->arch[e->sys->arch];
  const ArchStackProfile *on = &e->prof->on[e->sys->arch];
  double k = e->prof->stack[e->stack].kernel_efficiency;
  Precision dp = engine_dense_precision(e);
  Precision cw = system_compute_precision(e->sys, e->precision), cd = system_compute_precision(e->sys, dp);
  double sms = e->sm_share > 0 ? e->sm_share : 1.0, bw_share = e->bw_share > 0 ? e->bw_share : 1.0;
  double kc = k * clock * sms; /* compute scales with the clock and with the SMs a Green Context leaves */
  r->peak = system_peak_flops(e->sys, cw) * gemm_fraction(a, e, cw) * stack_gemm_share(on, e, cw) * kc;
  r->peak_dense = system_peak_flops(e->sys, cd) * gemm_fraction(a, e, cd) * stack_gemm_share(on, e, cd) * kc;
  r->peak_head = e->sys->flops_bf16 * a->gemm_efficiency * on->gemm * kc;
  /* the grouped expert GEMMs: the hardware's rate for the experts' weights (block-scaled as the
   * stacks run them), the padded tiles counted where they are run (moe_time) */
  r->peak_moe = system_peak_flops(e->sys, cw) * gemm_fraction(a, e, cw) * (block_scaled(e, cw) ? on->fp8_block : 1) *
                on->moe * kc;
  /* the tensor cores' busy rate: a large per-tensor GEMM as the stack runs it. Its shortfall from
   * the hardware's stands for work the model does not itemise as much as for idle tensor cores,
   * and measured board power says so (docs/validation.md, "Two layers") */
  r->full = system_peak_flops(e->sys, cw) * large_gemm_fraction(a, cw) * stack_large_share(on, cw) * kc;
  r->full_dense = system_peak_flops(e->sys, cd) * large_gemm_fraction(a, cd) * stack_large_share(on, cd) * kc;
  double attn = a->attention_efficiency * on->attention * kc; /* of the tensor cores' peak */
  r->peak_attn = (fp8_mla_context(e) ? e->sys->flops_fp8 : e->sys->flops_bf16) * attn;
  r->peak_attn_decode = (fp8_mla_decode(e) ? e->sys->flops_fp8 : e->sys->flops_bf16) * attn;
  /* the softmax's exponentials: the units' rate as measured (exp_efficiency), at the share of it
   * the same fused kernel reaches */
  r->exp_rate = e->sys->exp_rate * a->exp_efficiency * attn;
  r->bw = e->sys->hbm_bandwidth * a->hbm_efficiency * on->memory * k * bw_share;
  r->mem_power = e->sys->memory_bound_power;
  /* dynamic power goes with clock^2.5 (power.h); the catalog's figure is at the full clock */
  r->compute_power = (e->sys->compute_power > 0 ? e->sys->compute_power : 1) *
                     (clock < 1 ? pow(clock, POWER_CLOCK_EXPONENT) : 1);
  r->half_n = on->gemm_half_n;
  r->half_m = a->gemm_half_m;
  r->half_m_w = cw != e->precision ? MIN(r->half_m, WEIGHT_ONLY_HALF_M) : r->half_m;
  r->half_m_dense = cd != dp ? MIN(r->half_m, WEIGHT_ONLY_HALF_M) : r->half_m;
  /* DeepGEMM's tile for block-scaled experts, the grouped GEMMs' for the rest (trtllm-gen's MoE
   * sizes its own to the step, which moe_time takes instead) */
  double tile = block_scaled(e, cw) ? a->grouped_block_tile_m : a->grouped_tile_m;
  r->tile_m = cw != e->precision ? MIN(tile, WEIGHT_ONLY_HALF_M) : tile;
  comm_links(e->sys, a, on, k, &r->links);
  if (e->nvlink_share > 0) /* a degraded NVLink domain: the switch trays left carry its traffic */
    comm_links_share(&r->links, e->nvlink_share);
}

/* The longer of a kernel's compute and memory times; its power activity goes to *BUSY in seconds
 * at 1 = the TDP: HBM-bound time draws mem_power, compute-bound time compute_power x UTIL, the
 * share of the time its tensor cores are busy (the kernel's rate over a large per-tensor GEMM's:
 * thin GEMMs, small batches and block-scaled FP8 leave them waiting), the two adding up to at most
 * what the busier of them draws alone. */
static double roofline(const Rates *r, double t_compute, double t_memory, double util, double *busy)
{
  double t = MAX(t_compute, t_memory), cp = r->compute_power * CLAMP(util, 0, 1);
  if (t > 0)
    *busy += MIN(t * MAX(cp, r->mem_power), t_compute * cp + t_memory * r->mem_power);
  return t;
}

/* One GEMM of M rows against PARAMS weights of WBYTES each, at PEAK FLOP/s reached from HALF_M
 * rows on (FULL: the same kernel's rate were it per-tensor and large): compute- or
 * weight-read-bound. */
static double gemm(const Rates *r, double peak, double full, double half_m, double m, double params, double wbytes,
                   double *busy)
{
  if (m <= 0 || params <= 0)
    return 0;
  double rate = peak * m / (m + half_m);
  double t_compute = 2.0 * m * params / rate;
  double t_memory = params * wbytes / r->bw;
  return roofline(r, t_compute, t_memory, rate / full, busy);
}

/* Attention FLOPs per (query token, context token) pair, per layer, all heads. MLA decodes in the
 * absorbed form (queries meet the compressed latent); prefill expands the latent. */
static double attn_pair_flops(const LlmSpec *m, gboolean decode)
{
  if (m->attn_kind == ATTN_MLA)
    return decode ? 2.0 * m->heads * (2.0 * m->kv_lora_rank + m->qk_rope_head_dim)
                  : 2.0 * m->heads * (m->qk_nope_head_dim + m->qk_rope_head_dim + m->v_head_dim);
  return 4.0 * m->heads * m->head_dim;
}

/* The longer of fused attention's tensor-core time for FLOPS at PEAK and its SFUs' time for EXPS
 * exponentials (one a head a (query, key) pair: the softmax). A kernel overlaps the two (the
 * softmax of one tile under the MMAs of the next), so the slower unit sets its time: on Hopper and
 * Blackwell BF16 prompt attention is MMA-bound, FP8 prompt attention on Blackwell SFU-bound, which
 * Blackwell Ultra's doubled SFU rate lifts (NVIDIA: ~35% on DeepSeek-V3's FP8 attention). */
static double attention_math(const Rates *r, double flops, double peak, double exps)
{
  double t = flops / peak;
  return r->exp_rate > 0 ? MAX(t, exps / r->exp_rate) : t;
}

/* Mean context a token attends to over the stage's layers, with sliding-window layers capped. */
static double span(const LlmSpec *m, double ctx)
{
  if (m->sliding_window <= 0 || m->sliding_layers <= 0)
    return ctx;
  double f = (double)m->sliding_layers / m->layers;
  return (1 - f) * ctx + f * MIN(ctx, m->sliding_window);
}

/* How the engine's experts sit on its EP groups (moe.h). */
static MoePlacement placement(const Engine *e)
{
  const LlmSpec *m = e->model;
  return (MoePlacement){ .experts = m->experts, .k = m->experts_per_token, .groups = e->ep, .load_cv = m->load_cv,
                         .eplb = e->expert_slots > 0, .redundant = MAX(e->expert_slots - m->experts, 0) };
}

/* Expert layers of one stage: touched experts' weights, grouped GEMMs, shared experts (run on
 * RANK_TOKENS, the busiest GPU's own, where each GPU runs them whole: engine.h). */
static double moe_time(const Engine *e, const Rates *r, double tokens, double rank_tokens, double layers,
                       double *busy)
{
  const LlmSpec *m = e->model;
  if (layers <= 0 || tokens <= 0)
    return 0;
  int g = engine_stage_gpus(e), mtp = engine_moe_tp(e);
  double w_b = precision_bytes(e->precision), pe = llm_expert_params(m);
  double touched = moe_expected_experts(m->experts, m->experts_per_token, tokens, m->load_cv);
  double rows = tokens * m->experts_per_token / touched; /* tokens per touched expert */
  /* the busiest expert-parallel group sets the pace: its share of the tokens (sampling and hot
   * experts) and of the touched experts, uneven while few experts are touched (moe.h) */
  MoePlacement pl = placement(e);
  double flops = 2.0 * tokens * m->experts_per_token * pe / g * moe_busiest_group_load(&pl, tokens);
  /* grouped GEMMs compute each expert's rows in whole tiles: fewer rows than a tile pad to it,
   * more pad their last tile (half a tile on average over the experts' spread of rows); experts
   * sliced over moe_tp GPUs run thin GEMMs besides. trtllm-gen's MoE sizes its tile to the tokens an
   * expert gets (engine_trtllm_gen_moe), DeepGEMM's and the grouped GEMMs' tiles are fixed */
  double cols = (double)m->expert_intermediate / mtp;
  double tile = engine_trtllm_gen_moe(e) ? moe_trtllm_gen_tile(tokens * m->experts_per_token / m->experts) : r->tile_m;
  double shape = rows / moe_tile_rows(rows, tile) * (cols > 0 ? cols / (cols + r->half_n) : 1);
  double rate = r->peak_moe * shape;
  double t_compute = flops / rate;
  double local = moe_busiest_group_experts(m->experts, touched, e->ep);
  double t_memory = local * pe / mtp * w_b / r->bw;
  double b = 0, split = engine_shared_expert_split(e);
  double t = roofline(r, t_compute, t_memory, rate / r->full, &b) +
             gemm(r, r->peak, r->full, r->half_m_w, split < g ? rank_tokens : tokens, m->shared_experts * pe / split,
                  w_b, &b);
  *busy += layers * b;
  return layers * t;
}

/* Under attention data-parallelism each sequence lives on one GPU, so a prompt's tokens all land
 * on one rank: with fewer prompts than ranks the busiest rank holds a whole prompt (chunk), not a
 * 1/ADP share of the step's prompt tokens. Every rank waits for the busiest at the experts. */
static double busiest_rank_tokens(const StepBatch *b, double q_per_seq, int adp)
{
  double prompts = b->prefill_tokens > 0 ? MAX(b->prefill_seqs, 1.0) : 1.0;
  double prefill = b->prefill_rank_tokens > 0 ? b->prefill_rank_tokens : b->prefill_tokens / MIN(prompts, (double)adp);
  return b->decode_seqs * q_per_seq / adp + prefill;
}

/* Copies of each token an attention-DP engine's dispatch sends to the expert GPUs. With whole
 * experts on every GPU (EP = the stage's GPUs) the stacks run DeepEP-style kernels: the
 * low-latency ones of decode-only steps write one copy per routed expert into per-expert buffers,
 * the throughput ones of prompt steps one per GPU holding any of the token's experts (deduplicated
 * by rank). With experts sliced over moe_tp GPUs the tokens are gathered instead, once to each GPU
 * holding a slice of any of their experts (an all-gather when EP is 1). (moe.h) */
static double dispatch_copies(const Engine *e, gboolean decode_only)
{
  const LlmSpec *m = e->model;
  int mtp = engine_moe_tp(e);
  if (mtp == 1 && decode_only)
    return m->experts_per_token;
  return moe_token_groups(m->experts, m->experts_per_token, e->ep) * mtp;
}

/* Collectives of one stage's layers for TOKENS tokens in the step, RANK_TOKENS of them on the
 * busiest attention rank, ROUTED_RANK_TOKENS of those sent to the experts (the padding's dummy
 * ones where the stack masks them out, engine_routes_padding). */
static double comm_time(const Engine *e, const Rates *r, const StepBatch *b, double tokens, double rank_tokens,
                        double routed_rank_tokens, double layers, double moe_layers)
{
  const LlmSpec *m = e->model;
  int g = engine_stage_gpus(e);
  double act = tokens * m->hidden * 2.0; /* BF16 activations */
  if (g <= 1)
    return 0;
  if (!e->dp_attention) /* after attention and after the FFN / experts */
    return layers * 2 * comm_allreduce(&r->links, g, act);
  /* attention data-parallel: experts by all-to-all (FP8 dispatch, BF16 combine), as long as the
   * busiest rank's share takes, and what the stack's all-to-all kernels add to each; dense FFNs
   * gather and scatter the tokens, which costs what an all-reduce does */
  double per_gpu = routed_rank_tokens * dispatch_copies(e, b->prefill_tokens <= 0) * m->hidden;
  double a2a = comm_alltoall(&r->links, g, per_gpu * 1.0) + comm_alltoall(&r->links, g, per_gpu * 2.0) +
               2 * e->prof->stack[e->stack].alltoall_overhead;
  return moe_layers * a2a + (layers - moe_layers) * comm_allreduce(&r->links, g, act);
}

/* Bytes the kernels between the GEMMs move on the busiest GPU in one pass of LAYERS layers
 * (MOE_LAYERS of them expert layers): they read and write activations, not weights, so they run at
 * the HBM's rate whatever the batch, which is why they weigh most in the prompts of small models.
 * Per layer and token: two fused residual-add + RMSNorms (read the residual and the sublayer's
 * output, write the new residual in BF16 and the normed input in the next GEMM's input precision
 * QB), on every token the GPU's attention holds (RANK_TOKENS: all of them under attention TP, whose
 * ranks each norm the whole hidden state). The gated activation of a dense FFN (read both halves of
 * GEMM1's BF16 output, write the product in QB) on the GPU's slice for every token, of each of an
 * expert layer's TOKENS x k / EP token copies on the GPU on its slice of the expert, and of the
 * shared experts on what the GPU runs of them. The experts' token copies themselves cost nothing
 * here: the grouped GEMMs gather their rows (SGLang's fused MoE kernel), the dispatch writes them
 * (the all-to-all, comm_time), and the combine or the all-reduce sums the outputs (TensorRT-LLM's
 * finalize fused into it). RoPE, the KV-cache write and sampling are smaller and left out. */
static double elementwise_bytes(const Engine *e, double tokens, double rank_tokens, double layers, double moe_layers,
                                double dense_layers)
{
  const LlmSpec *m = e->model;
  int g = engine_stage_gpus(e);
  double h = m->hidden;
  double qb = precision_bytes(system_compute_precision(e->sys, engine_dense_precision(e)));
  double qe = precision_bytes(system_compute_precision(e->sys, e->precision));
  double norms = layers * rank_tokens * 2 * h * (3 * 2.0 + qb);
  double ffn = dense_layers * tokens * (double)m->intermediate / g * (2 * 2.0 + qb);
  if (moe_layers <= 0)
    return norms + ffn;
  double split = engine_shared_expert_split(e);
  double routed = tokens * m->experts_per_token / e->ep * (double)m->expert_intermediate / engine_moe_tp(e);
  double shared = (split < g ? rank_tokens : tokens) * m->shared_experts * (double)m->expert_intermediate / split;
  return norms + ffn + moe_layers * (routed + shared) * (2 * 2.0 + qe);
}

/* The architecture's factor on the stack's GPU-side overheads (profile.h). */
static double gpu_overhead_scale(const Engine *e)
{
  double f = e->prof->on[e->sys->arch].overhead_scale;
  return f > 0 ? f : 1;
}

/* A step of decode sequences alone: what a captured CUDA graph runs (engine.h, GraphBatches). */
static gboolean decode_only(const StepBatch *b)
{
  return b->prefill_tokens <= 0 && !b->with_prompts;
}

/* Whether the step runs as a CUDA graph (profile.h: graph_max_tokens), which a decode-only batch
 * above the launch's largest captured one does not. */
static gboolean in_graph(const Engine *e, const StepBatch *b, double tokens)
{
  if (e->eager)
    return FALSE;
  if (decode_only(b) && engine_graph_batch(e, b->decode_seqs / engine_attn_dp(e)) <= 0)
    return FALSE;
  double cap = e->prof->stack[e->stack].graph_max_tokens;
  return cap > 0 ? tokens <= cap : b->prefill_tokens <= 0;
}

/* The batch B's token-proportional work runs: a decode-only step in a captured graph of more
 * sequences (engine.h) does the graph's, its padding's dummy sequences computing GEMMs, experts,
 * collectives and the LM head but attending to no KV cache; any other step its own. */
static StepBatch padded(const Engine *e, const StepBatch *b)
{
  StepBatch w = *b;
  int adp = engine_attn_dp(e);
  double g = decode_only(b) && b->decode_seqs > 0 ? engine_graph_batch(e, b->decode_seqs / adp) : 0;
  if (g > 0)
    w.decode_seqs = g * adp;
  return w;
}

/* One pass of the stage's layers (or of LAYERS layers of the model's mix) for batch B, whose
 * attention reads B's KV caches and whose other work is W's (B padded: padded()) of TOKENS. */
static void layers_time(const Engine *e, const Rates *r, const StepBatch *b, const StepBatch *w, double tokens,
                        double layers, StepTime *out)
{
  const LlmSpec *m = e->model;
  int g = engine_stage_gpus(e), atp = engine_attn_tp(e), adp = engine_attn_dp(e);
  double frac = layers / m->layers;
  double moe_layers = llm_moe_layers(m) * frac, dense_layers = m->dense_layers * frac;
  double dense_b = precision_bytes(engine_dense_precision(e)), w_b = precision_bytes(e->precision);
  double q_per_seq = 1.0 + e->draft_tokens;
  double rank_tokens = adp > 1 ? busiest_rank_tokens(w, q_per_seq, adp) : tokens;
  double rank_prefill = adp > 1 ? rank_tokens - w->decode_seqs * q_per_seq / adp : w->prefill_tokens;
  /* attention projections: a TP rank's weights (llm.h) for all tokens, or whole weights for each
   * GPU's share */
  double act = 0;
  out->gemm += layers * gemm(r, r->peak_dense, r->full_dense, r->half_m_dense, rank_tokens,
                             llm_attention_params_rank(m, atp), dense_b, &act);
  out->busy += layers * act;
  act = 0;
  out->gemm += dense_layers * gemm(r, r->peak, r->full, r->half_m_w, tokens, llm_dense_ffn_params(m) / g, w_b, &act);
  out->busy += dense_layers * act;
  /* attention math and KV reads */
  double seqs_gpu = b->decode_seqs / adp;
  double kv_bytes = seqs_gpu * memory_kv_bytes_per_seq_gpu(e, b->decode_ctx) * frac * e->pp;
  double dec_pairs = seqs_gpu * q_per_seq * span(m, b->decode_ctx) * layers / atp;
  double pre_pairs = rank_prefill * span(m, b->prefill_ctx) * layers / atp;
  double t_math = attention_math(r, dec_pairs * attn_pair_flops(m, TRUE), r->peak_attn_decode, dec_pairs * m->heads) +
                  attention_math(r, pre_pairs * attn_pair_flops(m, FALSE), r->peak_attn, pre_pairs * m->heads);
  out->attention += roofline(r, t_math, kv_bytes / r->bw, 1, &out->busy);
  /* the experts see the padding's dummy tokens only where the stack routes them */
  gboolean routed = engine_routes_padding(e);
  double real_tokens = b->decode_seqs * q_per_seq + b->prefill_tokens;
  double real_rank = adp > 1 ? busiest_rank_tokens(b, q_per_seq, adp) : real_tokens;
  out->moe += moe_time(e, r, routed ? tokens : real_tokens, rank_tokens, moe_layers, &out->busy);
  double ew = elementwise_bytes(e, routed ? tokens : real_tokens, rank_tokens, layers, moe_layers, dense_layers);
  out->elementwise += roofline(r, 0, ew / r->bw, 0, &out->busy);
  double c = comm_time(e, r, w, tokens, rank_tokens, routed ? rank_tokens : real_rank, layers, moe_layers);
  out->comm += c;
  out->busy += c * e->sys->comm_power;
  const StackProfile *sp = &e->prof->stack[e->stack];
  double per_layer = sp->layer_overhead + (in_graph(e, b, tokens) ? 0 : sp->eager_layer_overhead);
  out->overhead += (layers * per_layer + moe_layers * sp->moe_layer_overhead) * gpu_overhead_scale(e);
}

/* Sequences the busiest scheduler handles in the step: an attention-DP rank's share of the decode
 * sequences and of the prompts (a whole one where there are fewer prompts than ranks), or the
 * engine's all. */
static double host_seqs(const Engine *e, const StepBatch *b)
{
  int adp = engine_attn_dp(e);
  if (adp <= 1)
    return b->decode_seqs + b->prefill_seqs;
  return b->decode_seqs / adp + MAX(b->prefill_seqs / adp, MIN(b->prefill_seqs, 1.0));
}

/* The busiest of PP micro-batches of B: a PP share of its decode sequences, and its prompts whole,
 * a PP share of them, or one where there are fewer prompts than stages (a prompt is in one
 * micro-batch: the stacks do not schedule a request into two at once). B itself without stages. */
static StepBatch micro_batch(const StepBatch *b, int pp)
{
  if (pp <= 1)
    return *b;
  StepBatch mb = *b;
  mb.decode_seqs = b->decode_seqs / pp;
  double prompts = b->prefill_seqs >= pp ? b->prefill_seqs / pp : MIN(b->prefill_seqs, 1.0);
  mb.prefill_tokens = b->prefill_seqs > 0 ? b->prefill_tokens * prompts / b->prefill_seqs : b->prefill_tokens / pp;
  mb.prefill_seqs = prompts;
  mb.prefill_rank_tokens = 0; /* the placement is the whole batch's: a micro-batch's prompts spread */
  return mb;
}

/* The step at CLOCK: its parts, and its activity at that clock (1 = the TDP). Pipeline stages run
 * the engine's sequences in PP micro-batches (TensorRT-LLM's, vLLM's and SGLang's pipeline
 * schedules): every stage works on one micro-batch while the others work on the rest, and a
 * sequence's next token comes after its micro-batch has passed every stage, so the step of the
 * engine's whole batch B (each of its sequences one token on) is PP stage steps of the busiest
 * micro-batch (micro_batch), which paces the pipeline, and the PP - 1 transfers between stages. */
static void step_at(const Engine *e, const StepBatch *b, double clock, StepTime *out)
{
  const LlmSpec *m = e->model;
  Rates r;
  rates(e, clock, &r);
  *out = (StepTime){ .clock = clock };
  double q_per_seq = 1.0 + e->draft_tokens;
  StepBatch mb = micro_batch(b, e->pp);
  StepBatch w = padded(e, &mb); /* each micro-batch runs in its own graph */
  double tokens = w.decode_seqs * q_per_seq + w.prefill_tokens;
  double stage_layers = (double)m->layers / e->pp;
  layers_time(e, &r, &mb, &w, tokens, stage_layers, out);
  /* LM head (BF16, vocabulary-parallel): logits for decode positions and each prompt's last token */
  int g = engine_stage_gpus(e);
  double head_params = (double)m->vocab * m->hidden / g;
  out->gemm += gemm(&r, r.peak_head, r.peak_head, r.half_m, w.decode_seqs * q_per_seq + w.prefill_seqs, head_params, 2.0,
                    &out->busy);
  /* a micro-batch's activations pass each stage boundary once */
  double p2p = e->pp > 1 ? (e->pp - 1) * comm_p2p(&r.links, e->gpus <= e->sys->nvlink_domain_gpus,
                                                    tokens / engine_attn_dp(e) * m->hidden * 2.0)
                         : 0;
  out->gemm *= e->pp, out->attention *= e->pp, out->moe *= e->pp, out->elementwise *= e->pp;
  out->comm = out->comm * e->pp + p2p;
  out->overhead *= e->pp, out->busy *= e->pp;
  /* MTP drafts: d sequential passes of the one-layer MTP head, each with its LM head, for every
   * micro-batch */
  if (e->draft_tokens > 0 && mb.decode_seqs > 0) {
    StepBatch db = { .decode_seqs = mb.decode_seqs, .decode_ctx = mb.decode_ctx }, dw = db;
    dw.decode_seqs = w.decode_seqs; /* the drafts run in the step's graph, padded alike */
    StepTime d = { 0 };
    Engine one = *e;
    one.draft_tokens = 0;
    layers_time(&one, &r, &db, &dw, dw.decode_seqs, m->mtp_layers, &d);
    d.gemm += gemm(&r, r.peak_head, r.peak_head, r.half_m, dw.decode_seqs, head_params, 2.0, &d.busy);
    out->mtp = e->pp * e->draft_tokens * (d.gemm + d.attention + d.moe + d.elementwise + d.comm + d.overhead);
    out->busy += e->pp * e->draft_tokens * d.busy;
  }
  const StackProfile *sp = &e->prof->stack[e->stack];
  out->overhead += e->pp * sp->step_overhead * gpu_overhead_scale(e); /* one launch a micro-batch */
  double gpu = out->gemm + out->attention + out->moe + out->elementwise + out->comm + out->overhead + out->mtp;
  /* the host's part: waited for between steps, or formed during the GPU's step by the overlap
   * scheduler and waited for only where it is longer. With MTP drafts it has a part per sequence,
   * the busiest scheduler's: an attention-DP rank's own sequences, or the whole engine's. Each
   * micro-batch is a scheduler iteration of its own */
  double host = e->pp * (sp->host_overhead + (e->draft_tokens > 0 ? sp->mtp_host_overhead * host_seqs(e, &mb) : 0));
  out->overhead += engine_overlaps(e) ? MAX(host - gpu, 0) : host;
  out->total = out->gemm + out->attention + out->moe + out->elementwise + out->comm + out->overhead + out->mtp;
  /* launch gaps and host work last micro- to milliseconds: the board's power does not fall to idle
   * in between, so they draw what the kernels around them draw */
  double working = out->total - out->overhead;
  out->activity = working > 0 ? out->busy / working : 0;
}

void step_time(const Engine *e, const StepBatch *b, StepTime *out)
{
  /* At the full clock first; a step whose work would draw more than the board may (its TDP, or a
   * power cap) runs at the clock that brings it to the limit: dynamic power goes with
   * clock^2.5 (power.h), the limit is the idle power plus activity x (TDP - idle). HBM-bound steps
   * keep the full clock; compute-bound ones slow by the clock, their memory time does not. */
  step_at(e, b, 1.0, out);
  double allowed = power_allowed_activity(e->sys, e->power_limit);
  if (out->activity > allowed) {
    step_at(e, b, power_limited_clock(e->sys, out->activity, e->power_limit), out);
    out->activity = MIN(out->activity, allowed);
  }
}

static StepBatch decode_batch(double seqs, double ctx) { return (StepBatch){ .decode_seqs = seqs, .decode_ctx = ctx }; }

static StepBatch prefill_batch(double seqs, double len)
{
  return (StepBatch){ .prefill_tokens = seqs * len, .prefill_seqs = seqs, .prefill_ctx = len / 2 };
}

static StepTime timed(const Engine *e, StepBatch b)
{
  StepTime t;
  step_time(e, &b, &t);
  return t;
}

double step_time_decode(const Engine *e, double seqs, double ctx) { return timed(e, decode_batch(seqs, ctx)).total; }
double step_time_decode_beside_prompts(const Engine *e, double seqs, double ctx)
{
  StepBatch b = decode_batch(seqs, ctx);
  b.with_prompts = TRUE;
  return timed(e, b).total;
}
double step_time_prefill(const Engine *e, double seqs, double len) { return timed(e, prefill_batch(seqs, len)).total; }
double step_time_prefill_after(const Engine *e, double seqs, double len, double cached)
{
  StepBatch b = prefill_batch(seqs, len);
  b.prefill_ctx += cached; /* the new tokens attend to the cached ones too */
  return timed(e, b).total;
}
double step_activity_decode(const Engine *e, double seqs, double ctx) { return timed(e, decode_batch(seqs, ctx)).activity; }
double step_activity_prefill(const Engine *e, double seqs, double len)
{
  return timed(e, prefill_batch(seqs, len)).activity;
}
