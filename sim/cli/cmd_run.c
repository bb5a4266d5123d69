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

/* A catalog figure written back with its own source when it has one. */
typedef struct {
  const FigureSources *fs;
  const void *entry;
} EmitEntry;

static char *entry_text(const KtKey *key, gpointer user, gboolean *skip)
{
  EmitEntry *e = user;
  if (key->type == KT_GROUP || !e->fs->by_key || strcmp(key->path, "source") == 0)
    return NULL;
  const char *src = g_hash_table_lookup(e->fs->by_key, key->path);
  gboolean unc = figure_sources_uncertain(e->fs, key->path);
  if (!src && !unc)
    return NULL;
  g_autofree char *v = kt_value_yaml(key, e->entry), *s = src ? kt_yaml_quote(src) : NULL;
  return g_strdup_printf("{value: %s%s%s%s}", v, s ? ", source: " : "", s ? s : "", unc ? ", uncertain: true" : "");
}

static gboolean write_entry(const char *dir, const char *sub, const char *id, const KtTable *t, const void *entry,
                            const FigureSources *fs, GError **error)
{
  g_autofree char *folder = g_build_filename(dir, "catalog", sub, NULL);
  g_autofree char *rel = g_build_filename("catalog", sub, NULL);
  if (!output_dir_mkdir(dir, rel, error))
    return FALSE;
  g_autoptr(GString) out = g_string_new("# catalog entry as used by this run\n");
  EmitEntry e = { fs, entry };
  kt_emit_yaml(t, entry, out, 0, entry_text, &e);
  g_autofree char *name = g_strconcat(id, ".yaml", NULL);
  g_autofree char *path = g_build_filename(folder, name, NULL);
  return atomic_file_write(path, out->str, out->len, error);
}

static gboolean write_citations(const char *dir, const Catalog *c, GError **error)
{
  g_autoptr(GString) out = g_string_new("# source keys used by the catalog entries beside this file\n");
  g_autoptr(GList) keys = g_list_sort(g_hash_table_get_keys(c->citations), (GCompareFunc)strcmp);
  for (GList *k = keys; k; k = k->next) {
    g_autofree char *q = kt_yaml_quote(g_hash_table_lookup(c->citations, k->data));
    g_string_append_printf(out, "%s: %s\n", (char *)k->data, q);
  }
  g_autofree char *path = g_build_filename(dir, "catalog", "hardware", "sources.yaml", NULL);
  return atomic_file_write(path, out->str, out->len, error);
}

/* The catalog entries the points used, so scenario.resolved.yaml reproduces the run. */
static gboolean write_catalog_used(const char *dir, const Catalog *c, const Report *rep, GError **error)
{
  for (guint i = 0; i < rep->system_ids->len; i++) {
    const SystemSpec *s = catalog_system(c, rep->system_ids->pdata[i]);
    if (s && !write_entry(dir, "hardware", s->id, &hardware_table, s, &s->sources, error))
      return FALSE;
  }
  for (guint i = 0; i < rep->model_ids->len; i++) {
    const LlmSpec *m = catalog_model(c, rep->model_ids->pdata[i]);
    if (m && !write_entry(dir, "llm", m->id, &llm_table, m, &m->sources, error))
      return FALSE;
  }
  return write_citations(dir, c, error);
}

/* The results files, the chart, scenario.resolved.yaml and the catalog entries used. */
static gboolean write_outputs(const RunSetup *rs, guint top, Report *rep, GError **error)
{
  ReportOptions ro = { .top = top, .chart = TRUE };
  if (!report_sweep(rs, &ro, rep, error))
    return FALSE;
  g_autofree char *resolved = scenario_resolved_yaml(rs->scenario, rs->catalog);
  g_autofree char *resolved_path = g_build_filename(rs->outdir, "scenario.resolved.yaml", NULL);
  return atomic_file_write(resolved_path, resolved, -1, error) && write_catalog_used(rs->outdir, rs->catalog, rep, error);
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
  if (!sweep_run(rs.scenario, rs.catalog, &rs.profile, rs.outdir, &so, &err))
    return cli_fail("run", err);
  g_auto(Report) rep = { 0 };
  if (!write_outputs(&rs, (guint)top, &rep, &err))
    return cli_fail("run", err);
  sweep_finish(rs.outdir);
  g_autofree char *footer = g_strdup_printf("Every point: %s/results.csv (columns: docs/results.md)", rs.outdir);
  report_print_summary(&rs, &rep, (SummaryFormat)fmt, footer);
  return 0;
}
