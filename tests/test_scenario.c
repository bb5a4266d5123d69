/* test_scenario.c — scenario loading, defaults, overrides, sweep expansion, the resolved file and
 * the key reference in docs/scenarios.md. */
#include "test_util.h"
#include "commands.h"
#include "evaluate.h"
#include "precision.h"
#include "scenario.h"

#include <glib/gstdio.h>
#include <string.h>

static Scenario *load_text(const Catalog *c, const char *text, char **path_out)
{
  g_autofree char *dir = test_tmpdir();
  char *path = g_build_filename(dir, "s.yaml", NULL);
  ck_assert(g_file_set_contents(path, text, -1, NULL));
  g_autoptr(GError) err = NULL;
  Scenario *s = scenario_load(path, c, &err);
  ck_assert_msg(s, "%s", err ? err->message : "");
  if (path_out)
    *path_out = path;
  else
    g_free(path);
  return s;
}

START_TEST(default_scenario_expands)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autofree char *path = src_path("scenarios/default.yaml");
  g_autoptr(GError) err = NULL;
  g_autoptr(Scenario) s = scenario_load(path, c, &err);
  ck_assert_msg(s, "%s", err ? err->message : "");
  /* 3 systems x users 1..4096 by factor 2 (13) x 2 precisions x parallelism auto's layouts: TP
   * and EP over 1..64 (the largest NVLink domain, 72, caps the powers of two) with EP <= TP (7 + 6
   * + ... + 1 = 28 pairs), attention-DP on or off except over one GPU (27 x 2 + 1 = 55) */
  ck_assert_uint_eq(s->n_points, 3 * 13 * 2 * 55);
  Point p;
  scenario_point(s, c, 0, &p);
  ck_assert_str_eq(p.system.id, "h200-sxm-hgx8");
  ck_assert_int_eq(p.p.workload.users, 1);
  ck_assert_int_eq(p.p.serving.precision, PREC_FP8);
  ck_assert_int_eq(p.p.serving.agg.tp, 1);
  ck_assert_int_eq(p.p.serving.agg.ep, 1);
  ck_assert(!p.p.serving.agg.attention_dp);
  point_clear(&p);
  scenario_point(s, c, 1, &p); /* the layouts vary fastest: TP 2, EP 1, attention-DP off (TP 1 has no other) */
  ck_assert(!p.p.serving.agg.attention_dp);
  ck_assert_int_eq(p.p.serving.agg.tp, 2);
  ck_assert_int_eq(p.p.serving.agg.ep, 1);
  point_clear(&p);
  scenario_point(s, c, 2, &p); /* then attention-DP on */
  ck_assert(p.p.serving.agg.attention_dp);
  ck_assert_int_eq(p.p.serving.agg.tp, 2);
  point_clear(&p);
  scenario_point(s, c, s->n_points - 1, &p);
  ck_assert_str_eq(p.system.id, "vr200-nvl144");
  ck_assert_int_eq(p.p.workload.users, 4096);
  ck_assert_int_eq(p.p.serving.agg.tp, 64);
  ck_assert_int_eq(p.p.serving.agg.ep, 64);
  ck_assert(p.p.serving.agg.attention_dp);
  ck_assert_str_eq(p.model.id, "deepseek-r1");
  point_clear(&p);
}
END_TEST

START_TEST(ranges_expand)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Scenario) s = load_text(c, "name: t\nsystem: {id: h100-sxm-hgx8, gpu.tdp: {from: 500 W, to: 700 W, step: 100 W}}\n"
                                       "model: llama-3.1-8b\nworkload: {arrival: {users: {from: 1, to: 100, factor: 10}}}\n", NULL);
  ck_assert_uint_eq(s->n_points, 3 * 3); /* 500, 600, 700 W x 1, 10, 100 users */
  Point p;
  scenario_point(s, c, 4, &p);
  ck_assert_close(p.system.tdp, 600, 1e-12);
  ck_assert_int_eq(p.p.workload.users, 10);
  point_clear(&p);
}
END_TEST

