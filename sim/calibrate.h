/* calibrate.h — from the calibration kernels' measurements (calibration/aifsim_bench.cu) to the
 * profile's per-architecture efficiencies.
 *
 * The kernels print CSV (format in aifsim_bench.cu); this module reads it and fits the parameters
 * the step-time model reads for that GPU: hbm_efficiency (the best streaming rate over the
 * catalog's HBM bandwidth), and gemm_efficiency with gemm_half_m, the GEMM curve
 * t = max(2MNK / (peak x eff x M / (M + half_m)), weight bytes / (HBM x hbm_efficiency)) the model
 * uses, fitted over every measured (M, N, K, precision) by least squares on log time; with two or
 * more GPUs, nvlink_efficiency and collective_latency from NCCL all-reduce and all-to-all times,
 * t = latency + bytes moved / (NVLink one way x efficiency) as comm.c has it, least squares on
 * relative error. Launch overhead, peer-copy and host-link figures are reported, not fitted: the
 * stack's overheads are the framework's, which framework-free kernels cannot see. */
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
  int sms, cc_major, cc_minor;
  double sm_clock;             /* Hz */
  double memory;               /* B */
  GArray *rows;                /* BenchRow */
} BenchData;

typedef struct {
  double hbm_efficiency, gemm_efficiency, gemm_half_m;
  double hbm_bw;               /* B/s, best streaming rate */
  double bf16_flops, fp8_flops; /* FLOP/s, best measured GEMM rate (0: none) */
  double nvlink_efficiency, collective_latency; /* from the collectives (when nccl_rows > 0) */
  guint nccl_rows;
  double p2p_bw;               /* B/s, one direction GPU 0 -> 1 (0: one GPU) */
  double launch;               /* s per empty kernel */
  double h2d_bw, d2h_bw;       /* B/s */
  double rms_log_error;        /* of the fitted GEMM curve over the GEMM rows */
  guint gemm_rows;
} CalibrationFit;

/* Parses the kernels' output TEXT (NAME for messages: file:line:col). */
gboolean bench_parse(const char *text, const char *name, BenchData *out, GError **error);
void bench_data_clear(BenchData *d);

/* The catalog system whose GPU the device is ("NVIDIA H200" -> the first system with an H200), or
 * NULL. SYSTEMS holds SystemSpec pointers. */
const SystemSpec *calibrate_match_system(const GPtrArray *systems, const char *device);

/* Fits D against SYS's datasheet. FALSE (with why) when D has no HBM or no GEMM rows. */
gboolean calibrate_fit(const BenchData *d, const SystemSpec *sys, CalibrationFit *out, GError **error);

/* Writes FIT into P's entry for SYS's architecture. */
void calibrate_apply(const CalibrationFit *fit, const SystemSpec *sys, Profile *p);

#endif
