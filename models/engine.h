/* engine.h — one serving engine: the GPUs that together hold one copy of the model.
 *
 * An engine has GPUS = TP x PP GPUs. Inside a pipeline stage the attention is either tensor-parallel
 * over the stage's GPUs or, with attention data-parallel, replicated with each GPU serving its own
 * sequences; expert layers are spread over EP GPUs and tensor-parallel over the rest (moe_tp =
 * stage GPUs / EP). The memory and step-time models read this struct and nothing else. */
#ifndef AIF_ENGINE_H
#define AIF_ENGINE_H

#include "hardware.h"
#include "llm.h"
#include "precision.h"
#include "profile.h"

/* The batch sizes (sequences per attention rank, ascending) a launch captured CUDA graphs of
 * decode-only steps for, with padding (TensorRT-LLM's cuda_graph_config.enable_padding; SGLang and
 * vLLM pad to their capture sizes by default): a decode-only step runs the smallest graph that
 * holds its batch, the padding's dummy sequences doing GEMM, expert, collective and LM-head work
 * but holding no KV cache; a batch above the largest runs eagerly. */
#define GRAPH_BATCHES_MAX 192
typedef struct {
  int n;
  double size[GRAPH_BATCHES_MAX];
} GraphBatches;

typedef struct {
  const SystemSpec *sys;
  const LlmSpec *model;
  const Profile *prof;
  Precision precision;     /* GEMM weights and math */
  Precision kv_precision;  /* KV cache */
  Stack stack;
  gboolean dynamo_front;   /* its requests come through Dynamo's front end, not the stack's own server */
  int gpus;                /* GPUs of the engine */
  int pp;                  /* pipeline stages */
  int ep;                  /* expert-parallel GPUs (1..gpus/pp) */
  gboolean dp_attention;   /* attention data-parallel over a stage's GPUs */
  int draft_tokens;        /* MTP draft tokens per step (0 = no speculation) */
  double acceptance;       /* probability each draft token is accepted */
  double power_limit;      /* W per GPU the board may draw (a power cap); 0: its TDP. Steps whose
                            * work would draw more run at a lower clock (step_time.h) */
  int expert_slots;        /* EPLB: expert slots per MoE layer over the EP GPUs (0: no EPLB;
                            * slots - experts are redundant copies of hot experts) */
  gboolean eager;          /* no CUDA graphs: every step's kernels launched by the host */
  /* SGLang launched with --moe-a2a-backend deepep: its block-scaled FP8 GEMMs run DeepGEMM on
   * Blackwell too; without it (the default) FlashInfer's and trtllm-gen's kernels do there
   * (step_time.c) */
  gboolean deepep;
  /* TensorRT-LLM launched with moe_config.backend TRTLLM: a block-scaled FP8 checkpoint's experts
   * in trtllm-gen's MoE on Blackwell, whose token tile follows the tokens an expert gets
   * (moe_trtllm_gen_tile), not in DeepGEMM's fixed tiles (engine_trtllm_gen_moe) */
  gboolean trtllm_gen_moe;
  double sm_share;         /* Green Context: fraction of the SMs this stream owns; 0 means all */
  double bw_share;         /* fraction of HBM bandwidth it gets (the other stream takes the rest); 0: all */
  double nvlink_share;     /* fraction of its NVLink bandwidth it has (a domain with switch trays down);
                            * 0: all */
  gboolean native_only;    /* refuse weights in a format the GPU has no tensor cores for */
  double kv_fraction;      /* the fraction the stack's KV-pool rule takes as launched; 0: the stack's */
  GraphBatches graphs;     /* CUDA graphs as launched; n 0: every decode-only step runs in a graph
                            * of its own batch, unpadded */
} Engine;

/* Seconds before a request of ISL prompt tokens reaches the engine: the stack's request_overhead
 * plus the front end's time per prompt token (the stack's request_token_overhead, or Dynamo's where
 * Dynamo serves it). */
double engine_front_end(const Engine *e, double isl);
/* GPUs of one pipeline stage, and how attention, dense FFNs and experts are split over them. */
int engine_stage_gpus(const Engine *e);
int engine_attn_tp(const Engine *e);  /* 1 with attention data-parallel */
int engine_attn_dp(const Engine *e);  /* stage GPUs with attention data-parallel, else 1 */
int engine_moe_tp(const Engine *e);
/* The GPUs a shared expert is split over: the stage's, or none where attention is data-parallel
 * over whole experts (the wide-EP layout), whose stacks run it whole on each GPU for that GPU's
 * own tokens (TensorRT-LLM's "MoE Shared Experts: DP"; SGLang's with tp_size 1 beside DeepEP). */
int engine_shared_expert_split(const Engine *e);
/* The batch a decode-only step of RANK_SEQS sequences per attention rank runs in its CUDA graph
 * (the smallest captured size that holds them, or RANK_SEQS itself without a capture list), or 0
 * when no graph holds them and the step runs eagerly. */
double engine_graph_batch(const Engine *e, double rank_seqs);
/* Whether the dummy sequences a padded graph adds are routed to the experts. TensorRT-LLM's
 * padding replicates a dummy request through the whole model (and an attention-DP rank without a
 * sequence runs one too); SGLang's expert-parallel engines mask the tokens past the batch's real
 * ones out of the top-k (num_token_non_padded), so no expert computes or receives them. */
