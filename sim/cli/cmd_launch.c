/* cmd_launch.c — `aifsim launch [DIR] [--point N ...] [-o OUT]`: the launch files of a finished
 * run's points (launch.h). The points are rebuilt from DIR's scenario.resolved.yaml and catalog/ (what
 * `run` and `plan` write beside results.csv), so each file carries what that point was simulated
 * with; by default the points are the plan's picks, each system's best ok point on tokens/s per MW. */
#include "commands.h"
#include "aif_error.h"
#include "frontier.h"
#include "launch.h"
#include "output_dir.h"
#include "results.h"
#include "evaluate.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

/* The rows to launch: those --point names (each must have run), or each system's pick. */
static GPtrArray *chosen_rows(GPtrArray *rows, const gint64 *points, int n_points, GError **error)
{
  GPtrArray *out = g_ptr_array_new();
  for (int i = 0; i < n_points; i++) {
    const ResultRow *hit = NULL;
    for (guint r = 0; r < rows->len && !hit; r++)
      if ((gint64)((const ResultRow *)rows->pdata[r])->point == points[i])
        hit = rows->pdata[r];
    if (!hit || hit->status == OUTCOME_INFEASIBLE || hit->status == OUTCOME_UNSUPPORTED) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "--point %" G_GINT64_FORMAT ": %s", points[i],
                  !hit ? "no such point in the results" : hit->reason ? hit->reason : "the point cannot run");
      g_ptr_array_unref(out);
      return NULL;
    }
    g_ptr_array_add(out, (gpointer)hit);
  }
  if (n_points > 0)
    return out;
  FrontierAxis x, y;
  frontier_default_axes(&x, &y);
  for (guint r = 0; r < rows->len; r++) {
    const ResultRow *row = rows->pdata[r];
    gboolean seen = FALSE;
    for (guint k = 0; k < out->len && !seen; k++)
      seen = g_strcmp0(((const ResultRow *)out->pdata[k])->system, row->system) == 0;
    const ResultRow *best = seen ? NULL : frontier_best(rows, row->system, &y);
    if (best)
      g_ptr_array_add(out, (gpointer)best);
  }
  if (out->len == 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "no point meets the SLO, so there is no pick: name points with --point");
    g_ptr_array_unref(out);
    return NULL;
  }
  return out;
}

static gboolean write_point(const char *outdir, const Point *pt, const Profile *prof, const ResultRow *row,
                            const LaunchOptions *lo, GError **error)
{
  g_autofree char *sub = g_strdup_printf("%s-p%" G_GSIZE_FORMAT, pt->system.id, pt->index);
  if (!output_dir_mkdir(outdir, sub, error))
    return FALSE;
  g_autoptr(GPtrArray) files = launch_files(pt, prof, row, lo);
  for (guint i = 0; i < files->len; i++) {
    const LaunchFile *f = files->pdata[i];
    g_autofree char *path = g_build_filename(outdir, sub, f->name, NULL);
    if (!atomic_file_write(path, f->text, -1, error))
      return FALSE;
    if (f->executable && g_chmod(path, 0755) != 0) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: cannot make it executable", path);
      return FALSE;
    }
  }
  printf("%s/%s: %s (%s)\n", outdir, sub, row->config, row->system);
  return TRUE;
}

