/* profile.h — the efficiencies and overheads the performance model reads.
 *
 * Peak figures come from the catalog; how close real kernels get to them comes from a profile in
 * two layers. The hardware layer, per GPU architecture, says what its kernels reach (HBM copies,
 * cuBLAS GEMMs, FlashAttention, NCCL): measured by `aifsim calibrate` on the user's GPUs or taken
 * from published microbenchmarks, with their sources (the built-in defaults below). The stack
 * layer says what serving adds: per architecture, the shares of those rates the stacks' kernels
 * reach and the overheads' scale; per serving stack, its overheads, scheduler and kernel quality
 * (TensorRT-LLM, SGLang and vLLM differ by ~1.2x on the same hardware). `aifsim fit` fits the stack
 * layer on public measured results with the hardware layer held: the shipped
 * calibration/profiles/default.yaml. */
#ifndef AIF_PROFILE_H
#define AIF_PROFILE_H

#include <glib.h>

#include "precision.h"

/* The YAML binding of the type below (keytable.h); declared here without pulling libyaml into
 * the physics that only reads the struct. */
typedef struct KtTable KtTable;

#define N_ARCH 5
typedef enum { STACK_TRTLLM, STACK_SGLANG, STACK_VLLM, N_STACK } Stack;
extern const char *const stack_names[]; /* "trtllm", "sglang", "vllm", NULL */

/* The hardware layer of one GPU architecture: what its kernels reach of the datasheet, as
 * `aifsim calibrate` measures them or published microbenchmarks report them (docs/validation.md,
 * "Two layers"). `aifsim fit` holds it; no stack's loss belongs here. */
typedef struct {
  double hbm_efficiency;      /* fraction of the HBM bandwidth a streaming copy reaches */
  double gemm_efficiency;     /* fraction of dense BF16 peak reached by large GEMMs (cuBLAS) */
  double fp4_efficiency;      /* the same fraction of dense FP4 peak for FP4 GEMMs */
  /* factor on gemm_efficiency for FP8 GEMMs: cuBLASLt's per-tensor FP8 reaches a smaller share of
   * its doubled peak than BF16 does of its own (an H200: 0.87x, calibration/README.md) */
  double fp8_efficiency;
  /* factor on gemm_efficiency for FP8 GEMMs of block-scaled weights (a model's fp8_block): the
   * per-block rescaling in the main loop and the activation quantization per group */
  double fp8_block_efficiency;
  double gemm_half_m;         /* tokens (GEMM rows) at which a GEMM reaches half its peak fraction */
  /* token rows of the tile a grouped (expert) GEMM computes per expert: 64 on Hopper (wgmma's rows
   * in CUTLASS's and DeepGEMM's grouped kernels) and on Blackwell (the trtllm-gen MoE kernels'
   * widest token tile). An expert with fewer tokens pads to it; more pad their last tile, half a
   * tile on average. */
  double grouped_tile_m;
  /* the same for block-scaled FP8 experts (DeepSeek's 128 x 128 blocks), which TensorRT-LLM (its
   * DEEPGEMM MoE backend, the one it supports for FP8 checkpoints on B200/GB200) and SGLang
   * (DeepEP's grouped GEMMs) run through DeepGEMM: 128 on Blackwell, whose SM100 kernels compute
   * 128-row tiles only; 64 on Hopper, wgmma's rows, as grouped_tile_m */
  double grouped_block_tile_m;
  double attention_efficiency; /* fraction of BF16 peak a fused attention kernel reaches (FlashAttention) */
  /* factor on the catalog's exponential rate (gpu.exp_rate): what a tight MUFU.EX2 loop measures on
   * this GPU over it (`aifsim calibrate`; 1 where not measured). The softmax's bound in fused
   * attention is this rate at the kernel's share (attention_efficiency x the stack's). */
  double exp_efficiency;
  double nvlink_efficiency;   /* fraction of unidirectional NVLink bandwidth collectives reach */
  double nic_efficiency;      /* the same for the scale-out NIC */
  double collective_latency;  /* s per collective call (all-to-all, transfer) in the NVLink domain */
  /* The all-reduce inside the NVLink domain as NCCL runs it (comm.h): small messages by the ring's
   * low-latency protocol, whose stores carry flags beside the data, so it reaches less of the links;
   * large ones by the ring's bulk protocol, which starts later but reaches more; and, where the
   * NVSwitch reduces (NVLink SHARP, NCCL's NVLS), by the switch: each GPU sends its data up and gets
   * the sums back once, (N+1)/N of the message each way where a ring moves 2(N-1)/N, so past 4 GPUs
   * it beats the ring. Each is a latency and a fraction of one-way NVLink bandwidth (of the bytes
   * its own algorithm moves); an all-reduce takes the fastest. nvls_efficiency 0: no NVLS line. */
  double allreduce_latency, allreduce_efficiency;
  double allreduce_bulk_latency, allreduce_bulk_efficiency;
  double allreduce_nvls_latency, allreduce_nvls_efficiency;
} ArchProfile;

