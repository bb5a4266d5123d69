/* commands.c — the table of aifsim's commands: main() dispatches from it, `aifsim --help` and
 * `aifsim help COMMAND` read it, and tests/cli.sh walks it (through --help) to keep every short
 * option meaning one thing across commands. */
#include "commands.h"

#include <string.h>

const CliCommand cli_commands[] = {
  { "run", cmd_run, "simulate a scenario and write its results (default: the shipped default scenario)" },
  { "plan", cmd_plan, "the best configuration per system for a power budget and an SLO, and its factory" },
  { "estimate", cmd_estimate, "one configuration, no scenario file: throughput, latency, power and memory" },
  { "launch", cmd_launch, "the launch files (TensorRT-LLM, SGLang, vLLM, Dynamo) of a plan's picks or a point" },
  { "catalog", cmd_catalog, "list the systems, models and scenarios, show an entry, its keys, or import a model" },
  { "pareto", cmd_pareto, "recompute the Pareto frontier of a results file" },
  { "plot", cmd_plot, "draw the AI-factory chart of a results file (PNG, SVG, PDF; gnuplot script)" },
  { "merge", cmd_merge, "join the results of the shards of a sweep" },
  { "validate", cmd_validate, "predict measured results and report the error per system, mode, source, framework" },
  { "fit", cmd_fit, "fit the profile's stack layer to measured results (the hardware layer held)" },
  { "calibrate", cmd_calibrate, "measure the local GPU with CUDA kernels and write a profile for it" },
  { "help", cmd_help, "help on a command ('help COMMAND'), every scenario key ('help keys') or results column "
                      "('help columns')" },
};
const gsize n_cli_commands = G_N_ELEMENTS(cli_commands);

const CliCommand *cli_command(const char *name)
{
  for (gsize i = 0; i < n_cli_commands; i++)
    if (strcmp(name, cli_commands[i].name) == 0)
      return &cli_commands[i];
  return NULL;
}

void cli_set_prgname(const CliCommand *c)
{
  g_autofree char *name = g_strconcat("aifsim ", c->name, NULL);
  g_set_prgname(name);
}
