/* cmd_catalog.c — `aifsim catalog systems | models | scenarios | show ID | import CONFIG.json`. */
#include "commands.h"
#include "datadir.h"
#include "keytable.h"
#include "llm_import.h"
#include "output_dir.h"
#include "precision.h"
#include "yaml_doc.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static char *tera(double flops)
{
  return flops > 0 ? g_strdup_printf("%.0f", flops / 1e12) : g_strdup("-");
}

static void list_systems(const Catalog *c)
{
  printf("%-20s %-16s %5s %5s %7s %7s %7s %7s %7s %7s %6s  %s\n", "id", "arch", "gpus", "nvl", "bf16", "fp8",
         "fp4", "hbm", "hbm_bw", "nvlink", "tdp", "status");
  printf("%-20s %-16s %5s %5s %7s %7s %7s %7s %7s %7s %6s\n", "", "", "/rack", "domain", "TFLOP/s", "TFLOP/s",
         "TFLOP/s", "GB", "TB/s", "GB/s", "W");
  for (guint i = 0; i < c->systems->len; i++) {
    const SystemSpec *s = c->systems->pdata[i];
    g_autofree char *b = tera(s->flops_bf16), *f8 = tera(s->flops_fp8), *f4 = tera(s->flops_fp4);
    printf("%-20s %-16s %5d %5d %7s %7s %7s %7.0f %7.2f %7.0f %6.0f  %s\n", s->id, gpu_arch_names[s->arch],
           s->gpus_per_rack, s->nvlink_domain_gpus, b, f8, f4, s->hbm_capacity / 1e9, s->hbm_bandwidth / 1e12,
           s->nvlink_bandwidth / 1e9, s->tdp, s->status == STATUS_ROADMAP ? "roadmap" : "shipping");
  }
}

static void list_models(const Catalog *c)
{
  printf("%-16s %6s %6s %5s %6s %8s %6s %9s %9s\n", "id", "layers", "hidden", "attn", "heads", "experts",
         "top-k", "params_B", "active_B");
  for (guint i = 0; i < c->models->len; i++) {
    const LlmSpec *m = c->models->pdata[i];
    printf("%-16s %6d %6d %5s %6d %8d %6d %9.1f %9.1f\n", m->id, m->layers, m->hidden,
           m->attn_kind == ATTN_MLA ? "mla" : "gqa", m->heads, m->experts, m->experts_per_token,
           m->params_total / 1e9, m->params_active / 1e9);
  }
}

static void show_entry(const Catalog *c, const KtTable *t, const void *entry, const FigureSources *fs)
{
  for (gsize i = 0; i < t->n_keys; i++) {
    const KtKey *k = &t->keys[i];
    if (k->type == KT_GROUP || strcmp(k->path, "source") == 0)
      continue;
    g_autofree char *v = kt_value_text(k, entry);
    const char *src = k->type == KT_STRING || k->type == KT_ENUM ? NULL : figure_sources_get(fs, k->path);
    printf("  %-28s %-22s %s%s%s\n", k->path, v, figure_sources_uncertain(fs, k->path) ? "[uncertain] " : "",
           src ? "source: " : "", src ? catalog_citation(c, src) : "");
  }
}

