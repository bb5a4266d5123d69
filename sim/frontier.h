/* frontier.h — the Pareto frontier of a results table, and the best point to act on.
 *
 * A point is on the frontier when no other point of its group (its system, or the whole table) is
 * at least as good on both axes and better on one. Each axis has a direction: a column is
 * maximised or minimised as its meaning says (tokens/s up, dollars, joules and latencies down), or
 * as asked with a ':max' or ':min' suffix. By default the axes of the AI-factory chart: tokens/s
 * per user (interactivity) and tokens/s per MW (the factory). Only rows with status ok (they meet
 * the scenario's SLO) and both values known take part: the frontier, the chart's annotation and
 * `aifsim plan` all pick from the same rows. */
#ifndef AIF_FRONTIER_H
#define AIF_FRONTIER_H

#include "results.h"

typedef struct {
  const ResultColumn *col;
  gboolean maximise;
} FrontierAxis;

/* SPEC is "COLUMN", "COLUMN:max" or "COLUMN:min"; a bare column takes its own direction. A column
 * that is not numeric is an input error. */
gboolean frontier_axis_parse(const char *spec, FrontierAxis *out, GError **error);
/* Whether a bare COLUMN is maximised (FALSE for costs, energies, powers and latencies). */
gboolean frontier_column_maximised(const ResultColumn *c);

/* Sets on_frontier (0 or 1; -1 for rows that do not take part) on every row. PER_SYSTEM computes
 * one frontier per system, else one for all rows. */
void frontier_mark(GPtrArray *rows, const FrontierAxis *x, const FrontierAxis *y, gboolean per_system);

/* The frontier of rows seen one at a time: memory holds the frontier only, never the table. Add
 * every row, then ask each row's mark (what frontier_mark sets) in a second pass. */
typedef struct FrontierSet FrontierSet;
FrontierSet *frontier_set_new(const FrontierAxis *x, const FrontierAxis *y, gboolean per_system);
void frontier_set_add(FrontierSet *fs, const ResultRow *r);
int frontier_set_mark(const FrontierSet *fs, const ResultRow *r);
void frontier_set_free(FrontierSet *fs);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(FrontierSet, frontier_set_free)

/* The pick rule, the one the chart and `aifsim plan` share: whether R beats BEST (NULL: none yet)
 * as a system's pick, i.e. R is ok, better on Y, or as good and earlier by point. */
gboolean frontier_better(const ResultRow *r, const ResultRow *best, const FrontierAxis *y);
/* The ok row of SYSTEM best on Y (NULL: any system) by frontier_better; NULL when none. */
const ResultRow *frontier_best(GPtrArray *rows, const char *system, const FrontierAxis *y);
/* The chart's axes: tokens/s per user and tokens/s per MW, both maximised. */
void frontier_default_axes(FrontierAxis *x, FrontierAxis *y);

#endif
