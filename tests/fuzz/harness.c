/* harness.c — the fuzz targets (see harness.h). */
#include "harness.h"
#include "calibrate.h"
#include "catalog.h"
#include "chart.h"
#include "evaluate.h"
#include "frontier.h"
#include "held_out.h"
#include "llm_import.h"
#include "merge.h"
#include "profile.h"
#include "recipes.h"
#include "results.h"
#include "scenario.h"
#include "summary.h"
#include "trace.h"
#include "validate.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What every input of a process shares: a scratch folder (removed at exit), the shipped catalog
 * and profile. Loaded once: the targets run millions of inputs. */
typedef struct {
  char *dir;
  Catalog *catalog;
  Recipes *recipes;
  Profile profile;
} Shared;

static Shared shared_state;

static void rm_rf(const char *path)
{
  GDir *d = g_file_test(path, G_FILE_TEST_IS_SYMLINK) ? NULL : g_dir_open(path, 0, NULL);
  if (!d) {
    g_remove(path);
    return;
  }
  for (const char *n; (n = g_dir_read_name(d));) {
    g_autofree char *child = g_build_filename(path, n, NULL);
    rm_rf(child);
  }
  g_dir_close(d);
  g_rmdir(path);
}

static void shared_free(void) { rm_rf(shared_state.dir); }

static char *src_path(const char *rel)
{
  const char *root = g_getenv("AIF_SRCDIR");
  return g_build_filename(root && *root ? root : AIF_SRCDIR, rel, NULL);
}

static Shared *shared(void)
{
  if (shared_state.dir)
    return &shared_state;
  shared_state.dir = g_dir_make_tmp("aifsim-fuzz-XXXXXX", NULL);
  g_autofree char *models = src_path("models"), *prof = src_path("calibration/profiles/default.yaml");
  g_autofree char *recipes = src_path("calibration/measured/recipes.yaml");
  shared_state.catalog = catalog_new();
  profile_defaults(&shared_state.profile);
  g_autoptr(GError) err = NULL;
  if (!shared_state.dir || !catalog_load_dir(shared_state.catalog, models, &err) ||
      !profile_load(&shared_state.profile, prof, &err) || !(shared_state.recipes = recipes_load(recipes, &err))) {
    fprintf(stderr, "fuzz harness: cannot set up: %s (set AIF_SRCDIR to the source tree)\n", err ? err->message : "");
    abort();
  }
  atexit(shared_free);
  return &shared_state;
}

/* The input as the file NAME in the scratch folder; the path (free it). */
static char *input_file(const char *name, const uint8_t *data, size_t size)
{
  char *path = g_build_filename(shared()->dir, name, NULL);
  if (!g_file_set_contents(path, (const char *)data, (gssize)size, NULL))
    abort();
  return path;
}

static void broken(const char *what, const char *detail)
{
  fprintf(stderr, "fuzz harness: %s: %s\n", what, detail ? detail : "");
  abort();
}

/* Evaluates point INDEX as a command would, within a budget a fuzzer can afford per input: few
 * requests and users, short outputs (the work per request is what the caps bound; the code paths
 * are the same). */
static void cap_workload(WorkloadParams *w)
{
  w->requests = MIN(w->requests, 64);
  w->users = MIN(w->users, 64);
  w->input.max = MIN(w->input.max, 8192), w->output.max = MIN(w->output.max, 512);
  w->input.min = MIN(w->input.min, w->input.max), w->output.min = MIN(w->output.min, w->output.max);
}

static void evaluate_capped(const Scenario *sc, const Catalog *cat, const Profile *prof, gsize index)
{
  Point pt;
  ResultRow row;
  scenario_point(sc, cat, index, &pt);
  cap_workload(&pt.p.workload);
  for (guint k = 0; k < pt.n_others; k++) /* the other deployments of a floor */
    cap_workload(&pt.others[k].p.workload);
  result_row_init(&row, index);
  evaluate_point(&pt, prof, &row);
  g_free(results_csv_line(&row));
  result_row_clear(&row);
  point_clear(&pt);
}

