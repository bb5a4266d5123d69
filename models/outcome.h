/* outcome.h — what became of a prediction.
 *
 * ok: it ran, and meets the scenario's SLO. Three kinds ran and carry every figure, but are not an
 * answer to act on: slo-violated (a TTFT, TPOT or tokens/s per user limit broken; the reason says
 * which), queue-bound (closed loop: more users than the deployment runs at once, the rest waiting
 * for a slot), unstable (open loop: more requests offered than the deployment serves, the queue
 * growing for as long as the run lasts). Two kinds have no figures: infeasible (the deployment
 * cannot run as described: memory, parallelism, precision, a simulation that could not finish) and
 * unsupported (the model does not describe it: a stack, scenario or layout it has no model for, or
 * no request measured). Every prediction carries one with its reason; outputs print the name. */
#ifndef AIF_OUTCOME_H
#define AIF_OUTCOME_H

#include <glib.h>

typedef enum {
  OUTCOME_OK,
  OUTCOME_INFEASIBLE,
  OUTCOME_UNSUPPORTED,
  OUTCOME_SLO_VIOLATED,
  OUTCOME_QUEUE_BOUND,
  OUTCOME_UNSTABLE,
  OUTCOME_COUNT_
} OutcomeKind;

/* "ok", "infeasible", "unsupported", "slo-violated", "queue-bound", "unstable"; NULL-terminated. */
extern const char *const outcome_names[];

/* Whether a prediction of kind K ran and carries its figures (ok, slo-violated, queue-bound,
 * unstable). */
gboolean outcome_has_figures(OutcomeKind k);

#endif
