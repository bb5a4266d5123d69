/* calibrate.h — from the calibration kernels' measurements (calibration/aifsim_bench.cu) to the
 * profile's per-architecture efficiencies.
 *
 * The kernels print CSV (format in aifsim_bench.cu); this module reads it and fits the parameters
 * the step-time model reads for that GPU: hbm_efficiency (the best streaming rate over the
 * catalog's HBM bandwidth), and gemm_efficiency with gemm_half_m, the GEMM curve
 * t = max(2MNK / (peak x eff x M / (M + half_m)), weight bytes / (HBM x hbm_efficiency)) the model
 * uses, FP8 with its own factor fp8_efficiency on the efficiency (BF16 sets gemm_efficiency) and
 * block-scaled FP8 with fp8_block_efficiency on top and NVFP4 (Blackwell) with fp4_efficiency,
 * fitted over every measured (M, N, K, precision) by least squares on log time with a fixed
 * time per GEMM beside it (launch, ramp and tail: the model counts those in the stack's
 * layer_overhead, so it is reported, not applied); the tile of batched expert GEMMs of
 * DeepSeek-R1's and gpt-oss's shapes (the rows whose padding, moe_tile_rows, best explains how
 * their rate falls with few rows per expert, at the dense curve's rate for their precision),
 * reported and not written: cuBLAS's batched kernel is not the stacks' grouped kernel, whose tile
 * grouped_tile_m holds (sim/calibrate.c says what an H200 measured); with two or more
 * GPUs, nvlink_efficiency and collective_latency from NCCL all-to-all times,
 * t = latency + bytes moved / (NVLink one way x efficiency) as comm.c has it, least squares on
 * relative error, and the all-reduce's two regimes (allreduce_latency and _efficiency for small
 * messages; for large ones the ring's allreduce_bulk_latency and _efficiency, or the NVSwitch's
 * allreduce_nvls_latency and _efficiency where NCCL ran them there) from its times by size: one
 * such line below a size and another above it, the split where the two fit best (one line for
 * both where two fit no better); exp_efficiency, the special-function units' exponentials per
 * second in a tight MUFU.EX2 loop over the catalog's gpu.exp_rate (the bound a fused attention's
 * softmax meets).
 * Launch overhead, decode-attention read rates, prefill attention's GEMM rate, peer-copy and host-link
 * figures are reported, not fitted:
 * the stack's overheads are the framework's, which framework-free kernels cannot see. Board power
 * while idle, streaming HBM and running GEMMs gives the catalog's idle_power and
 * memory_bound_power for the GPU, and the SM clock the power limit leaves under sustained GEMMs. */
#ifndef AIF_CALIBRATE_H
#define AIF_CALIBRATE_H

#include <glib.h>

#include "hardware.h"
#include "profile.h"

typedef struct {
  char kind[16], variant[16];  /* hbm read, gemm fp8, attn decode, launch empty, h2d pinned, ... */
  double m, n, k;              /* shape (gemm: tokens, out, in; attn: batch, context) */
  double bytes;                /* bytes moved (gemm: weight bytes) */
  double seconds;              /* best time */
} BenchRow;

typedef struct {
  char *device;                /* as CUDA names it: "NVIDIA H200" */
  int device_line;             /* where the device line was, for messages */
  int sms, cc_major, cc_minor;
  double sm_clock;             /* Hz */
  double memory;               /* B */
  GArray *rows;                /* BenchRow */
} BenchData;

