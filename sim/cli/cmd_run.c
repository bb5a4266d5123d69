/* cmd_run.c — `aifsim run [SCENARIO.yaml]`: every point of a scenario -> results files.
 *
 * Writes into DIR (default results/<scenario name>/): results.csv, results.jsonl, the chart,
 * scenario.resolved.yaml and catalog/ (the catalog entries the run used), each through a temporary
 * file and a rename (report.h), and prints the summary (summary.h). */
#include "commands.h"
#include "aif_error.h"
#include "datadir.h"
#include "output_dir.h"
#include "scenario.h"
#include "summary.h"
#include "report.h"
#include "sweep.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The results files, the chart, scenario.resolved.yaml and the catalog entries used. */
static gboolean write_outputs(const RunSetup *rs, guint top, Report *rep, GError **error)
{
  ReportOptions ro = { .top = top, .chart = TRUE };
  if (!report_sweep(rs, &ro, rep, error))
    return FALSE;
  return report_write_resolved(rs, rep, error);
}

int cmd_run(int argc, char **argv)
{
  g_auto(RunArgs) a = { .seed = G_MININT64 };
  g_autofree char *shard = NULL;
  g_autofree char *format = NULL;
  gint jobs = (gint)g_get_num_processors(), top = 3;
  gboolean resume = FALSE;
  GOptionEntry entries[] = {
    RUN_ARGS_ENTRIES(a),
    { "top", 'n', 0, G_OPTION_ARG_INT, &top, "points per system and mode in the summary (default 3)", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "the summary as a table (default), csv or json", "FORMAT" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "worker processes (default: all cores)", "N" },
    { "shard", 0, 0, G_OPTION_ARG_STRING, &shard, "run only the K-th of N deterministic parts of the sweep", "K/N" },
    { "resume", 'r', 0, G_OPTION_ARG_NONE, &resume, "keep the points a stopped run finished; compute the rest", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("[SCENARIO.yaml]");
  g_option_context_set_summary(ctx, "Simulate every point of a scenario and write results.csv, results.jsonl (with\n"
                                    "the Pareto frontier marked), scenario.resolved.yaml, the catalog entries used\n"
                                    "and, for a sweep, chart.png with chart.gp/chart.dat for gnuplot. Without a\n"
                                    "scenario, runs the shipped scenarios/default.yaml.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "run", &argc, &argv))
    return 2;
  int max_jobs = 4 * (int)g_get_num_processors(); /* more workers than that only cost memory and forks */
  if (jobs > max_jobs) {
    fprintf(stderr, "aifsim run: --jobs %d is more than 4 per core: using %d\n", jobs, max_jobs);
    jobs = max_jobs;
  }
  int fmt = cli_choice("run", "--format", format ? format : "table", summary_format_names);
  if (fmt < 0)
    return 2;
  SweepOptions so = { .jobs = jobs, .resume = resume, .progress = progress_style(a.quiet, a.progress) };
  if (top < 1) {
    fprintf(stderr, "aifsim run: --top expects at least 1\n");
    return 2;
  }
  if (jobs < 1 || (shard && !sweep_parse_shard(shard, &so.shard, &so.shards))) {
    fprintf(stderr, "aifsim run: %s\n", jobs < 1 ? "--jobs expects at least 1" : "--shard expects K/N with 1 <= K <= N");
    return 2;
  }
  g_autoptr(GError) err = NULL;
  g_auto(RunSetup) rs = { 0 };
  int rc = run_setup("run", argc, argv, &a, &rs, &err);
  if (rc)
    return rc;
  so.series = report_series, so.series_user = rs.outdir;
  if (!so.resume)
    report_series_clear(rs.outdir);
  if (!sweep_run(rs.scenario, rs.catalog, &rs.profile, rs.outdir, &so, &err))
    return cli_fail("run", err);
  g_auto(Report) rep = { 0 };
  if (!write_outputs(&rs, (guint)top, &rep, &err))
    return cli_fail("run", err);
  sweep_finish(rs.outdir);
  g_autofree char *footer = g_strdup_printf("Every point: %s/results.csv (columns: docs/results.md)", rs.outdir);
  report_print_summary(&rep, (SummaryFormat)fmt, footer);
  return 0;
}
