/* cmd_fit.c — `aifsim fit MEASURED.csv [-o PROFILE.yaml]`: fit the profile to measured results
 * and write it (calibration/profiles/default.yaml is made this way; see docs/validation.md). */
#include "commands.h"
#include "fit.h"
#include "results.h"

#include <stdio.h>

static void progress(int round, double loss, gpointer user)
{
  fprintf(stderr, "fit: round %d, loss %.5f\n", round + 1, loss);
}

int cmd_fit(int argc, char **argv)
{
  g_autofree char *out_path = NULL, *start_path = NULL;
  g_auto(GStrv) dirs = NULL;
  gint rounds = 6;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out_path, "write the fitted profile to FILE (default: stdout)", "PROFILE.yaml" },
    { "profile", 'p', 0, G_OPTION_ARG_FILENAME, &start_path, "start from this profile (default: built-in defaults)", "PROFILE.yaml" },
    { "rounds", 'r', 0, G_OPTION_ARG_INT, &rounds, "coordinate-descent sweeps (default 6)", "N" },
    { "catalog", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, "add catalog folder DIR", "DIR" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("MEASURED.csv");
  g_option_context_set_summary(ctx, "Fit the profile's per-architecture efficiencies and per-stack overheads to\n"
                                    "measured results, print the error table and write the profile.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "fit", &argc, &argv))
    return 2;
  if (argc != 2 || rounds < 0) {
    fprintf(stderr, "aifsim fit: expected one MEASURED.csv (and --rounds >= 0)\n");
    return 2;
  }
  g_autoptr(GError) err = NULL;
  g_autoptr(Catalog) cat = cli_catalog(dirs, &err);
  if (!cat)
    return cli_fail("fit", err);
  Profile prof;
  profile_defaults(&prof);
  if (start_path && !profile_load(&prof, start_path, &err))
    return profile_clear(&prof), cli_fail("fit", err);
  g_autoptr(GPtrArray) rows = validate_read(argv[1], cat, &err);
  if (!rows)
    return profile_clear(&prof), cli_fail("fit", err);
  FitOptions opt = { .rounds = rounds, .progress = progress };
  double loss = fit_profile(rows, &prof, &opt);
  g_autofree char *base = g_path_get_basename(argv[1]);
  g_free(prof.source);
  prof.source = g_strdup_printf("aifsim fit %s (%u rows, %d rounds, loss %.5f)", base, rows->len, rounds, loss);
  Prediction *preds = g_new0(Prediction, rows->len);
  for (guint i = 0; i < rows->len; i++)
    validate_predict(rows->pdata[i], &prof, &preds[i]);
  g_autofree char *summary = validate_summary(rows, preds);
  fputs(summary, stderr);
  for (guint i = 0; i < rows->len; i++)
    prediction_clear(&preds[i]);
  g_free(preds);
  g_autofree char *yaml = profile_to_yaml(&prof, "# aifsim efficiency profile. Made by `aifsim fit`: see docs/validation.md.\n"
                                                 "# Architectures without measured rows carry the newest fitted one.\n");
  gboolean ok = TRUE;
  if (out_path)
    ok = results_write_file(out_path, yaml, -1, &err);
  else
    fputs(yaml, stdout);
  profile_clear(&prof);
  return ok ? 0 : cli_fail("fit", err);
}
