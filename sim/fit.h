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
 * minimises it. The objective has several near-equal minima that trade throughput against TTFT,
 * so a fit can descend from several starts (the given profile and seeded perturbations of it) in
 * parallel and keep the lowest.
 * Keys can be held at the given profile's values: the figures `aifsim calibrate` measured, so that
 * the rest (the stacks' overheads and kernel efficiency) is fitted around them.
 * It runs on the steady state: fast enough for hundreds of trials. Deterministic. */
#ifndef AIF_FIT_H
#define AIF_FIT_H

#include "validate.h"

typedef struct {
  int rounds;                 /* coordinate-descent sweeps */
  int starts;                 /* descents: the given profile, then perturbed copies of it (0 or 1: one) */
  int threads;                /* descents run at once */
  /* profile keys left as given ("hopper.gemm_efficiency": a measured figure), NULL-terminated;
   * NULL: none */
  const char *const *hold;
  /* called after each round of each start; from worker threads when threads > 1 */
  void (*progress)(int start, int round, double loss, gpointer user);
  gpointer user;
} FitOptions;

/* Whether KEY names a number the fit can hold; else FALSE with a did-you-mean. */
gboolean fit_hold_check(const char *key, GError **error);
/* The objective for PROF over ROWS (lower is better). */
double fit_loss(GPtrArray *rows, const Profile *prof);
/* Improves PROF in place; returns the final loss. With several starts, the one that ends lowest
 * (ties: the earliest) gives PROF: deterministic whatever the threads. */
double fit_profile(GPtrArray *rows, Profile *prof, const FitOptions *opt);

#endif