/* A key that does not apply to a point is not multiplied into the sweep. Aggregated x 3 prefill
 * pools: the pools apply only to the disaggregated points, 1 + 3 = 4 points (not 2 x 3 = 6).
 * Closed x 2 user counts and poisson x 3 rates: 2 + 3 = 5 (not 2 x 2 x 3 = 12); the precision
 * applies everywhere: 5 x 2 = 10. Selectors are swept outermost, the rest as in the product. */
START_TEST(inapplicable_keys_not_multiplied)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Scenario) s = load_text(c, "name: t\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\n"
                                       "serving: {mode: [aggregated, disaggregated], disaggregated: {prefill: {workers: [1, 2, 4]}}}\n",
                                       NULL);
  ck_assert_uint_eq(s->n_points, 4);
  static const int mode[] = { MODE_AGGREGATED, MODE_DISAGGREGATED, MODE_DISAGGREGATED, MODE_DISAGGREGATED };
  static const int workers[] = { 1, 1, 2, 4 };
  for (gsize i = 0; i < 4; i++) {
    Point p;
    scenario_point(s, c, i, &p);
    ck_assert_int_eq(p.p.serving.mode, mode[i]);
    ck_assert_int_eq(p.p.serving.prefill.workers, workers[i]);
    point_clear(&p);
  }
  g_autoptr(Scenario) o = load_text(c, "name: t\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\n"
                                       "workload: {arrival: {kind: [closed, poisson], users: [8, 16], rate: [1 req/s, 2 req/s, 3 req/s]}}\n"
                                       "serving: {precision: [fp8, bf16]}\n", NULL);
  ck_assert_uint_eq(o->n_points, 10);
  Point p;
  scenario_point(o, c, 3, &p); /* closed: users 8 16 x fp8 bf16; the fourth is 16 users, bf16 */
  ck_assert_int_eq(p.p.workload.arrival, ARRIVAL_CLOSED);
  ck_assert_int_eq(p.p.workload.users, 16);
  ck_assert_int_eq(p.p.serving.precision, PREC_BF16);
  point_clear(&p);
  scenario_point(o, c, 9, &p); /* poisson: rates 1 2 3 x fp8 bf16; the last is 3 req/s, bf16 */
  ck_assert_int_eq(p.p.workload.arrival, ARRIVAL_POISSON);
  ck_assert_close(p.p.workload.rate, 3, 1e-12);
  ck_assert_int_eq(p.p.serving.precision, PREC_BF16);
  point_clear(&p);
  /* a fixed mode: the other mode's keys collapse to their first value */
  g_autoptr(Scenario) f = load_text(c, "name: t\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\n"
                                       "serving: {disaggregated: {decode: {workers: [1, 2]}}, precision: [fp8, bf16]}\n", NULL);
  ck_assert_uint_eq(f->n_points, 2);
}
END_TEST

START_TEST(defaults_and_units)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Scenario) s = load_text(c, "name: t\nsystem: h100-sxm-hgx8\nmodel: llama-3.1-8b\n"
                                       "workload: {output: {dist: normal, mean: 500, stddev: 50}}\n"
                                       "factory: {power_budget: 30 MW, energy_price: $0.1/kWh}\n", NULL);
  ck_assert_uint_eq(s->n_points, 1);
  Point p;
  scenario_point(s, c, 0, &p);
  ck_assert_int_eq(p.p.serving.precision, PREC_FP8);
  ck_assert_int_eq(p.p.serving.mode, MODE_AGGREGATED);
  ck_assert_int_eq(p.p.serving.agg.tp, 1);
  ck_assert_close(p.p.workload.input.mean, 1024, 1e-12);
  ck_assert_int_eq(p.p.workload.output.dist, DIST_NORMAL);
  ck_assert_close(p.p.workload.output.stddev, 50, 1e-12);
  ck_assert_close(p.p.factory.power_budget, 30e6, 1e-12);
  ck_assert_close(p.p.factory.energy_price, 0.1 / 3.6e6, 1e-12);
  ck_assert_ptr_null(p.p.workload.trace);
  point_clear(&p);
}
END_TEST

