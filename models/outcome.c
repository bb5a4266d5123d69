/* outcome.c — the names of the outcome kinds (see outcome.h). */
#include "outcome.h"

const char *const outcome_names[] = { "ok", "infeasible", "unsupported", "slo-violated", "queue-bound", "unstable",
                                      NULL };

gboolean outcome_has_figures(OutcomeKind k)
{
  return k == OUTCOME_OK || k == OUTCOME_SLO_VIOLATED || k == OUTCOME_QUEUE_BOUND || k == OUTCOME_UNSTABLE;
}
