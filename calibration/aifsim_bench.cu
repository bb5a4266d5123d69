/* aifsim_bench.cu — the calibration microbenchmarks `aifsim calibrate` runs on the local GPU.
 *
 * Framework-free kernels that measure what the step-time model's efficiencies stand for: HBM
 * streaming (read, write, copy on buffers far larger than L2), dense GEMM through cuBLAS (BF16) and
 * cuBLASLt (FP8 on Hopper and later) over a grid of token counts M and weight shapes N x K, a
 * decode-attention-shaped KV read over batch sizes and contexts, kernel-launch overhead and
 * host<->device copies; with two or more GPUs, peer copies over NVLink and (when built with NCCL,
 * -DAIF_HAVE_NCCL) all-reduce and all-to-all across all of them over message sizes. Every figure
 * is the best of several timed repetitions (CUDA events; host clock around the multi-GPU ones).
 *
 * Output (stdout) is CSV that sim/calibrate.c reads, one measurement per line:
 *   device,NAME,SMS,SM_CLOCK_KHZ,MEMORY_BYTES,CC_MAJOR,CC_MINOR
 *   KIND,VARIANT,M,N,K,BYTES,SECONDS
 * with KIND one of hbm (VARIANT read/write/copy), gemm (bf16/fp8), attn (decode: M = batch,
 * N = context tokens), launch, h2d, d2h, p2p (peer), nccl (allreduce/alltoall: M = GPUs, BYTES =
 * each GPU's buffer). Lines starting with '#' are comments.
 * Exit status: 0, 3 when there is no CUDA device, 1 on a CUDA error. */
#include <cublasLt.h>
#include <cublas_v2.h>
#include <cuda_bf16.h>
#include <cuda_fp8.h>
#include <cuda_runtime.h>
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

/* Decode attention's memory pattern: one block per sequence streams its CTX tokens of KV cache
 * (TOKEN_BYTES each) and reduces them against a query. */
