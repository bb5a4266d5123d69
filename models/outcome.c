/* outcome.c — the names of the outcome kinds (see outcome.h). */
#include "outcome.h"

#include <stddef.h>

const char *const outcome_names[] = { "ok", "infeasible", "unsupported", NULL };
