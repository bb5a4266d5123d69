/* report.c — a finished sweep's results, summary and chart (see report.h). */
#include "report.h"
#include "series_files.h"
#include "aif_error.h"
#include "chart.h"
#include "frontier.h"
#include "slo.h"
#include "sweep.h"
#include "keytable.h"
#include "output_dir.h"

#include <errno.h>
#include <math.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  FrontierSet *frontier;
  Summary *summary;
  GHashTable *systems, *models; /* ids seen (owned keys) */
  ResultsWriter *writer;
  ChartData *chart;
  guint ok;
} Pass;

static gboolean first_pass(ResultRow *row, gpointer user, GError **error)
{
  (void)error;
  Pass *p = user;
  frontier_set_add(p->frontier, row);
  summary_add(p->summary, row);
  p->ok += row->status == OUTCOME_OK;
  if (row->system && !g_hash_table_contains(p->systems, row->system))
    g_hash_table_add(p->systems, g_strdup(row->system));
  if (row->model && !g_hash_table_contains(p->models, row->model))
    g_hash_table_add(p->models, g_strdup(row->model));
  return TRUE;
}

static gboolean second_pass(ResultRow *row, gpointer user, GError **error)
{
  (void)error;
  Pass *p = user;
  row->on_frontier = frontier_set_mark(p->frontier, row);
  results_writer_add(p->writer, row);
  if (p->chart)
    chart_data_add(p->chart, row, row->on_frontier);
  return TRUE;
}

static gint by_text(gconstpointer a, gconstpointer b) { return g_strcmp0(*(char *const *)a, *(char *const *)b); }

/* T's keys, sorted: the catalog entries are written in an order that does not depend on hashing. */
static GPtrArray *sorted_keys(GHashTable *t)
{
  GPtrArray *out = g_ptr_array_new_with_free_func(g_free);
  GHashTableIter it;
  gpointer k;
  g_hash_table_iter_init(&it, t);
  while (g_hash_table_iter_next(&it, &k, NULL))
    g_ptr_array_add(out, g_strdup(k));
  g_ptr_array_sort(out, by_text);
  return out;
}

void report_print_summary(const Report *rep, SummaryFormat format, const char *footer)
{
  g_autofree char *text = summary_text(rep->summary, format);
  fputs(text, stdout);
  if (format == SUMMARY_TABLE)
    printf("\n%s\n", footer);
}

/* Widens [LO, HI] (LO 0: empty) by V. */
static void widen(double *lo, double *hi, double v)
{
  *lo = *lo > 0 ? MIN(*lo, v) : v, *hi = MAX(*hi, v);
}

/* What sizes RS's factories (SummaryOptions): FIRST's budget or GPU count, unless the file sweeps
 * either, and then the range of each over the points it sizes (which values make points is the
 * point space's to say). */
static void factory_sizes(const RunSetup *rs, const Point *first, SummaryOptions *o)
{
  const FactoryParams *f = &first->p.factory;
  o->per_size = scenario_sweeps(rs->scenario, "factory.power_budget") || scenario_sweeps(rs->scenario, "factory.gpus");
  if (!o->per_size) {
    o->budget_w = o->budget_max_w = f->power_budget;
    o->factory_gpus = o->factory_gpus_max = f->factory_gpus;
    return;
  }
  double b = 0, bm = 0, g = 0, gm = 0;
  for (gsize i = 0; i < rs->scenario->n_points; i++) {
    Point pt;
    scenario_point(rs->scenario, rs->catalog, i, &pt);
    if (pt.p.factory.factory_gpus > 0)
      widen(&g, &gm, pt.p.factory.factory_gpus);
    else
      widen(&b, &bm, pt.p.factory.power_budget);
    point_clear(&pt);
  }
  o->budget_w = b, o->budget_max_w = bm, o->factory_gpus = (int)g, o->factory_gpus_max = (int)gm;
}

/* The summary of RS's scenario: its SLO (in words, into OUT->slo), what sizes its factories (or the
 * range of its points' sizes), percentile and limits, the profile's held-out errors. */
