/* cmd_help.c — `aifsim help COMMAND | keys | columns | catalog`: a command's options (from the
 * command table), and the scenario, results and catalog references printed from their key tables
 * (docs/scenarios.md, docs/results.md and docs/catalog.md embed the --markdown forms; tests keep
 * them equal). */
#include "commands.h"
#include "frontier.h"
#include "hardware.h"
#include "llm.h"
#include "results.h"
#include "scenario.h"

#include <stdio.h>
#include <string.h>

static const char *type_name(const KtKey *k)
{
  switch (k->type) {
  case KT_GROUP: return "group";
  case KT_INT: return "integer";
  case KT_NUMBER: return k->dim == DIM_NONE ? "number" : k->dim == DIM_FRACTION ? "fraction" : "quantity";
  case KT_STRING: return "text";
  case KT_ENUM: return "choice";
  case KT_BOOL: return "boolean";
  }
  return "?";
}

static char *type_text(const KtKey *k)
{
  if (k->type == KT_ENUM) {
    g_autofree char *all = g_strjoinv(" / ", (char **)k->choices);
    return g_strdup(all);
  }
  if (k->type == KT_NUMBER && *units_symbol(k->dim))
    return g_strdup_printf("%s (%s, e.g. %s)", type_name(k), units_symbol(k->dim), units_example(k->dim));
  return g_strdup(type_name(k));
}

/* Prints every key of TABLE; markdown gives the table the docs embed. */
static void help_table(GString *out, const KtTable *table, gboolean markdown)
{
  if (markdown)
    g_string_append(out, "| key | type | default | meaning |\n|---|---|---|---|\n");
  for (gsize i = 0; i < table->n_keys; i++) {
    const KtKey *k = &table->keys[i];
    g_autofree char *type = type_text(k);
    const char *def = k->def ? k->def : (k->flags & KT_REQUIRED) ? "(required)" : "";
    g_autofree char *help = k->sub ? g_strdup_printf("%s; other keys override the %s catalog figures",
                                                     k->help, k->sub->name)
                                   : g_strdup(k->help);
    if (markdown)
      g_string_append_printf(out, "| `%s` | %s | %s%s%s | %s |\n", k->path, type, *def == '(' || !*def ? "" : "`",
                             def, *def == '(' || !*def ? "" : "`", help);
    else
      g_string_append_printf(out, "%-40s %-28s %-14s %s\n", k->path, type, def, help);
  }
}

void help_keys(GString *out, gboolean markdown)
{
  help_table(out, &scenario_table, markdown);
}

void help_catalog(GString *out, gboolean markdown)
{
  const char *h = markdown ? "## " : "";
  g_string_append_printf(out, "%sSystems (models/hardware/ID.yaml)\n\n", h);
  help_table(out, &hardware_table, markdown);
  g_string_append_printf(out, "\n%sModels (models/llm/ID.yaml)\n\n", h);
  help_table(out, &llm_table, markdown);
}

/* Prints every results column: its kind, for a number the way pareto and plot take it by default,
 * and its meaning; markdown gives the table docs/results.md embeds. */
void help_columns(GString *out, gboolean markdown)
{
  static const char *const kinds[] = { "text", "number", "index", "flag", "outcome" };
  if (markdown)
    g_string_append(out, "| column | kind | better | meaning |\n|---|---|---|---|\n");
  for (gsize i = 0; i < n_result_columns; i++) {
    const ResultColumn *c = &result_columns[i];
    const char *better = c->type != RC_NUM ? "" : frontier_column_maximised(c) ? "higher" : "lower";
    if (markdown)
      g_string_append_printf(out, "| `%s` | %s | %s | %s |\n", c->name, kinds[c->type], better, c->help);
    else
      g_string_append_printf(out, "%-22s %-8s %-7s %s\n", c->name, kinds[c->type], better, c->help);
  }
}

int cmd_help(int argc, char **argv)
{
  gboolean markdown = FALSE;
  GOptionEntry entries[] = {
    { "markdown", 0, 0, G_OPTION_ARG_NONE, &markdown, "print keys or columns as Markdown", NULL },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("COMMAND | keys | columns");
  g_option_context_set_summary(ctx, "'aifsim help COMMAND' shows a command's options; 'aifsim help keys' lists every\n"
                                    "scenario key with its type, unit, default and meaning; 'aifsim help columns'\n"
                                    "every results column ('aifsim catalog keys': every key of a catalog entry).");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "help", &argc, &argv))
    return 2;
  static const char *const topics[] = { "keys", "columns", NULL };
  void (*const print[])(GString *, gboolean) = { help_keys, help_columns };
  for (int t = 0; argc == 2 && topics[t]; t++)
    if (strcmp(argv[1], topics[t]) == 0) {
      g_autoptr(GString) out = g_string_new(NULL);
      print[t](out, markdown);
      fputs(out->str, stdout);
      return 0;
    }
  const CliCommand *c = argc == 2 ? cli_command(argv[1]) : NULL;
  if (c) { /* the command's own --help: GOption prints it and exits 0 */
    char *sub[] = { (char *)c->name, (char *)"--help", NULL };
    cli_set_prgname(c);
    return c->run(2, sub);
  }
  if (argc == 2)
    fprintf(stderr, "aifsim help: no command or topic '%s'\n", argv[1]);
  g_autofree char *h = g_option_context_get_help(ctx, TRUE, NULL);
  fputs(h, stderr);
  return 2;
}