/* The stack layer on one architecture: how far the serving stacks' kernels fall short of the
 * hardware layer's, and what only serving shows. Fitted on measured serving rows by `aifsim fit`;
 * the shares are at most 1 (a stack's GEMM is no faster than the best measured one). */
typedef struct {
  double gemm;                /* share of the hardware's BF16/FP8 GEMM rate the stacks' dense GEMMs reach */
  double fp4;                 /* the same for their FP4 GEMMs */
  double fp8_block;           /* factor on gemm for their block-scaled FP8 GEMMs, dense and grouped */
  /* factor on fp8_block for SGLang's dense block-scaled FP8 GEMMs where they run in FlashInfer's
   * kernels instead of DeepGEMM: on Blackwell and later without DeepEP, as its launches there run
   * them (step_time.c); unused on Hopper, where SGLang runs DeepGEMM */
  double fp8_block_flashinfer;
  double attention;           /* share of the fused attention kernel's rate (paged KV, MLA, masks) */
  double memory;              /* share of the streaming copy's HBM rate (paged KV, fused weight reads) */
  /* share of the hardware's GEMM rate the grouped expert GEMMs reach on their padded tiles (the
   * MoE backend: DeepGEMM, CUTLASS, Triton, Marlin) */
  double moe;
  /* expert FFN width (intermediate columns per GPU) at which grouped expert GEMMs reach half their
   * rate: experts sliced over moe_tp = stage GPUs / EP GPUs run thin GEMMs (DeepSeek-R1's 2,048 over
   * TP8: 256 columns), with less work per tile and per weight load than whole experts */
  double gemm_half_n;
  double nic_latency;         /* s more per all-reduce or transfer that leaves the NVLink domain */
  double nic_alltoall_latency; /* s more per all-to-all that leaves it: expert dispatch and combine
                               * reach every remote peer over RDMA, not one neighbour per channel */
  /* factor on the stacks' GPU-side overheads (step, layer, eager layer and MoE layer) on this
   * architecture: the gaps between kernels, their launch and tail latencies, move with the GPU
   * (and with what it offers the stacks, e.g. programmatic dependent launch); 1 on Hopper, the
   * reference the stacks' figures are given for. The host's part does not scale with it. */
  double overhead_scale;
} ArchStackProfile;

/* How a serving stack sizes its KV-cache pool on each GPU, as each documents it. */
typedef enum {
  /* TensorRT-LLM (KvCacheConfig.free_gpu_memory_fraction, 0.9 by default): the fraction of the
   * memory left after the weights and a profiled forward pass (activations) */
  KV_POOL_FREE,
  /* SGLang (--mem-fraction-static): weights and KV pool together take the fraction of the GPU's
   * memory. Its default (fraction 0 here) leaves the GPU's memory less what a forward pass and the
   * CUDA graphs reserve (SGLang 0.5's rule; older releases took 0.88 down to 0.79 by TP size) */
  KV_POOL_STATIC,
  /* vLLM (--gpu-memory-utilization, 0.9): everything, activations included, within the fraction */
  KV_POOL_UTILIZATION,
} KvPoolRule;
extern const char *const kv_pool_names[]; /* "free-memory", "static", "utilization", NULL */

