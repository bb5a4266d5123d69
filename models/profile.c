/* profile.c — profile keys, defaults and loading (see profile.h). */
#include "profile.h"
#include "keytable.h"
#include "hardware.h"
#include "precision.h"

#include <string.h>

const char *const stack_names[] = { "trtllm", "sglang", "vllm", NULL };
const char *const kv_pool_names[] = { "free-memory", "static", "utilization", NULL };

/* The hardware layer's keys, with each architecture's figures as defaults (sources in
 * docs/validation.md, "Two layers"); fractions of a datasheet peak are at most 1. */
#define ARCH_KEYS(name, i, d_hbm, d_gemm, d_fp4, d_fp8, d_block, d_half_m, d_tile, d_block_tile, d_attention, d_latency, d_ar_latency, d_ar_eff, d_bulk_latency, d_bulk_eff, d_nvls_latency, d_nvls_eff)                                  \
  { name, KT_GROUP, 0, NULL, "the hardware layer of this GPU architecture: what its kernels reach (measured or published)", 0, NULL, 0, NULL, NULL, 0, 0 }, \
  { name ".hbm_efficiency", KT_NUMBER, DIM_FRACTION, d_hbm, "fraction of HBM bandwidth a streaming copy reaches", offsetof(Profile, arch[i].hbm_efficiency), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".gemm_efficiency", KT_NUMBER, DIM_FRACTION, d_gemm, "fraction of dense BF16 peak reached by large GEMMs (cuBLAS)", offsetof(Profile, arch[i].gemm_efficiency), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".fp4_efficiency", KT_NUMBER, DIM_FRACTION, d_fp4, "fraction of dense FP4 peak reached by large FP4 GEMMs", offsetof(Profile, arch[i].fp4_efficiency), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".fp8_efficiency", KT_NUMBER, DIM_NONE, d_fp8, "factor on gemm_efficiency for FP8 GEMMs (FP8's share of its peak over BF16's)", offsetof(Profile, arch[i].fp8_efficiency), NULL, KT_POSITIVE, NULL, NULL, 0, 0 }, \
  { name ".fp8_block_efficiency", KT_NUMBER, DIM_FRACTION, d_block, "factor on gemm_efficiency for FP8 GEMMs with block-scaled weights (DeepSeek's 128 x 128 blocks)", offsetof(Profile, arch[i].fp8_block_efficiency), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".gemm_half_m", KT_NUMBER, DIM_NONE, d_half_m, "GEMM rows (tokens) at which half the peak fraction is reached", offsetof(Profile, arch[i].gemm_half_m), NULL, KT_POSITIVE, NULL, NULL, 0, 0 }, \
  { name ".grouped_tile_m", KT_NUMBER, DIM_NONE, d_tile, "rows of the smallest tile a grouped (expert) GEMM computes per expert (the MMA's rows)", offsetof(Profile, arch[i].grouped_tile_m), NULL, KT_POSITIVE, NULL, NULL, 0, 0 }, \
  { name ".grouped_block_tile_m", KT_NUMBER, DIM_NONE, d_block_tile, "rows of that tile for block-scaled FP8 experts (DeepGEMM's BLOCK_M)", offsetof(Profile, arch[i].grouped_block_tile_m), NULL, KT_POSITIVE, NULL, NULL, 0, 0 }, \
  { name ".attention_efficiency", KT_NUMBER, DIM_FRACTION, d_attention, "fraction of its tensor cores' peak (or of the SFUs' exponentials, where those bind) a fused attention kernel reaches (FlashAttention)", offsetof(Profile, arch[i].attention_efficiency), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".exp_efficiency", KT_NUMBER, DIM_NONE, "1", "factor on the catalog's exponentials per second (gpu.exp_rate) the GPU's special-function units reach: a tight MUFU.EX2 loop's rate over it (measured by calibrate; 1 = the catalog's)", offsetof(Profile, arch[i].exp_efficiency), NULL, KT_POSITIVE, NULL, NULL, 0, 0 }, \
  { name ".nvlink_efficiency", KT_NUMBER, DIM_FRACTION, "0.8", "fraction of one-way NVLink bandwidth collectives reach", offsetof(Profile, arch[i].nvlink_efficiency), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".nic_efficiency", KT_NUMBER, DIM_FRACTION, "0.8", "fraction of NIC line rate reached", offsetof(Profile, arch[i].nic_efficiency), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".collective_latency", KT_NUMBER, DIM_TIME, d_latency, "time of one all-to-all or transfer in the NVLink domain besides its bytes (NCCL)", offsetof(Profile, arch[i].collective_latency), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".allreduce_latency", KT_NUMBER, DIM_TIME, d_ar_latency, "all-reduce in the NVLink domain, small messages (NCCL's low-latency protocol): time besides its bytes", offsetof(Profile, arch[i].allreduce_latency), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".allreduce_efficiency", KT_NUMBER, DIM_FRACTION, d_ar_eff, "all-reduce, small messages: fraction of one-way NVLink bandwidth its ring reaches", offsetof(Profile, arch[i].allreduce_efficiency), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".allreduce_bulk_latency", KT_NUMBER, DIM_TIME, d_bulk_latency, "all-reduce in the NVLink domain, large messages by the ring (NCCL's bulk protocol): time besides its bytes", offsetof(Profile, arch[i].allreduce_bulk_latency), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".allreduce_bulk_efficiency", KT_NUMBER, DIM_FRACTION, d_bulk_eff, "all-reduce, large messages by the ring: fraction of one-way NVLink bandwidth it reaches", offsetof(Profile, arch[i].allreduce_bulk_efficiency), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".allreduce_nvls_latency", KT_NUMBER, DIM_TIME, d_nvls_latency, "all-reduce in the NVLink domain reduced inside the NVSwitch (NVLink SHARP, NCCL's NVLS): time besides its bytes", offsetof(Profile, arch[i].allreduce_nvls_latency), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".allreduce_nvls_efficiency", KT_NUMBER, DIM_FRACTION, d_nvls_eff, "all-reduce reduced inside the NVSwitch: fraction of one-way NVLink bandwidth its (N+1)/N of the message each way reaches (0: no such line)", offsetof(Profile, arch[i].allreduce_nvls_efficiency), NULL, KT_NONNEG, NULL, NULL, 1, 0 }, \
  { name ".stacks", KT_GROUP, 0, NULL, "the stack layer on this architecture: how the serving stacks' kernels fare (fitted)", 0, NULL, 0, NULL, NULL, 0, 0 }, \
  { name ".stacks.gemm", KT_NUMBER, DIM_FRACTION, "1", "share of the hardware's GEMM rate the stacks' dense GEMMs reach", offsetof(Profile, on[i].gemm), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".stacks.fp4", KT_NUMBER, DIM_FRACTION, "1", "share of the hardware's FP4 GEMM rate the stacks' FP4 GEMMs reach", offsetof(Profile, on[i].fp4), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".stacks.fp8_block", KT_NUMBER, DIM_FRACTION, "1", "factor on gemm for the stacks' block-scaled FP8 GEMMs (dense and grouped) against the hardware's", offsetof(Profile, on[i].fp8_block), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".stacks.fp8_block_flashinfer", KT_NUMBER, DIM_FRACTION, "1", "factor on fp8_block for SGLang's dense block-scaled FP8 GEMMs where FlashInfer's kernels run them, not DeepGEMM (Blackwell and later, without DeepEP)", offsetof(Profile, on[i].fp8_block_flashinfer), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".stacks.attention", KT_NUMBER, DIM_FRACTION, "1", "share of the fused attention kernel's rate the stacks' attention reaches", offsetof(Profile, on[i].attention), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".stacks.memory", KT_NUMBER, DIM_FRACTION, "1", "share of the streaming copy's HBM rate the stacks' kernels reach", offsetof(Profile, on[i].memory), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".stacks.moe", KT_NUMBER, DIM_FRACTION, "1", "share of the hardware's GEMM rate the grouped expert GEMMs reach on their padded tiles", offsetof(Profile, on[i].moe), NULL, KT_POSITIVE, NULL, NULL, 1, 0 }, \
  { name ".stacks.gemm_half_n", KT_NUMBER, DIM_NONE, "64", "expert FFN columns per GPU at which grouped expert GEMMs reach half their rate (experts sliced over moe_tp GPUs run thin GEMMs)", offsetof(Profile, on[i].gemm_half_n), NULL, KT_POSITIVE, NULL, NULL, 0, 0 }, \
  { name ".stacks.nic_latency", KT_NUMBER, DIM_TIME, "30 us", "more time for an all-reduce or transfer that leaves the NVLink domain", offsetof(Profile, on[i].nic_latency), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".stacks.nic_alltoall_latency", KT_NUMBER, DIM_TIME, "30 us", "more time for an all-to-all (expert dispatch, combine) that leaves the NVLink domain", offsetof(Profile, on[i].nic_alltoall_latency), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".stacks.overhead_scale", KT_NUMBER, DIM_NONE, "1", "factor on the stacks' GPU-side step, layer and MoE-layer overheads on this architecture (1 on Hopper, the reference)", offsetof(Profile, on[i].overhead_scale), NULL, KT_POSITIVE, NULL, NULL, 100, 0 }
