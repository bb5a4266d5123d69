/* series_chart.h — a run over time as a chart: load, power and latency, one panel each, with cairo
 * (PNG, SVG or PDF) and a gnuplot twin that carries its data.
 *
 * It reads plain points (what `aifsim estimate --series` measured per interval); it knows nothing
 * of how they were simulated. */
#ifndef AIF_SERIES_CHART_H
#define AIF_SERIES_CHART_H

#include <glib.h>

typedef struct {
  double t;                  /* s: the interval's end */
  double offered, served;    /* requests/s */
  double power_w;            /* W per GPU */
  double ttft_p50, ttft_p90; /* s (NAN: no request done in the interval) */
} SeriesPoint;

/* Draws N points to PATH (.png, .svg or .pdf) under TITLE, through a temporary file and a rename. */
gboolean series_chart_render(const SeriesPoint *p, guint n, const char *title, const char *path, GError **error);
/* Writes SCRIPT: `gnuplot SCRIPT` draws the same panels into SCRIPT.png, from any directory. */
gboolean series_chart_gnuplot(const SeriesPoint *p, guint n, const char *title, const char *script, GError **error);

#endif
