/* aifsim_bench.cu — the calibration microbenchmarks `aifsim calibrate` runs on the local GPU.
 *
 * Framework-free kernels that measure what the step-time model's efficiencies stand for: HBM
 * streaming (read, write, copy on buffers far larger than L2), dense and grouped (expert) GEMM
 * through cuBLAS (BF16) and cuBLASLt (FP8 on Hopper and later, NVFP4 on Blackwell) over a grid of
 * token counts M and weight shapes N x K, a decode-attention-shaped KV read over batch sizes and
 * contexts, prefill attention's two products as batched GEMMs, the special-function units'
 * exponentials (the softmax's), kernel-launch overhead and host<->device copies; with two or more
 * GPUs, peer copies over NVLink and (when built with NCCL, -DAIF_HAVE_NCCL) all-reduce and
 * all-to-all across all of them over message sizes. Every figure is the best of several timed
 * repetitions (CUDA events; host clock around the multi-GPU ones). GEMM operands hold random
 * values: tensor cores multiplying zeros draw less power and hold a higher clock (an H200 ran
 * 8192^3 BF16 at ~790 TFLOP/s on random data and ~890 on zeros). Last, when the driver's NVML
 * library loads (dlopen; nvml.h is not in every toolkit), the board power and SM clock are sampled
 * while the GPU idles, streams HBM, mixes GEMMs into the stream and runs large GEMMs for a few
 * seconds each: the power model's idle, memory-bound and compute-bound figures, and the clock the
 * power limit leaves.
 *
 * Output (stdout) is CSV that sim/calibrate.c reads, one measurement per line:
 *   device,NAME,SMS,SM_CLOCK_KHZ,MEMORY_BYTES,CC_MAJOR,CC_MINOR
 *   KIND,VARIANT,M,N,K,BYTES,SECONDS
 * with KIND one of
 *   hbm     read, write, copy
 *   gemm    bf16, fp8 (per-tensor scales), fp8block (DeepSeek's 128 x 128 weight blocks and 1 x 128
 *           activation groups), fp4 (NVFP4, Blackwell and later): M tokens, N x K weights, BYTES =
 *           weight bytes
 *   grouped bf16, and fp8 and fp8block (Hopper and later, cuBLASLt): expert GEMMs batched over E
 *           experts, M rows per expert, N x K weights each, BYTES = all E experts' weight bytes
 *   attn    decode: M = batch, N = context tokens; prefill: M = tokens, N = heads, K = head
 *           dimension, BYTES = the score matrices' bytes, SECONDS = both unfused products
 *   sfu     exp2: exponentials on the special-function units (MUFU.EX2), M threads x N each
 *   launch, h2d, d2h, p2p (peer copies)
 *   nccl    allreduce, alltoall: M = GPUs, BYTES = each GPU's buffer
 *   power   idle, memory, mixNN, compute, compute-fp8: M = mean board watts, N = mean SM clock in
 *           MHz, K = the enforced power limit in watts, all over the phase's second half; BYTES =
 *           the work done over the whole phase, bytes moved (memory) or GEMM FLOPs; SECONDS = the
 *           phase's length
 * Lines starting with '#' are comments.
 * Exit status: 0, 3 when there is no CUDA device, 1 on a CUDA error. */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#ifdef AIF_HAVE_NCCL
#include <nccl.h>
#endif

#define CK(call)                                                                                   \
  do {                                                                                             \
    cudaError_t e_ = (call);                                                                       \
    if (e_ != cudaSuccess) {                                                                       \
      fprintf(stderr, "aifsim-bench: %s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_));  \
      exit(1);                                                                                     \
    }                                                                                              \
  } while (0)

static int reps = 10;

/* ---- HBM streaming ---------------------------------------------------------------------- */

__global__ void k_read(const float4 *a, size_t n, float *sink)
{
  float4 acc = make_float4(0, 0, 0, 0);
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
    float4 v = a[i];
    acc.x += v.x, acc.y += v.y, acc.z += v.z, acc.w += v.w;
  }
  if (acc.x + acc.y + acc.z + acc.w == 1234.5f) /* never true; keeps the loads */
    *sink = acc.x;
}

__global__ void k_write(float4 *a, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    a[i] = make_float4(1, 2, 3, 4);
}

__global__ void k_copy(float4 *dst, const float4 *src, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    dst[i] = src[i];
}

__global__ void k_empty(void) {}

/* Uniform in [-1, 1) from a hash of the index: reproducible random operands without cuRAND. */
__device__ float uniform(size_t i, unsigned seed)
{
  unsigned x = (unsigned)i * 0x9E3779B9u ^ (unsigned)(i >> 32) ^ seed;
  x ^= x >> 16, x *= 0x7feb352du, x ^= x >> 15, x *= 0x846ca68bu, x ^= x >> 16;
  return (x >> 8) * (2.0f / 16777216.0f) - 1.0f;
}

__global__ void k_fill_bf16(__nv_bfloat16 *p, size_t n, unsigned seed)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = __float2bfloat16(uniform(i, seed));
}

__global__ void k_fill_fp8(__nv_fp8_e4m3 *p, size_t n, unsigned seed)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = __nv_fp8_e4m3(uniform(i, seed));
}

/* Block scales near 1 (0.5 .. 1.5): a dequantised operand keeps the magnitude of the random data. */
__global__ void k_fill_scale(float *p, size_t n)
{
  for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x)
    p[i] = 1.0f + 0.5f * uniform(i, 9);
}

/* Decode attention's memory pattern, split over the context as flash-decoding does so that few
 * sequences still occupy every SM: block (s, b) streams the s-th of gridDim.x slices of sequence
 * b's CTX tokens of KV cache (CHUNKS 16-byte chunks of 8 BF16 values per token) in 16-byte loads
 * and reduces them against a query. */
