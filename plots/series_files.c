/* series_files.c — a run over time as files (see series_files.h). */
#include "series_files.h"
#include "output_dir.h"
#include "power.h"
#include "series_chart.h"

#include <math.h>

/* A figure, or an empty cell where there is none. */
static void cell(GString *csv, double v, double scale, const char *sep)
{
  if (isfinite(v))
    g_string_append_printf(csv, "%.6g", v * scale);
  g_string_append(csv, sep);
}

gboolean series_files_csv(const char *path, GArray *series, const SystemSpec *sys, GError **error)
{
  g_autoptr(GString) csv = g_string_new("t_s,offered_req_s,served_req_s,out_tok_s,in_flight,queued,ttft_p50_ms,ttft_p90_ms,"
                                        "tpot_p50_ms,tpot_p90_ms,gpu_activity,gpu_power_w,facility_mw,serving_engines,"
                                        "prefill_engines,engines_down,power_cap_w,shed\n");
  for (guint i = 0; i < series->len; i++) {
    const SeriesRow *r = &g_array_index(series, SeriesRow, i);
    g_string_append_printf(csv, "%.6g,%.6g,%.6g,%.6g,%.0f,%.0f,", r->t, r->offered, r->served, r->out_tok_s, r->in_flight,
                           r->queued);
    cell(csv, r->ttft_p50, 1e3, ",");
    cell(csv, r->ttft_p90, 1e3, ",");
    cell(csv, r->tpot_p50, 1e3, ",");
    cell(csv, r->tpot_p90, 1e3, ",");
    g_string_append_printf(csv, "%.6g,%.6g,", r->gpu_activity, power_gpu(sys, r->gpu_activity, 1));
    cell(csv, r->facility_w, 1e-6, ",");
    g_string_append_printf(csv, "%.6g,%.6g,%.6g,", r->serving_engines, r->prefill_engines, r->engines_down);
    cell(csv, r->power_cap_w, 1, ",");
    g_string_append_printf(csv, "%.6g\n", r->shed);
  }
  if (series->len == 0)
    g_string_append(csv, "# no time series: the point was not event-simulated (queue-bound, infeasible, or --engine steady)\n");
  return atomic_file_write(path, csv->str, csv->len, error);
}

gboolean series_files_chart(const char *path, GArray *series, const SystemSpec *sys, const char *title,
                            double budget_w, const char *budget_name, GError **error)
{
  gboolean floor = series->len && isfinite(g_array_index(series, SeriesRow, 0).facility_w);
  g_autofree SeriesPoint *pts = g_new0(SeriesPoint, MAX(series->len, 1));
  for (guint i = 0; i < series->len; i++) {
    const SeriesRow *r = &g_array_index(series, SeriesRow, i);
    double power = floor ? r->facility_w / 1e6 : power_gpu(sys, r->gpu_activity, 1);
    pts[i] = (SeriesPoint){ r->t, r->offered, r->served, power, r->ttft_p50, r->ttft_p90 };
  }
  SeriesChart c = { title, floor ? "MW drawn by the facility" : "W per GPU", floor ? budget_w / 1e6 : NAN, budget_name };
  g_autofree char *gp = g_strconcat(path, ".gp", NULL);
  return series_chart_render(pts, series->len, &c, path, error) && series_chart_gnuplot(pts, series->len, &c, gp, error);
}