#define STACK_KEYS(name, i, reserve_full, adp_timeout, adp_wait, overlap, graph_tokens, pool_rule, pool_fraction, fp8_mla, fp8_ctx)                                                                               \
  { name, KT_GROUP, 0, NULL, "overheads of this serving stack", 0, NULL, 0, NULL, NULL, 0, 0 },                      \
  { name ".step_overhead", KT_NUMBER, DIM_TIME, "1 ms", "GPU-side time per engine step (sampling, the step's fixed kernels)", offsetof(Profile, stack[i].step_overhead), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".host_overhead", KT_NUMBER, DIM_TIME, "0 s", "host time per engine step (scheduling, batch forming): hidden under the GPU's step by the overlap scheduler", offsetof(Profile, stack[i].host_overhead), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".mtp_host_overhead", KT_NUMBER, DIM_TIME, "0 s", "more host time per step per sequence its scheduler runs (each attention-DP rank its own) with MTP drafts: accepting them, freeing the rejected ones' KV slots, preparing the draft passes", offsetof(Profile, stack[i].mtp_host_overhead), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".layer_overhead", KT_NUMBER, DIM_TIME, "30 us", "gaps between kernels per layer per step inside a CUDA graph", offsetof(Profile, stack[i].layer_overhead), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".eager_layer_overhead", KT_NUMBER, DIM_TIME, "0 s", "more per layer when a step runs outside CUDA graphs (host-launched kernels)", offsetof(Profile, stack[i].eager_layer_overhead), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".graph_max_tokens", KT_NUMBER, DIM_NONE, graph_tokens, "CUDA graphs: 0 = decode-only steps run in graphs (prompt steps eagerly); N = any step of up to N tokens", offsetof(Profile, stack[i].graph_max_tokens), NULL, KT_NONNEG, NULL, NULL, 1e9, 0 }, \
  { name ".moe_layer_overhead", KT_NUMBER, DIM_TIME, "20 us", "more launch gaps per MoE layer (routing, permutes)", offsetof(Profile, stack[i].moe_layer_overhead), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".alltoall_overhead", KT_NUMBER, DIM_TIME, "0 s", "more per expert all-to-all (dispatch or combine) of an attention-DP engine: the stack's all-to-all kernels beyond the collective's latency", offsetof(Profile, stack[i].alltoall_overhead), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".kv_cache", KT_ENUM, 0, "fp8", "KV-cache precision the stack uses by default", offsetof(Profile, stack[i].kv_cache), precision_names, 0, NULL, NULL, 0, 0 }, \
  { name ".kernel_efficiency", KT_NUMBER, DIM_NONE, "1", "factor on the rates the stack's kernels reach (TensorRT-LLM's, the reference, 1)", offsetof(Profile, stack[i].kernel_efficiency), NULL, KT_POSITIVE, NULL, NULL, 0, 0 }, \
  { name ".request_overhead", KT_NUMBER, DIM_TIME, "50 ms", "time added to every TTFT (HTTP, tokenizer, detokenize)", offsetof(Profile, stack[i].request_overhead), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".request_token_overhead", KT_NUMBER, DIM_TIME, "0 s", "time added to TTFT per prompt token before an engine sees the request (the front end tokenizing and passing on the prompt)", offsetof(Profile, stack[i].request_token_overhead), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".handoff_overhead", KT_NUMBER, DIM_TIME, "50 ms", "disaggregated serving: time more between a prompt's prefill and its KV transfer (second hop, worker handshake, transfer set-up)", offsetof(Profile, stack[i].handoff_overhead), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".handoff_steps", KT_NUMBER, DIM_NONE, "0", "disaggregated serving: decode steps a request waits at its decode engine, its KV cache arrived, before it joins the batch (the scheduler's looks at the transfers, once a step)", offsetof(Profile, stack[i].handoff_steps), NULL, KT_NONNEG, NULL, NULL, 100, 0 }, \
  { name ".kv_reserve_full", KT_BOOL, 0, reserve_full, "admission reserves KV cache for the whole prompt + output", offsetof(Profile, stack[i].kv_reserve_full), NULL, 0, NULL, NULL, 0, 0 }, \
  { name ".kv_pool", KT_ENUM, 0, pool_rule, "how the stack sizes its KV pool: free-memory (a fraction of what the weights and activations leave: TensorRT-LLM), static (weights and pool within a fraction of HBM: SGLang), utilization (everything within a fraction of HBM: vLLM)", offsetof(Profile, stack[i].kv_pool), kv_pool_names, 0, NULL, NULL, 0, 0 }, \
  { name ".kv_memory_fraction", KT_NUMBER, DIM_FRACTION, pool_fraction, "the fraction kv_pool takes (free_gpu_memory_fraction, mem_fraction_static, gpu_memory_utilization); 0 with static: HBM less memory_reserve, SGLang 0.5's default", offsetof(Profile, stack[i].kv_memory_fraction), NULL, KT_NONNEG, NULL, NULL, 1, 0 }, \
  { name ".max_seqs_per_rank", KT_NUMBER, DIM_NONE, "256", "sequences the scheduler runs per step per attention rank where the launch sets no batch cap", offsetof(Profile, stack[i].max_seqs_per_rank), NULL, KT_POSITIVE, NULL, NULL, 1e6, 0 }, \
  { name ".mtp_acceptance", KT_NUMBER, DIM_FRACTION, "0.7", "MTP draft acceptance under the stack's rule (validate rows)", offsetof(Profile, stack[i].mtp_acceptance), NULL, 0, NULL, NULL, 0, 0 }, \
  { name ".adp_balance_timeout", KT_NUMBER, DIM_NONE, adp_timeout, "attention-DP balancing: steps new prompts are held until every rank has one (0 = off)", offsetof(Profile, stack[i].adp_balance_timeout), NULL, KT_NONNEG, NULL, NULL, 1e6, 0 }, \
  { name ".adp_batching_wait", KT_NUMBER, DIM_NONE, adp_wait, "attention-DP balancing: more steps held once every rank has a prompt, to batch them", offsetof(Profile, stack[i].adp_batching_wait), NULL, KT_NONNEG, NULL, NULL, 1e6, 0 }, \
  { name ".batch_wait_timeout", KT_NUMBER, DIM_NONE, "0", "batch waiting (no attention-DP): most steps new prompts are held while sequences decode (0 = off)", offsetof(Profile, stack[i].batch_wait_timeout), NULL, KT_NONNEG, NULL, NULL, 1e6, 0 }, \
  { name ".recv_interval", KT_NUMBER, DIM_NONE, "1", "decode steps between the scheduler's looks for new requests (SGLang's scheduler_recv_interval; no attention-DP)", offsetof(Profile, stack[i].recv_interval), NULL, KT_POSITIVE, NULL, NULL, 1e6, 0 }, \
  { name ".batch_wait_tokens", KT_NUMBER, DIM_FRACTION, "0", "batch waiting: the share of the step's token budget that releases the held prompts", offsetof(Profile, stack[i].batch_wait_tokens), NULL, KT_NONNEG, NULL, NULL, 0, 0 }, \
  { name ".overlap_scheduler", KT_BOOL, 0, overlap, "the host forms the next step's batch while the GPU runs this one: a request reaching a busy engine waits one step more", offsetof(Profile, stack[i].overlap_scheduler), NULL, 0, NULL, NULL, 0, 0 }, \
  { name ".fp8_mla_decode", KT_BOOL, 0, fp8_mla, "an MLA model's generation attention on Blackwell and later with an FP8 KV cache runs on the FP8 tensor cores (queries quantized too), not the BF16 ones", offsetof(Profile, stack[i].fp8_mla_decode), NULL, 0, NULL, NULL, 0, 0 }, \
  { name ".fp8_mla_context", KT_BOOL, 0, fp8_ctx, "an MLA model's prompt (context) attention with an FP8 KV cache runs on the FP8 tensor cores (queries, keys and values quantized), not the BF16 ones", offsetof(Profile, stack[i].fp8_mla_context), NULL, 0, NULL, NULL, 0, 0 }