__global__ void k_attn(const uint4 *kv, int ctx, int chunks, const uint4 *q, float *out)
{
  const uint4 *seq = kv + (size_t)blockIdx.y * ctx * chunks;
  size_t words = (size_t)ctx * chunks, slice = (words + gridDim.x - 1) / gridDim.x;
  size_t begin = blockIdx.x * slice, end = begin + slice < words ? begin + slice : words;
  float acc = 0;
#pragma unroll 4
  for (size_t i = begin + threadIdx.x; i < end; i += blockDim.x) {
    uint4 a = seq[i], b = q[i % chunks];
    const __nv_bfloat162 *x = (const __nv_bfloat162 *)&a, *y = (const __nv_bfloat162 *)&b;
    for (int j = 0; j < 4; j++) {
      float2 u = __bfloat1622float2(x[j]), v = __bfloat1622float2(y[j]);
      acc += u.x * v.x + u.y * v.y;
    }
  }
  if (acc == 1234.5f) /* never true; keeps the loads */
    out[blockIdx.y] = acc;
}

/* The special-function units' exponentials, what a fused attention kernel's softmax runs on:
 * EXP_CHAINS independent chains a thread of x <- 2^-x (one MUFU.EX2 each; the values stay in
 * (0, 1]), enough in flight to keep the units busy whatever their latency. */
#define EXP_CHAINS 8
__global__ void k_exp2(int iters, float *out)
{
  float x[EXP_CHAINS];
#pragma unroll
  for (int j = 0; j < EXP_CHAINS; j++)
    x[j] = (threadIdx.x + j) * 1e-3f;
#pragma unroll 4
  for (int i = 0; i < iters; i++)
#pragma unroll
    for (int j = 0; j < EXP_CHAINS; j++)
      asm volatile("ex2.approx.ftz.f32 %0, %1;" : "=f"(x[j]) : "f"(-x[j]));
  float s = 0;
#pragma unroll
  for (int j = 0; j < EXP_CHAINS; j++)
    s += x[j];
  if (s == 1234.5f) /* never true; keeps the chains */
    out[blockIdx.x] = s;
}

typedef struct {
  cudaEvent_t start, stop;
} Timer;

static float elapsed(Timer *t)
{
  float ms;
  CK(cudaEventSynchronize(t->stop));
  CK(cudaEventElapsedTime(&ms, t->start, t->stop));
  return ms * 1e-3f;
}

/* The shortest of REPS timed runs of WORK (kernels or copies on the default stream). */
template <typename F> static double best_of(Timer *t, F work)
{
  double best = 1e30;
  for (int r = 0; r < reps; r++) {
    CK(cudaEventRecord(t->start));
    work();
    CK(cudaEventRecord(t->stop));
    double s = elapsed(t);
    best = s < best ? s : best;
  }
  return best;
}

static void hbm(Timer *t, size_t bytes, int blocks)
{
  float4 *a, *b;
  float *sink;
  size_t n = bytes / sizeof(float4);
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMalloc(&sink, sizeof(float)));
  CK(cudaMemset(a, 0, bytes));
  const char *names[] = { "read", "write", "copy" };
  for (int kind = 0; kind < 3; kind++) {
    double best = best_of(t, [&] {
      if (kind == 0)
        k_read<<<blocks, 512>>>(a, n, sink);
      else if (kind == 1)
        k_write<<<blocks, 512>>>(b, n);
      else
        k_copy<<<blocks, 512>>>(b, a, n);
    });
    printf("hbm,%s,,,,%zu,%.9g\n", names[kind], kind == 2 ? 2 * bytes : bytes, best);
  }
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(sink));
}

static void attention(Timer *t, int sms, const int *batches, int nb, const int *ctxs, int nc)
{
  const int token_bytes = 4096; /* 8 KV heads x 128 x (K and V) in BF16, one layer */
  int chunks = token_bytes / 16;
  size_t most = (size_t)batches[nb - 1] * ctxs[nc - 1] * token_bytes;
  uint4 *kv, *q;
  float *out;
  CK(cudaMalloc(&kv, most));
  CK(cudaMalloc(&q, token_bytes));
  CK(cudaMalloc(&out, sizeof(float) * batches[nb - 1]));
  k_fill_bf16<<<1024, 256>>>((__nv_bfloat16 *)kv, most / 2, 5);
  k_fill_bf16<<<1, 256>>>((__nv_bfloat16 *)q, token_bytes / 2, 6);
  CK(cudaGetLastError());
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nc; j++) {
      /* four blocks per SM, each slice at least 256 tokens */
      int splits = (4 * sms + batches[i] - 1) / batches[i], most_splits = ctxs[j] / 256;
      dim3 grid(splits < most_splits ? splits : most_splits > 0 ? most_splits : 1, batches[i]);
      double best = best_of(t, [&] { k_attn<<<grid, 512>>>(kv, ctxs[j], chunks, q, out); });
      printf("attn,decode,%d,%d,,%zu,%.9g\n", batches[i], ctxs[j], (size_t)batches[i] * ctxs[j] * token_bytes, best);
    }
  CK(cudaFree(kv));
  CK(cudaFree(q));
  CK(cudaFree(out));
}

/* Prefill attention's math on the tensor cores, unfused: per head, S = Q K^T (tokens x tokens, head
 * dimension 128) and O = S V as cuBLAS strided-batched BF16 GEMMs over HEADS heads. FlashAttention
 * fuses the two and skips the masked half; this times the full products, so its FLOP rate is that
 * of attention-shaped GEMMs (and S's round trip through HBM), not of a fused kernel. */
