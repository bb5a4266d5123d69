/* commands.h — the aifsim subcommands. Each takes its own argv (argv[0] = the command name),
 * parses its options with GOptionContext and returns the process exit status:
 * 0 success, 1 the run failed, 2 bad input. */
#ifndef AIF_COMMANDS_H
#define AIF_COMMANDS_H

#include <glib.h>

#include "catalog.h"
#include "profile.h"
#include "scenario.h"

int cmd_run(int argc, char **argv);
int cmd_catalog(int argc, char **argv);
int cmd_help(int argc, char **argv);
int cmd_validate(int argc, char **argv);
int cmd_fit(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_plan(int argc, char **argv);
int cmd_pareto(int argc, char **argv);
int cmd_plot(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_estimate(int argc, char **argv);
int cmd_launch(int argc, char **argv);

/* The command table (commands.c): one row per command, in the order --help lists them. */
typedef struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} CliCommand;
extern const CliCommand cli_commands[];
extern const gsize n_cli_commands;
/* The command called NAME, or NULL. */
const CliCommand *cli_command(const char *name);
/* Names the program "aifsim COMMAND" for the usage lines GOption prints. */
void cli_set_prgname(const CliCommand *c);

/* Shared by the commands: report ERROR on stderr and map its code to an exit status. */
int cli_fail(const char *command, GError *error);
/* The index of VALUE in NAMES (NULL-terminated), or -1 after saying on stderr what OPTION expects. */
int cli_choice(const char *command, const char *option, const char *value, const char *const *names);
/* Parses a command's options; on a usage error prints it with the help hint and returns FALSE. */
gboolean cli_parse(GOptionContext *ctx, const char *command, int *argc, char ***argv);

/* What `run` and `plan` share: their options, and the scenario, catalog, profile and output
 * folder those options name. */
typedef struct {
  char *outdir, *profile_path;
  char *backend;            /* fast, simgrid, or NULL: as the scenario says */
  char *engine;             /* serving.engine for every point (des, steady, simgrid), or NULL */
  char **catalog_dirs;
  gint64 seed;              /* G_MININT64: not given */
  gboolean quiet, progress; /* --quiet, --progress */
} RunArgs;
#define RUN_ARGS_ENTRIES(a)                                                                                   \
  { "output", 'o', 0, G_OPTION_ARG_FILENAME, &(a).outdir, "write into DIR (default results/<name>/)", "DIR" }, \
  { "seed", 's', 0, G_OPTION_ARG_INT64, &(a).seed, "random seed, overriding the scenario's", "N" },          \
  { "catalog", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &(a).catalog_dirs, "add catalog folder DIR (hardware/, llm/)", "DIR" }, \
  { "profile", 'p', 0, G_OPTION_ARG_FILENAME, &(a).profile_path, "efficiency profile (default: the scenario's, else the shipped one)", "PROFILE.yaml" }, \
  { "backend", 'b', 0, G_OPTION_ARG_STRING, &(a).backend, "fast (the scenario's engines) or simgrid: every point event-simulated, KV transfers on SimGrid", "BACKEND" }, \
  { "engine", 'e', 0, G_OPTION_ARG_STRING, &(a).engine, "des (default: every point event-simulated), steady (the steady-state model: a fast screen) or simgrid, for every point", "ENGINE" }, \
  CLI_PROGRESS_ENTRIES((a).quiet, (a).progress)
/* --quiet and --progress, the same in every long-running command (run, plan, validate, fit). */
#define CLI_PROGRESS_ENTRIES(quiet, progress)                                                                 \
  { "quiet", 'q', 0, G_OPTION_ARG_NONE, &(quiet), "no progress on stderr", NULL },                             \
  { "progress", 0, 0, G_OPTION_ARG_NONE, &(progress), "a progress line every second (default: a bar on a terminal, a line every 10 s off one)", NULL }

typedef struct {
  Catalog *catalog;
  Scenario *scenario;
  Profile profile;
  char *outdir;             /* created */
  struct OutputDir *lock;   /* held on outdir while the command writes into it */
  struct HeldOut *held_out; /* the shipped profile's held-out error table (held_out.h); NULL with a
                             * profile of the user's, or where none is installed */
} RunSetup;

/* Loads what ARGV (after option parsing: at most one scenario path) and A name into OUT. Returns 0,
 * or the exit status after reporting the failure. */
int run_setup(const char *command, int argc, char **argv, const RunArgs *a, RunSetup *out, GError **error);
void run_setup_clear(RunSetup *rs);
void run_args_clear(RunArgs *a);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(RunArgs, run_args_clear)
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(RunSetup, run_setup_clear)

/* The scenario key reference (plain or Markdown), as `aifsim help keys` prints it. */
void help_keys(GString *out, gboolean markdown);
/* Every key of a system's and a model's catalog entry, as `aifsim catalog keys` prints it. */
void help_catalog(GString *out, gboolean markdown);
/* Every results column (name, kind, which way is better, meaning) as text or as the Markdown table
 * docs/results.md embeds. */
void help_columns(GString *out, gboolean markdown);

/* PATH as the user gave it, or a shipped scenario named without its folder and ".yaml"
 * ("gtc-100mw"): the first that exists; PATH itself when neither does (its error names it). */
char *cli_scenario_path(const char *path);

/* Loads the profile at PATH, or the shipped calibration/profiles/default.yaml when PATH is NULL
 * (the built-in defaults if that file is missing). */
gboolean cli_profile(const char *path, Profile *out, GError **error);

/* The launch recipes at PATH, or the shipped calibration/measured/recipes.yaml when PATH is NULL. */
struct Recipes *cli_recipes(const char *path, GError **error);

/* The shipped catalog plus the user's --catalog folders, later ones overriding. */
Catalog *cli_catalog(char **extra_dirs, GError **error);

#endif
