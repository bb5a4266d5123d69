/* test_catalog.c — every shipped catalog entry loads, carries its sources, and is physically sane;
 * user catalogs add and replace entries; model architectures rebuild their published sizes. */
#include "test_util.h"
#include "keytable.h"
#include "llm_import.h"
#include "commands.h"
#include "precision.h"

#include <glib/gstdio.h>
#include <string.h>

static const char *const systems[] = { "h100-sxm-hgx8", "h200-sxm-hgx8", "b200-hgx8", "b300-hgx8",
                                       "gb200-nvl72", "gb300-nvl72", "vr200-nvl144", "rubin-ultra-nvl576" };
static const char *const models[] = { "llama-3.1-8b", "llama-2-70b", "llama-3.3-70b",
                                      "llama-3.1-405b", "deepseek-r1", "gpt-oss-120b" };

START_TEST(all_entries_present)
{
  g_autoptr(Catalog) c = shipped_catalog();
  for (gsize i = 0; i < G_N_ELEMENTS(systems); i++)
    ck_assert_msg(catalog_system(c, systems[i]), "missing system %s", systems[i]);
  for (gsize i = 0; i < G_N_ELEMENTS(models); i++)
    ck_assert_msg(catalog_model(c, models[i]), "missing model %s", models[i]);
  ck_assert_uint_eq(c->systems->len, G_N_ELEMENTS(systems));
  ck_assert_uint_eq(c->models->len, G_N_ELEMENTS(models));
}
END_TEST

#define IN_RANGE(v, lo, hi, what, id)                                                             \
  ck_assert_msg((v) >= (lo) && (v) <= (hi), "%s: %s = %g outside [%g, %g]", id, what, (double)(v), \
                (double)(lo), (double)(hi))

START_TEST(systems_physically_sane)
{
  g_autoptr(Catalog) c = shipped_catalog();
  for (guint i = 0; i < c->systems->len; i++) {
    const SystemSpec *s = c->systems->pdata[i];
    IN_RANGE(s->flops_fp8, 1e15, 1e17, "fp8 FLOP/s", s->id);
    IN_RANGE(s->flops_bf16, 5e14, 5e16, "bf16 FLOP/s", s->id);
    ck_assert_msg(s->flops_fp8 >= 1.9 * s->flops_bf16, "%s: fp8 should be ~2x bf16", s->id);
    ck_assert_msg(s->flops_fp4 == 0 || s->flops_fp4 > s->flops_fp8, "%s: fp4 below fp8", s->id);
    ck_assert_msg((s->flops_fp4 == 0) == (s->arch == ARCH_HOPPER), "%s: FP4 exactly on post-Hopper GPUs", s->id);
    IN_RANGE(s->hbm_capacity, 40e9, 2e12, "HBM capacity", s->id);
    IN_RANGE(s->hbm_bandwidth, 2e12, 50e12, "HBM bandwidth", s->id);
    IN_RANGE(s->nvlink_bandwidth, 400e9, 20e12, "NVLink bandwidth", s->id);
    IN_RANGE(s->tdp, 300, 5000, "TDP", s->id);
    ck_assert_msg(s->idle_power < 0.3 * s->tdp, "%s: idle power not well below TDP", s->id);
    IN_RANGE(s->nic_bandwidth, 10e9, 400e9, "NIC bandwidth", s->id);
    IN_RANGE(s->pue, 1.0, 2.0, "PUE", s->id);
    ck_assert_msg(s->gpus_per_rack % s->gpus_per_node == 0, "%s: nodes do not fill the rack", s->id);
    ck_assert_msg(s->gpus_per_rack % s->nvlink_domain_gpus == 0, "%s: NVLink domains do not fill the rack", s->id);
    /* rack nameplate covers its GPUs at TDP but is not absurdly above */
    if (s->system_power > 0) {
      double unit_gpus = s->nvlink_domain_gpus == s->gpus_per_rack ? s->gpus_per_rack : s->gpus_per_node;
      IN_RANGE(s->system_power / (unit_gpus * s->tdp), 1.0, 2.5, "system power / GPU TDP", s->id);
    }
  }
}
END_TEST