gboolean engine_routes_padding(const Engine *e);
/* Whether the engine serves a block-scaled FP8 checkpoint (DeepSeek's) in FlashInfer's kernels, not
 * DeepGEMM: SGLang on Blackwell and later without DeepEP. TensorRT-LLM (its DEEPGEMM MoE backend
 * unless launched with TRTLLM, Engine.trtllm_gen_moe, which changes its experts' tile, not its dense
 * GEMMs; DeepGEMM's kernel on Hopper too), vLLM
 * (DeepGEMM for block-scaled FP8 MoE), and SGLang on Hopper (its default) or with DeepEP run
 * DeepGEMM. Without an all-to-all backend on SM100 SGLang runs the experts in FlashInfer's
 * trtllm-gen MoE (server_args: moe_runner_backend "flashinfer_trtllm" where moe_a2a_backend is
 * "none"), whose token tile follows the tokens per expert (moe_trtllm_gen_tile), and its launches there run the
 * dense GEMMs in FlashInfer's with DeepGEMM switched off (InferenceX's dsr1_fp8_b200.sh:
 * SGL_ENABLE_JIT_DEEPGEMM=false, SGLANG_ENABLE_FLASHINFER_GEMM=true; the Dynamo B200 and GB200
 * low-latency recipes likewise), at the stack layer's fp8_block_flashinfer share (step_time.c);
 * `aifsim launch` sets the same switches (launch.c). */
gboolean engine_flashinfer_fp8(const Engine *e);
/* Whether the engine serves a block-scaled FP8 checkpoint on Blackwell or later, where FlashInfer's
 * and trtllm-gen's kernels for it exist (and TensorRT-LLM's MoE backend picks between them and
 * DeepGEMM's). */
gboolean engine_block_fp8_past_hopper(const Engine *e);
/* Whether the engine's block-scaled FP8 experts run in trtllm-gen's MoE, its tile following the
 * tokens per expert: TensorRT-LLM launched with its TRTLLM MoE backend (Engine.trtllm_gen_moe) on
 * Blackwell or later, or SGLang where it runs FlashInfer's kernels (engine_flashinfer_fp8: its
 * flashinfer_trtllm MoE runner). */
gboolean engine_trtllm_gen_moe(const Engine *e);
/* The CUDA graphs STACK captures, padded, for decode-only steps of up to MAX_BATCH sequences per
 * attention rank (DRAFTS > 0: speculative steps), as `aifsim launch` writes them and each stack
 * generates them by default, with MAX_BATCH itself added where the ladder steps over it (so no
 * batch the engine admits runs eagerly):
 *   TensorRT-LLM (CudaGraphConfig._generate_cuda_graph_batch_sizes, enable_padding): 1, 2, 4,
 *     multiples of 8 to 128, then steps of 64;
 *   SGLang (ServerArgs._generate_cuda_graph_batch_sizes): 1, 2, 4, 8, 12, multiples of 8 to 256,
 *     of 16 to 496, of 32 from 512; with speculative decoding 1-8, steps of 2 to 32, of 4 to 64,
 *     of 8 to 256, of 16 beyond;
 * A ladder longer than GRAPH_BATCHES_MAX stops there and ends at MAX_BATCH. vLLM gets none (n 0):
 * its V1 engine captures graphs by tokens for any step up to a size (the profile's
 * graph_max_tokens), prompt steps included, which the model runs unpadded. */
void engine_stack_graphs(Stack stack, int drafts, int max_batch, GraphBatches *out);
/* Tokens accepted per decode step per sequence: 1 + a + a^2 + ... + a^d. */
double engine_tokens_per_step(const Engine *e);
/* A batch cap this large or larger is no launch setting (validate's rows that give none). */
#define ENGINE_BATCH_UNSET ((double)(1 << 20))
/* The most sequences the stack's scheduler runs in one engine step where its launch sets no cap:
 * the stack's own default (max_seqs_per_rank per attention rank). */
double engine_batch_cap(const Engine *e);
/* The most sequences one engine runs in a step, before memory: MAX_BATCH, the cap its launch sets
 * (TensorRT-LLM's max_batch_size, SGLang's --max-running-requests, vLLM's --max-num-seqs), which
 * replaces the stack's default; the default where the launch sets none (ENGINE_BATCH_UNSET). */
double engine_launch_cap(const Engine *e, double max_batch);
/* Routed experts one GPU holds: the EPLB slots' share, or the experts' rounded up (redundant copies
 * fill the slots when EP does not divide them). */
int engine_experts_per_gpu(const Engine *e);
/* Precision of the attention projections. FP4 checkpoints of MoE models quantize the experts and
 * leave attention in BF16: nvidia/DeepSeek-R1-NVFP4's hf_quant_config excludes every layer's
 * `self_attn*` (its v2 quantizes only their output projection more), gpt-oss's MXFP4 covers its
 * experts alone. Their dense FFN layers and shared experts are quantized with the experts. */
Precision engine_dense_precision(const Engine *e);
/* Whether the host forms the next step's batch while the GPU runs this one: the stack's overlap
 * scheduler, which SGLang turns off under EAGLE (MTP) speculative decoding (server_args: "Overlap
 * scheduler is disabled because of using eagle speculative decoding", unless its opt-in v2
 * speculative path is enabled). */
gboolean engine_overlaps(const Engine *e);
/* Decode steps between the scheduler's looks for new requests (SGLang's --scheduler-recv-interval,
 * 1 = every step); attention-DP engines look every step. */
double engine_recv_interval(const Engine *e);

/* NULL when the engine can run; otherwise why not (unsupported precision, parallelism that does
 * not divide), newly allocated. */
char *engine_check(const Engine *e);

#endif