int fuzz_scenario(const uint8_t *data, size_t size)
{
  Shared *sh = shared();
  g_autofree char *path = input_file("s.yaml", data, size);
  g_autoptr(GError) err = NULL;
  g_autoptr(Scenario) sc = scenario_load(path, sh->catalog, &err);
  if (!sc)
    return 0;
  evaluate_capped(sc, sh->catalog, &sh->profile, 0);
  evaluate_capped(sc, sh->catalog, &sh->profile, sc->n_points - 1);
  /* the run's own scenario.resolved.yaml must load again, to the same sweep */
  g_autofree char *resolved = scenario_resolved_yaml(sc, sh->catalog);
  g_autofree char *again = input_file("r.yaml", (const uint8_t *)resolved, strlen(resolved));
  g_autoptr(Scenario) sc2 = scenario_load(again, sh->catalog, &err);
  if (!sc2)
    broken("scenario.resolved.yaml does not load again", err->message);
  if (sc2->n_points != sc->n_points)
    broken("scenario.resolved.yaml has another sweep", resolved);
  return 0;
}

int fuzz_catalog(const uint8_t *data, size_t size)
{
  Shared *sh = shared();
  if (size < 1)
    return 0;
  gboolean hw = data[0] & 1;
  g_autofree char *cat_dir = g_build_filename(sh->dir, "cat", NULL);
  g_autofree char *sub = g_build_filename(cat_dir, hw ? "hardware" : "llm", NULL);
  rm_rf(cat_dir);
  g_mkdir_with_parents(sub, 0755);
  g_autofree char *entry = g_build_filename(hw ? "cat/hardware" : "cat/llm", "fuzz.yaml", NULL);
  g_free(input_file(entry, data + 1, size - 1));
  g_autoptr(GError) err = NULL;
  g_autofree char *models = src_path("models");
  Catalog *cat = catalog_new();
  if (!catalog_load_dir(cat, models, &err) || !catalog_load_dir(cat, cat_dir, &err)) {
    catalog_free(cat);
    return 0;
  }
  /* the entry in a sweep that uses it every way a scenario can: auto parallelism, both modes */
  const char *text = hw ? "name: f\nsystem: fuzz\nmodel: [deepseek-r1, llama-3.1-8b]\n"
                          "serving: {parallelism: auto, mode: [aggregated, disaggregated], engine: steady}\n"
                          "workload: {arrival: {users: [1, 64]}}\n"
                        : "name: f\nsystem: [h200-sxm-hgx8, gb200-nvl72]\nmodel: fuzz\n"
                          "serving: {parallelism: auto, mode: [aggregated, disaggregated], engine: steady}\n"
                          "workload: {arrival: {users: [1, 64]}}\n";
  g_autofree char *sp = input_file("cs.yaml", (const uint8_t *)text, strlen(text));
  g_autoptr(Scenario) sc = scenario_load(sp, cat, &err);
  if (sc) {
    gsize step = MAX(1, sc->n_points / 24); /* a spread of the sweep: both ends and between */
    for (gsize i = 0; i < sc->n_points; i += step)
      evaluate_capped(sc, cat, &sh->profile, i);
    evaluate_capped(sc, cat, &sh->profile, sc->n_points - 1);
  }
  /* and one point through the event simulation */
  const char *des = hw ? "name: f\nsystem: fuzz\nmodel: llama-3.1-8b\nserving: {engine: des}\n"
                       : "name: f\nsystem: h200-sxm-hgx8\nmodel: fuzz\nserving: {engine: des, aggregated: {tp: 8}}\n";
  g_autofree char *dp = input_file("cd.yaml", (const uint8_t *)des, strlen(des));
  g_clear_error(&err);
  g_autoptr(Scenario) sd = scenario_load(dp, cat, &err);
  if (sd)
    evaluate_capped(sd, cat, &sh->profile, 0);
  catalog_free(cat);
  return 0;
}

/* A small sweep of both modes and engines over three architectures, for profile and trace inputs. */
static Scenario *probe_scenario(const char *extra)
{
  g_autofree char *text = g_strdup_printf("name: probe\nsystem: [h200-sxm-hgx8, b200-hgx8, gb200-nvl72]\n"
                                          "model: [deepseek-r1, llama-3.1-8b]\n%s", extra);
  g_autofree char *path = input_file("probe.yaml", (const uint8_t *)text, strlen(text));
  g_autoptr(GError) err = NULL;
  Scenario *sc = scenario_load(path, shared()->catalog, &err);
  if (!sc)
    broken("the probe scenario does not load", err->message);
  return sc;
}