START_TEST(catalog_overrides_and_sweeps)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Scenario) s = load_text(c, "name: t\n"
                                       "system: {id: h200-sxm-hgx8, gpu: {hbm_bandwidth: [4 TB/s, 5 TB/s]}, gpu.tdp: 600 W}\n"
                                       "model: {id: llama-3.1-8b, layers: 40}\n", NULL);
  ck_assert_uint_eq(s->n_points, 2);
  Point p;
  scenario_point(s, c, 1, &p);
  ck_assert_close(p.system.hbm_bandwidth, 5e12, 1e-12);
  ck_assert_close(p.system.tdp, 600, 1e-12);
  ck_assert_close(p.system.hbm_capacity, 143771.0 * 1048576, 1e-12); /* untouched figures come from the catalog */
  ck_assert_int_eq(p.model.layers, 40);
  point_clear(&p);
  /* the catalog itself is unchanged */
  ck_assert_close(catalog_system(c, "h200-sxm-hgx8")->hbm_bandwidth, 4.8e12, 1e-12);
}
END_TEST

/* Every value of every point as text, to compare two scenarios point by point. */
static char *points_text(const Scenario *s, const Catalog *c)
{
  GString *out = g_string_new(NULL);
  for (gsize i = 0; i < s->n_points; i++) {
    Point p;
    scenario_point(s, c, i, &p);
    kt_emit_yaml(&scenario_table, &p.p, out, 0, NULL, NULL);
    kt_emit_yaml(&hardware_table, &p.system, out, 0, NULL, NULL);
    kt_emit_yaml(&llm_table, &p.model, out, 0, NULL, NULL);
    point_clear(&p);
  }
  return g_string_free(out, FALSE);
}

/* S's scenario.resolved.yaml, written and loaded again. */
static Scenario *load_resolved(const Scenario *s, const Catalog *c)
{
  g_autofree char *resolved = scenario_resolved_yaml(s, c);
  g_autofree char *dir = test_tmpdir();
  g_autofree char *path = g_build_filename(dir, "r.yaml", NULL);
  ck_assert(g_file_set_contents(path, resolved, -1, NULL));
  g_autoptr(GError) err = NULL;
  Scenario *again = scenario_load(path, c, &err);
  ck_assert_msg(again, "%s\n%s", err ? err->message : "", resolved);
  return again;
}

START_TEST(resolved_file_reproduces_points)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Scenario) s = load_text(c, "name: t\nseed: 7\n"
                                       "system: {id: [h100-sxm-hgx8, b200-hgx8], gpu.tdp: [600 W, 650 W]}\n"
                                       "model: deepseek-r1\nserving: {precision: [fp8, fp4], speculative: {method: mtp}}\n",
                                    NULL);
  g_autoptr(Scenario) again = load_resolved(s, c);
  ck_assert_uint_eq(again->n_points, 8);
  g_autofree char *a = points_text(s, c), *b = points_text(again, c);
  ck_assert_str_eq(a, b);
}
END_TEST

/* deployments: each is the point with its own keys laid over (its model and the model's figures,
 * its engines, its demand, its share), every other key the point's; sweeps stay the point's. The
 * resolved file reads back to the same deployments. */