static void attention_prefill(Timer *t, cublasHandle_t h, const int *lens, int nl, int heads)
{
  const int d = 128, most = lens[nl - 1];
  __nv_bfloat16 *q, *k, *v, *sc, *o;
  size_t qkv = (size_t)heads * most * d, ss = (size_t)heads * most * most;
  CK(cudaMalloc(&q, qkv * 2));
  CK(cudaMalloc(&k, qkv * 2));
  CK(cudaMalloc(&v, qkv * 2));
  CK(cudaMalloc(&o, qkv * 2));
  CK(cudaMalloc(&sc, ss * 2));
  k_fill_bf16<<<1024, 256>>>(q, qkv, 11);
  k_fill_bf16<<<1024, 256>>>(k, qkv, 12);
  k_fill_bf16<<<1024, 256>>>(v, qkv, 13);
  CK(cudaGetLastError());
  float one = 1, zero = 0;
  for (int i = 0; i < nl; i++) {
    int n = lens[i];
    long long sd = (long long)n * d, s2 = (long long)n * n;
    cublasStatus_t st = CUBLAS_STATUS_SUCCESS;
    double best = best_of(t, [&] {
      st = cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, n, d, &one, k, CUDA_R_16BF, d, sd, q,
                                      CUDA_R_16BF, d, sd, &zero, sc, CUDA_R_16BF, n, s2, heads, CUBLAS_COMPUTE_32F,
                                      CUBLAS_GEMM_DEFAULT);
      if (st == CUBLAS_STATUS_SUCCESS)
        st = cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, d, n, n, &one, v, CUDA_R_16BF, d, sd, sc,
                                        CUDA_R_16BF, n, s2, &zero, o, CUDA_R_16BF, d, sd, heads, CUBLAS_COMPUTE_32F,
                                        CUBLAS_GEMM_DEFAULT);
    });
    if (st == CUBLAS_STATUS_SUCCESS)
      printf("attn,prefill,%d,%d,%d,%zu,%.9g\n", n, heads, d, (size_t)heads * n * n * 2, best);
    else
      printf("# attn prefill %d tokens: cuBLAS status %d\n", n, (int)st);
  }
  CK(cudaFree(q));
  CK(cudaFree(k));
  CK(cudaFree(v));
  CK(cudaFree(o));
  CK(cudaFree(sc));
}

/* Exponentials a second: four blocks of 256 threads an SM (every SM busy, several warps a
 * scheduler), ITERS x EXP_CHAINS each. Printed as M threads x N exponentials each. */
static void exponentials(Timer *t, int sms, int iters)
{
  float *out;
  int blocks = 4 * sms, threads = 256;
  CK(cudaMalloc(&out, sizeof(float) * blocks));
  double best = best_of(t, [&] { k_exp2<<<blocks, threads>>>(iters, out); });
  CK(cudaGetLastError());
  printf("sfu,exp2,%d,%d,,0,%.9g\n", blocks * threads, iters * EXP_CHAINS, best);
  CK(cudaFree(out));
}

/* ---- GEMM ----------------------------------------------------------------------------------- */

/* Weights N x K (transposed in) times M tokens: the serving GEMM shape, C is N x M. */
static void gemm_bf16(Timer *t, cublasHandle_t h, const int *ms, int nm, const int (*nk)[2], int nnk)
{
  for (int s = 0; s < nnk; s++) {
    int n = nk[s][0], k = nk[s][1], m_max = ms[nm - 1];
    __nv_bfloat16 *w, *x, *c;
    CK(cudaMalloc(&w, (size_t)n * k * 2));
    CK(cudaMalloc(&x, (size_t)k * m_max * 2));
    CK(cudaMalloc(&c, (size_t)n * m_max * 2));
    k_fill_bf16<<<1024, 256>>>(w, (size_t)n * k, 1);
    k_fill_bf16<<<1024, 256>>>(x, (size_t)k * m_max, 2);
    CK(cudaGetLastError());
    float one = 1, zero = 0;
    for (int i = 0; i < nm; i++) {
      double best = 1e30;
      for (int r = 0; r < reps + 1; r++) { /* the first call also picks the algorithm */
        CK(cudaEventRecord(t->start));
        cublasStatus_t st = cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, n, ms[i], k, &one, w, CUDA_R_16BF, k, x,
                                         CUDA_R_16BF, k, &zero, c, CUDA_R_16BF, n, CUBLAS_COMPUTE_32F,
                                         CUBLAS_GEMM_DEFAULT);
        CK(cudaEventRecord(t->stop));
        if (st != CUBLAS_STATUS_SUCCESS) {
          printf("# gemm bf16 %d %d %d: cuBLAS status %d\n", ms[i], n, k, (int)st);
          break;
        }
        double sec = elapsed(t);
        if (r > 0)
          best = sec < best ? sec : best;
      }
      if (best < 1e30)
        printf("gemm,bf16,%d,%d,%d,%zu,%.9g\n", ms[i], n, k, (size_t)n * k * 2, best);
    }
    CK(cudaFree(w));
    CK(cudaFree(x));
    CK(cudaFree(c));
  }
}

/* Grouped (expert) GEMMs: E experts' N x K weights, each against its own M rows, as one strided
 * batched cuBLAS call (the experts' rows are even here, as a balanced MoE layer's are on average):
 * the shapes DeepSeek-R1 runs per GPU at EP8 (32 experts, gate+up 4096 x 7168, down 7168 x 2048)
 * and gpt-oss-120b at EP1 (128 experts, gate+up 5760 x 2880). Few rows per expert pad the MMA's
 * row tile; the fit (sim/calibrate.c) finds that tile from where the rate falls. M is the rows per
 * expert, BYTES all the experts' weight bytes. */