static const KtKey keys[] = {
  { "source", KT_STRING, 0, NULL, "what the profile was fitted or measured on", offsetof(Profile, source), NULL, 0, NULL, NULL, 0, 0 },
  /* Hopper: the H200 as `aifsim calibrate` measured it (calibration/profiles/h200.yaml; FP4 has
   * no tensor cores here and is never used); FlashAttention-3's 75% of H100's BF16 peak; NCCL's
   * 1 MB all-reduce on 8 x H200 (53 GB/s bus bandwidth: 33 us, 28 us of it besides the bytes).
   * Blackwell: B200's cuBLAS BF16 and FP8 (77.6%, 76.3%), GB200's FP4 (76%) and HBM copy (92%),
   * FlashAttention-4 on B200 (71%), NCCL's 1 MB all-reduce on 4 x GB200 (80.5 GB/s: 16.5 us
   * besides the bytes); the block-scaled factor is the H200's, an estimate; half-peak rows the
   * H200's, an estimate: small-M GEMMs run with the tokens on the MMA's N side (swap-AB, 8-256
   * columns) on both, so tcgen05's 128-row M does not set their knee (twice the H200's fitted
   * the rows worse, docs/validation.md). Grouped
   * (expert) GEMM tiles of 64 token rows on both: Hopper's CUTLASS and DeepGEMM kernels run
   * wgmma's 64 rows; Blackwell's trtllm-gen MoE kernels (TensorRT-LLM, FlashInfer) put the tokens
   * on the MMA's N side in tiles of at most 64 ("tile_tokens_dim ... capped to 8-64"). Their
   * narrower tiles for few tokens per expert are not modelled: they fitted the rows worse
   * (docs/validation.md). Block-scaled FP8 experts run DeepGEMM instead (TensorRT-LLM's DEEPGEMM
   * MoE backend for FP8 checkpoints on B200/GB200, SGLang's DeepEP engines), whose SM100 kernels
   * compute 128-row tiles only (block_ms = (128,)); on Hopper 64, as before. The all-reduce's
   * lines are least-squares lines (weighted by relative error) through NCCL's measured times:
   * Hopper's switch line (NVLS) through 8 x H100's and 8 x H200's NVLS runs of 16 MB to 1 GB (57.8
   * us + 9/8 of the message each way at 65.4% of one-way NVLink 4: the ring's count of the same
   * line read 1.017), its ring's bulk line at NCCL's own 370 of 450 GB/s (82.2%; NVIDIA/nccl-tests
   * #212, nccl#1455: ring runs of 2-8 H100s at 365-370 GB/s of bus bandwidth) with the switch
   * line's latency, an estimate, its small regime through 8 x H100's 1 MB and 8 MB and 8 x H200's
   * 1 MB (29.4 us, 269 GB/s); Blackwell's bulk through 4 x GB200's ring runs of 16 MB to 1 GB (35.7
   * us, 650 GB/s), no switch line (no measured run), its small regime at Hopper's ratio of the
   * two rates (0.588: one 1 MB run does not fix a line) through its 1 MB run (14.7 us, 382 GB/s).
   * Each within 4% of every measured size. Blackwell Ultra: B300's cuBLAS BF16 and FP8 (78.6%, 74.5%), the rest
   * Blackwell's. Rubin and Rubin Ultra: Blackwell's, not measured. (../shared/data/reference.md
   * D.1-D.4.) */
  ARCH_KEYS("hopper", 0, "0.944663", "0.861283", "0.6", "0.865458", "0.84093", "45.9896", "64", "64", "0.75", "28 us", "29.4 us", "0.598", "57.8 us", "0.822", "57.8 us", "0.653786"),
  ARCH_KEYS("blackwell", 1, "0.92", "0.776", "0.763", "0.983", "0.84093", "46", "64", "128", "0.71", "16.5 us", "14.7 us", "0.425", "35.7 us", "0.722", "0 s", "0"),
  ARCH_KEYS("blackwell-ultra", 2, "0.92", "0.786", "0.763", "0.948", "0.84093", "46", "64", "128", "0.71", "16.5 us", "14.7 us", "0.425", "35.7 us", "0.722", "0 s", "0"),
  ARCH_KEYS("rubin", 3, "0.92", "0.776", "0.763", "0.983", "0.84093", "46", "64", "128", "0.71", "16.5 us", "14.7 us", "0.425", "35.7 us", "0.722", "0 s", "0"),
  ARCH_KEYS("rubin-ultra", 4, "0.92", "0.776", "0.763", "0.983", "0.84093", "46", "64", "128", "0.71", "16.5 us", "14.7 us", "0.425", "35.7 us", "0.722", "0 s", "0"),
  /* TensorRT-LLM's scheduler defaults: GUARANTEED_NO_EVICT admission (each request's KV cache for
   * its whole prompt and output), attention_dp_config timeout_iters 50, batching_wait_iters 10.
   * SGLang and vLLM admit on an estimate of the tokens to come and retract or preempt. TensorRT-LLM's
   * PyTorch executor and SGLang overlap scheduling with the GPU unless told not to; vLLM's async
   * scheduling is opt-in. TensorRT-LLM's PyTorch executor and SGLang capture CUDA graphs for
   * decode-only batches; vLLM V1 captures piecewise graphs for any batch up to 512 tokens
   * (compilation_config.max_capture_size). With an FP8 KV cache on Blackwell, TensorRT-LLM's
   * generation MLA quantizes Q to FP8 and runs FP8 multi-query attention (its DeepSeek-R1
   * throughput blog: "both Q and KV are quantized to FP8"), and SGLang's default MLA backend on
   * SM100, trtllm_mla, does the same (mla_quantize_and_rope_for_fp8); vLLM's is not documented to.
   * TensorRT-LLM's attention op also runs an MLA model's context (prompt) attention in FP8 wherever
   * the KV cache is FP8 on SM90, SM100 and SM103 (mFP8ContextMLA = (sm == 90 || sm == 100 || sm ==
   * 103 || sm == 120) && hasFp8KvCache(); "Hopper Fp8 context mla", PR 7116, August 2025; "FP8
   * Context MLA integration", PR 7610, September 2025); SGLang's and vLLM's prefill MLA is BF16. */
  STACK_KEYS("trtllm", STACK_TRTLLM, "true", "50", "10", "true", "0", "free-memory", "0.9", "true", "true"),
  STACK_KEYS("sglang", STACK_SGLANG, "false", "0", "0", "true", "0", "static", "0", "true", "false"),
  STACK_KEYS("vllm", STACK_VLLM, "false", "0", "0", "false", "512", "utilization", "0.9", "false", "false"),
  /* Dynamo's front end (its HTTP server and Rust pre-processor, shared by the three backends) */
  { "dynamo", KT_GROUP, 0, NULL, "Dynamo's front end, in front of any stack's workers", 0, NULL, 0, NULL, NULL, 0, 0 },
  { "dynamo.request_token_overhead", KT_NUMBER, DIM_TIME, "0 s", "time added to TTFT per prompt token by Dynamo's front end (its pre-processor tokenizes the prompt and passes token ids on), in place of the stack's request_token_overhead", offsetof(Profile, dynamo_token_overhead), NULL, KT_NONNEG, NULL, NULL, 0, 0 },
  { "memory_reserve", KT_NUMBER, DIM_FRACTION, "0.04", "fraction of HBM a forward pass's activations and the runtime take (the stacks' KV-pool rules work around it)", offsetof(Profile, memory_reserve), NULL, 0, NULL, NULL, 0, 0 },
  { "mtp_draft_tokens", KT_INT, 0, "3", "MTP draft tokens when none are given", offsetof(Profile, mtp_draft_tokens), NULL, KT_POSITIVE, NULL, NULL, 64, 0 },
};

