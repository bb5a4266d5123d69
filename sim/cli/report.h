/* report.h — what `run` and `plan` make of a finished sweep, in two passes over its journal.
 *
 * Pass one keeps, a row at a time, the frontier (frontier.h: its points only), the summary
 * (summary.h: the picks, the top points per system and mode, the counts) and the ids of the
 * systems and models used. Pass two writes results.csv and results.jsonl with each row's frontier
 * mark, and keeps a few bytes per point for the chart, drawn with each system's pick ringed. No
 * pass holds the table: memory grows with the frontier and the chart's points, not with the rows'
 * text. */
#ifndef AIF_REPORT_H
#define AIF_REPORT_H

#include "commands.h"
#include "summary.h"
#include "sweep.h"

typedef struct {
  guint top;              /* points per system and mode in the summary */
  gboolean chart;         /* draw chart.png (and chart.gp, chart.dat) when two points meet the SLO */
} ReportOptions;

typedef struct {
  Summary *summary;
  char *slo;                         /* the SLO in words (the summary borrows it) */
  GPtrArray *system_ids, *model_ids; /* char * (owned): the catalog entries the points used */
} Report;

/* Writes RS's results (and the chart) into its output folder from the journal; fills OUT. */
gboolean report_sweep(const RunSetup *rs, const ReportOptions *opt, Report *out, GError **error);
void report_clear(Report *r);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Report, report_clear)

/* Writes scenario.resolved.yaml and catalog/ (the entries REP's points used) into RS's folder: what
 * reproduces the run, and what `aifsim launch` rebuilds a point from. */
gboolean report_write_resolved(const RunSetup *rs, const Report *rep, GError **error);

/* A point's time series (a simulated floor), as SweepOptions.series takes it: DIR/series/pN.csv and
 * its day chart pN.png (with pN.png.gp). USER is the output folder. */
gboolean report_series(const Point *pt, const ResultRow *row, GArray *series, gpointer dir, GError **error);
/* Removes the series files of an earlier run from DIR/series (a fresh run; --resume keeps them). */
void report_series_clear(const char *dir);

/* Prints REP's summary (its scenario's SLO in words, budget, percentile, limits) in FORMAT on
 * stdout; a table ends with FOOTER. */
void report_print_summary(const Report *rep, SummaryFormat format, const char *footer);

#endif
