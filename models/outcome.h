/* outcome.h — what became of a prediction: it ran (ok), the deployment cannot run as described
 * (infeasible: memory, parallelism, precision, a simulation that could not finish), or the model
 * does not describe it (unsupported: a stack, scenario or layout it has no model for, or no request
 * measured). Every prediction carries one with its reason; outputs print the name. */
#ifndef AIF_OUTCOME_H
#define AIF_OUTCOME_H

typedef enum {
  OUTCOME_OK,
  OUTCOME_INFEASIBLE,
  OUTCOME_UNSUPPORTED,
  OUTCOME_COUNT_
} OutcomeKind;

/* "ok", "infeasible", "unsupported"; NULL-terminated. */
extern const char *const outcome_names[];

#endif