START_TEST(deployments_lay_over_the_point)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Scenario) s = load_text(c, "name: t\nsystem: h200-sxm-hgx8\nmodel: {id: llama-3.3-70b, layers: 40}\n"
                                       "share: 60%\n"
                                       "workload: {arrival: {kind: poisson, rate: 10 req/s}, output: 300}\n"
                                       "serving: {precision: [fp8, bf16], aggregated: {tp: 4, max_batch: 64}}\n"
                                       "deployments:\n"
                                       "  - {model: {id: llama-3.1-8b, layers: 30}, share: 30%, serving: {aggregated: {tp: 1}},\n"
                                       "     workload: {arrival: {rate: 50 req/s}}, plan: {max_ttft: 1 s}}\n"
                                       "  - {workload: {arrival: {rate: 2 req/s}}}\n"
                                       "factory: {floor: {simulate: true}}\n",
                                    NULL);
  ck_assert_uint_eq(s->n_points, 2);
  g_autoptr(Scenario) again = load_resolved(s, c);
  const Scenario *both[] = { s, again };
  for (int k = 0; k < 2; k++) {
    Point p;
    scenario_point(both[k], c, 1, &p);
    ck_assert_int_eq(p.p.serving.precision, PREC_BF16);
    ck_assert_double_eq(p.p.share, 0.6);
    ck_assert_int_eq(p.model.layers, 40);
    ck_assert_uint_eq(p.n_others, 2);
    const Point *small = &p.others[0], *again_big = &p.others[1];
    ck_assert_str_eq(small->p.model_id, "llama-3.1-8b");
    ck_assert_int_eq(small->model.layers, 30);      /* its own figure, not the point's 40 */
    ck_assert_double_eq(small->p.share, 0.3);
    ck_assert_int_eq(small->p.serving.agg.tp, 1);
    ck_assert_int_eq(small->p.serving.agg.max_batch, 64); /* the point's */
    ck_assert_int_eq(small->p.serving.precision, PREC_BF16); /* the point's sweep */
    ck_assert_double_eq(small->p.workload.rate, 50);
    ck_assert_double_eq(small->p.workload.output.mean, 300);
    ck_assert_double_eq(small->p.plan.max_ttft, 1);
    ck_assert_double_eq(p.p.plan.max_ttft, 0);
    /* a deployment that sets no model serves the point's, with its figures; its share is its own (0) */
    ck_assert_str_eq(again_big->p.model_id, "llama-3.3-70b");
    ck_assert_int_eq(again_big->model.layers, 40);
    ck_assert_double_eq(again_big->p.share, 0);
    ck_assert_double_eq(again_big->p.workload.rate, 2);
    point_clear(&p);
  }
}
END_TEST

/* A point's engines run the CUDA graphs `aifsim launch` captures for them: the stack's ladder up to
 * the engine's batch per attention rank (test_model, stack_graph_ladders: TensorRT-LLM to 300, 22
 * sizes ending at 300; SGLang with two draft tokens to 100, 32 ending at 100), none when the
 * scenario turns CUDA graphs off. */
START_TEST(engines_capture_the_launch_graphs)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const char *const text[] = {
    "name: g\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\nserving:\n  framework: trtllm\n"
    "  aggregated: {tp: 1, max_batch: 300}\n",
    "name: g\nsystem: h200-sxm-hgx8\nmodel: deepseek-r1\nserving:\n  framework: sglang\n"
    "  aggregated: {tp: 8, ep: 8, attention_dp: true, max_batch: 100}\n  speculative: {method: mtp, draft_tokens: 2}\n",
    "name: g\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\nserving:\n  framework: trtllm\n  cuda_graphs: false\n",
  };
  const int n[] = { 22, 32, 0 }, last[] = { 300, 100, 0 };
  Profile prof;
  profile_defaults(&prof);
  for (gsize k = 0; k < G_N_ELEMENTS(text); k++) {
    g_autoptr(Scenario) s = load_text(c, text[k], NULL);
    Point p;
    scenario_point(s, c, 0, &p);
    Engine e;
    evaluate_engine(&p, &prof, &p.p.serving.agg, &e);
    ck_assert_int_eq(e.graphs.n, n[k]);
    if (n[k] > 0)
      ck_assert_double_eq(e.graphs.size[n[k] - 1], last[k]);
    point_clear(&p);
  }
  profile_clear(&prof);
}
END_TEST

/* A point's TensorRT-LLM engines run their block-scaled FP8 experts in the MoE backend
 * serving.moe_backend names, `auto` as NVIDIA's launches pick it: trtllm-gen where TP slices the
 * experts (TP8 EP1: 8 ways), DeepGEMM where EP spreads them whole (TP8 EP8: 1 way); named, on
 * every layout. Only TensorRT-LLM with DeepSeek's block-scaled FP8 past Hopper runs it
 * (engine_trtllm_gen_moe): the H200's and the FP4 points keep their kernels whatever is named. */
