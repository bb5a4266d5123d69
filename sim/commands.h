/* commands.h — the aifsim subcommands. Each takes its own argv (argv[0] = the command name),
 * parses its options with GOptionContext and returns the process exit status:
 * 0 success, 1 the run failed, 2 bad input. */
#ifndef AIF_COMMANDS_H
#define AIF_COMMANDS_H

#include <glib.h>

#include "catalog.h"
#include "profile.h"

int cmd_run(int argc, char **argv);
int cmd_catalog(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_fit(int argc, char **argv);

/* Shared by the commands: report ERROR on stderr and map its code to an exit status. */
int cli_fail(const char *command, GError *error);
/* Parses a command's options; on a usage error prints it with the help hint and returns FALSE. */
gboolean cli_parse(GOptionContext *ctx, const char *command, int *argc, char ***argv);

/* The scenario key reference (plain or Markdown), as `aifsim help keys` prints it. */
void help_keys(GString *out, gboolean markdown);

/* Loads the profile at PATH, or the shipped calibration/profiles/default.yaml when PATH is NULL
 * (the built-in defaults if that file is missing). */
gboolean cli_profile(const char *path, Profile *out, GError **error);

/* The shipped catalog plus the user's --catalog folders, later ones overriding. */
Catalog *cli_catalog(char **extra_dirs, GError **error);

#endif