const KtTable profile_table = { "profile", keys, G_N_ELEMENTS(keys) };

G_STATIC_ASSERT(N_ARCH == ARCH_RUBIN_ULTRA + 1);

void profile_defaults(Profile *p)
{
  memset(p, 0, sizeof *p);
  kt_defaults(&profile_table, p);
}

static gboolean profile_leaf(const KtTable *t, const KtKey *key, const char *group, YamlDoc *d, yaml_node_t *v,
                             gpointer user, GError **error)
{
  return kt_assign(key, d, v, user, error);
}

gboolean profile_load(Profile *p, const char *path, GError **error)
{
  g_autoptr(YamlDoc) d = yaml_doc_load(path, error);
  if (!d)
    return FALSE;
  return kt_walk(&profile_table, d, yaml_doc_root(d), profile_leaf, p, error);
}

char *profile_to_yaml(const Profile *p, const char *header)
{
  /* fitted figures at 6 digits, as they always were written: the file reads back as those */
  Profile r = *p;
  kt_round_numbers(&profile_table, &r);
  GString *out = g_string_new(header);
  kt_emit_yaml(&profile_table, &r, out, 0, NULL, NULL);
  return g_string_free(out, FALSE);
}

void profile_clear(Profile *p) { kt_clear(&profile_table, p); }