static void gemm_grouped(Timer *t, cublasHandle_t h, int quick)
{
  static const int ms_full[] = { 1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512 };
  static const int ms_quick[] = { 4, 16, 64, 128, 256 };
  static const int shapes[][3] = { { 32, 4096, 7168 }, { 32, 7168, 2048 }, { 128, 5760, 2880 } };
  const int *ms = quick ? ms_quick : ms_full;
  int nm = quick ? 5 : 14, ns = quick ? 1 : 3;
  for (int s = 0; s < ns; s++) {
    int e = shapes[s][0], n = shapes[s][1], k = shapes[s][2], m_max = ms[nm - 1];
    __nv_bfloat16 *w, *x, *c;
    CK(cudaMalloc(&w, (size_t)e * n * k * 2));
    CK(cudaMalloc(&x, (size_t)e * k * m_max * 2));
    CK(cudaMalloc(&c, (size_t)e * n * m_max * 2));
    k_fill_bf16<<<1024, 256>>>(w, (size_t)e * n * k, 7);
    k_fill_bf16<<<1024, 256>>>(x, (size_t)e * k * m_max, 8);
    CK(cudaGetLastError());
    float one = 1, zero = 0;
    for (int i = 0; i < nm; i++) {
      int m = ms[i];
      double best = 1e30;
      for (int r = 0; r < reps + 1; r++) {
        CK(cudaEventRecord(t->start));
        cublasStatus_t st = cublasGemmStridedBatchedEx(
          h, CUBLAS_OP_T, CUBLAS_OP_N, n, m, k, &one, w, CUDA_R_16BF, k, (long long)n * k, x, CUDA_R_16BF, k,
          (long long)k * m, &zero, c, CUDA_R_16BF, n, (long long)n * m, e, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
        CK(cudaEventRecord(t->stop));
        if (st != CUBLAS_STATUS_SUCCESS) {
          printf("# grouped bf16 %d %d %d x %d: cuBLAS status %d\n", m, n, k, e, (int)st);
          break;
        }
        double sec = elapsed(t);
        if (r > 0)
          best = sec < best ? sec : best;
      }
      if (best < 1e30)
        printf("grouped,bf16,%d,%d,%d,%zu,%.9g\n", m, n, k, (size_t)e * n * k * 2, best);
    }
    CK(cudaFree(w));
    CK(cudaFree(x));
    CK(cudaFree(c));
  }
}

/* One cuBLASLt low-precision GEMM (BF16 out, FP32 accumulate; TN: weights N x K transposed, M
 * tokens), of one of three kinds: FP8 (E4M3) with per-tensor unit scales; FP8 with DeepSeek's block
 * scaling (a scale per 128 x 128 block of weights, one per 128 values of each token's activations),
 * as serving stacks run the block-scaled checkpoints; NVFP4 on Blackwell (E2M1 values, a UE4M3
 * scale per 16). */
typedef enum { LT_FP8, LT_FP8_BLOCK, LT_FP4 } LtKind;
static const char *const lt_names[] = { "fp8", "fp8block", "fp4" };

typedef struct {
  cublasLtMatmulDesc_t op;
  cublasLtMatrixLayout_t la, lb, lc;
  cublasLtMatmulHeuristicResult_t heur;
  int found;
} LtGemm;

static void lt_set_batch(cublasLtMatrixLayout_t l, int batch, long long stride)
{
  int32_t b = batch;
  int64_t st = stride;
  cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_BATCH_COUNT, &b, sizeof b);
  cublasLtMatrixLayoutSetAttribute(l, CUBLASLT_MATRIX_LAYOUT_STRIDED_BATCH_OFFSET, &st, sizeof st);
}

/* BATCH > 1: that many GEMMs of the shape, each on its own weights, rows and output (strided). */
static void lt_plan(cublasLtHandle_t lt, LtGemm *g, int m, int n, int k, LtKind kind, const void *a_scale,
                    const void *b_scale, size_t ws_bytes, int batch)
{
  cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
  memset(g, 0, sizeof *g);
  cublasLtMatmulDescCreate(&g->op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
  cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
  cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
  if (kind != LT_FP8) {
    int32_t ma = CUBLASLT_MATMUL_MATRIX_SCALE_BLK128x128_32F, mb = CUBLASLT_MATMUL_MATRIX_SCALE_VEC128_32F;
    if (kind == LT_FP4)
      ma = mb = CUBLASLT_MATMUL_MATRIX_SCALE_VEC16_UE4M3;
    cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_A_SCALE_MODE, &ma, sizeof ma);
    cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_B_SCALE_MODE, &mb, sizeof mb);
    cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_A_SCALE_POINTER, &a_scale, sizeof a_scale);
    cublasLtMatmulDescSetAttribute(g->op, CUBLASLT_MATMUL_DESC_B_SCALE_POINTER, &b_scale, sizeof b_scale);
  }
  cudaDataType_t in = kind == LT_FP4 ? CUDA_R_4F_E2M1 : CUDA_R_8F_E4M3;
  cublasLtMatrixLayoutCreate(&g->la, in, k, n, k);
  cublasLtMatrixLayoutCreate(&g->lb, in, k, m, k);
  cublasLtMatrixLayoutCreate(&g->lc, CUDA_R_16BF, n, m, n);
  if (batch > 1) {
    lt_set_batch(g->la, batch, (long long)n * k);
    lt_set_batch(g->lb, batch, (long long)m * k);
    lt_set_batch(g->lc, batch, (long long)n * m);
  }
  cublasLtMatmulPreference_t pref;
  cublasLtMatmulPreferenceCreate(&pref);
  cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes);
  if (cublasLtMatmulAlgoGetHeuristic(lt, g->op, g->la, g->lb, g->lc, g->lc, pref, 1, &g->heur, &g->found) !=
      CUBLAS_STATUS_SUCCESS)
    g->found = 0;
  cublasLtMatmulPreferenceDestroy(pref);
}

static int lt_run(cublasLtHandle_t lt, LtGemm *g, const void *w, const void *x, void *c, void *ws, size_t ws_bytes)
{
  float one = 1, zero = 0;
  return cublasLtMatmul(lt, g->op, &one, w, g->la, x, g->lb, &zero, c, g->lc, c, g->lc, &g->heur.algo, ws, ws_bytes,
                        0) == CUBLAS_STATUS_SUCCESS;
}

/* The best of the timed runs of a planned GEMM (the first, a warm-up, not counted); 0 when
 * cuBLASLt found no algorithm for it or a run failed. */
static double lt_best(cublasLtHandle_t lt, Timer *t, LtGemm *g, const void *w, const void *x, void *c, void *ws,
                      size_t ws_bytes)
{
  if (!g->found)
    return 0;
  double best = 1e30;
  for (int r = 0; r < reps + 1; r++) {
    CK(cudaEventRecord(t->start));
    int ok = lt_run(lt, g, w, x, c, ws, ws_bytes);
    CK(cudaEventRecord(t->stop));
    if (!ok)
      return 0;
    double sec = elapsed(t);
    if (r > 0)
      best = sec < best ? sec : best;
  }
  return best;
}

static void lt_free(LtGemm *g)
{
  cublasLtMatrixLayoutDestroy(g->la);
  cublasLtMatrixLayoutDestroy(g->lb);
  cublasLtMatrixLayoutDestroy(g->lc);
  cublasLtMatmulDescDestroy(g->op);
}

/* cuBLASLt GEMMs over the shapes: FP8 per-tensor (variant fp8) and block-scaled (fp8block), and
 * with FP4 (Blackwell and later) NVFP4 (fp4). */
