/* main.c — the aifsim command line: dispatches to a subcommand of the table in commands.c. */
#include "config.h"
#include "commands.h"

#include <locale.h>
#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
  fprintf(f, "Usage: aifsim [--version] [--help] COMMAND [OPTIONS...]\n\n"
             "aifsim simulates LLM serving on NVIDIA systems, from one GPU up to the facility, and\n"
             "plans the AI factory: the configurations that give the most tokens per megawatt at\n"
             "the interactivity a service needs.\n\nCommands:\n");
  for (gsize i = 0; i < n_cli_commands; i++)
    fprintf(f, "  %-10s %s\n", cli_commands[i].name, cli_commands[i].summary);
  fprintf(f, "\nRun 'aifsim help COMMAND' (or 'aifsim COMMAND --help') for a command's options.\n"
             "Where a command reads a file, '-' reads standard input.\n\n"
             "Report bugs to: %s\naifsim home page: <%s>\n", PACKAGE_BUGREPORT, PACKAGE_URL);
}

static void version(void)
{
  printf("aifsim %s\n"
         "Copyright (C) 2026 The aifsim authors.\n"
         "License MIT: <https://opensource.org/license/mit>.\n"
         "This is free software: you are free to change and redistribute it.\n"
         "There is NO WARRANTY, to the extent permitted by law.\n", PACKAGE_VERSION);
}

int main(int argc, char **argv)
{
  /* The user's locale for text (help prints '…', not '?', in a UTF-8 locale); numbers in every
   * file are written and read with a '.', whatever the locale says. */
  setlocale(LC_ALL, "");
  setlocale(LC_NUMERIC, "C");
  if (argc < 2) {
    usage(stderr);
    return 2;
  }
  const char *a = argv[1];
  if (strcmp(a, "--version") == 0 || strcmp(a, "-V") == 0) {
    version();
    return 0;
  }
  if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0 || (strcmp(a, "help") == 0 && argc == 2)) {
    usage(stdout);
    return 0;
  }
  const CliCommand *c = cli_command(a);
  if (c) {
    cli_set_prgname(c); /* usage lines read "aifsim run [OPTION…]" */
    return c->run(argc - 1, argv + 1);
  }
  fprintf(stderr, "aifsim: unknown %s '%s'\n\n", a[0] == '-' ? "option" : "command", a);
  usage(stderr);
  return 2;
}