int fuzz_profile(const uint8_t *data, size_t size)
{
  Shared *sh = shared();
  g_autofree char *path = input_file("p.yaml", data, size);
  Profile prof;
  profile_defaults(&prof);
  g_autoptr(GError) err = NULL;
  if (profile_load(&prof, path, &err)) {
    g_autoptr(Scenario) sc = probe_scenario("serving: {mode: [aggregated, disaggregated], engine: [steady, des], "
                                            "aggregated: {tp: 8}, disaggregated: {prefill: {tp: 8}, decode: {tp: 8}}}\n");
    for (gsize i = 0; i < sc->n_points; i++)
      evaluate_capped(sc, sh->catalog, &prof, i);
    /* a profile aifsim writes must read back */
    g_autofree char *text = profile_to_yaml(&prof, "# written back\n");
    g_autofree char *again = input_file("p2.yaml", (const uint8_t *)text, strlen(text));
    Profile back;
    profile_defaults(&back);
    if (!profile_load(&back, again, &err))
      broken("a profile written by aifsim does not load", err->message);
    profile_clear(&back);
  }
  profile_clear(&prof);
  return 0;
}

int fuzz_measured(const uint8_t *data, size_t size)
{
  Shared *sh = shared();
  g_autofree char *path = input_file("m.csv", data, size);
  g_autoptr(GError) err = NULL;
  g_autoptr(GPtrArray) rows = validate_read(path, sh->catalog, sh->recipes, &err);
  if (!rows)
    return 0;
  guint n = MIN(rows->len, 16);
  g_autofree Prediction *preds = g_new0(Prediction, rows->len);
  for (guint i = 0; i < rows->len; i++) {
    ValRow *r = rows->pdata[i];
    if (i < n)
      validate_predict(r, &sh->profile, &preds[i]);
    else
      preds[i].status = OUTCOME_UNSUPPORTED;
  }
  /* one small concurrency row through the event simulation, as validate runs them */
  for (guint i = 0; i < n; i++) {
    ValRow *r = rows->pdata[i];
    if (!r->unsupported && r->load.users > 0 && r->load.users <= 16) {
      Prediction p = { 0 };
      validate_predict_des(r, &sh->profile, &p);
      prediction_clear(&p);
      break;
    }
  }
  g_free(validate_summary(rows, preds));
  g_free(validate_predictions_csv(rows, preds));
  for (guint i = 0; i < n; i++)
    prediction_clear(&preds[i]);
  return 0;
}

int fuzz_trace(const uint8_t *data, size_t size)
{
  Shared *sh = shared();
  g_autofree char *path = input_file("t.csv", data, size);
  g_autoptr(GError) err = NULL;
  g_autoptr(GArray) trace = trace_read(path, &err);
  if (!trace)
    return 0;
  /* replayed by the event simulation, as a scenario with this trace would be: one engine, the
   * first 64 rows, answers of at most 512 tokens (each output token is a decode step: the work per
   * row is what a fuzzer must bound; the limits bound it for a user, docs/hardening.md) */
  g_array_set_size(trace, MIN(trace->len, 64));
  GString *t = g_string_new(NULL);
  for (guint i = 0; i < trace->len; i++) {
    TraceRow *r = &g_array_index(trace, TraceRow, i);
    g_string_append_printf(t, "%.17g,%d,%d\n", r->arrival, MIN(r->isl, 65536), MIN(r->osl, 512));
  }
  g_free(input_file("t.csv", (const uint8_t *)t->str, t->len));
  g_string_free(t, TRUE);
  g_autofree char *text = g_strdup_printf("name: t\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\n"
                                          "workload: {trace: t.csv, arrival: {kind: trace}}\n");
  g_autofree char *sp = input_file("ts.yaml", (const uint8_t *)text, strlen(text));
  g_autoptr(Scenario) sc = scenario_load(sp, sh->catalog, &err);
  if (!sc)
    broken("a trace that reads does not load in a scenario", err->message);
  Point pt;
  ResultRow row;
  scenario_point(sc, sh->catalog, 0, &pt);
  result_row_init(&row, 0);
  evaluate_point(&pt, &sh->profile, &row);
  result_row_clear(&row);
  point_clear(&pt);
  return 0;
}

