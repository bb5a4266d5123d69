/* cmd_fit.c — `aifsim fit MEASURED.csv [-o PROFILE.yaml]`: fit the profile to measured results
 * and write it (calibration/profiles/default.yaml is made this way; see docs/validation.md). */
#include "commands.h"
#include "recipes.h"
#include "fit.h"
#include "output_dir.h"
#include "results.h"

#include <stdio.h>
#include <string.h>

/* One fprintf per report: whole lines even when several starts report at once. */
static void progress(int start, int round, double loss, gpointer user)
{
  if (*(const int *)user > 1)
    fprintf(stderr, "fit: start %d, round %d, loss %.5f\n", start + 1, round + 1, loss);
  else
    fprintf(stderr, "fit: round %d, loss %.5f\n", round + 1, loss);
}

static void scored(int start, double loss_des, gpointer user)
{
  (void)user;
  fprintf(stderr, "fit: start %d, event-simulation loss %.5f\n", start + 1, loss_des);
}

int cmd_fit(int argc, char **argv)
{
  g_autofree char *out_path = NULL, *start_path = NULL, *recipes_path = NULL;
  g_auto(GStrv) dirs = NULL, hold_args = NULL;
  g_autofree char *select = NULL;
  gint rounds = 6, starts = 1, threads = (gint)g_get_num_processors();
  gboolean quiet = FALSE, forced = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out_path, "write the fitted profile to FILE (default: stdout)", "PROFILE.yaml" },
    { "profile", 'p', 0, G_OPTION_ARG_FILENAME, &start_path, "start from this profile (default: built-in defaults)", "PROFILE.yaml" },
    { "rounds", 0, 0, G_OPTION_ARG_INT, &rounds, "coordinate-descent sweeps (default 6)", "N" },
    { "starts", 0, 0, G_OPTION_ARG_INT, &starts, "descend from N starts (the profile and N-1 seeded perturbations of it) and keep the lowest (default 1)", "N" },
    { "select", 0, 0, G_OPTION_ARG_STRING, &select, "with several starts, keep the optimum with the lowest loss by the steady state (steady, the default: what the descent minimises) or by the event simulation (des: the headline's engine; a validate's time per start)", "steady|des" },
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &threads, "run up to N starts at once (default: the processors)", "N" },
    { "threads", 0, G_OPTION_FLAG_HIDDEN, G_OPTION_ARG_INT, &threads, "the old name of --jobs", "N" },
    CLI_PROGRESS_ENTRIES(quiet, forced),
    { "hold", 'H', 0, G_OPTION_ARG_STRING_ARRAY, &hold_args, "keep these stack-layer keys as the starting profile has them too (comma-separated, repeatable; the hardware layer is always kept)", "KEY,..." },
    { "catalog", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, "add catalog folder DIR", "DIR" },
    { "recipes", 0, 0, G_OPTION_ARG_FILENAME, &recipes_path, "how the benchmarks launched their engines (default: calibration/measured/recipes.yaml)", "RECIPES.yaml" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("MEASURED.csv");
  g_option_context_set_summary(ctx, "Fit the profile's stack layer (what the serving stacks reach of the hardware\n"
                                    "layer on each architecture, and each stack's overheads) to measured results,\n"
                                    "holding the hardware layer; print the error table and write the profile.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "fit", &argc, &argv))
    return 2;
  if (argc != 2 || rounds < 0 || starts < 1 || threads < 1) {
    fprintf(stderr, "aifsim fit: expected one MEASURED.csv (and --rounds >= 0, --starts and --jobs >= 1)\n");
    return 2;
  }
  if (select && strcmp(select, "steady") != 0 && strcmp(select, "des") != 0) {
    fprintf(stderr, "aifsim fit: --select expects steady or des, not '%s'\n", select);
    return 2;
  }
  gboolean select_des = select && strcmp(select, "des") == 0 && starts > 1;
  g_autoptr(GError) err = NULL;
  g_autoptr(GPtrArray) hold = g_ptr_array_new_with_free_func(g_free);
  for (char **h = hold_args; h && *h; h++) {
    g_auto(GStrv) keys = g_strsplit(*h, ",", -1);
    for (char **k = keys; *k; k++) {
      g_strstrip(*k);
      if (!**k)
        continue;
      if (!fit_hold_check(*k, &err))
        return cli_fail("fit", err);
      g_ptr_array_add(hold, g_strdup(*k));
    }
  }
  g_ptr_array_add(hold, NULL);
  g_autoptr(Catalog) cat = cli_catalog(dirs, &err);
  if (!cat)
    return cli_fail("fit", err);
  Profile prof;
  profile_defaults(&prof);
  if (start_path && !profile_load(&prof, start_path, &err))
    return profile_clear(&prof), cli_fail("fit", err);
  g_autoptr(Recipes) recipes = cli_recipes(recipes_path, &err);
  g_autoptr(GPtrArray) rows = recipes ? validate_read(argv[1], cat, recipes, &err) : NULL;
  if (!rows)
    return profile_clear(&prof), cli_fail("fit", err);
  FitOptions opt = { .rounds = rounds, .starts = starts, .threads = threads, .select_des = select_des,
                     .progress = quiet ? NULL : progress, .scored = quiet ? NULL : scored, .user = &starts,
                     .hold = (const char *const *)hold->pdata };
  double loss = fit_profile(rows, &prof, &opt);
  g_autofree char *base = g_path_get_basename(argv[1]);
  g_free(prof.source);
  g_autofree char *how = starts > 1 ? g_strdup_printf("%d rounds from %d starts%s", rounds, starts,
                                                       select_des ? ", picked by event simulation" : "")
                                     : g_strdup_printf("%d rounds", rounds);
  g_autofree char *held = hold->len > 1 ? g_strjoinv(", ", (char **)hold->pdata) : NULL;
  prof.source = g_strdup_printf("aifsim fit %s (%u rows, %s, loss %.5f%s%s)", base, rows->len, how, loss,
                                held ? "; held: " : "", held ? held : "");
  Prediction *preds = g_new0(Prediction, rows->len);
  for (guint i = 0; i < rows->len; i++)
    validate_predict(rows->pdata[i], &prof, &preds[i]);
  g_autofree char *summary = validate_summary(rows, preds);
  fputs(summary, stderr);
  for (guint i = 0; i < rows->len; i++)
    prediction_clear(&preds[i]);
  g_free(preds);
  g_autofree char *yaml = profile_to_yaml(&prof, "# aifsim efficiency profile. Made by `aifsim fit`: see docs/validation.md.\n"
                                                 "# The hardware layers are held; architectures without measured rows carry the newest\n"
                                                 "# fitted stack layer.\n");
  gboolean ok = TRUE;
  if (out_path)
    ok = atomic_file_write(out_path, yaml, -1, &err);
  else
    fputs(yaml, stdout);
  profile_clear(&prof);
  return ok ? 0 : cli_fail("fit", err);
}