int cmd_launch(int argc, char **argv)
{
  g_autofree char *out = NULL, *model_path = NULL, *image = NULL, *name = NULL, *profile_path = NULL;
  g_auto(GStrv) dirs = NULL, point_args = NULL;
  GOptionEntry entries[] = {
    { "point", 0, 0, G_OPTION_ARG_STRING_ARRAY, &point_args, "launch this point of the results (repeatable; default: each system's pick)", "N" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "write into OUT/<system>-p<point>/ (default DIR/launch)", "OUT" },
    { "model-path", 0, 0, G_OPTION_ARG_STRING, &model_path, "the checkpoint the engines load (default: the catalog id, a placeholder; the scripts also read $MODEL)", "PATH" },
    { "image", 0, 0, G_OPTION_ARG_STRING, &image, "container image of the Kubernetes manifest (default: the Dynamo runtime of the stack)", "IMAGE" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name, "deployment name in the manifest (default aifsim-<system>-p<point>)", "NAME" },
    { "profile", 'p', 0, G_OPTION_ARG_FILENAME, &profile_path, "the profile the run used (default: the scenario's, else the shipped one)", "PROFILE.yaml" },
    { "catalog", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, "add catalog folder DIR", "DIR" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("[DIR]");
  g_option_context_set_summary(ctx, "Write the launch files of points of a finished run or plan (DIR: its output folder,\n"
                                    "default results/default): for TensorRT-LLM the trtllm-serve command and its\n"
                                    "LLM-API YAML, for SGLang and vLLM their server commands, for Dynamo and every\n"
                                    "disaggregated point a node script and a Kubernetes DynamoGraphDeployment; each\n"
                                    "with the parallelism, batch caps, chunking, KV cache, MTP and router simulated.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "launch", &argc, &argv))
    return 2;
  if (argc > 2) {
    fprintf(stderr, "aifsim launch: expected one results folder, got %d arguments\n", argc - 1);
    return 2;
  }
  g_autoptr(GArray) points = g_array_new(FALSE, FALSE, sizeof(gint64));
  for (char **pa = point_args; pa && *pa; pa++) {
    char *end = NULL;
    gint64 v = g_ascii_strtoll(*pa, &end, 10);
    if (end == *pa || *end || v < 0) {
      fprintf(stderr, "aifsim launch: --point expects a point number (the results' point column), got '%s'\n", *pa);
      return 2;
    }
    g_array_append_val(points, v);
  }
  g_autofree char *dir = argc == 2 ? g_strdup(argv[1]) : output_dir_default("default");
  g_autofree char *scenario_path = g_build_filename(dir, "scenario.resolved.yaml", NULL);
  g_autofree char *results_path = g_build_filename(dir, "results.csv", NULL);
  g_autofree char *used = g_build_filename(dir, "catalog", NULL);
  if (!g_file_test(scenario_path, G_FILE_TEST_IS_REGULAR)) {
    fprintf(stderr, "aifsim launch: %s: no scenario.resolved.yaml (launch reads the folder `aifsim run` or "
                    "`aifsim plan` wrote)\n", dir);
    return 2;
  }
  g_autoptr(GError) err = NULL;
  g_autoptr(GPtrArray) all_dirs = g_ptr_array_new();
  if (g_file_test(used, G_FILE_TEST_IS_DIR))
    g_ptr_array_add(all_dirs, used);
  for (char **d = dirs; d && *d; d++)
    g_ptr_array_add(all_dirs, *d);
  g_ptr_array_add(all_dirs, NULL);
  g_autoptr(Catalog) cat = cli_catalog((char **)all_dirs->pdata, &err);
  g_autoptr(Scenario) sc = cat ? scenario_load(scenario_path, cat, &err) : NULL;
  GPtrArray *rows = sc ? results_read(results_path, &err) : NULL;
  if (!rows)
    return cli_fail("launch", err);
  int rc = 0;
  g_autoptr(GPtrArray) chosen = chosen_rows(rows, (const gint64 *)points->data, (int)points->len, &err);
  g_autofree char *outdir = out ? g_strdup(out) : g_build_filename(dir, "launch", NULL);
  g_autoptr(OutputDir) lock = chosen ? output_dir_lock(outdir, &err) : NULL;
  if (!chosen || !lock)
    rc = cli_fail("launch", err);
  LaunchOptions lo = { .model_path = model_path, .image = image, .name = name };
  for (guint i = 0; rc == 0 && i < chosen->len; i++) {
    const ResultRow *row = chosen->pdata[i];
    if (row->point >= sc->n_points) {
      fprintf(stderr, "aifsim launch: point %" G_GSIZE_FORMAT " is not in %s: results and scenario differ\n",
              row->point, scenario_path);
      rc = 2;
      break;
    }
    Point pt;
    scenario_point(sc, cat, row->point, &pt);
    Profile prof;
    gboolean ok = cli_profile(profile_path ? profile_path : pt.p.serving.profile, &prof, &err) &&
                  write_point(outdir, &pt, &prof, row, &lo, &err);
    profile_clear(&prof);
    point_clear(&pt);
    if (!ok)
      rc = cli_fail("launch", err);
  }
  evaluate_rows_free(rows);
  return rc;
}