static void gemm_lt(Timer *t, const int *ms, int nm, const int (*nk)[2], int nnk, int fp4)
{
  cublasLtHandle_t lt;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS)
    return;
  size_t ws_bytes = 64u << 20;
  void *ws;
  float *scales; /* FP8 blocks: FP32 scales */
  unsigned char *scales4; /* NVFP4: UE4M3 bytes, 1.0 (0x38) */
  const size_t n_scales = (size_t)16 << 20; /* more than any shape's blocks or token groups */
  CK(cudaMalloc(&ws, ws_bytes));
  CK(cudaMalloc(&scales, 2 * n_scales * sizeof(float)));
  CK(cudaMalloc(&scales4, 2 * n_scales));
  k_fill_scale<<<1024, 256>>>(scales, 2 * n_scales);
  CK(cudaMemset(scales4, 0x38, 2 * n_scales));
  for (int kind = LT_FP8; kind <= (fp4 ? LT_FP4 : LT_FP8_BLOCK); kind++)
    for (int s = 0; s < nnk; s++) {
      int n = nk[s][0], k = nk[s][1], m_max = ms[nm - 1];
      void *w, *x, *c;
      CK(cudaMalloc(&w, (size_t)n * k)); /* FP4 uses half */
      CK(cudaMalloc(&x, (size_t)k * m_max));
      CK(cudaMalloc(&c, (size_t)n * m_max * 2));
      /* random bytes: E4M3 values, or pairs of E2M1 values (every byte is two valid ones) */
      k_fill_fp8<<<1024, 256>>>((__nv_fp8_e4m3 *)w, (size_t)n * k, 3);
      k_fill_fp8<<<1024, 256>>>((__nv_fp8_e4m3 *)x, (size_t)k * m_max, 4);
      CK(cudaGetLastError());
      const void *sa = kind == LT_FP4 ? (const void *)scales4 : (const void *)scales;
      const void *sb = kind == LT_FP4 ? (const void *)(scales4 + n_scales) : (const void *)(scales + n_scales);
      for (int i = 0; i < nm; i++) {
        int m = ms[i] < 16 ? 16 : ms[i]; /* low-precision tensor-core GEMMs want multiples of 16 */
        if (i > 0 && (ms[i - 1] < 16 ? 16 : ms[i - 1]) >= m)
          continue; /* already timed at this padded size */
        LtGemm g;
        lt_plan(lt, &g, m, n, k, (LtKind)kind, sa, sb, ws_bytes, 1);
        double best = lt_best(lt, t, &g, w, x, c, ws, ws_bytes);
        size_t wbytes = kind == LT_FP4 ? (size_t)n * k / 2 : (size_t)n * k;
        if (best > 0)
          printf("gemm,%s,%d,%d,%d,%zu,%.9g\n", lt_names[kind], m, n, k, wbytes, best);
        else
          printf("# gemm %s %d %d %d: no cuBLASLt algorithm on this GPU\n", lt_names[kind], m, n, k);
        lt_free(&g);
      }
      CK(cudaFree(w));
      CK(cudaFree(x));
      CK(cudaFree(c));
    }
  CK(cudaFree(scales));
  CK(cudaFree(scales4));
  CK(cudaFree(ws));
  cublasLtDestroy(lt);
}

/* Grouped (expert) GEMMs in FP8 through cuBLASLt, E experts as one strided batch: per-tensor
 * scales (fp8) and DeepSeek's block scaling (fp8block, the precision DeepSeek-R1's experts run in,
 * as DeepGEMM's grouped kernels do). DeepSeek-R1's shapes at EP8 only, and the rows per expert
 * decode and prefill batches give. Reported beside the BF16 grouped rows; a cuBLASLt without
 * batched block scaling says so in a comment. */
static void gemm_grouped_lt(Timer *t, int quick)
{
  static const int ms_full[] = { 16, 32, 64, 128, 256, 512 };
  static const int ms_quick[] = { 16, 128 };
  static const int shapes[][3] = { { 32, 4096, 7168 }, { 32, 7168, 2048 } };
  const int *ms = quick ? ms_quick : ms_full;
  int nm = quick ? 2 : 6, ns = quick ? 1 : 2;
  cublasLtHandle_t lt;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS)
    return;
  size_t ws_bytes = 64u << 20;
  const size_t n_scales = (size_t)16 << 20;
  void *ws;
  float *scales;
  CK(cudaMalloc(&ws, ws_bytes));
  CK(cudaMalloc(&scales, 2 * n_scales * sizeof(float)));
  k_fill_scale<<<1024, 256>>>(scales, 2 * n_scales);
  for (int s = 0; s < ns; s++) {
    int e = shapes[s][0], n = shapes[s][1], k = shapes[s][2], m_max = ms[nm - 1];
    void *w, *x, *c;
    CK(cudaMalloc(&w, (size_t)e * n * k));
    CK(cudaMalloc(&x, (size_t)e * k * m_max));
    CK(cudaMalloc(&c, (size_t)e * n * m_max * 2));
    k_fill_fp8<<<1024, 256>>>((__nv_fp8_e4m3 *)w, (size_t)e * n * k, 5);
    k_fill_fp8<<<1024, 256>>>((__nv_fp8_e4m3 *)x, (size_t)e * k * m_max, 6);
    CK(cudaGetLastError());
    for (int kind = LT_FP8; kind <= LT_FP8_BLOCK; kind++)
      for (int i = 0; i < nm; i++) {
        int m = ms[i];
        LtGemm g;
        lt_plan(lt, &g, m, n, k, (LtKind)kind, scales, scales + n_scales, ws_bytes, e);
        double best = lt_best(lt, t, &g, w, x, c, ws, ws_bytes);
        if (best > 0)
          printf("grouped,%s,%d,%d,%d,%zu,%.9g\n", lt_names[kind], m, n, k, (size_t)e * n * k, best);
        else
          printf("# grouped %s %d %d %d x %d: no batched cuBLASLt algorithm on this GPU\n", lt_names[kind], m, n,
                 k, e);
        lt_free(&g);
      }
    CK(cudaFree(w));
    CK(cudaFree(x));
    CK(cudaFree(c));
  }
  CK(cudaFree(scales));
  CK(cudaFree(ws));
  cublasLtDestroy(lt);
}

