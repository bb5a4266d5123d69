/* cli.c — helpers every subcommand shares: option parsing, error reporting with the exit status
 * the error's code implies, and loading the catalog (shipped plus --catalog folders). */
#include "commands.h"
#include "aif_error.h"
#include "datadir.h"

#include <stdio.h>

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


gboolean cli_profile(const char *path, Profile *out, GError **error)
{
  profile_defaults(out);
  g_autofree char *shipped = path ? NULL : datadir_path("calibration/profiles/default.yaml");
  if (!path && !g_file_test(shipped, G_FILE_TEST_EXISTS))
    return TRUE;
  return profile_load(out, path ? path : shipped, error);
}
