/* fit.h — fitting a profile's few physical parameters to measured results.
 *
 * The parameters are the ones the profile declares per GPU architecture (HBM, GEMM, FP4 and
 * block-scaled FP8 efficiency, attention efficiency, collective latencies) and per serving stack
 * (step and layer overheads, kernel efficiency, request and handoff overheads), plus the MTP
 * acceptance: about forty numbers for hundreds of rows, never one per row. Only the architectures and stacks the rows contain are fitted; later
 * architectures without rows inherit the newest fitted one. The objective is the mean Huber loss of
 * log(predicted / measured) over throughput per GPU, tokens/s per user and TTFT, weighted alike;
 * TTFT's Huber loss turns linear past 5%: its errors are heavy-tailed (start-up bursts, warm-up
 * stalls no model of the engine sees); coordinate descent with shrinking multiplicative steps
 * minimises it.
 * It runs on the steady state: fast enough for hundreds of trials. Deterministic. */
#ifndef AIF_FIT_H
#define AIF_FIT_H

#include "validate.h"

typedef struct {
  int rounds;                 /* coordinate-descent sweeps */
  void (*progress)(int round, double loss, gpointer user);
  gpointer user;
} FitOptions;

/* The objective for PROF over ROWS (lower is better). */
double fit_loss(GPtrArray *rows, const Profile *prof);
/* Improves PROF in place; returns the final loss. */
double fit_profile(GPtrArray *rows, Profile *prof, const FitOptions *opt);

#endif
