/* chart.h — the AI-factory chart: every point of a results table, coloured by configuration
 * family, the Pareto frontier of each system as a line, the best point at an interactivity SLO
 * annotated (and, dashed, the pick with the model's held-out error as headroom). Rendered with
 * cairo to PNG, SVG or PDF (by the file's extension), and also written as a gnuplot script with
 * its data for users who restyle charts. Reads results only. */
#ifndef AIF_CHART_H
#define AIF_CHART_H

#include <glib.h>

#include "frontier.h"
#include "results.h"

typedef struct {
  const char *title;
  FrontierAxis x, y;   /* the axes and which way is better (frontier.h) */
  double slo_x;        /* an SLO's floor on the x axis, drawn as a dashed line (0: none) */
  const char *slo_text; /* the SLO in words, for the caption (NULL: none) */
  const ResultRow *const *picks; /* each system's pick (frontier_better, as `aifsim plan` picks), */
  guint n_picks;                 /* ringed and labelled; NULL entries are skipped */
  /* beside each pick (the same index; NULL: none), the pick with the model's held-out error as
   * headroom on the SLO's limits (summary.h): a dashed ring and a label where it is another point */
  const ResultRow *const *headroom;
  gboolean picks_over_sizes; /* the plan picks per factory size (summary.h) and the ring is each
                              * system's best of those picks: the legend says so */
  int width, height;   /* points (PNG pixels) */
} ChartOptions;

/* What the chart draws, a few bytes per point: rows are added one at a time (a sweep's table never
 * needs to be in memory), with their frontier mark. */
typedef struct ChartData ChartData;
ChartData *chart_data_new(const FrontierAxis *x, const FrontierAxis *y);
void chart_data_add(ChartData *cd, const ResultRow *r, int on_frontier);
/* The chart data of ROWS (ResultRow *, on_frontier already marked). */
ChartData *chart_data_from_rows(GPtrArray *rows, const FrontierAxis *x, const FrontierAxis *y);
void chart_data_free(ChartData *cd);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ChartData, chart_data_free)

/* Draws CD to PATH (.png, .svg or .pdf), through a temporary file and a rename. */
gboolean chart_render(const ChartData *cd, const ChartOptions *opt, const char *path, GError **error);
/* Writes SCRIPT (gnuplot) and DATA; `gnuplot SCRIPT` draws the same chart to a PNG beside it. */
gboolean chart_gnuplot(const ChartData *cd, const ChartOptions *opt, const char *script, const char *data,
                       GError **error);

#endif
