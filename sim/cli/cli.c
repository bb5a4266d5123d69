/* cli.c — helpers every subcommand shares: option parsing, error reporting with the exit status
 * the error's code implies, and loading the catalog (shipped plus --catalog folders). */
#include "commands.h"
#include "aif_error.h"
#include "datadir.h"
#include "held_out.h"
#include "output_dir.h"
#include "recipes.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>

int cli_fail(const char *command, GError *error)
{
  fprintf(stderr, "aifsim %s: %s\n", command, error->message);
  return error->domain == AIF_ERROR && error->code == AIF_ERROR_RUN ? 1 : 2;
}

gboolean cli_parse(GOptionContext *ctx, const char *command, int *argc, char ***argv)
{
  g_autoptr(GError) err = NULL;
  if (g_option_context_parse(ctx, argc, argv, &err))
    return TRUE;
  fprintf(stderr, "aifsim %s: %s\nRun 'aifsim %s --help' for usage.\n", command, err->message, command);
  return FALSE;
}

Recipes *cli_recipes(const char *path, GError **error)
{
  g_autofree char *shipped = path ? NULL : datadir_path("calibration/measured/recipes.yaml");
  return recipes_load(path ? path : shipped, error);
}

Catalog *cli_catalog(char **extra_dirs, GError **error)
{
  g_autoptr(Catalog) c = catalog_new();
  g_autofree char *shipped = datadir_path("models");
  if (!catalog_load_dir(c, shipped, error))
    return NULL;
  for (char **d = extra_dirs; d && *d; d++)
    if (!catalog_load_dir(c, *d, error))
      return NULL;
  return g_steal_pointer(&c);
}


char *cli_scenario_path(const char *path)
{
  if (strcmp(path, "-") == 0 || strchr(path, '/') || g_file_test(path, G_FILE_TEST_EXISTS))
    return g_strdup(path);
  g_autofree char *rel = g_str_has_suffix(path, ".yaml") ? g_strconcat("scenarios/", path, NULL)
                                                          : g_strconcat("scenarios/", path, ".yaml", NULL);
  g_autofree char *shipped = datadir_path(rel);
  return g_file_test(shipped, G_FILE_TEST_IS_REGULAR) ? g_steal_pointer(&shipped) : g_strdup(path);
}

gboolean cli_profile(const char *path, Profile *out, GError **error)
{
  profile_defaults(out);
  g_autofree char *shipped = path ? NULL : datadir_path("calibration/profiles/default.yaml");
  if (!path && !g_file_test(shipped, G_FILE_TEST_EXISTS))
    return TRUE;
  return profile_load(out, path ? path : shipped, error);
}

/* The shipped profile's held-out error table into *OUT, or NULL where it is not installed. */
static gboolean held_out_shipped(HeldOut **out, GError **error)
{
  g_autofree char *path = datadir_path("calibration/profiles/held-out/errors.csv");
  *out = NULL;
  if (!g_file_test(path, G_FILE_TEST_EXISTS))
    return TRUE;
  return (*out = held_out_load(path, error)) != NULL;
}

int run_setup(const char *command, int argc, char **argv, const RunArgs *a, RunSetup *out, GError **error)
{
  *out = (RunSetup){ 0 };
  if (argc > 2) {
    fprintf(stderr, "aifsim %s: expected one scenario file, got %d arguments\n", command, argc - 1);
    return 2;
  }
  g_autofree char *path = argc == 2 ? cli_scenario_path(argv[1]) : datadir_path("scenarios/default.yaml");
  profile_defaults(&out->profile);
  if (!(out->catalog = cli_catalog(a->catalog_dirs, error)) ||
      !(out->scenario = scenario_load(path, out->catalog, error)))
    return run_setup_clear(out), cli_fail(command, *error);
  if (a->seed != G_MININT64) {
    g_autofree char *text = g_strdup_printf("%" G_GINT64_FORMAT, a->seed);
    if (!scenario_override(out->scenario, "seed", text, error))
      return run_setup_clear(out), cli_fail(command, *error);
  }
  if (a->backend && strcmp(a->backend, "fast") != 0 &&
      (strcmp(a->backend, "simgrid") != 0 || !scenario_override(out->scenario, "serving.engine", "simgrid", error))) {
    if (!*error)
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "--backend: expected fast or simgrid, got '%s'", a->backend);
    return run_setup_clear(out), cli_fail(command, *error);
  }
  if (a->engine && !scenario_override(out->scenario, "serving.engine", a->engine, error)) {
    g_prefix_error(error, "--engine: ");
    return run_setup_clear(out), cli_fail(command, *error);
  }
  Point first;
  scenario_point(out->scenario, out->catalog, 0, &first);
  out->outdir = a->outdir ? g_strdup(a->outdir) : output_dir_default(first.p.name);
  profile_clear(&out->profile);
  const char *own = a->profile_path ? a->profile_path : first.p.serving.profile;
  gboolean ok = cli_profile(own, &out->profile, error) && (own || held_out_shipped(&out->held_out, error));
  point_clear(&first);
  if (!ok)
    return run_setup_clear(out), cli_fail(command, *error);
  if (!(out->lock = output_dir_lock(out->outdir, error)))
    return run_setup_clear(out), cli_fail(command, *error);
  return 0;
}

void run_setup_clear(RunSetup *rs)
{
  g_clear_pointer(&rs->scenario, scenario_free);
  g_clear_pointer(&rs->catalog, catalog_free);
  g_clear_pointer(&rs->outdir, g_free);
  g_clear_pointer(&rs->lock, output_dir_unlock);
  g_clear_pointer(&rs->held_out, held_out_free);
  profile_clear(&rs->profile);
}

void run_args_clear(RunArgs *a)
{
  g_clear_pointer(&a->outdir, g_free);
  g_clear_pointer(&a->profile_path, g_free);
  g_clear_pointer(&a->backend, g_free);
  g_clear_pointer(&a->engine, g_free);
  g_clear_pointer(&a->catalog_dirs, g_strfreev);
}

int cli_choice(const char *command, const char *option, const char *value, const char *const *names)
{
  for (int i = 0; names[i]; i++)
    if (strcmp(value, names[i]) == 0)
      return i;
  g_autofree char *list = g_strjoinv(", ", (char **)names);
  fprintf(stderr, "aifsim %s: %s expects one of %s, got '%s'\n", command, option, list, value);
  return -1;
}
