/* recipes.h — how the benchmarks behind measured rows launched their engines, as data.
 *
 * A recipes file (calibration/measured/recipes.yaml) lists recipes: conditions on a measured row
 * (source, model, framework, mode, system, precision, lengths, concurrency, ...) and the launch
 * settings the benchmark's scripts gave such a row (the stack's scheduler figures, MTP drafts, the
 * batch cap, the step's token budget, the KV cache's precision and pool, the decode engine's EPLB
 * slots and batch cap),
 * each naming its source; and the
 * MLPerf rules (the dataset's prompt length, the latency limits), and the benchmarks' load
 * generators (how they draw lengths and how many requests they send). validate.c asks for the settings
 * of each row it builds; no benchmark rule lives in C. */
#ifndef AIF_RECIPES_H
#define AIF_RECIPES_H

#include <glib.h>

#include "engine.h"
#include "precision.h"

typedef struct Recipes Recipes;

/* What a recipe's conditions read of a measured row. Strings are the row's own (the framework as
 * the benchmark names it: "trt", "dynamo-trt"), the arch the catalog's name for it. */
typedef struct {
  const char *source_kind, *model, *framework, *mode, *scenario, *system, *arch, *precision;
  gboolean mtp, attention_dp;  /* the decode engine's */
  double engine_gpus;          /* the decode engine's */
  double isl, osl;             /* nominal */
  double concurrency;          /* 0: not a concurrency row */
  double decode_rank_users;    /* users per decode attention rank (disaggregated rows) */
} RecipeRow;

/* The settings of every recipe a row matched, later ones over earlier. NAN: not set. */
typedef struct {
  gboolean launched;           /* a recipe set a scheduler figure: those it left out are the stack's */
  double adp_balance_timeout, adp_batching_wait, batch_wait_timeout, batch_wait_tokens, recv_interval;
  double overlap;              /* 1 on, 0 off, NAN the stack's */
  int draft_tokens;            /* -1: not set */
  double max_batch, chunk;     /* NAN: not set */
  /* max_batch / chunk: trtllm-bench. The batch cap and the step's token budget (max_num_tokens)
   * as trtllm-bench computes them from the KV room (recipes_trtllm_bench_limits), which the caller
   * has the figures for */
  gboolean bench_max_batch, bench_chunk;
  GraphBatches graphs;         /* graph_batches: the CUDA graphs captured, padded to (n 0: not set) */
  int kv_cache;                /* Precision, or -1: not set */
  int expert_slots;            /* the decode engine's EPLB slots (0: none), or -1: not set */
  double decode_rank_batch;    /* disaggregated: sequences a decode attention rank runs at most; NAN: not set */
  double kv_memory_fraction;   /* the fraction the stack's KV-pool rule took on every engine; NAN: the stack's */
  /* ep: engine. Every attention-DP engine of the row that records EP 1 spreads its experts over all
   * its GPUs (the recipes' ep-size = dp-size = tp-size); the rows' EP column says 1 for them */
  gboolean ep_engine;
  /* attention_dp: whether the engines ran attention data-parallel (1) or tensor-parallel (0),
   * where the row's record says otherwise; -1: as the row records it */
  int attention_dp;
  /* moe_a2a: SGLang's --moe-a2a-backend on every engine of the row: deepep (1: DeepEP's dispatch
   * and combine, the experts in DeepGEMM) or none (0: the MoE runner's default); -1: not set */
  int deepep;
  /* sliced_moe_backend: TensorRT-LLM's MoE backend on the row's engines whose experts are sliced
   * over tensor parallelism (EP 1 on several GPUs): trtllm (1: trtllm-gen's MoE, Engine.trtllm_gen_moe)
   * or deepgemm (0); the engines with whole experts over EP keep DeepGEMM; -1: not set */
  int sliced_trtllm_gen;
} RecipeSettings;

typedef struct {
  double dataset_isl;          /* tokens */
  double server_tpot, server_ttft, interactive_tpot, interactive_ttft; /* s, p99 limits */
} MlperfRules;

/* How a benchmark's load generator ran its concurrency rows: each prompt's and answer's length
 * drawn uniformly from length_range x nominal up to the nominal, prompts_per_user x CONC requests
 * sent with at most CONC in flight, all of the first CONC at once, figures over every request. */
typedef struct {
  double length_range;         /* 0 < range <= 1 */
  double prompts_per_user;
} ClientRules;

/* One offline run a benchmark documents: REQUESTS requests of ISL prompt and OSL output tokens
 * (the nominal lengths), every one of them queued at once, all of the same lengths, and the
 * figure taken over the whole run, so that the requests the last wave holds run on their own. */
typedef struct {
  double isl, osl, requests;
} OfflineRun;

/* What trtllm-bench's engine settings are computed from (TensorRT-LLM tensorrt_llm/bench/build/
 * tuning.py, calc_engine_setting): the engine's GPUs (TP x PP) and PP, each GPU's memory, the
 * weights of the whole model, the KV cache's bytes per token (2 x layers x max(TP, KV heads) x
 * head size x bytes), the dataset's lengths and the KV cache's share of the room left. Bytes. */
typedef struct {
  double gpus, pp, gpu_memory, weights, kv_token, isl, osl, kv_fraction;
} BenchEngine;

/* trtllm-bench's max_batch_size and max_num_tokens for B: the requests whose KV cache of ISL + OSL
 * tokens fits the room the weights leave (at most 4,096, per pipeline stage), rounded up to 32 (at
 * least 64) below 256, to 128 below 1,024, to 256 beyond; the tokens those requests' prompts bring
 * per output token, (1 + ISL / OSL) of them, at most 32,768, rounded up to 256 (at least 2,048)
 * below 4,096, to 512 below 8,192, to 1,024 beyond. FALSE when the weights do not fit. */
gboolean recipes_trtllm_bench_limits(const BenchEngine *b, double *max_batch, double *max_tokens);
/* The graphs of LIST a TensorRT-LLM engine keeps (model_engine.py, _filter_cuda_graph_batch_sizes):
 * those up to min(MAX_BATCH, MAX_TOKENS / (1 + DRAFTS)), and that bound itself where the list had
 * one above it to pad to. */
void recipes_trtllm_graphs(const GraphBatches *list, double max_batch, double max_tokens, int drafts,
                           GraphBatches *out);

/* Loads PATH; bad input is AIF_ERROR_INPUT at file:line:col. */
Recipes *recipes_load(const char *path, GError **error);
void recipes_free(Recipes *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Recipes, recipes_free)

/* The batch cap a recipe sized as a CUDA-graph batch for USERS sequences a rank: the largest power
 * of two up to 256, beyond that the largest multiple of 256, not above USERS (at least 1). */
double recipes_graph_floor(double users);
/* The settings for ROW (all unset when no recipe matches). */
void recipes_apply(const Recipes *r, const RecipeRow *row, RecipeSettings *out);
/* MLPerf's rules for MODEL, or NULL. */
const MlperfRules *recipes_mlperf(const Recipes *r, const char *model);
/* The load generator of SOURCE_KIND's benchmark, or NULL (then a steady window is measured). */
const ClientRules *recipes_client(const Recipes *r, const char *source_kind);
/* The requests SOURCE_KIND's benchmark queued for an offline run of nominal lengths ISL and OSL,
 * or 0 when it documents none (then the steady state of a saturated engine is the figure). */
double recipes_offline_requests(const Recipes *r, const char *source_kind, double isl, double osl);

#endif