static gint by_text(gconstpointer a, gconstpointer b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* The shipped scenarios, by the name `run` and `plan` take, with their descriptions. */
static int list_scenarios(void)
{
  g_autofree char *dir = datadir_path("scenarios");
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  for (const char *f; d && (f = g_dir_read_name(d));)
    if (g_str_has_suffix(f, ".yaml"))
      g_ptr_array_add(names, g_strndup(f, strlen(f) - 5));
  g_ptr_array_sort(names, by_text);
  for (guint i = 0; i < names->len; i++) {
    g_autofree char *file = g_strconcat(names->pdata[i], ".yaml", NULL);
    g_autofree char *path = g_build_filename(dir, file, NULL);
    g_autoptr(YamlDoc) doc = yaml_doc_load(path, NULL);
    yaml_node_t *desc = doc ? yaml_doc_lookup(doc, yaml_doc_root(doc), "description") : NULL;
    printf("%-20s %s\n", (char *)names->pdata[i], desc && yaml_doc_scalar(desc) ? yaml_doc_scalar(desc) : "");
  }
  printf("\n(aifsim run NAME runs one; they are in %s)\n", dir);
  return 0;
}

/* An id from the config's path: its folder's name (a Hugging Face snapshot is named for its model)
 * or the file's, lower-cased; NULL when that makes no catalog id. */
static char *id_from_path(const char *path)
{
  g_autofree char *base = g_path_get_basename(path), *dir = g_path_get_dirname(path);
  g_autofree char *parent = g_path_get_basename(dir);
  const char *from = strcmp(base, "config.json") == 0 ? parent : base;
  g_autofree char *id = g_ascii_strdown(from, -1);
  if (g_str_has_suffix(id, ".json"))
    id[strlen(id) - 5] = 0;
  if (!*id || strcmp(id, ".") == 0 || strcmp(id, "/") == 0 || strcmp(path, "-") == 0)
    return NULL;
  for (char *c = id; *c; c++)
    if (!g_ascii_isalnum(*c) && *c != '-' && *c != '.' && *c != '_')
      return NULL;
  return g_steal_pointer(&id);
}

static int import_model(const char *config, const char *id_opt, const char *name, const char *source,
                        const char *out_path)
{
  g_autofree char *id = id_opt ? g_strdup(id_opt) : id_from_path(config);
  if (!id) {
    fprintf(stderr, "aifsim catalog import: give the entry an id with --id (none follows from '%s')\n", config);
    return 2;
  }
  g_autofree char *want = g_strconcat(id, ".yaml", NULL), *base = out_path ? g_path_get_basename(out_path) : NULL;
  if (base && strcmp(base, want) != 0) {
    fprintf(stderr, "aifsim catalog import: a catalog entry's file is named for its id: expected %s, got %s\n", want,
            base);
    return 2;
  }
  g_autoptr(GError) err = NULL;
  g_autoptr(GString) notes = g_string_new(NULL);
  LlmSpec m;
  if (!llm_import_config(config, id, source, &m, notes, &err)) {
    llm_spec_clear(&m);
    return cli_fail("catalog import", err);
  }
  if (name) {
    g_free(m.name);
    m.name = g_strdup(name);
  }
  g_autofree char *yaml = llm_import_yaml(&m, notes->str);
  llm_spec_clear(&m);
  if (!out_path) {
    fputs(yaml, stdout);
    return 0;
  }
  if (!atomic_file_write(out_path, yaml, -1, &err))
    return cli_fail("catalog import", err);
  fprintf(stderr, "%s written: put it in a catalog folder's llm/ and pass that folder with --catalog\n", out_path);
  return 0;
}

int cmd_catalog(int argc, char **argv)
{
  g_auto(GStrv) dirs = NULL;
  g_autofree char *id = NULL, *name = NULL, *source = NULL, *out = NULL;
  gboolean markdown = FALSE;
  GOptionEntry entries[] = {
    { "markdown", 0, 0, G_OPTION_ARG_NONE, &markdown, "keys: as the Markdown tables docs/catalog.md embeds", NULL },
    { "catalog", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, "add catalog folder DIR (hardware/, llm/)", "DIR" },
    { "id", 0, 0, G_OPTION_ARG_STRING, &id, "import: the entry's id (default: the config's folder name, lower-cased)", "ID" },
    { "name", 0, 0, G_OPTION_ARG_STRING, &name, "import: the model's full name (default: the id)", "TEXT" },
    { "source", 0, 0, G_OPTION_ARG_STRING, &source, "import: where the config came from, recorded in the entry (default: the file name)", "TEXT" },
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out, "import: write the entry to FILE (named ID.yaml) instead of stdout", "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("systems | models | scenarios | keys | show ID | import CONFIG.json");
  g_option_context_set_summary(ctx, "List the systems or the LLMs with their key figures, or the shipped scenarios;\n"
                                    "show one entry in full with the source of each figure; or make a model entry\n"
                                    "from a Hugging Face config.json ('-': standard input). 'aifsim catalog keys'\n"
                                    "lists every key of an entry with its type, unit, default and meaning.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "catalog", &argc, &argv))
    return 2;
  if (argc == 3 && strcmp(argv[1], "import") == 0)
    return import_model(argv[2], id, name, source, out);
  if (argc == 2 && strcmp(argv[1], "scenarios") == 0)
    return list_scenarios();
  if (argc == 2 && strcmp(argv[1], "keys") == 0) {
    g_autoptr(GString) text = g_string_new(NULL);
    help_catalog(text, markdown);
    fputs(text->str, stdout);
    return 0;
  }
  gboolean show = argc == 3 && strcmp(argv[1], "show") == 0;
  if (!show && !(argc == 2 && (strcmp(argv[1], "systems") == 0 || strcmp(argv[1], "models") == 0))) {
    fprintf(stderr, "aifsim catalog: expected 'systems', 'models', 'scenarios', 'keys', 'show ID' or 'import CONFIG.json'\n"
                    "Run 'aifsim catalog --help' for usage.\n");
    return 2;
  }
  g_autoptr(GError) err = NULL;
  g_autoptr(Catalog) c = cli_catalog(dirs, &err);
  if (!c)
    return cli_fail("catalog", err);
  if (strcmp(argv[1], "systems") == 0)
    list_systems(c);
  else if (strcmp(argv[1], "models") == 0)
    list_models(c);
  else if (catalog_system(c, argv[2])) {
    const SystemSpec *s = catalog_system(c, argv[2]);
    printf("%s — %s (system)\n", s->id, s->name);
    show_entry(c, &hardware_table, s, &s->sources);
  } else if (catalog_model(c, argv[2])) {
    const LlmSpec *m = catalog_model(c, argv[2]);
    double total, active;
    llm_param_count(m, &total, &active);
    printf("%s — %s (model)\n", m->id, m->name);
    show_entry(c, &llm_table, m, &m->sources);
    printf("  %-28s %.1f B total, %.1f B active (from the architecture above)\n", "derived.params", total / 1e9,
           active / 1e9);
  } else {
    fprintf(stderr, "aifsim catalog: no system or model with id '%s' (see 'aifsim catalog systems' and "
                    "'aifsim catalog models')\n", argv[2]);
    return 2;
  }
  return 0;
}
