/* series_files.c — a run over time as files (see series_files.h). */
#include "series_files.h"
#include "output_dir.h"
#include "power.h"
#include "series_chart.h"

#include <math.h>
#include <string.h>

/* The columns of a series file, in order, and how many of them print as whole numbers. */
static const char *const columns[] = { "t_s", "offered_req_s", "served_req_s", "out_tok_s", "in_flight", "queued",
                                       "ttft_p50_ms", "ttft_p90_ms", "tpot_p50_ms", "tpot_p90_ms", "gpu_activity",
                                       "gpu_power_w", "facility_mw", "serving_engines", "prefill_engines",
                                       "engines_down", "power_cap_w", "shed", "gpus" };
enum { N_COLUMNS = G_N_ELEMENTS(columns) };

/* Row R's values in the columns' units (NAN where it has none), GPU power from its activity on SYS. */
static void row_values(const SeriesRow *r, const SystemSpec *sys, double *v)
{
  const double values[N_COLUMNS] = { r->t, r->offered, r->served, r->out_tok_s, r->in_flight, r->queued,
                                     r->ttft_p50 * 1e3, r->ttft_p90 * 1e3, r->tpot_p50 * 1e3, r->tpot_p90 * 1e3,
                                     r->gpu_activity, power_gpu(sys, r->gpu_activity, 1), r->facility_w * 1e-6,
                                     r->serving_engines, r->prefill_engines, r->engines_down, r->power_cap_w, r->shed,
                                     r->gpus };
  memcpy(v, values, sizeof values);
}

/* A value as text: requests in flight and queued are counts; empty where there is none (CSV), or
 * null (JSON). */
static void append_value(GString *out, int column, double v, gboolean json)
{
  if (!isfinite(v))
    g_string_append(out, json ? "null" : "");
  else
    g_string_append_printf(out, column == 4 || column == 5 ? "%.0f" : "%.6g", v);
}

static GString *series_text(GArray *series, const SystemSpec *sys, gboolean json)
{
  GString *out = g_string_new(NULL);
  for (int c = 0; !json && c < N_COLUMNS; c++)
    g_string_append_printf(out, "%s%s", c ? "," : "", columns[c]);
  if (!json)
    g_string_append_c(out, '\n');
  for (guint i = 0; i < series->len; i++) {
    double v[N_COLUMNS];
    row_values(&g_array_index(series, SeriesRow, i), sys, v);
    for (int c = 0; c < N_COLUMNS; c++) {
      if (json)
        g_string_append_printf(out, "%s\"%s\": ", c ? ", " : "{", columns[c]);
      else if (c)
        g_string_append_c(out, ',');
      append_value(out, c, v[c], json);
    }
    g_string_append(out, json ? "}\n" : "\n");
  }
  return out;
}

gboolean series_files_csv(const char *path, GArray *series, const SystemSpec *sys, GError **error)
{
  g_autoptr(GString) csv = series_text(series, sys, FALSE);
  if (series->len == 0)
    g_string_append(csv, "# no time series: the point was not event-simulated (queue-bound, infeasible, or --engine steady)\n");
  return atomic_file_write(path, csv->str, csv->len, error);
}

gboolean series_files_jsonl(const char *path, GArray *series, const SystemSpec *sys, GError **error)
{
  g_autoptr(GString) jsonl = series_text(series, sys, TRUE);
  return atomic_file_write(path, jsonl->str, jsonl->len, error);
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