START_TEST(engines_take_the_moe_backend_as_launched)
{
  g_autoptr(Catalog) c = shipped_catalog();
  static const struct {
    const char *system, *precision, *backend;
    int ep;
    gboolean flag, runs;
  } cases[] = {
    { "gb200-nvl72", "fp8", "auto", 1, TRUE, TRUE },       { "gb200-nvl72", "fp8", "auto", 8, FALSE, FALSE },
    { "gb200-nvl72", "fp8", "deepgemm", 1, FALSE, FALSE }, { "gb200-nvl72", "fp8", "trtllm", 8, TRUE, TRUE },
    { "b200-hgx8", "fp8", "auto", 1, TRUE, TRUE },         { "h200-sxm-hgx8", "fp8", "auto", 1, TRUE, FALSE },
    { "gb200-nvl72", "fp4", "trtllm", 1, TRUE, FALSE },
  };
  Profile prof;
  profile_defaults(&prof);
  for (gsize k = 0; k < G_N_ELEMENTS(cases); k++) {
    g_autofree char *text = g_strdup_printf("name: m\nsystem: %s\nmodel: deepseek-r1\nserving:\n  framework: trtllm\n"
                                            "  precision: %s\n  moe_backend: %s\n  aggregated: {tp: 8, ep: %d}\n",
                                            cases[k].system, cases[k].precision, cases[k].backend, cases[k].ep);
    g_autoptr(Scenario) s = load_text(c, text, NULL);
    Point p;
    scenario_point(s, c, 0, &p);
    Engine e;
    evaluate_engine(&p, &prof, &p.p.serving.agg, &e);
    ck_assert_msg(e.trtllm_gen_moe == cases[k].flag && engine_trtllm_gen_moe(&e) == cases[k].runs, "case %zu", k);
    point_clear(&p);
  }
  profile_clear(&prof);
}
END_TEST

START_TEST(command_line_override)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Scenario) s = load_text(c, "name: t\nseed: [1, 2, 3]\nsystem: h100-sxm-hgx8\nmodel: llama-3.1-8b\n", NULL);
  ck_assert_uint_eq(s->n_points, 3);
  g_autoptr(GError) err = NULL;
  ck_assert(scenario_override(s, "seed", "42", &err));
  ck_assert_uint_eq(s->n_points, 1);
  Point p;
  scenario_point(s, c, 0, &p);
  ck_assert_int_eq(p.p.seed, 42);
  point_clear(&p);
  ck_assert(!scenario_override(s, "seed", "-1", &err));
  ck_assert_str_eq(err->message, "'seed' must not be negative");
}
END_TEST

START_TEST(key_table_is_documented)
{
  /* every default parses (kt_defaults aborts otherwise) and docs/scenarios.md embeds the reference */
  ScenarioParams p = { 0 };
  kt_defaults(&scenario_table, &p);
  kt_clear(&scenario_table, &p);
  g_autoptr(GString) md = g_string_new(NULL);
  help_keys(md, TRUE);
  g_autofree char *doc_path = src_path("docs/scenarios.md");
  g_autofree char *doc = NULL;
  ck_assert(g_file_get_contents(doc_path, &doc, NULL, NULL));
  ck_assert_msg(strstr(doc, md->str), "docs/scenarios.md is out of date: paste `aifsim help keys --markdown`");
}
END_TEST

int main(void)
{
  Suite *s = suite_create("scenario");
  TCase *tc = tcase_create("scenario");
  tcase_add_test(tc, default_scenario_expands);
  tcase_add_test(tc, ranges_expand);
  tcase_add_test(tc, defaults_and_units);
  tcase_add_test(tc, inapplicable_keys_not_multiplied);
  tcase_add_test(tc, catalog_overrides_and_sweeps);
  tcase_add_test(tc, resolved_file_reproduces_points);
  tcase_add_test(tc, deployments_lay_over_the_point);
  tcase_add_test(tc, engines_capture_the_launch_graphs);
  tcase_add_test(tc, engines_take_the_moe_backend_as_launched);
  tcase_add_test(tc, command_line_override);
  tcase_add_test(tc, key_table_is_documented);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