START_TEST(every_figure_has_a_source)
{
  g_autoptr(Catalog) c = shipped_catalog();
  for (guint i = 0; i < c->systems->len; i++) {
    const SystemSpec *s = c->systems->pdata[i];
    for (gsize k = 0; k < hardware_table.n_keys; k++) {
      const KtKey *key = &hardware_table.keys[k];
      if (key->type != KT_NUMBER)
        continue;
      const char *src = figure_sources_get(&s->sources, key->path);
      ck_assert_msg(src && *src, "%s: %s has no source", s->id, key->path);
    }
    /* roadmap systems must say which of their figures are uncertain */
    if (s->status == STATUS_ROADMAP)
      ck_assert_msg(g_hash_table_size(s->sources.uncertain) >= 3, "%s: roadmap without uncertain marks", s->id);
  }
  ck_assert_str_eq(catalog_citation(c, "ix_power_profiles"),
                   "github SemiAnalysisAI/InferenceX-app packages/app/src/lib/system-power-model.profiles.json "
                   "(SemiAnalysis power model, modelled)");
  for (guint i = 0; i < c->models->len; i++)
    ck_assert_ptr_nonnull(figure_sources_get(&((LlmSpec *)c->models->pdata[i])->sources, "layers"));
}
END_TEST

/* Parameter counts rebuilt from the architecture must match the published totals. */
START_TEST(models_rebuild_their_size)
{
  g_autoptr(Catalog) c = shipped_catalog();
  for (guint i = 0; i < c->models->len; i++) {
    const LlmSpec *m = c->models->pdata[i];
    double total, active;
    llm_param_count(m, &total, &active);
    ck_assert_msg(fabs(total / m->params_total - 1) < 0.02, "%s: architecture gives %.2f B, published %.2f B",
                  m->id, total / 1e9, m->params_total / 1e9);
    ck_assert_msg(fabs(active / m->params_active - 1) < 0.15, "%s: active %.2f B, published %.2f B", m->id,
                  active / 1e9, m->params_active / 1e9);
    if (m->attn_kind == ATTN_GQA)
      ck_assert_msg(m->kv_heads > 0 && m->heads % m->kv_heads == 0 && m->head_dim > 0, "%s: GQA heads", m->id);
    ck_assert_int_le(m->dense_layers, m->layers);
    ck_assert_int_le(m->experts_per_token, m->experts);
  }
  const LlmSpec *ds = catalog_model(c, "deepseek-r1");
  ck_assert_int_eq(ds->attn_kind, ATTN_MLA);
  ck_assert_int_eq(llm_moe_layers(ds), 58);
  /* hand-worked: one DeepSeek MLA block = 7168*1536 + 1536*128*192 + 7168*576 + 512*128*256 + 128*128*7168 */
  ck_assert_close(llm_attention_params(ds), 187105280.0, 1e-12);
  /* a TP rank keeps the down-projections whole, 7168 x 1536 + 7168 x 576 = 15,138,816, and an
   * eighth of the rest at TP8: 15,138,816 + (187,105,280 - 15,138,816) / 8 = 36,634,624 */
  ck_assert_close(llm_attention_params_rank(ds, 1), 187105280.0, 1e-12);
  ck_assert_close(llm_attention_params_rank(ds, 8), 36634624.0, 1e-12);
  /* GQA (Llama-3.3-70B: 64 query heads, 8 KV heads of 128): queries and output 2 x 8192 x 64 x 128
   * = 134,217,728 split at any TP, KV 2 x 8192 x 8 x 128 = 16,777,216 split up to 8 ways:
   * TP8 16,777,216 + 2,097,152 = 18,874,368; TP16 8,388,608 + 2,097,152 = 10,485,760 */
  const LlmSpec *llama = catalog_model(c, "llama-3.3-70b");
  ck_assert_close(llm_attention_params_rank(llama, 8), 18874368.0, 1e-12);
  ck_assert_close(llm_attention_params_rank(llama, 16), 10485760.0, 1e-12);
}
END_TEST

static void write(const char *dir, const char *name, const char *text)
{
  g_autofree char *p = g_build_filename(dir, name, NULL);
  g_autofree char *parent = g_path_get_dirname(p);
  g_mkdir_with_parents(parent, 0755);
  ck_assert(g_file_set_contents(p, text, -1, NULL));
}

