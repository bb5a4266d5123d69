/* main.c — the aifsim command line: dispatches to a subcommand (see commands.h). */
#include "config.h"
#include "commands.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

typedef struct {
  const char *name;
  int (*run)(int argc, char **argv);
  const char *summary;
} Command;

static const Command commands[] = {
  { "run", cmd_run, "simulate a scenario and write its results (default: scenarios/default.yaml)" },
  { "catalog", cmd_catalog, "list the systems and models, or show one entry with its sources" },
  { "plan", cmd_plan, "the best configuration per system for a power budget and an SLO, and its factory" },
  { "pareto", cmd_pareto, "recompute the Pareto frontier of a results file" },
  { "plot", cmd_plot, "draw the AI-factory chart of a results file (PNG, SVG, PDF; gnuplot script)" },
  { "merge", cmd_merge, "join the results of the shards of a sweep" },
  { "validate", cmd_validate, "predict measured results and report the error per system, mode, source, framework" },
  { "fit", cmd_fit, "fit the profile's stack layer to measured results (the hardware layer held)" },
  { "calibrate", cmd_calibrate, "measure the local GPU with CUDA kernels and write a profile for it" },
  { "help", cmd_help, "help on a command, or 'help keys': every scenario key" },
};

static void usage(FILE *f)
{
  fprintf(f, "Usage: aifsim [--version] [--help] COMMAND [OPTIONS...]\n\n"
             "aifsim simulates LLM serving on NVIDIA systems, from one GPU up to the facility.\n\nCommands:\n");
  for (gsize i = 0; i < G_N_ELEMENTS(commands); i++)
    fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
  fprintf(f, "\nRun 'aifsim COMMAND --help' for a command's options.\n");
}

int main(int argc, char **argv)
{
  setlocale(LC_ALL, "C"); /* numbers in files are always written with a '.' */
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *a = argv[1];
  if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
    printf("aifsim %s\n", PACKAGE_VERSION);
    return 0;
  }
  if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || (strcmp(a, "help") == 0 && argc == 2)) {
    usage(stdout);
    return 0;
  }
  for (gsize i = 0; i < G_N_ELEMENTS(commands); i++)
    if (strcmp(a, commands[i].name) == 0)
      return commands[i].run(argc - 1, argv + 1);
  fprintf(stderr, "aifsim: unknown %s '%s'\n\n", a[0] == '-' ? "option" : "command", a);
  usage(stderr);
  return 2;
}