static Summary *new_summary(const RunSetup *rs, guint top, Report *out)
{
  Point first;
  scenario_point(rs->scenario, rs->catalog, 0, &first);
  const PlanParams *pl = &first.p.plan;
  out->slo = slo_describe_mix(pl, first.p.workload.mix);
  SummaryOptions o = { .slo = out->slo, .percentile = pl->percentile, .held_out = rs->held_out,
                       .min_tok_s_per_user = pl->min_tok_s_per_user,
                       .max_ttft = first.p.workload.mix ? 0 : pl->max_ttft };
  factory_sizes(rs, &first, &o);
  point_clear(&first);
  return summary_new(top, &o);
}

/* The chart of CD with REP's picks ringed and its SLO (in words) in the caption. */
static gboolean draw_chart(const RunSetup *rs, const ChartData *cd, const Report *rep, const FrontierAxis *x,
                           const FrontierAxis *y, GError **error)
{
  const Summary *sum = rep->summary;
  Point first;
  scenario_point(rs->scenario, rs->catalog, 0, &first);
  g_autofree const ResultRow **picks = g_new0(const ResultRow *, summary_n_systems(sum) + 1);
  g_autofree const ResultRow **headroom = g_new0(const ResultRow *, summary_n_systems(sum) + 1);
  guint n = 0;
  for (guint i = 0; i < summary_n_systems(sum); i++) { /* a system's picks per size: the chart rings its best */
    const ResultRow *p = summary_pick(sum, i);
    if (!p)
      continue;
    guint k = 0;
    while (k < n && g_strcmp0(picks[k]->system, p->system) != 0)
      k++;
    n += k == n;
    if (frontier_better(p, picks[k], y))
      picks[k] = p, headroom[k] = summary_headroom_pick(sum, i);
  }
  ChartOptions co = { .title = first.p.description ? first.p.description : first.p.name, .x = *x, .y = *y,
                      .slo_x = first.p.plan.min_tok_s_per_user, .slo_text = rep->slo, .picks = picks, .headroom = headroom,
                      .picks_over_sizes = summary_per_size(sum), .n_picks = n, .width = 1280, .height = 800 };
  g_autofree char *png = g_build_filename(rs->outdir, "chart.png", NULL);
  g_autofree char *gp = g_build_filename(rs->outdir, "chart.gp", NULL);
  g_autofree char *dat = g_build_filename(rs->outdir, "chart.dat", NULL);
  gboolean done = chart_render(cd, &co, png, error) && chart_gnuplot(cd, &co, gp, dat, error);
  point_clear(&first);
  return done;
}

gboolean report_sweep(const RunSetup *rs, const ReportOptions *opt, Report *out, GError **error)
{
  *out = (Report){ 0 };
  FrontierAxis x, y;
  frontier_default_axes(&x, &y);
  g_autoptr(FrontierSet) frontier = frontier_set_new(&x, &y, TRUE);
  g_autoptr(GHashTable) systems = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GHashTable) models = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  Pass p = { .frontier = frontier, .summary = new_summary(rs, opt->top, out), .systems = systems, .models = models };
  out->summary = p.summary;
  if (!sweep_foreach(rs->scenario, rs->outdir, first_pass, &p, error))
    return FALSE;
  g_autoptr(ChartData) chart = opt->chart && p.ok >= 2 ? chart_data_new(&x, &y) : NULL;
  p.chart = chart;
  if (!(p.writer = results_writer_open(rs->outdir, error)))
    return FALSE;
  if (!sweep_foreach(rs->scenario, rs->outdir, second_pass, &p, error)) {
    results_writer_abort(p.writer);
    return FALSE;
  }
  if (!results_writer_commit(p.writer, error))
    return FALSE;
  out->system_ids = sorted_keys(systems);
  out->model_ids = sorted_keys(models);
  if (chart)
    return draw_chart(rs, chart, out, &x, &y, error);
  /* no chart this time (fewer than two points meet the SLO: nothing to draw): a previous run's
   * chart in the folder would show other results */
  static const char *const stale[] = { "chart.png", "chart.gp", "chart.dat", "chart.gp.png" };
  for (gsize i = 0; i < G_N_ELEMENTS(stale); i++) {
    g_autofree char *path = g_build_filename(rs->outdir, stale[i], NULL);
    if (g_remove(path) != 0 && errno != ENOENT) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: cannot remove the previous run's chart: %s", path,
                  g_strerror(errno));
      return FALSE;
    }
  }
  return TRUE;
}

void report_clear(Report *r)
{
  g_clear_pointer(&r->summary, summary_free);
  g_clear_pointer(&r->slo, g_free);
  g_clear_pointer(&r->system_ids, g_ptr_array_unref);
  g_clear_pointer(&r->model_ids, g_ptr_array_unref);
}

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