typedef struct {
  double hbm_efficiency, gemm_efficiency, gemm_half_m;
  double fp8_efficiency;       /* factor on gemm_efficiency for FP8 (1 without both precisions) */
  double fp8_block_efficiency; /* further factor for block-scaled FP8 (0: not measured) */
  double fp4_efficiency;       /* NVFP4's share of the FP4 peak (0: not measured) */
  double grouped_tile_m;       /* rows of the batched expert GEMMs' tile (0: not measured); reported */
  double grouped_rms_log_error; /* of the grouped GEMMs' fit */
  guint grouped_rows;
  double grouped_bf16_flops, grouped_fp8_flops; /* FLOP/s, best rate of the grouped GEMMs (0: none) */
  double hbm_bw;               /* B/s, best streaming rate */
  double bf16_flops, fp8_flops, fp8_block_flops, fp4_flops; /* FLOP/s, best GEMM rate (0: none) */
  double nvlink_efficiency, collective_latency; /* from the all-to-alls (when alltoall_rows > 0) */
  guint alltoall_rows;
  /* from the all-reduces (when allreduce_rows > 0): small messages' regime and large ones', the
   * large ones' rate read as a ring's (allreduce_bulk_efficiency, above 1 where only the switch's
   * reduction moves bytes that fast) and as the switch's (allreduce_nvls_efficiency) over the
   * runs' allreduce_gpus GPUs; calibrate_apply writes the one NCCL ran (calibrate.c) */
  double allreduce_latency, allreduce_efficiency, allreduce_bulk_latency, allreduce_bulk_efficiency;
  double allreduce_nvls_efficiency;
  double allreduce_gpus;
  guint allreduce_rows;
  double allreduce_split;      /* B moved a GPU where the large messages' regime starts (0: one line) */
  double p2p_bw;               /* B/s, one direction GPU 0 -> 1 (0: one GPU) */
  double launch;               /* s per empty kernel */
  double h2d_bw, d2h_bw;       /* B/s */
  double gemm_fixed;           /* s per GEMM besides the curve (launch, ramp, tail) */
  double rms_log_error;        /* of the fitted GEMM curve over the GEMM rows */
  guint gemm_rows;             /* distinct shapes fitted (a repeated shape counts once) */
  double decode_bw;            /* B/s, best decode-attention KV read rate */
  double prefill_flops;        /* FLOP/s, best rate of prefill attention's two products, unfused */
  double exp_rate;             /* exponentials/s of the special-function units (MUFU.EX2; 0: not measured) */
  double exp_efficiency;       /* exp_rate over the catalog's gpu.exp_rate (0: either is missing) */
  /* Board power (W) over the power phases, 0 when not measured: with a context open and nothing
   * running (the GPU of an engine between steps), streaming HBM, running large BF16 GEMMs. */
  double idle_w, memory_w, compute_w;
  double power_limit;          /* W, enforced during the phases */
  double compute_clock;        /* fraction of the maximum SM clock held under sustained GEMMs */
  double sustained_flops;      /* FLOP/s of the sustained GEMMs (vs bf16_flops in short bursts) */
  double memory_bound_power;   /* (memory_w - idle_w) / (TDP - idle_w): the catalog's fraction */
  double compute_fp8_w, compute_fp8_clock, sustained_fp8_flops; /* the same under FP8 GEMMs */
  /* GEMMs mixed into HBM streaming: the GEMMs' share of the time (planned from burst times),
   * board watts, the fraction of the maximum SM clock held, and what the power model (power.c)
   * gives for the mix at the full clock with the measured idle and HBM share */
  guint n_mix;
  struct {
    double share, watts, clock, model_watts;
  } mix[8];
} CalibrationFit;

/* Parses the kernels' output TEXT (NAME for messages: file:line:col). */
gboolean bench_parse(const char *text, const char *name, BenchData *out, GError **error);
/* Appends MORE's rows to INTO: several runs on one GPU fitted together (each GEMM shape at its
 * best time, power phases averaged). FALSE (with why, naming NAME) when MORE is another GPU. */
gboolean bench_merge(BenchData *into, const BenchData *more, const char *name, GError **error);
void bench_data_clear(BenchData *d);

/* The catalog system whose GPU the device is ("NVIDIA H200" -> the first system with an H200), or
 * NULL. SYSTEMS holds SystemSpec pointers. */
const SystemSpec *calibrate_match_system(const GPtrArray *systems, const char *device);

/* Fits D against SYS's datasheet. FALSE (with why) when D has no HBM or no GEMM rows. */
gboolean calibrate_fit(const BenchData *d, const SystemSpec *sys, CalibrationFit *out, GError **error);

/* Writes FIT into P's entry for SYS's architecture: the large all-reduces as the switch's
 * reduction where NCCL ran them so (calibrate.c, bulk_is_nvls), else as the ring's bulk regime. */
void calibrate_apply(const CalibrationFit *fit, const SystemSpec *sys, Profile *p);
/* The profile keys calibrate_apply sets (or set) in P, comma-separated
 * ("hopper.hbm_efficiency,..."): what `aifsim fit --hold` keeps when the stacks are fitted around
 * a measured profile. */
char *calibrate_measured_keys(const CalibrationFit *fit, const SystemSpec *sys, const Profile *p);

#endif
