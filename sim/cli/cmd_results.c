/* cmd_results.c — the commands that work on results files rather than scenarios:
 * `aifsim pareto` (recompute the frontier), `aifsim plot` (draw the chart), `aifsim merge` (join
 * the shards of a sweep). */
#include "chart.h"
#include "commands.h"
#include "yaml_doc.h"
#include "evaluate.h"
#include "frontier.h"
#include "merge.h"
#include "aif_error.h"
#include "input_file.h"
#include "output_dir.h"
#include "results.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static int fail_rows(const char *cmd, GPtrArray *rows, GError *err)
{
  if (rows)
    evaluate_rows_free(rows);
  return cli_fail(cmd, err);
}

/* The axes -x and -y name ("COLUMN", "COLUMN:max" or "COLUMN:min"), or the chart's. */
static gboolean axes_of(const char *x, const char *y, FrontierAxis *fx, FrontierAxis *fy, GError **error)
{
  frontier_default_axes(fx, fy);
  return (!x || frontier_axis_parse(x, fx, error)) && (!y || frontier_axis_parse(y, fy, error));
}

/* RESULTS.csv -> RESULTS.pareto.csv: pareto's own file beside its input. */
static char *pareto_path(const char *input)
{
  g_autofree char *stem = g_str_has_suffix(input, ".csv") ? g_strndup(input, strlen(input) - 4) : g_strdup(input);
  return g_strconcat(stem, ".pareto.csv", NULL);
}

