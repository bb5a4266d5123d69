/* cmd_catalog.c — `aifsim catalog systems | models | show ID`. */
#include "commands.h"
#include "keytable.h"
#include "precision.h"

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

int cmd_catalog(int argc, char **argv)
{
  g_auto(GStrv) dirs = NULL;
  GOptionEntry entries[] = {
    { "catalog", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, "add catalog folder DIR (hardware/, llm/)", "DIR" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("systems | models | show ID");
  g_option_context_set_summary(ctx, "List the systems or the LLMs with their key figures, or show one entry in "
                                    "full\nwith the source of each figure.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "catalog", &argc, &argv))
    return 2;
  gboolean show = argc == 3 && strcmp(argv[1], "show") == 0;
  if (!show && !(argc == 2 && (strcmp(argv[1], "systems") == 0 || strcmp(argv[1], "models") == 0))) {
    fprintf(stderr, "aifsim catalog: expected 'systems', 'models' or 'show ID'\nRun 'aifsim catalog --help' for usage.\n");
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