/* ---- overheads and the host link ------------------------------------------------------------- */

static void launch(Timer *t)
{
  const int n = 2000;
  k_empty<<<1, 32>>>();
  CK(cudaDeviceSynchronize());
  CK(cudaEventRecord(t->start));
  for (int i = 0; i < n; i++)
    k_empty<<<1, 32>>>();
  CK(cudaEventRecord(t->stop));
  printf("launch,empty,,,,0,%.9g\n", elapsed(t) / n);
}

static void host_copies(Timer *t, size_t bytes)
{
  void *h, *d;
  CK(cudaMallocHost(&h, bytes));
  CK(cudaMalloc(&d, bytes));
  memset(h, 0, bytes);
  for (int dir = 0; dir < 2; dir++) {
    double best = best_of(t, [&] {
      CK(cudaMemcpyAsync(dir == 0 ? d : h, dir == 0 ? h : d, bytes, dir == 0 ? cudaMemcpyHostToDevice : cudaMemcpyDeviceToHost));
    });
    printf("%s,pinned,,,,%zu,%.9g\n", dir == 0 ? "h2d" : "d2h", bytes, best);
  }
  CK(cudaFreeHost(h));
  CK(cudaFree(d));
}

/* ---- two or more GPUs ------------------------------------------------------------------------ */

static double now_s(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* GPU 0 -> GPU 1 over NVLink (or PCIe when there is none): one direction, then both at once. */
static void peer_copies(size_t bytes)
{
  void *a0, *b0, *a1, *b1;
  int can = 0;
  cudaDeviceCanAccessPeer(&can, 0, 1);
  if (!can) {
    printf("# p2p: GPU 0 cannot access GPU 1\n");
    return;
  }
  CK(cudaSetDevice(0));
  cudaDeviceEnablePeerAccess(1, 0);
  CK(cudaMalloc(&a0, bytes));
  CK(cudaMalloc(&b0, bytes));
  CK(cudaSetDevice(1));
  cudaDeviceEnablePeerAccess(0, 0);
  CK(cudaMalloc(&a1, bytes));
  CK(cudaMalloc(&b1, bytes));
  for (int both = 0; both < 2; both++) {
    double best = 1e30;
    for (int r = 0; r < reps; r++) {
      CK(cudaSetDevice(0));
      CK(cudaDeviceSynchronize());
      double t0 = now_s();
      CK(cudaMemcpyPeerAsync(a1, 1, a0, 0, bytes, 0));
      if (both) {
        CK(cudaSetDevice(1));
        CK(cudaMemcpyPeerAsync(b0, 0, b1, 1, bytes, 0));
        CK(cudaDeviceSynchronize());
      }
      CK(cudaSetDevice(0));
      CK(cudaDeviceSynchronize());
      double dt = now_s() - t0;
      best = dt < best ? dt : best;
    }
    printf("p2p,%s,2,,,%zu,%.9g\n", both ? "bidirectional" : "unidirectional", both ? 2 * bytes : bytes, best);
  }
  CK(cudaFree(a1));
  CK(cudaFree(b1));
  CK(cudaSetDevice(0));
  CK(cudaFree(a0));
  CK(cudaFree(b0));
}

#ifdef AIF_HAVE_NCCL
/* All-reduce (sum, BF16) and all-to-all (send/recv pairs) over every GPU, message sizes 8 KiB to
 * MAX: each GPU's buffer is the message (all-to-all sends a 1/n slice to each peer). */
static void collectives(int n, size_t max)
{
  ncclComm_t *comms = (ncclComm_t *)calloc(n, sizeof *comms);
  cudaStream_t *st = (cudaStream_t *)calloc(n, sizeof *st);
  void **snd = (void **)calloc(n, sizeof *snd), **rcv = (void **)calloc(n, sizeof *rcv);
  if (ncclCommInitAll(comms, n, NULL) != ncclSuccess) {
    printf("# nccl: ncclCommInitAll failed\n");
    return;
  }
  for (int d = 0; d < n; d++) {
    CK(cudaSetDevice(d));
    CK(cudaStreamCreate(&st[d]));
    CK(cudaMalloc(&snd[d], max));
    CK(cudaMalloc(&rcv[d], max));
    CK(cudaMemset(snd[d], 0, max));
  }
  for (int kind = 0; kind < 2; kind++)
    for (size_t bytes = 8192; bytes <= max; bytes *= 4) {
      double best = 1e30;
      for (int r = 0; r < reps + 2; r++) {
        double t0 = now_s();
        ncclGroupStart();
        for (int d = 0; d < n; d++) {
          if (kind == 0) {
            ncclAllReduce(snd[d], rcv[d], bytes / 2, ncclBfloat16, ncclSum, comms[d], st[d]);
            continue;
          }
          size_t slice = bytes / n;
          for (int peer = 0; peer < n; peer++) {
            ncclSend((char *)snd[d] + peer * slice, slice, ncclChar, peer, comms[d], st[d]);
            ncclRecv((char *)rcv[d] + peer * slice, slice, ncclChar, peer, comms[d], st[d]);
          }
        }
        ncclGroupEnd();
        for (int d = 0; d < n; d++) {
          CK(cudaSetDevice(d));
          CK(cudaStreamSynchronize(st[d]));
        }
        double dt = now_s() - t0;
        if (r >= 2) /* two warm-up rounds set up the channels */
          best = dt < best ? dt : best;
      }
      printf("nccl,%s,%d,,,%zu,%.9g\n", kind == 0 ? "allreduce" : "alltoall", n, bytes, best);
    }
  for (int d = 0; d < n; d++) {
    CK(cudaSetDevice(d));
    CK(cudaFree(snd[d]));
    CK(cudaFree(rcv[d]));
    CK(cudaStreamDestroy(st[d]));
    ncclCommDestroy(comms[d]);
  }
  CK(cudaSetDevice(0));
  free(comms), free(st), free(snd), free(rcv);
}
#endif

/* ---- board power by activity (NVML, when the driver's library loads) ------------------------- */

/* The few NVML entry points used, declared here: nvml.h ships with the driver's development files,
 * not with every CUDA toolkit, and the library itself comes with the driver. */
typedef struct nvmlDevice_st *NvmlDevice;
typedef struct {
  void *lib;
  NvmlDevice dev;
  int (*shutdown)(void);
  int (*power)(NvmlDevice, unsigned *);          /* mW */
  int (*clock)(NvmlDevice, int, unsigned *);     /* MHz; type 1 = SM */
  int (*limit)(NvmlDevice, unsigned *);          /* mW */
} Nvml;

static int nvml_open(Nvml *nv, int device)
{
  char bus[32];
  memset(nv, 0, sizeof *nv);
  if (cudaDeviceGetPCIBusId(bus, sizeof bus, device) != cudaSuccess)
    return 0;
  nv->lib = dlopen("libnvidia-ml.so.1", RTLD_NOW);
  if (!nv->lib)
    return 0;
  int (*init)(void) = (int (*)(void))dlsym(nv->lib, "nvmlInit_v2");
  typedef int (*ByBus)(const char *, NvmlDevice *);
  ByBus by_bus = (ByBus)dlsym(nv->lib, "nvmlDeviceGetHandleByPciBusId_v2");
  nv->shutdown = (int (*)(void))dlsym(nv->lib, "nvmlShutdown");
  nv->power = (int (*)(NvmlDevice, unsigned *))dlsym(nv->lib, "nvmlDeviceGetPowerUsage");
  nv->clock = (int (*)(NvmlDevice, int, unsigned *))dlsym(nv->lib, "nvmlDeviceGetClockInfo");
  nv->limit = (int (*)(NvmlDevice, unsigned *))dlsym(nv->lib, "nvmlDeviceGetEnforcedPowerLimit");
  unsigned mw;
  if (!init || !by_bus || !nv->shutdown || !nv->power || !nv->clock || !nv->limit || init() != 0 ||
      by_bus(bus, &nv->dev) != 0 || nv->power(nv->dev, &mw) != 0) {
    dlclose(nv->lib);
    nv->lib = NULL;
    return 0;
  }
  return 1;
}

/* Samples power and SM clock every 20 ms from a thread while the main thread keeps the GPU busy. */
#define MAX_SAMPLES 4096
typedef struct {
  Nvml *nv;
  volatile int stop;
  int n;
  double t[MAX_SAMPLES], watts[MAX_SAMPLES], mhz[MAX_SAMPLES];
} Sampler;

static void *sample_loop(void *arg)
{
  Sampler *s = (Sampler *)arg;
  while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE) && s->n < MAX_SAMPLES) {
    unsigned mw = 0, mhz = 0;
    if (s->nv->power(s->nv->dev, &mw) == 0 && s->nv->clock(s->nv->dev, 1, &mhz) == 0) {
      s->t[s->n] = now_s(), s->watts[s->n] = mw * 1e-3, s->mhz[s->n] = mhz;
      s->n++;
    }
    struct timespec ts = { 0, 20 * 1000 * 1000 };
    nanosleep(&ts, NULL);
  }
  return NULL;
}