__global__ void k_attn(const __nv_bfloat162 *kv, int ctx, int token_words, const __nv_bfloat162 *q, float *out)
{
  const __nv_bfloat162 *seq = kv + (size_t)blockIdx.x * ctx * token_words;
  float acc = 0;
  for (size_t i = threadIdx.x; i < (size_t)ctx * token_words; i += blockDim.x) {
    float2 a = __bfloat1622float2(seq[i]), b = __bfloat1622float2(q[i % token_words]);
    acc += a.x * b.x + a.y * b.y;
  }
  if (acc == 1234.5f)
    out[blockIdx.x] = acc;
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

static void attention(Timer *t, const int *batches, int nb, const int *ctxs, int nc)
{
  const int token_bytes = 4096; /* 8 KV heads x 128 x (K and V) in BF16, one layer */
  int words = token_bytes / 4;
  size_t most = (size_t)batches[nb - 1] * ctxs[nc - 1] * token_bytes;
  __nv_bfloat162 *kv, *q;
  float *out;
  CK(cudaMalloc(&kv, most));
  CK(cudaMalloc(&q, token_bytes));
  CK(cudaMalloc(&out, sizeof(float) * batches[nb - 1]));
  CK(cudaMemset(kv, 0, most));
  CK(cudaMemset(q, 0, token_bytes));
  for (int i = 0; i < nb; i++)
    for (int j = 0; j < nc; j++) {
      double best = best_of(t, [&] { k_attn<<<batches[i], 256>>>(kv, ctxs[j], words, q, out); });
      printf("attn,decode,%d,%d,,%zu,%.9g\n", batches[i], ctxs[j], (size_t)batches[i] * ctxs[j] * token_bytes, best);
    }
  CK(cudaFree(kv));
  CK(cudaFree(q));
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
    CK(cudaMemset(w, 0, (size_t)n * k * 2));
    CK(cudaMemset(x, 0, (size_t)k * m_max * 2));
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

/* FP8 (E4M3) inputs, BF16 out, FP32 accumulate, unit scales: cuBLASLt's TN layout. */
static void gemm_fp8(Timer *t, const int *ms, int nm, const int (*nk)[2], int nnk)
{
  cublasLtHandle_t lt;
  if (cublasLtCreate(&lt) != CUBLAS_STATUS_SUCCESS)
    return;
  size_t ws_bytes = 64u << 20;
  void *ws;
  CK(cudaMalloc(&ws, ws_bytes));
  for (int s = 0; s < nnk; s++) {
    int n = nk[s][0], k = nk[s][1], m_max = ms[nm - 1];
    void *w, *x, *c;
    CK(cudaMalloc(&w, (size_t)n * k));
    CK(cudaMalloc(&x, (size_t)k * m_max));
    CK(cudaMalloc(&c, (size_t)n * m_max * 2));
    CK(cudaMemset(w, 0, (size_t)n * k));
    CK(cudaMemset(x, 0, (size_t)k * m_max));
    for (int i = 0; i < nm; i++) {
      int m = ms[i] < 16 ? 16 : ms[i]; /* FP8 tensor-core GEMMs want multiples of 16 */
      cublasLtMatmulDesc_t op;
      cublasLtMatrixLayout_t la, lb, lc;
      cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
      cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F);
      cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta);
      cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb);
      cublasLtMatrixLayoutCreate(&la, CUDA_R_8F_E4M3, k, n, k);
      cublasLtMatrixLayoutCreate(&lb, CUDA_R_8F_E4M3, k, m, k);
      cublasLtMatrixLayoutCreate(&lc, CUDA_R_16BF, n, m, n);
      cublasLtMatmulPreference_t pref;
      cublasLtMatmulPreferenceCreate(&pref);
      cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &ws_bytes, sizeof ws_bytes);
      cublasLtMatmulHeuristicResult_t heur;
      int found = 0;
      cublasLtMatmulAlgoGetHeuristic(lt, op, la, lb, lc, lc, pref, 1, &heur, &found);
      double best = 1e30;
      float one = 1, zero = 0;
      for (int r = 0; found && r < reps + 1; r++) {
        CK(cudaEventRecord(t->start));
        cublasStatus_t st = cublasLtMatmul(lt, op, &one, w, la, x, lb, &zero, c, lc, c, lc, &heur.algo, ws, ws_bytes, 0);
        CK(cudaEventRecord(t->stop));
        if (st != CUBLAS_STATUS_SUCCESS) {
          found = 0;
          break;
        }
        double sec = elapsed(t);
        if (r > 0)
          best = sec < best ? sec : best;
      }
      if (found && best < 1e30)
        printf("gemm,fp8,%d,%d,%d,%zu,%.9g\n", m, n, k, (size_t)n * k, best);
      else
        printf("# gemm fp8 %d %d %d: no cuBLASLt algorithm on this GPU\n", m, n, k);
      cublasLtMatmulPreferenceDestroy(pref);
      cublasLtMatrixLayoutDestroy(la);
      cublasLtMatrixLayoutDestroy(lb);
      cublasLtMatrixLayoutDestroy(lc);
      cublasLtMatmulDescDestroy(op);
    }
    CK(cudaFree(w));
    CK(cudaFree(x));
    CK(cudaFree(c));
  }
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

int main(int argc, char **argv)
{
  int quick = argc > 1 && strcmp(argv[1], "--quick") == 0;
  int count = 0;
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
  static const int ms_full[] = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096, 8192 };
  static const int ms_quick[] = { 1, 8, 32, 128, 512, 2048, 8192 };
  static const int nk_full[][2] = { { 4096, 4096 }, { 8192, 8192 }, { 28672, 8192 }, { 8192, 28672 } };
  static const int nk_quick[][2] = { { 8192, 8192 }, { 28672, 8192 } };
  const int *ms = quick ? ms_quick : ms_full;
  int nm = quick ? 7 : 14, nnk = quick ? 2 : 4;
  const int (*nk)[2] = quick ? nk_quick : nk_full;
  cublasHandle_t h;
  if (cublasCreate(&h) != CUBLAS_STATUS_SUCCESS) {
    fprintf(stderr, "aifsim-bench: cuBLAS did not start\n");
    return 1;
  }
  gemm_bf16(&t, h, ms, nm, nk, nnk);
  cublasDestroy(h);
  fflush(stdout);
  if (p.major >= 9)
    gemm_fp8(&t, ms, nm, nk, nnk);
  static const int batches[] = { 1, 16, 128 }, ctxs[] = { 1024, 8192, 32768 };
  attention(&t, batches, quick ? 2 : 3, ctxs, quick ? 2 : 3);
  host_copies(&t, (size_t)256 << 20);
  if (count >= 2) {
    peer_copies((size_t)256 << 20);
#ifdef AIF_HAVE_NCCL
    collectives(count, quick ? (size_t)32 << 20 : (size_t)512 << 20);
#else
    printf("# nccl: built without NCCL; no collectives measured\n");
#endif
  }
  return 0;
}