START_TEST(user_catalog_replaces_and_adds)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autofree char *dir = test_tmpdir();
  g_autofree char *h100 = src_path("models/hardware/h100-sxm-hgx8.yaml");
  g_autofree char *text = NULL;
  ck_assert(g_file_get_contents(h100, &text, NULL, NULL));
  g_auto(GStrv) parts = g_strsplit(text, "hbm_bandwidth: 3.35 TB/s", 2);
  g_autofree char *faster = g_strjoinv("hbm_bandwidth: 4 TB/s", parts);
  write(dir, "hardware/h100-sxm-hgx8.yaml", faster);
  g_auto(GStrv) parts2 = g_strsplit(text, "id: h100-sxm-hgx8", 2);
  g_autofree char *mine = g_strjoinv("id: my-h100", parts2);
  write(dir, "hardware/my-h100.yaml", mine);
  g_autoptr(GError) err = NULL;
  ck_assert_msg(catalog_load_dir(c, dir, &err), "%s", err ? err->message : "");
  ck_assert_close(catalog_system(c, "h100-sxm-hgx8")->hbm_bandwidth, 4e12, 1e-12);
  ck_assert_ptr_nonnull(catalog_system(c, "my-h100"));
  ck_assert_uint_eq(c->systems->len, G_N_ELEMENTS(systems) + 1);
  write(dir, "hardware/wrong-name.yaml", mine); /* id does not match its file */
  g_autoptr(Catalog) c2 = catalog_new();
  ck_assert(!catalog_load_dir(c2, dir, &err));
  ck_assert_msg(strstr(err->message, "wrong-name.yaml:2:5: id 'my-h100' must match the file name"), "%s",
                err->message);
}
END_TEST

/* Imports tests/hf-config/ID.json (the model's published config.json) into a scratch catalog and
 * loads it back: the entry must read and must carry the shipped entry's architecture. */
static LlmSpec *import_and_load(const char *id, GString *notes, Catalog **owner)
{
  g_autofree char *json_rel = g_strdup_printf("tests/hf-config/%s.json", id);
  g_autofree char *json = src_path(json_rel);
  g_autoptr(GError) err = NULL;
  LlmSpec m;
  ck_assert_msg(llm_import_config(json, id, "test", &m, notes, &err), "%s", err ? err->message : "");
  g_autofree char *yaml = llm_import_yaml(&m, notes->str);
  llm_spec_clear(&m);
  g_autofree char *dir = test_tmpdir();
  g_autofree char *file = g_strdup_printf("llm/%s.yaml", id);
  write(dir, file, yaml);
  *owner = catalog_new();
  ck_assert_msg(catalog_load_dir(*owner, dir, &err), "%s", err ? err->message : "");
  LlmSpec *got = (LlmSpec *)catalog_model(*owner, id);
  ck_assert_ptr_nonnull(got);
  return got;
}

/* Every architecture figure of the import equals the shipped entry's (both from the same config). */
static void assert_same_architecture(const LlmSpec *a, const LlmSpec *b)
{
  const int fa[] = { a->layers, a->hidden, a->vocab, a->max_context, a->attn_kind, a->heads, a->kv_heads,
                     a->head_dim, a->q_lora_rank, a->kv_lora_rank, a->qk_nope_head_dim, a->qk_rope_head_dim,
                     a->v_head_dim, a->sliding_window, a->sliding_layers, a->dense_layers, a->intermediate,
                     a->experts, a->experts_per_token, a->shared_experts, a->expert_intermediate, a->mtp_layers,
                     a->native_precision, a->fp8_block, a->tied_embeddings };
  const int fb[] = { b->layers, b->hidden, b->vocab, b->max_context, b->attn_kind, b->heads, b->kv_heads,
                     b->head_dim, b->q_lora_rank, b->kv_lora_rank, b->qk_nope_head_dim, b->qk_rope_head_dim,
                     b->v_head_dim, b->sliding_window, b->sliding_layers, b->dense_layers, b->intermediate,
                     b->experts, b->experts_per_token, b->shared_experts, b->expert_intermediate, b->mtp_layers,
                     b->native_precision, b->fp8_block, b->tied_embeddings };
  for (gsize i = 0; i < G_N_ELEMENTS(fa); i++)
    ck_assert_msg(fa[i] == fb[i], "%s: figure %zu imported %d, shipped %d", b->id, i, fa[i], fb[i]);
}