static void rows_free(GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++) {
    result_row_clear(rows->pdata[i]);
    g_free(rows->pdata[i]);
  }
  g_ptr_array_unref(rows);
}

int fuzz_results(const uint8_t *data, size_t size)
{
  Shared *sh = shared();
  g_autoptr(GError) err = NULL;
  GPtrArray *rows = results_parse("r.csv", (const char *)data, size, &err);
  if (!rows)
    return 0;
  /* what aifsim writes of the rows reads back to the same text */
  g_autofree char *text = results_csv_text(rows);
  GPtrArray *back = results_parse("r2.csv", text, strlen(text), &err);
  if (!back)
    broken("a results file written by aifsim does not read back", err->message);
  g_autofree char *text2 = results_csv_text(back);
  if (strcmp(text, text2) != 0)
    broken("a results file does not read back to the same rows", text);
  rows_free(back);
  /* merge, as `aifsim merge` joins shards: the rows with themselves again (every point twice, the
   * same row), then the completeness check over as many points as there are rows */
  GPtrArray *all = g_ptr_array_new();
  GHashTable *seen = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, g_free);
  GPtrArray *a = results_parse("a.csv", text, strlen(text), NULL), *b = results_parse("b.csv", text, strlen(text), NULL);
  if (!a || !b)
    broken("a results file written by aifsim does not read back", text);
  /* a file that holds a point twice, as two rows, is refused: either way every row is freed once */
  gboolean first = merge_rows(all, a, seen, "a", NULL);
  if (first && !merge_rows(all, b, seen, "b", NULL))
    broken("a shard does not merge with itself", text);
  if (!first)
    rows_free(b); /* not merged: still ours */
  merge_complete(seen, all->len, NULL);
  g_hash_table_unref(seen);
  rows_free(all);
  /* pareto (both directions of an axis), plot and its gnuplot twin, as the commands run them */
  {
    ChartOptions co = { .title = "fuzz", .slo_x = 10, .slo_text = "fuzz", .width = 200, .height = 200 };
    frontier_default_axes(&co.x, &co.y);
    frontier_mark(rows, &co.x, &co.y, TRUE);
    g_autofree char *png = g_build_filename(sh->dir, "c.png", NULL), *gp = g_build_filename(sh->dir, "c.gp", NULL);
    g_autofree char *dat = g_build_filename(sh->dir, "c.dat", NULL);
    const ResultRow *pick = frontier_best(rows, NULL, &co.y);
    co.picks = &pick, co.n_picks = 1;
    g_autoptr(ChartData) cd = chart_data_from_rows(rows, &co.x, &co.y);
    if (chart_render(cd, &co, png, &err))
      chart_gnuplot(cd, &co, gp, dat, NULL);
  }
  g_clear_error(&err);
  FrontierAxis fx, fy;
  if (frontier_axis_parse("ttft_p50_ms", &fx, NULL) && frontier_axis_parse("usd_per_mtok:max", &fy, NULL))
    frontier_mark(rows, &fx, &fy, FALSE);
  rows_free(rows);
  return 0;
}

int fuzz_calibration(const uint8_t *data, size_t size)
{
  Shared *sh = shared();
  g_autofree char *text = g_strndup((const char *)data, size);
  BenchData d;
  g_autoptr(GError) err = NULL;
  if (!bench_parse(text, "raw.csv", &d, &err))
    return 0;
  const SystemSpec *sys = calibrate_match_system(sh->catalog->systems, d.device);
  if (!sys)
    sys = catalog_system(sh->catalog, "h200-sxm-hgx8");
  CalibrationFit fit;
  if (calibrate_fit(&d, sys, &fit, &err)) {
    Profile p;
    profile_defaults(&p);
    calibrate_apply(&fit, sys, &p);
    g_free(calibrate_measured_keys(&fit, sys, &p));
    /* the profile calibrate writes must read back */
    g_autofree char *yaml = profile_to_yaml(&p, "# calibrated\n");
    g_autofree char *path = input_file("cal.yaml", (const uint8_t *)yaml, strlen(yaml));
    Profile back;
    profile_defaults(&back);
    if (!profile_load(&back, path, &err))
      broken("a calibrated profile does not load", err->message);
    profile_clear(&back);
    profile_clear(&p);
  }
  bench_data_clear(&d);
  return 0;
}

