/* fit.h — fitting a profile's stack layer to measured results.
 *
 * The parameters are the stack layer's (profile.h): per GPU architecture, the shares of the
 * hardware layer's GEMM (BF16/FP8, FP4, block-scaled), attention, HBM and grouped-GEMM rates the
 * serving stacks reach, the thin-slice penalty, the NIC latencies and the overheads' scale; per
 * serving stack, its step, host and layer overheads, kernel factor (TensorRT-LLM's the reference,
 * held at 1), request and handoff overheads, batch cap and MTP acceptance: about fifty numbers for
 * hundreds of rows, never one per row. The hardware layer (measured by `aifsim calibrate` or
 * published) is held: a stack's loss never moves a measured figure. Shares stay at most 1. Only
 * the architectures and stacks the rows contain are fitted; later architectures without rows
 * inherit the newest fitted stack layer. The objective is the mean Huber loss of
 * log(predicted / measured) over throughput per GPU, tokens/s per user and TTFT, weighted alike,
 * linear past 5%: the accuracy is judged by median errors, and the errors are heavy-tailed
 * (start-up bursts, warm-up stalls, stack versions the rows do not record), which a quadratic loss
 * would let pull the fit off the bulk; coordinate descent with shrinking multiplicative steps
 * minimises it. The objective has several near-equal minima that trade throughput against TTFT,
 * so a fit can descend from several starts (the given profile and seeded perturbations of it) in
 * parallel and keep the lowest.
 * More keys can be held at the given profile's values (--hold).
 * It runs on the steady state: fast enough for hundreds of trials. Deterministic. The headline
 * figures are the event simulation's, and a basin the steady state prefers is not always one the
 * event simulation does, so the starts' optima can be told apart by the same loss computed by
 * event simulation instead (--select des: about as long as one `validate` a start). */
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
  /* pick among the starts' optima by the loss the event simulation gives them (fit_loss_des),
   * not the steady state's; one start: nothing to pick */
  gboolean select_des;
  /* called after each round of each start; from worker threads when threads > 1 */
  void (*progress)(int start, int round, double loss, gpointer user);
  /* with select_des, called with each start's event-simulation loss once it is scored */
  void (*scored)(int start, double loss_des, gpointer user);
  gpointer user;
} FitOptions;

/* Whether KEY names a number the fit can hold; else FALSE with a did-you-mean. */
gboolean fit_hold_check(const char *key, GError **error);
/* The objective for PROF over ROWS (lower is better). */
double fit_loss(GPtrArray *rows, const Profile *prof);
/* The same objective with the event simulation's predictions (validate_predict_des). */
double fit_loss_des(GPtrArray *rows, const Profile *prof);
/* Improves PROF in place; returns the final (steady-state) loss. With several starts, the one that
 * ends lowest (by the event simulation's loss with select_des; ties: the earliest) gives PROF:
 * deterministic whatever the threads. */
double fit_profile(GPtrArray *rows, Profile *prof, const FitOptions *opt);

#endif