typedef struct {
  /* A step's overhead in parts (docs/model.md, "Step overheads"): */
  double step_overhead;       /* s per engine step on the GPU's side: sampling, the step's fixed kernels */
  /* s per engine step on the host (scheduling, batch forming, detokenizing): added to the step when
   * the host waits for the GPU between steps, hidden under the GPU's step while it is shorter when
   * the overlap scheduler forms the next batch during this one */
  double host_overhead;
  /* s more on the host per sequence in a step of an engine running MTP drafts, for the scheduler
   * that runs it (each attention-DP rank has its own): the per-request work speculative decoding
   * adds between steps (accepting the drafts, freeing the rejected ones' KV slots, preparing the
   * draft passes' batches). Hidden like the per-step part under the overlap scheduler while the
   * GPU's step is longer; SGLang runs EAGLE without it (engine_overlaps) */
  double mtp_host_overhead;
  double layer_overhead;      /* s per layer per step inside a CUDA graph: the gaps between kernels */
  /* s more per layer when the step runs outside a CUDA graph, each kernel launched by the host:
   * steps with prompt tokens in TensorRT-LLM and SGLang, steps over graph_max_tokens in vLLM, every
   * step of an engine told not to use graphs */
  double eager_layer_overhead;
  /* CUDA graphs: 0 = decode-only steps run in graphs (TensorRT-LLM, SGLang: prompt steps run
   * eagerly); N > 0 = any step of up to N tokens (vLLM's piecewise graphs, 512 by default) */
  double graph_max_tokens;
  double moe_layer_overhead;  /* s more per MoE layer: routing, permutes, the extra kernels */
  /* s more per expert all-to-all (each dispatch and each combine) of an attention-DP engine: what
   * the stack's all-to-all kernels take beyond a collective's latency and their bytes (SGLang's
   * DeepEP, TensorRT-LLM's NVLink all-to-all: signalling every peer, the per-expert layout) */
  double alltoall_overhead;
  Precision kv_cache;         /* the KV cache the stack uses unless told (serving below BF16) */
  /* factor on the rates the stack's kernels reach, TensorRT-LLM's being the reference (1): the
   * architecture's stack layer is fitted for it */
  double kernel_efficiency;
  double request_overhead;    /* s added to each request's TTFT: HTTP, tokenizer, first detokenize */
  /* s more per prompt token before the request reaches an engine: the stack's own server's work
   * that grows with the prompt (tokenizing it, copying its token ids to the engine's process), on
   * the host, off the GPU: it lengthens TTFT, never a step. Behind Dynamo's front end the prompt is
   * tokenized there instead (Profile.dynamo_token_overhead) */
  double request_token_overhead;
  /* s more in disaggregated serving, between the prompt's last step and its KV cache leaving for
   * the decode engine: the second hop (frontend and router to the decode worker), the bootstrap
   * handshake between the two workers and the transfer's set-up. A disaggregated TTFT at low load
   * is request_overhead + prefill + handoff_overhead + the transfer itself. */
  double handoff_overhead;
  /* disaggregated serving: the decode engine's steps a handed-over request waits, its KV cache
   * arrived, before it joins the batch and its first token reaches the user (its scheduler looks
   * at the transfers, and admits them, once a step) */
  double handoff_steps;
  double max_seqs_per_rank;   /* sequences a step runs per attention rank where the launch sets no cap */
  gboolean kv_reserve_full;   /* admission reserves KV for the whole ISL + OSL (no eviction) */
  /* How the stack sizes its KV pool (memory.c): its rule and the fraction it takes (0 with
   * KV_POOL_STATIC: HBM less the activation reserve). */
  KvPoolRule kv_pool;
  double kv_memory_fraction;
  double mtp_acceptance;      /* acceptance of MTP drafts under the stack's acceptance rule */
  /* Attention-DP balancing (TensorRT-LLM's attention_dp_config): an engine whose ranks each hold
   * their own sequences holds new prompts until every rank has one (or for this many steps), then
   * for adp_batching_wait steps more to batch them, so that no rank idles at the experts. */
  double adp_balance_timeout; /* steps; 0 = no balancing */
  double adp_batching_wait;   /* steps */
  /* Batch waiting (TensorRT-LLM's batch_wait_timeout_iters / batch_wait_max_tokens_ratio): an
   * engine without attention-DP holds new prompts while sequences decode, until the step would
   * carry batch_wait_tokens of its token budget (prompt and decode tokens) or it has held them for
   * batch_wait_timeout steps: fewer, fuller prefill steps for the decoding users, at a price in TTFT. */
  double batch_wait_timeout;  /* steps; 0 = off */
  double batch_wait_tokens;   /* fraction of the step's token budget */
  /* SGLang's --scheduler-recv-interval: an engine without attention-DP looks for new requests
   * after a step with prompt work, when idle, and otherwise once every this many decode steps. */
  double recv_interval;       /* decode steps; 1 = every step */
  /* The overlap scheduler (TensorRT-LLM's PyTorch executor and SGLang by default): the host forms
   * step k+1's batch while the GPU runs step k, so a request that reaches a busy engine joins the
   * step after next, one step later than without it. Aggregated engines; engine_overlaps() adds
   * SGLang's rule that EAGLE speculative decoding turns it off. */
  gboolean overlap_scheduler;
  /* Generation attention of an MLA model on Blackwell and later with an FP8 KV cache: the stack
   * quantizes the queries to FP8 too and runs the absorbed multi-query attention on the FP8 tensor
   * cores (TensorRT-LLM's trtllm-gen MLA kernels; SGLang's default trtllm_mla backend there). */
  gboolean fp8_mla_decode;
  /* Prompt (context) attention of an MLA model with an FP8 KV cache: the stack quantizes queries,
   * keys and values and runs the prefill attention on the FP8 tensor cores (TensorRT-LLM's FP8
   * context MLA on Hopper and Blackwell), where the SFUs' exponentials may bind (step_time.c). */
  gboolean fp8_mla_context;
} StackProfile;

