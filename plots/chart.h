/* chart.h — the AI-factory chart: every point of a results table, coloured by configuration
 * family, the Pareto frontier of each system as a line, the best point at an interactivity SLO
 * annotated. Rendered with cairo to PNG, SVG or PDF (by the file's extension), and also written as
 * a gnuplot script with its data for users who restyle charts. Reads results only. */
#ifndef AIF_CHART_H
#define AIF_CHART_H

#include <glib.h>

#include "frontier.h"

typedef struct {
  const char *title;
  FrontierAxis x, y;   /* the axes and which way is better (frontier.h) */
  double slo_x;        /* an SLO's floor on the x axis, drawn as a dashed line (0: none) */
  const char *slo_text; /* the SLO in words, for the caption (NULL: none) */
  int width, height;   /* points (PNG pixels) */
} ChartOptions;

/* Draws ROWS (ResultRow *, on_frontier already marked) to PATH (.png, .svg or .pdf), through a
 * temporary file and a rename. */
gboolean chart_render(GPtrArray *rows, const ChartOptions *opt, const char *path, GError **error);
/* Writes SCRIPT (gnuplot) and DATA; `gnuplot SCRIPT` draws the same chart to a PNG beside it. */
gboolean chart_gnuplot(GPtrArray *rows, const ChartOptions *opt, const char *script, const char *data,
                       GError **error);

#endif
