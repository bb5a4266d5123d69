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
  double power;              /* in the chart's power unit (SeriesChart) */
  double ttft_p50, ttft_p90; /* s (NAN: no request done in the interval) */
} SeriesPoint;

/* What the chart says around the points: its title, the power panel's unit (e.g. "W per GPU", or
 * "MW drawn by the floor") and a limit drawn across that panel (NAN: none; e.g. the power budget). */
typedef struct {
  const char *title;
  const char *power_unit;
  double power_limit;
  const char *limit_name;    /* what the limit is, e.g. "provisioned" or "the envelope" */
} SeriesChart;

/* Draws N points to PATH (.png, .svg or .pdf), through a temporary file and a rename. */
gboolean series_chart_render(const SeriesPoint *p, guint n, const SeriesChart *c, const char *path, GError **error);
/* Writes SCRIPT: `gnuplot SCRIPT` draws the same panels into SCRIPT.png, from any directory. */
gboolean series_chart_gnuplot(const SeriesPoint *p, guint n, const SeriesChart *c, const char *script, GError **error);

#endif