START_TEST(import_dense_gqa)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(GString) notes = g_string_new(NULL);
  g_autoptr(Catalog) mine = NULL;
  const LlmSpec *m = import_and_load("llama-3.1-8b", notes, &mine);
  assert_same_architecture(m, catalog_model(c, "llama-3.1-8b"));
  /* hand-worked: 2*128256*4096 embeddings + 32 layers * (2*4096*32*128 + 2*4096*8*128 attention
   * + 3*4096*14336 FFN) = 1,050,673,152 + 32 * (41,943,040 + 176,160,768) = 8,029,995,008 */
  ck_assert_close(m->params_total, 8029995008.0, 1e-12);
  ck_assert_close(m->params_active, m->params_total, 1e-12);
  ck_assert_int_eq(m->experts, 0);
}
END_TEST

START_TEST(import_mla_moe)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(GString) notes = g_string_new(NULL);
  g_autoptr(Catalog) mine = NULL;
  const LlmSpec *m = import_and_load("deepseek-r1", notes, &mine);
  const LlmSpec *shipped = catalog_model(c, "deepseek-r1");
  assert_same_architecture(m, shipped);
  /* the architecture's own count is the published one (671B total, 37B active) within 2% */
  ck_assert_msg(fabs(m->params_total / shipped->params_total - 1) < 0.02, "total %g", m->params_total);
  ck_assert_msg(fabs(m->params_active / shipped->params_active - 1) < 0.02, "active %g", m->params_active);
  ck_assert_close(m->load_cv, 0.5, 1e-12);
  ck_assert(figure_sources_uncertain(&m->sources, "moe.load_cv"));
  ck_assert_msg(strstr(notes->str, "load_cv"), "the estimate is said: %s", notes->str);
}
END_TEST

START_TEST(import_sliding_window_moe)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(GString) notes = g_string_new(NULL);
  g_autoptr(Catalog) mine = NULL;
  const LlmSpec *m = import_and_load("gpt-oss-120b", notes, &mine);
  /* intermediate_size is the experts' width here (no moe_intermediate_size), and layer_types has
   * 18 of 36 layers sliding */
  assert_same_architecture(m, catalog_model(c, "gpt-oss-120b"));
}
END_TEST

START_TEST(import_rejects_what_is_not_a_model)
{
  g_autofree char *dir = test_tmpdir();
  static const struct { const char *json, *want; } bad[] = {
    { "[1, 2]", "expected a JSON object" },
    { "{\"hidden_size\": 4096, \"vocab_size\": 10}", "no 'num_hidden_layers'" },
    { "{\"num_hidden_layers\": 2, \"hidden_size\": 4096, \"vocab_size\": 10, \"num_attention_heads\": -3}",
      "'num_attention_heads': expected a whole number >= 0" },
    { "{\"num_hidden_layers\": 2, \"hidden_size\": 100, \"vocab_size\": 10, \"num_attention_heads\": 3, "
      "\"intermediate_size\": 8}", "not a multiple of 3 heads" },
    { "{\"num_hidden_layers\": 2,", "invalid YAML" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    g_autofree char *name = g_strdup_printf("bad%zu.json", i);
    write(dir, name, bad[i].json);
    g_autofree char *path = g_build_filename(dir, name, NULL);
    g_autoptr(GError) err = NULL;
    g_autoptr(GString) notes = g_string_new(NULL);
    LlmSpec m;
    ck_assert(!llm_import_config(path, "x", NULL, &m, notes, &err));
    llm_spec_clear(&m);
    ck_assert_msg(strstr(err->message, bad[i].want) && g_str_has_prefix(err->message, path), "%zu: %s", i,
                  err->message);
  }
}
END_TEST

START_TEST(catalog_doc_matches_the_tables)
{
  g_autoptr(GString) md = g_string_new(NULL);
  help_catalog(md, TRUE);
  g_autofree char *path = src_path("docs/catalog.md"), *doc = NULL;
  ck_assert(g_file_get_contents(path, &doc, NULL, NULL));
  ck_assert_msg(strstr(doc, md->str), "docs/catalog.md is out of date: paste `aifsim catalog keys --markdown`");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("catalog");
  TCase *tc = tcase_create("catalog");
  tcase_add_test(tc, all_entries_present);
  tcase_add_test(tc, systems_physically_sane);
  tcase_add_test(tc, every_figure_has_a_source);
  tcase_add_test(tc, models_rebuild_their_size);
  tcase_add_test(tc, user_catalog_replaces_and_adds);
  tcase_add_test(tc, import_dense_gqa);
  tcase_add_test(tc, import_mla_moe);
  tcase_add_test(tc, import_sliding_window_moe);
  tcase_add_test(tc, import_rejects_what_is_not_a_model);
  tcase_add_test(tc, catalog_doc_matches_the_tables);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