int fuzz_import(const uint8_t *data, size_t size)
{
  Shared *sh = shared();
  g_autofree char *path = input_file("config.json", data, size);
  g_autoptr(GError) err = NULL;
  g_autoptr(GString) notes = g_string_new(NULL);
  LlmSpec m;
  gboolean ok = llm_import_config(path, "fuzz", NULL, &m, notes, &err);
  g_autofree char *yaml = ok ? llm_import_yaml(&m, notes->str) : NULL;
  llm_spec_clear(&m);
  if (!ok)
    return 0;
  /* an import either says what is wrong or writes an entry the catalog reads, and that runs */
  g_autofree char *cat_dir = g_build_filename(sh->dir, "imp", NULL);
  g_autofree char *llm = g_build_filename(cat_dir, "llm", NULL);
  rm_rf(cat_dir);
  g_mkdir_with_parents(llm, 0755);
  g_free(input_file("imp/llm/fuzz.yaml", (const uint8_t *)yaml, strlen(yaml)));
  Catalog *cat = catalog_new();
  g_autofree char *models = src_path("models");
  if (!catalog_load_dir(cat, models, &err))
    broken("the shipped catalog does not load", err->message);
  if (!catalog_load_dir(cat, cat_dir, &err))
    broken("an imported entry does not read back", err->message);
  const char *text = "name: f\nsystem: h200-sxm-hgx8\nmodel: fuzz\nserving: {engine: steady, aggregated: {tp: 8}}\n";
  g_autofree char *sp = input_file("imp.yaml", (const uint8_t *)text, strlen(text));
  g_autoptr(Scenario) sc = scenario_load(sp, cat, &err);
  if (sc)
    evaluate_capped(sc, cat, &sh->profile, 0);
  catalog_free(cat);
  return 0;
}

/* The held-out error table (`calibration/held-out.sh -t`, calibration/profiles/held-out/errors.csv):
 * loaded, or refused at its file:line:col; a table that loads is quoted as `run` and `plan` quote
 * it, beside the picks of a run of the committed results corpus, in every summary format. */
int fuzz_held_out(const uint8_t *data, size_t size)
{
  g_autofree char *path = input_file("errors.csv", data, size);
  g_autoptr(GError) err = NULL;
  g_autoptr(HeldOut) h = held_out_load(path, &err);
  if (!h) {
    g_autofree char *prefix = g_strdup_printf("%s:", path);
    if (!err || !g_str_has_prefix(err->message, prefix))
      broken("a held-out table refused without its file:line:col", err ? err->message : "no error");
    return 0;
  }
  g_autofree char *corpus = src_path("tests/fuzz/corpus/results/gamma.csv"), *text = NULL;
  gsize len = 0;
  if (!g_file_get_contents(corpus, &text, &len, &err))
    broken("cannot read the results corpus", err->message);
  GPtrArray *rows = results_parse(corpus, text, len, &err);
  if (!rows)
    broken("the results corpus does not parse", err->message);
  /* limits, so that the margins and the picks they make are quoted too */
  SummaryOptions opt = { .slo = "fuzz", .budget_w = 1e8, .percentile = PCT_P90, .held_out = h,
                         .min_tok_s_per_user = 20, .max_ttft = 2 };
  g_autoptr(Summary) sum = summary_new(3, &opt);
  for (guint i = 0; i < rows->len; i++)
    summary_add(sum, rows->pdata[i]);
  SummaryFormat formats[] = { SUMMARY_TABLE, SUMMARY_CSV, SUMMARY_JSON };
  for (gsize f = 0; f < G_N_ELEMENTS(formats); f++)
    g_free(summary_text(sum, formats[f]));
  rows_free(rows);
  return 0;
}

const FuzzEntry fuzz_targets[] = {
  { "scenario", fuzz_scenario }, { "catalog", fuzz_catalog },   { "profile", fuzz_profile },
  { "measured", fuzz_measured }, { "trace", fuzz_trace },       { "results", fuzz_results },
  { "calibration", fuzz_calibration }, { "import", fuzz_import },       { "held-out", fuzz_held_out },
};
const size_t n_fuzz_targets = G_N_ELEMENTS(fuzz_targets);
