/* cmd_validate.c — `aifsim validate MEASURED.csv [-o PREDICTIONS.csv]`: predict every measured
 * deployment and print how far the predictions are, per system, mode, source and serving framework. */
#include "commands.h"
#include "explain.h"
#include "recipes.h"
#include "output_dir.h"
#include "progress.h"
#include "results.h"
#include "validate.h"

#include <stdio.h>
#include <string.h>

typedef void (*PredictFn)(ValRow *row, const Profile *prof, Prediction *out);

/* --explain ID: the row with that id predicted alone and taken apart (explain.h). */
static int explain_one(GPtrArray *rows, const char *id, const char *file, const Profile *prof, PredictFn predict)
{
  for (guint i = 0; i < rows->len; i++) {
    ValRow *r = rows->pdata[i];
    if (strcmp(r->id, id) != 0)
      continue;
    Prediction p;
    predict(r, prof, &p);
    g_autofree char *text = explain_row(r, &p);
    fputs(text, stdout);
    prediction_clear(&p);
    return 0;
  }
  fprintf(stderr, "aifsim validate: --explain: no row with id '%s' in %s\n", id, file);
  return 2;
}

int cmd_validate(int argc, char **argv)
{
  g_autofree char *out_path = NULL, *groups_path = NULL, *profile_path = NULL, *engine = NULL, *backend = NULL,
                   *recipes_path = NULL, *explain = NULL;
  g_auto(GStrv) dirs = NULL;
  gboolean quiet = FALSE, forced = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out_path, "write the predictions to FILE", "PREDICTIONS.csv" },
    { "groups", 'g', 0, G_OPTION_ARG_FILENAME, &groups_path, "write the table's groups as CSV to FILE (errors as fractions)", "GROUPS.csv" },
    { "profile", 'p', 0, G_OPTION_ARG_FILENAME, &profile_path, "efficiency profile (default: the shipped one)", "PROFILE.yaml" },
    { "catalog", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, "add catalog folder DIR", "DIR" },
    { "recipes", 0, 0, G_OPTION_ARG_FILENAME, &recipes_path, "how the benchmarks launched their engines (default: calibration/measured/recipes.yaml)", "RECIPES.yaml" },
    { "engine", 'e', 0, G_OPTION_ARG_STRING, &engine, "des (default: event-simulate the concurrency rows, as their benchmark ran) or steady (the steady-state model, faster)", "ENGINE" },
    { "backend", 'b', 0, G_OPTION_ARG_STRING, &backend, "fast (default) or simgrid: the event simulation's KV transfers on SimGrid (implies --engine des)", "BACKEND" },
    { "explain", 0, 0, G_OPTION_ARG_STRING, &explain, "predict the row with this id alone and print where its step time goes: each part of a decode step and of a prefill, beside the datasheet floors", "ID" },
    CLI_PROGRESS_ENTRIES(quiet, forced),
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("MEASURED.csv");
  g_option_context_set_summary(ctx, "Predict every row of a measured-results file (schema and the shipped public\n"
                                    "rows: calibration/measured/) and print the median and p90 absolute percentage\n"
                                    "error per system, mode, source and serving framework, then the median of\n"
                                    "throughput per GPU and per user pooled (the headline figure; on rows a fit\n"
                                    "never saw, it is the held-out error: docs/validation.md).");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "validate", &argc, &argv))
    return 2;
  gboolean simgrid = backend && strcmp(backend, "simgrid") == 0;
  gboolean des = !engine || strcmp(engine, "des") == 0;
  if (argc != 2 || (engine && !des && strcmp(engine, "steady") != 0) || (backend && !simgrid && strcmp(backend, "fast") != 0) ||
      (simgrid && !des)) {
    fprintf(stderr, "aifsim validate: expected one MEASURED.csv (and --engine steady or des, --backend fast or simgrid; "
                    "simgrid is an event simulation)\n"
                    "Run 'aifsim validate --help' for usage.\n");
    return 2;
  }
  g_autoptr(GError) err = NULL;
  g_autoptr(Catalog) cat = cli_catalog(dirs, &err);
  if (!cat)
    return cli_fail("validate", err);
  Profile prof;
  if (!cli_profile(profile_path, &prof, &err))
    return cli_fail("validate", err);
  g_autoptr(Recipes) recipes = cli_recipes(recipes_path, &err);
  g_autoptr(GPtrArray) rows = recipes ? validate_read(argv[1], cat, recipes, &err) : NULL;
  if (!rows) {
    profile_clear(&prof);
    return cli_fail("validate", err);
  }
  if (explain) {
    int status = explain_one(rows, explain, argv[1], &prof, simgrid ? validate_predict_simgrid : des ? validate_predict_des : validate_predict);
    profile_clear(&prof);
    return status;
  }
  Prediction *preds = g_new0(Prediction, rows->len);
  Progress progress;
  progress_start(&progress, progress_style(quiet, forced), "rows", 0, rows->len);
  for (guint i = 0; i < rows->len; i++) {
    (simgrid ? validate_predict_simgrid : des ? validate_predict_des : validate_predict)(rows->pdata[i], &prof, &preds[i]);
    progress_add(&progress, 1);
  }
  progress_end(&progress);
  g_autofree char *summary = validate_summary(rows, preds);
  fputs(summary, stdout);
  gboolean ok = TRUE;
  if (out_path) {
    g_autofree char *csv = validate_predictions_csv(rows, preds);
    ok = atomic_file_write(out_path, csv, -1, &err);
    if (ok)
      printf("predictions: %s\n", out_path);
  }
  if (ok && groups_path) {
    g_autofree char *csv = validate_groups_csv(rows, preds);
    ok = atomic_file_write(groups_path, csv, -1, &err);
    if (ok)
      printf("groups: %s\n", groups_path);
  }
  for (guint i = 0; i < rows->len; i++)
    prediction_clear(&preds[i]);
  g_free(preds);
  profile_clear(&prof);
  return ok ? 0 : cli_fail("validate", err);
}
