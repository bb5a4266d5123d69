/* summary.h — the answer a planner reads after a run, and what `aifsim plan` prints.
 *
 * For every system: the pick (the ok point with the most tokens/s per MW, the point the chart
 * annotates: frontier_best) and the factory it makes; then, aggregated and disaggregated side by
 * side, the top N ok points of each mode, each with its full configuration, tokens/s per GPU,
 * tokens/s per user, TTFT, tokens/s per MW, racks and $/Mtok; and the count of every outcome.
 * "ok" means the point meets the scenario's SLO (slo.h), so nothing here breaks it. As a table, CSV
 * or JSON. */
#ifndef AIF_SUMMARY_H
#define AIF_SUMMARY_H

#include "results.h"

typedef enum { SUMMARY_TABLE, SUMMARY_CSV, SUMMARY_JSON } SummaryFormat;
extern const char *const summary_format_names[]; /* "table", "csv", "json" */

typedef struct {
  guint top;               /* points per system and mode */
  const char *slo;         /* the SLO in words (slo_describe) */
  double budget_w;         /* the facility's power budget, W */
  int percentile;          /* the TTFT shown: 50, 90 or 99 (the SLO's percentile) */
} SummaryOptions;

/* The summary of ROWS (ResultRow *) in FORMAT, newly allocated. */
char *summary_text(GPtrArray *rows, const SummaryOptions *opt, SummaryFormat format);
/* The pick of every system, in order of first appearance (const ResultRow *, NULL where no point
 * of the system meets the SLO), and the systems' names; free both arrays. */
void summary_picks(GPtrArray *rows, GPtrArray **systems, GPtrArray **picks);

#endif