int cmd_pareto(int argc, char **argv)
{
  g_autofree char *out = NULL, *x = NULL, *y = NULL;
  gboolean all = FALSE, in_place = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "write to FILE (default: RESULTS.pareto.csv beside the input)", "FILE" },
    { "in-place", 'i', 0, G_OPTION_ARG_NONE, &in_place, "rewrite RESULTS.csv itself", NULL },
    { "x", 'x', 0, G_OPTION_ARG_STRING, &x, "first axis (default tok_s_per_user); COLUMN:min or COLUMN:max sets its direction, else the column's own (costs, energy, power and latencies are minimised)", "COLUMN" },
    { "y", 'y', 0, G_OPTION_ARG_STRING, &y, "second axis (default tok_s_per_mw), as -x", "COLUMN" },
    { "all", 'a', 0, G_OPTION_ARG_NONE, &all, "one frontier over every system instead of one per system", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("RESULTS.csv");
  g_option_context_set_summary(ctx, "Recompute the Pareto frontier of a results file (the on_frontier column) over\n"
                                    "two columns, each maximised or minimised, write the table with it (to a new\n"
                                    "file unless --in-place) and list the frontier points.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "pareto", &argc, &argv))
    return 2;
  if (argc != 2 || (out && in_place)) {
    fprintf(stderr, "aifsim pareto: expected one RESULTS.csv (and -o or --in-place, not both)\n");
    return 2;
  }
  g_autoptr(GError) err = NULL;
  FrontierAxis fx, fy;
  if (!axes_of(x, y, &fx, &fy, &err))
    return cli_fail("pareto", err);
  GPtrArray *rows = results_read(argv[1], &err);
  if (!rows)
    return fail_rows("pareto", rows, err);
  frontier_mark(rows, &fx, &fy, !all);
  g_autofree char *csv = results_csv_text(rows);
  g_autofree char *target = in_place ? g_strdup(argv[1]) : out ? g_strdup(out) : pareto_path(argv[1]);
  if (!atomic_file_write(target, csv, -1, &err))
    return fail_rows("pareto", rows, err);
  g_autofree char *hx = g_strdup_printf("%s (%s)", fx.col->name, fx.maximise ? "max" : "min");
  g_autofree char *hy = g_strdup_printf("%s (%s)", fy.col->name, fy.maximise ? "max" : "min");
  printf("%-6s %-20s %-56s %20s %20s\n", "point", "system", "config", hx, hy);
  for (guint i = 0; i < rows->len; i++) {
    const ResultRow *r = rows->pdata[i];
    if (r->on_frontier == 1)
      printf("%-6" G_GSIZE_FORMAT " %-20s %-56s %20.6g %20.6g\n", r->point, r->system, r->config,
             result_value(r, fx.col), result_value(r, fy.col));
  }
  printf("\nwith the frontier marked: %s\n", target);
  evaluate_rows_free(rows);
  return 0;
}

int cmd_plot(int argc, char **argv)
{
  g_autofree char *out = NULL, *x = NULL, *y = NULL, *title = NULL;
  double slo = 0;
  gint width = 1280, height = 800;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "chart file: .png, .svg or .pdf (default chart.png)", "FILE" },
    { "x", 'x', 0, G_OPTION_ARG_STRING, &x, "x axis column (default tok_s_per_user); COLUMN:min or COLUMN:max sets its direction", "COLUMN" },
    { "y", 'y', 0, G_OPTION_ARG_STRING, &y, "y axis column (default tok_s_per_mw), as -x", "COLUMN" },
    { "slo", 0, 0, G_OPTION_ARG_DOUBLE, &slo, "draw an SLO's floor at x = VALUE (default: the scenario's plan.min_tok_s_per_user)", "VALUE" },
    { "title", 0, 0, G_OPTION_ARG_STRING, &title, "chart title (default: the scenario's, from the scenario.resolved.yaml beside the results)", "TEXT" },
    { "width", 0, 0, G_OPTION_ARG_INT, &width, "width in points (default 1280)", "N" },
    { "height", 0, 0, G_OPTION_ARG_INT, &height, "height in points (default 800)", "N" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("RESULTS.csv");
  g_option_context_set_summary(ctx, "Draw the AI-factory chart of a results file with cairo, and write a gnuplot\n"
                                    "script (FILE.gp) and its data (FILE.dat) beside it. Points whose status is not\n"
                                    "ok are drawn faded; each system's best ok point on y is ringed.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "plot", &argc, &argv))
    return 2;
  if (argc != 2 || width < 200 || height < 200) {
    fprintf(stderr, "aifsim plot: expected one RESULTS.csv (and a size of at least 200 x 200)\n");
    return 2;
  }
  const char *path = out ? out : "chart.png";
  g_autoptr(GError) err = NULL;
  /* the title and SLO floor of the run that wrote the results, when its resolved scenario is beside them */
  g_autofree char *run_dir = g_path_get_dirname(argv[1]);
  g_autofree char *resolved = g_build_filename(run_dir, "scenario.resolved.yaml", NULL);
  g_autoptr(YamlDoc) doc = strcmp(argv[1], "-") != 0 && g_file_test(resolved, G_FILE_TEST_IS_REGULAR)
                               ? yaml_doc_load(resolved, NULL) : NULL;
  yaml_node_t *root = doc ? yaml_doc_root(doc) : NULL;
  yaml_node_t *desc = root ? yaml_doc_lookup(doc, root, "description") : NULL;
  yaml_node_t *name = root ? yaml_doc_lookup(doc, root, "name") : NULL;
  yaml_node_t *plan = root ? yaml_doc_lookup(doc, root, "plan") : NULL;
  yaml_node_t *floor = plan ? yaml_doc_lookup(doc, plan, "min_tok_s_per_user") : NULL;
  const char *run_title = desc && yaml_doc_scalar(desc) ? yaml_doc_scalar(desc) : name ? yaml_doc_scalar(name) : NULL;
  if (!slo && floor && yaml_doc_scalar(floor))
    slo = g_ascii_strtod(yaml_doc_scalar(floor), NULL);
  ChartOptions co = { .title = title ? title : run_title, .slo_x = slo > 0 && isfinite(slo) ? slo : 0, .width = width,
                      .height = height };
  if (!axes_of(x, y, &co.x, &co.y, &err))
    return cli_fail("plot", err);
  GPtrArray *rows = results_read(argv[1], &err);
  if (!rows)
    return fail_rows("plot", rows, err);
  frontier_mark(rows, &co.x, &co.y, TRUE);
  /* each system's pick on y, by the rule plan uses (frontier_better) */
  g_autoptr(GPtrArray) picks = g_ptr_array_new();
  g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
  for (guint i = 0; i < rows->len; i++) {
    const ResultRow *r = rows->pdata[i];
    if (!r->system || !g_hash_table_add(seen, r->system))
      continue;
    const ResultRow *best = frontier_best(rows, r->system, &co.y);
    if (best)
      g_ptr_array_add(picks, (gpointer)best);
  }
  co.picks = (const ResultRow *const *)picks->pdata, co.n_picks = picks->len;
  g_autoptr(ChartData) cd = chart_data_from_rows(rows, &co.x, &co.y);
  if (!chart_render(cd, &co, path, &err))
    return fail_rows("plot", rows, err);
  const char *dot = strrchr(path, '.');
  g_autofree char *stem = g_strndup(path, dot ? (gsize)(dot - path) : strlen(path));
  g_autofree char *gp = g_strconcat(stem, ".gp", NULL), *dat = g_strconcat(stem, ".dat", NULL);
  if (!chart_gnuplot(cd, &co, gp, dat, &err))
    return fail_rows("plot", rows, err);
  printf("chart: %s (gnuplot: %s, %s)\n", path, gp, dat);
  evaluate_rows_free(rows);
  return 0;
}

static gint by_point(gconstpointer a, gconstpointer b)
{
  gsize x = (*(ResultRow *const *)a)->point, y = (*(ResultRow *const *)b)->point;
  return (x > y) - (x < y);
}

int cmd_merge(int argc, char **argv)
{
  g_autofree char *out = NULL;
  gboolean partial = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "write the joined results into DIR", "DIR" },
    { "partial", 0, 0, G_OPTION_ARG_NONE, &partial, "join the folders given even when points of the sweep are missing", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("DIR...");
  g_option_context_set_summary(ctx, "Join the results of the shards of one sweep (aifsim run --shard K/N) into one\n"
                                    "result set, in point order, with the frontier recomputed. Every point of the\n"
                                    "sweep must be in one of the folders, unless --partial.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "merge", &argc, &argv))
    return 2;
  if (argc < 2 || !out) {
    fprintf(stderr, "aifsim merge: expected -o DIR and at least one shard folder\n");
    return 2;
  }
  g_autoptr(GError) err = NULL;
  g_autofree char *scenario = NULL;
  GPtrArray *all = g_ptr_array_new();
  g_autoptr(GHashTable) seen = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  for (int i = 1; i < argc; i++) {
    g_autofree char *csv = g_build_filename(argv[i], "results.csv", NULL);
    g_autofree char *res = g_build_filename(argv[i], "scenario.resolved.yaml", NULL), *text = NULL;
    gsize len = 0;
    if (!input_file_read(res, &text, &len, &err) && !partial) {
      g_clear_error(&err);
      g_set_error(&err, AIF_ERROR, AIF_ERROR_INPUT, "%s: no scenario.resolved.yaml: not the folder of a run "
                  "(give the shards' output folders, or --partial)", argv[i]);
      return fail_rows("merge", all, err);
    }
    g_clear_error(&err);
    if (text && scenario && strcmp(scenario, text) != 0) {
      g_set_error(&err, AIF_ERROR, AIF_ERROR_INPUT, "%s comes from another scenario than %s", argv[i], argv[1]);
      return fail_rows("merge", all, err);
    }
    if (text && !scenario)
      scenario = g_steal_pointer(&text);
    GPtrArray *rows = results_read(csv, &err);
    if (!rows || !merge_rows(all, rows, seen, argv[i], &err))
      return fail_rows("merge", all, err);
  }
  if (!partial && !merge_complete(seen, scenario ? merge_sweep_points(scenario) : 0, &err))
    return fail_rows("merge", all, err);
  g_ptr_array_sort(all, by_point);
  g_autoptr(OutputDir) lock = output_dir_lock(out, &err);
  if (!lock)
    return fail_rows("merge", all, err);
  g_autofree char *res_out = g_build_filename(out, "scenario.resolved.yaml", NULL);
  FrontierAxis fx, fy;
  frontier_default_axes(&fx, &fy);
  frontier_mark(all, &fx, &fy, TRUE);
  if (!results_write(out, all, &err) ||
      (scenario && !atomic_file_write(res_out, scenario, -1, &err)))
    return fail_rows("merge", all, err);
  printf("merged %u points from %d folders into %s/\n", all->len, argc - 1, out);
  evaluate_rows_free(all);
  return 0;
}