/* One phase of SECONDS: WORK (one unit of kernels, UNIT_WORK bytes or FLOPs) repeated, or with
 * UNIT_WORK 0 nothing run (idle); prints the power row from the samples of its second half (NVML's
 * reading averages over a window, so the first half lets it settle). */
template <typename F> static void power_phase(Nvml *nv, const char *name, double seconds, double unit_work, F work)
{
  static Sampler s;
  memset(&s, 0, sizeof s);
  s.nv = nv;
  pthread_t th;
  if (pthread_create(&th, NULL, sample_loop, &s) != 0)
    return;
  double t0 = now_s(), t1 = t0, done = 0;
  while (t1 - t0 < seconds) {
    if (unit_work > 0) {
      for (int i = 0; i < 4; i++)
        work();
      CK(cudaDeviceSynchronize());
      done += 4 * unit_work;
    } else {
      struct timespec ts = { 0, 50 * 1000 * 1000 };
      nanosleep(&ts, NULL);
    }
    t1 = now_s();
  }
  __atomic_store_n(&s.stop, 1, __ATOMIC_RELEASE);
  pthread_join(th, NULL);
  double w = 0, c = 0;
  int k = 0;
  for (int i = 0; i < s.n; i++)
    if (s.t[i] >= t0 + (t1 - t0) / 2)
      w += s.watts[i], c += s.mhz[i], k++;
  unsigned limit_mw = 0;
  nv->limit(nv->dev, &limit_mw);
  if (k > 0)
    printf("power,%s,%.1f,%.0f,%.0f,%.6g,%.6g\n", name, w / k, c / k, limit_mw * 1e-3, done, t1 - t0);
  else
    printf("# power %s: no samples\n", name);
  fflush(stdout);
}

/* Idle; HBM copies (2 GiB each way); BF16 GEMMs 8192^3 on random operands taking 25%, 50% and 75%
 * of the time between the copies (variant mixNN, the share planned from their burst times, the
 * way a serving step mixes weight-bound and compute-bound kernels); BF16 GEMMs alone; FP8 GEMMs
 * alone: SECONDS each. */