typedef struct {
  ArchProfile arch[N_ARCH];   /* the hardware layer, indexed by GpuArch */
  ArchStackProfile on[N_ARCH]; /* the stack layer on each architecture */
  StackProfile stack[N_STACK];
  /* s per prompt token in Dynamo's front end, in place of the stack's request_token_overhead for
   * engines it serves (engine.h, dynamo_front): its Rust pre-processor tokenizes the prompt and
   * sends the workers token ids (the workers skip their own tokenizer: the Dynamo recipes'
   * skip-tokenizer-init), so the stack's Python server's per-token work is not on the path. The
   * fixed part stays the stack's request_overhead: on disaggregated rows, the only ones Dynamo
   * serves in the data, it cannot be told from the handoff */
  double dynamo_token_overhead;
  double memory_reserve;      /* fraction of HBM kept for activations, runtime and fragmentation */
  int mtp_draft_tokens;       /* MTP draft tokens when a row gives none */
  char *source;               /* what the profile was fitted or measured on */
} Profile;

extern const KtTable profile_table;

/* The built-in defaults (physically plausible, not fitted). */
void profile_defaults(Profile *p);
/* Loads PATH over the defaults; errors are AIF_ERROR_INPUT with file:line:col. */
gboolean profile_load(Profile *p, const char *path, GError **error);
/* The profile as YAML (every key), newly allocated. */
char *profile_to_yaml(const Profile *p, const char *header);
void profile_clear(Profile *p);

#endif
