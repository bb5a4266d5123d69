/* moe.h — how much of a mixture-of-experts layer a batch touches.
 *
 * With T tokens each routed to k of E experts (uniformly, without repeats), an expert is left
 * untouched with probability (1 - k/E)^T, so E (1 - (1 - k/E)^T) distinct experts are expected to
 * run: the expert weights a step must read grow with the batch until every expert is read.
 *
 * Under expert parallelism the experts are split into groups, each on its own GPUs, and a step
 * lasts as long as its busiest group. While a batch touches few of the experts, the touched ones
 * spread unevenly: with 4 tokens on DeepSeek-R1 (top-8 of 256) over 8 groups of 32, a group runs
 * 3.8 experts on average and the busiest ~6.4, so EP8 reads 1.7x what tensor-parallel experts
 * (every GPU a slice of each) read. Each group's count is binomial, and the busiest of G is its
 * mean plus the expected maximum of G standard normals times its spread, capped at the group.
 *
 * Experts are not equally popular either (hot experts): each expert's share of the routing varies
 * around 1/E with a coefficient of variation CV (the model's moe.load_cv), so a group of n experts
 * carries its mean share with a relative spread CV / sqrt(n) on top of the sampling spread, and a
 * batch's picks pile onto the popular experts: fewer distinct experts run (and read their weights)
 * than under uniform routing, each with more tokens. EPLB
 * (DeepSeek's expert-parallel load balancer, TensorRT-LLM's and SGLang's) places experts by their
 * measured load and copies the hottest into R redundant slots: the group loads then differ by what
 * the packing of m = (E + R) / G slots per group leaves, about a slot's spread over m,
 * CV x E / (E + R) / m. Approximations, stated in docs/model.md.
 *
 * Dispatch and combine (the all-to-all of attention-DP engines) move a token once per GPU that
 * holds one of its experts in the throughput ("normal") kernels, which deduplicate by rank, and once
 * per expert in the low-latency kernels, which write into per-expert buffers (DeepEP's two modes; the
 * stacks run the first for prefill, the second for decode steps, with whole experts on each GPU;
 * step_time.c). */
#ifndef AIF_MOE_H
#define AIF_MOE_H

#include <glib.h>

/* Expected distinct experts (of E, top-K routing) that TOKENS tokens touch, the experts' popularity
 * spread by CV (moe.load_cv; 0 = uniform). Hot experts take more of the picks, so a batch touches
 * fewer distinct experts than under uniform routing: each expert's share is taken as Gamma-
 * distributed around 1/E with that CV, which misses an expert with probability
 * (1 + lambda CV^2)^(-1/CV^2) where uniform routing misses it with exp(-lambda) = (1 - k/E)^T. */
double moe_expected_experts(int experts, int k, double tokens, double cv);
/* Expected distinct experts in the busiest of GROUPS equal groups of the experts, when TOUCHED of
 * them run (moe_expected_experts). */
double moe_busiest_group_experts(int experts, double touched, int groups);
/* How a layer's experts sit on GROUPS expert-parallel groups. */
typedef struct {
  int experts, k;   /* routed experts, experts per token */
  int groups;       /* expert-parallel groups (EP) */
  double load_cv;   /* spread of the experts' popularity (0 = uniform routing) */
  gboolean eplb;    /* placed by measured load (EPLB) */
  int redundant;    /* redundant expert slots EPLB fills with copies of hot experts */
} MoePlacement;

/* The busiest group's token-to-expert assignments over the mean group's (1 when balanced) for
 * TOKENS tokens: sampling spread and popularity skew together. */
double moe_busiest_group_load(const MoePlacement *p, double tokens);
/* Expected distinct groups a token's K experts fall in (drawn without repeats from E experts in
 * GROUPS equal groups): the copies a deduplicating dispatch sends of each token. */
double moe_token_groups(int experts, int k, int groups);
/* The rows a grouped (expert) GEMM computes for ROWS rows per expert in tiles of TILE rows: each
 * expert's rows in whole tiles, fewer than a tile padding to one, more padding their last tile by
 * half a tile on average over the experts' spread of rows (smoothly: ROWS + TILE - TILE/2 x
 * min(ROWS/TILE, 1)). step_time.c charges expert GEMMs for these; calibrate.c fits TILE to the
 * kernels' grouped GEMMs with the same rule. */
double moe_tile_rows(double rows, double tile);
/* The token tile trtllm-gen's MoE kernels pick for TOKENS_PER_EXPERT (a step's tokens x k / experts,
 * as if spread evenly): its whole part's next power of two, 8 to 128 rows (TensorRT-LLM's
 * calculate_tile_tokens_dim; FlashInfer's, which SGLang's flashinfer_trtllm runner calls, the
 * same). DeepGEMM's tile is fixed instead (the hardware layer's grouped_block_tile_m). */
double moe_trtllm_gen_tile(double tokens_per_expert);
/* TensorRT-LLM's MoE backend for a block-scaled FP8 checkpoint's experts on Blackwell and later
 * (its moe_config.backend): DEEPGEMM (fixed 128-row tiles), TRTLLM (trtllm-gen's, the tile
 * following the tokens per expert), or AUTO, as NVIDIA's own launches pick it: TRTLLM where the
 * experts are sliced over tensor parallelism (EP 1 on several GPUs), DEEPGEMM where they are spread
 * whole over the GPUs (the srt-slurm Dynamo recipes for B200 FP8: TRTLLM on their
 * moe_expert_parallel_size 1 workers, DEEPGEMM on their attention-DP EP-8 ones; InferenceX's B200
 * FP8 TensorRT-LLM scripts likewise: docs/validation.md). */
typedef enum { MOE_BACKEND_AUTO, MOE_BACKEND_DEEPGEMM, MOE_BACKEND_TRTLLM } MoeBackend;
/* Whether an engine launched with BACKEND whose experts are sliced MOE_TP ways (its stage GPUs over
 * EP: engine_moe_tp) runs them in trtllm-gen's MoE (Engine.trtllm_gen_moe). */
gboolean moe_backend_trtllm_gen(MoeBackend backend, int moe_tp);

#endif
