/* series_files.h — a run over time as files: the CSV of its rows and its chart (series_chart.h).
 *
 * Rows come from the event simulation (SeriesRow, serving_sim.h): per interval, the load offered
 * and served, requests in flight, TTFT, GPU activity and, for a simulated floor, the facility power
 * drawn. `aifsim estimate --series` writes one deployment's; `aifsim run` a floor's per point (CSV,
 * JSON lines and the chart). */
#ifndef AIF_SERIES_FILES_H
#define AIF_SERIES_FILES_H

#include "hardware.h"
#include "serving_sim.h"

/* Writes SERIES (SeriesRow) to PATH as CSV, GPU power from each interval's activity on SYS. */
gboolean series_files_csv(const char *path, GArray *series, const SystemSpec *sys, GError **error);
/* The same rows as JSON lines, one object per interval with the CSV's column names (null where the
 * CSV's cell is empty). */
gboolean series_files_jsonl(const char *path, GArray *series, const SystemSpec *sys, GError **error);
/* Draws SERIES to PATH (.png, .svg or .pdf) and its gnuplot twin PATH.gp under TITLE: the power
 * panel is the facility's MW drawn against BUDGET_W (what it is provisioned for, or its envelope:
 * BUDGET_NAME) where the rows carry it (a floor), else W per GPU. */
gboolean series_files_chart(const char *path, GArray *series, const SystemSpec *sys, const char *title,
                            double budget_w, const char *budget_name, GError **error);

#endif