static void power(Timer *t, int sms, double seconds)
{
  Nvml nv;
  if (!nvml_open(&nv, 0)) {
    printf("# power: NVML (libnvidia-ml.so.1) not available; board power not measured\n");
    return;
  }
  size_t bytes = (size_t)2 << 30, n = bytes / sizeof(float4);
  float4 *a, *b;
  CK(cudaMalloc(&a, bytes));
  CK(cudaMalloc(&b, bytes));
  CK(cudaMemset(a, 0, bytes));
  const int d = 8192;
  __nv_bfloat16 *x, *y, *z;
  CK(cudaMalloc(&x, (size_t)d * d * 2));
  CK(cudaMalloc(&y, (size_t)d * d * 2));
  CK(cudaMalloc(&z, (size_t)d * d * 2));
  k_fill_bf16<<<1024, 256>>>(x, (size_t)d * d, 7);
  k_fill_bf16<<<1024, 256>>>(y, (size_t)d * d, 8);
  CK(cudaDeviceSynchronize());
  cublasHandle_t h;
  cublasLtHandle_t lt;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS || cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "aifsim-bench: cuBLAS did not start\n");
    exit(1);
  }
  float one = 1, zero = 0;
  double flops = 2.0 * d * d * d;
  auto gemm = [&] {
    cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, d, d, d, &one, x, CUDA_R_16BF, d, y, CUDA_R_16BF, d, &zero, z,
                 CUDA_R_16BF, d, CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT);
  };
  auto copy = [&] { k_copy<<<sms * 4, 512>>>(b, a, n); };
  double t_gemm = best_of(t, gemm), t_copy = best_of(t, copy);
  printf("# power: burst times: BF16 GEMM 8192^3 %.6g s, HBM copy 2 x 2 GiB %.6g s\n", t_gemm, t_copy);
  power_phase(&nv, "idle", seconds, 0, [] {});
  power_phase(&nv, "memory", seconds, 2.0 * bytes, copy);
  for (int share = 25; share <= 75; share += 25) {
    /* a unit of about 20 ms: G GEMMs between C copies */
    int g = (int)(share / 100.0 * 0.02 / t_gemm + 0.5), c = (int)((100 - share) / 100.0 * 0.02 / t_copy + 0.5);
    g = g < 1 ? 1 : g, c = c < 1 ? 1 : c;
    char name[16];
    snprintf(name, sizeof name, "mix%d", (int)(100 * g * t_gemm / (g * t_gemm + c * t_copy) + 0.5));
    power_phase(&nv, name, seconds, g * flops, [&] {
      for (int i = 0; i < (g > c ? g : c); i++) {
        if (i < g)
          gemm();
        if (i < c)
          copy();
      }
    });
  }
  power_phase(&nv, "compute", seconds, flops, gemm);
  /* FP8 GEMMs alone, per-tensor scales */
  size_t ws_bytes = 64u << 20;
  void *ws;
  CK(cudaMalloc(&ws, ws_bytes));
  k_fill_fp8<<<1024, 256>>>((__nv_fp8_e4m3 *)x, (size_t)d * d, 3);
  k_fill_fp8<<<1024, 256>>>((__nv_fp8_e4m3 *)y, (size_t)d * d, 4);
  LtGemm g8;
  lt_plan(lt, &g8, d, d, d, LT_FP8, NULL, NULL, ws_bytes, 1);
  if (g8.found)
    power_phase(&nv, "compute-fp8", seconds, flops, [&] { lt_run(lt, &g8, x, y, z, ws, ws_bytes); });
  lt_free(&g8);
  CK(cudaFree(ws));
  cublasLtDestroy(lt);
  cublasDestroy(h);
  CK(cudaFree(a));
  CK(cudaFree(b));
  CK(cudaFree(x));
  CK(cudaFree(y));
  CK(cudaFree(z));
  nv.shutdown();
  dlclose(nv.lib);
}

int main(int argc, char **argv)
{
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  int count = 0;
  setvbuf(stdout, NULL, _IOLBF, 0); /* what was measured survives a crash further on */
  if (cudaGetDeviceCount(&count) != cudaSuccess || count == 0) {
    fprintf(stderr, "aifsim-bench: no CUDA device\n");
    return 3;
  }
  cudaDeviceProp p;
  CK(cudaGetDeviceProperties(&p, 0));
  int clock_khz = 0;
  cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0);
  printf("# aifsim-bench 1%s\n", quick ? " (quick)" : "");
  printf("device,%s,%d,%d,%zu,%d,%d\n", p.name, p.multiProcessorCount, clock_khz, p.totalGlobalMem, p.major, p.minor);
  fflush(stdout);
  if (quick)
    reps = 5;
  Timer t;
  CK(cudaEventCreate(&t.start));
  CK(cudaEventCreate(&t.stop));
  launch(&t);
  hbm(&t, quick ? (size_t)1 << 30 : (size_t)4 << 30, p.multiProcessorCount * 4);
  fflush(stdout);
  /* 24-192 rows twice as dense as elsewhere: the knee of the small-M curve (gemm_half_m, ~46 rows
   * on an H200) is where decode batches and expert GEMMs sit, and the fit needs it pinned */
  static const int ms_full[] = { 1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512, 1024, 2048, 4096, 8192 };
  static const int ms_quick[] = { 1, 8, 32, 128, 512, 2048, 8192 };
  static const int nk_full[][2] = { { 4096, 4096 }, { 8192, 8192 }, { 28672, 8192 }, { 8192, 28672 } };
  static const int nk_quick[][2] = { { 8192, 8192 }, { 28672, 8192 } };
  const int *ms = quick ? ms_quick : ms_full;
  int nm = quick ? (int)(sizeof ms_quick / sizeof *ms_quick) : (int)(sizeof ms_full / sizeof *ms_full);
  int nnk = quick ? 2 : 4;
  const int (*nk)[2] = quick ? nk_quick : nk_full;
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "aifsim-bench: cuBLAS did not start\n");
    return 1;
  }
  gemm_bf16(&t, h, ms, nm, nk, nnk);
  gemm_grouped(&t, h, quick);
  static const int lens[] = { 1024, 4096, 8192 };
  attention_prefill(&t, h, lens, quick ? 2 : 3, 64);
  exponentials(&t, p.multiProcessorCount, quick ? 1024 : 4096);
  cublasDestroy(h);
  fflush(stdout);
  if (p.major >= 9) {
    gemm_lt(&t, ms, nm, nk, nnk, p.major >= 10);
    gemm_grouped_lt(&t, quick);
  }
  static const int batches[] = { 1, 16, 128 }, ctxs[] = { 1024, 8192, 32768 };
  attention(&t, p.multiProcessorCount, batches, quick ? 2 : 3, ctxs, quick ? 2 : 3);
  host_copies(&t, (size_t)256 << 20);
  if (count >= 2) {
    peer_copies((size_t)256 << 20);
#ifdef AIF_HAVE_NCCL
    collectives(count, quick ? (size_t)32 << 20 : (size_t)512 << 20);
#else
    printf("# nccl: built without NCCL; no collectives measured\n");
#endif
  }
  CK(cudaSetDevice(0));
  power(&t, p.multiProcessorCount, quick ? 2.5 : 5.0);
  return 0;
}
