/* frontier.h — the Pareto frontier of a results table.
 *
 * A point is on the frontier when no other point of its group (its system, or the whole table) is
 * at least as good on both axes and better on one. Both axes are maximised: by default tokens/s
 * per user (interactivity) and tokens/s per MW (the factory), the two axes of the AI-factory chart.
 * Only rows with status ok and both values known take part. */
#ifndef AIF_FRONTIER_H
#define AIF_FRONTIER_H

#include "results.h"

/* Sets on_frontier (0 or 1; -1 for rows that do not take part) on every row. X and Y name result
 * columns; PER_SYSTEM computes one frontier per system, else one for all rows. */
gboolean frontier_mark(GPtrArray *rows, const char *x, const char *y, gboolean per_system, GError **error);

#endif