gboolean report_write_resolved(const RunSetup *rs, const Report *rep, GError **error)
{
  g_autofree char *resolved = scenario_resolved_yaml(rs->scenario, rs->catalog);
  g_autofree char *resolved_path = g_build_filename(rs->outdir, "scenario.resolved.yaml", NULL);
  return atomic_file_write(resolved_path, resolved, -1, error) && write_catalog_used(rs->outdir, rs->catalog, rep, error);
}

/* ROWS as DIR/series/STEM.csv and .jsonl. */
static gboolean series_tables(const char *dir, const char *stem, GArray *rows, const SystemSpec *sys, GError **error)
{
  g_autofree char *csv = g_strdup_printf("%s/series/%s.csv", dir, stem);
  g_autofree char *jsonl = g_strdup_printf("%s/series/%s.jsonl", dir, stem);
  return series_files_csv(csv, rows, sys, error) && series_files_jsonl(jsonl, rows, sys, error);
}

/* Each deployment's own rows of a floor of several (SeriesRow.part K), as series/pN-dK.csv and .jsonl;
 * SERIES keeps the floor's. */
static gboolean report_parts(const Point *pt, GArray *series, const char *dir, GError **error)
{
  for (guint k = 1; k <= pt->n_others + 1; k++) {
    g_autoptr(GArray) part = g_array_new(FALSE, FALSE, sizeof(SeriesRow));
    for (guint i = 0; i < series->len; i++)
      if (g_array_index(series, SeriesRow, i).part == (int)k)
        g_array_append_val(part, g_array_index(series, SeriesRow, i));
    g_autofree char *stem = g_strdup_printf("p%" G_GSIZE_FORMAT "-d%u", pt->index, k);
    if (!series_tables(dir, stem, part, &pt->system, error))
      return FALSE;
  }
  guint kept = 0;
  for (guint i = 0; i < series->len; i++)
    if (g_array_index(series, SeriesRow, i).part == 0)
      g_array_index(series, SeriesRow, kept++) = g_array_index(series, SeriesRow, i);
  g_array_set_size(series, kept);
  return TRUE;
}

gboolean report_series(const Point *pt, const ResultRow *row, GArray *series, gpointer dir, GError **error)
{
  if (!output_dir_mkdir(dir, "series", error))
    return FALSE;
  if (pt->n_others && !report_parts(pt, series, dir, error))
    return FALSE;
  g_autofree char *name = g_strdup_printf("p%" G_GSIZE_FORMAT, pt->index);
  g_autofree char *png = g_strdup_printf("%s/series/%s.png", (const char *)dir, name);
  g_autofree char *title = NULL;
  if (pt->n_others) { /* several deployments: their models (each one's layout is in results.csv) */
    g_autoptr(GString) models = g_string_new(pt->model.id);
    for (guint k = 0; k < pt->n_others; k++)
      g_string_append_printf(models, ", %s", pt->others[k].model.id);
    title = g_strdup_printf("%s floor (%.0f engines) serving %s", row->system, row->floor_engines, models->str);
  } else {
    title = g_strdup_printf("%s on %s, the floor (%.0f engines): %s", row->model, row->system, row->floor_engines,
                            row->config ? row->config : "");
  }
  /* the envelope where one is held, else what the facility is provisioned for */
  gboolean held = pt->p.factory.power_policy != POWER_POLICY_NONE;
  double limit = held ? pt->p.factory.power_budget : row->facility_mw * 1e6;
  const char *limit_name = held ? "the envelope" : "provisioned";
  return series_tables(dir, name, series, &pt->system, error) &&
         (series->len == 0 || series_files_chart(png, series, &pt->system, title, limit, limit_name, error));
}

void report_series_clear(const char *dir)
{
  g_autofree char *folder = g_build_filename(dir, "series", NULL);
  g_autoptr(GDir) d = g_dir_open(folder, 0, NULL);
  const char *name;
  while (d && (name = g_dir_read_name(d)))
    if (name[0] == 'p' && (g_str_has_suffix(name, ".csv") || g_str_has_suffix(name, ".jsonl") || g_str_has_suffix(name, ".png") ||
                             g_str_has_suffix(name, ".png.gp"))) {
      g_autofree char *path = g_build_filename(folder, name, NULL);
      g_unlink(path);
    }
}
