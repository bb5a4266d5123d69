/* test_floor.c — the factory floor simulated as a whole (factory.floor.simulate): the fast path (a
 * sample of the floor's engines with their share of the demand) against the whole floor, the
 * floor's size and time series; and the plan's search for the most users a pick's engine holds
 * between the sweep's counts (refine.h). */
#include "test_util.h"
#include "evaluate.h"
#include "profile.h"
#include "refine.h"
#include "results.h"
#include "scenario.h"
#include "serving_sim.h"

#include <string.h>

/* Every point of the scenario TEXT evaluated into ROWS (ResultRow), the time series of point
 * SERIES_POINT (if >= 0) into SERIES. */
static void evaluate_text(const char *text, GPtrArray *rows, int series_point, GArray *series)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(GError) err = NULL;
  g_autoptr(Scenario) s = scenario_load_text("floor", text, c, &err);
  ck_assert_msg(s, "%s", err ? err->message : "");
  Profile prof;
  profile_defaults(&prof);
  for (gsize i = 0; i < s->n_points; i++) {
    Point pt;
    scenario_point(s, c, i, &pt);
    ResultRow *r = g_new(ResultRow, 1);
    result_row_init(r, i);
    gboolean want = (int)i == series_point;
    evaluate_point_series(&pt, &prof, r, want ? pt.p.factory.series_interval : 0, want ? series : NULL);
    g_ptr_array_add(rows, r);
    point_clear(&pt);
  }
  profile_clear(&prof);
}

static void row_free(ResultRow *r)
{
  result_row_clear(r);
  g_free(r);
}

static void rows_free(GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++)
    row_free(rows->pdata[i]);
  g_ptr_array_unref(rows);
}

/* The first point of TEXT evaluated: its row, newly allocated (row_free). */
static ResultRow *first_row(const char *text)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new();
  evaluate_text(text, rows, -1, NULL);
  ResultRow *r = g_ptr_array_steal_index(rows, 0);
  rows_free(g_steal_pointer(&rows));
  return r;
}

static const char *const FLOOR_384 =
  "name: floor\n"
  "system: h200-sxm-hgx8\n"
  "model: llama-3.3-70b\n"
  "seed: 3\n"
  "workload:\n"
  "  input: {dist: lognormal, mean: 1024, sigma: 0.8, max: 32768}\n"
  "  output: {dist: exponential, mean: 400, max: 8192}\n"
  "  arrival: {kind: poisson, rate: 90 req/s}\n"
  "  duration: 30 min\n"
  "serving:\n"
  "  precision: fp8\n"
  "  router: least_loaded\n"
  "  aggregated: {workers: 1, tp: 8, max_batch: 128}\n"
  "factory:\n"
  "  gpus: 384\n"
  "  floor: {simulate: true, sample_engines: [8, 0]}\n";

/* The fast path agrees with the whole floor: 48 engines of 8 H200s (384 GPUs) serving 90 req/s of
 * Llama 3.3 70B (exponential answers of 400 tokens, lognormal prompts of 1,024), least-loaded;
 * 8 engines simulated with 8/48 of the demand (15 req/s) against all 48. The stated tolerance:
 * throughput per GPU and power within 2%, TPOT p50/p90 within 3%, TTFT p50/p90 within 5% (they
 * agree to about 1% here). */
START_TEST(fast_path_agrees_with_the_whole_floor)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new();
  evaluate_text(FLOOR_384, rows, -1, NULL);
  ck_assert_uint_eq(rows->len, 2);
  const ResultRow *fast = rows->pdata[0], *all = rows->pdata[1];
  ck_assert_int_eq(fast->status, OUTCOME_OK);
  ck_assert_int_eq(all->status, OUTCOME_OK);
  /* 384 GPUs / 8 per engine = 48 engines on the floor; the sample: 8 */
  ck_assert_double_eq(fast->floor_engines, 48);
  ck_assert_double_eq(fast->simulated_engines, 8);
  ck_assert_double_eq(all->simulated_engines, 48);
  ck_assert_double_eq(fast->gpus, 384);
  ck_assert_close(fast->out_tok_s_per_gpu, all->out_tok_s_per_gpu, 0.02);
  ck_assert_close(fast->gpu_power_w, all->gpu_power_w, 0.02);
  ck_assert_close(fast->tpot_p50_ms, all->tpot_p50_ms, 0.03);
  ck_assert_close(fast->tpot_p90_ms, all->tpot_p90_ms, 0.03);
  ck_assert_close(fast->ttft_p50_ms, all->ttft_p50_ms, 0.05);
  ck_assert_close(fast->ttft_p90_ms, all->ttft_p90_ms, 0.05);
  /* the floor serves what is offered: 90 req/s x 400 tokens = 36,000 tok/s over 384 GPUs = 93.75
   * tok/s per GPU (the window's draws of lengths within 3%) */
  ck_assert_close(all->out_tok_s_per_gpu, 93.75, 0.03);
  rows_free(g_steal_pointer(&rows));
}
END_TEST

/* The floor's time series is the floor's, not the sample's: its offered load is the whole demand,
 * 90 req/s (the sample's count scaled by 48/8: a minute brings the sample 15 x 60 = 900 arrivals, a
 * Poisson count within 4 standard deviations, 4 / sqrt(900) = 13.3%; the half hour's mean within
 * 4 / sqrt(27,000) = 2.4%), and the facility power is the floor's GPUs at each minute's activity. */
START_TEST(floor_series_is_the_floors)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new();
  g_autoptr(GArray) series = g_array_new(FALSE, FALSE, sizeof(SeriesRow));
  evaluate_text(FLOOR_384, rows, 0, series);
  ck_assert_uint_eq(series->len, 30);
  const ResultRow *fast = rows->pdata[0];
  double offered = 0;
  for (guint i = 0; i < series->len; i++) {
    const SeriesRow *r = &g_array_index(series, SeriesRow, i);
    ck_assert_close(r->offered, 90, 0.133);
    offered += r->offered / series->len;
    ck_assert(isfinite(r->facility_w) && r->facility_w > 0);
    /* the facility draws less than it is provisioned for */
    ck_assert(r->facility_w < fast->facility_mw * 1e6);
  }
  ck_assert_close(offered, 90, 0.024);
  rows_free(g_steal_pointer(&rows));
}
END_TEST

/* A floor that holds no copy of the deployment (16 GPUs are one rack of H200s, 32 GPUs, against 8
 * engines of 8), and one whose size depends on what it draws, are refused with the numbers. */
START_TEST(floor_that_cannot_be_sized)
{
  ResultRow *r = first_row("name: f\nsystem: h200-sxm-hgx8\nmodel: llama-3.3-70b\n"
                           "workload: {arrival: {kind: poisson, rate: 1 req/s}, duration: 1 min}\n"
                           "serving: {aggregated: {workers: 8, tp: 8}}\n"
                           "factory: {gpus: 16, floor: {simulate: true}}\n");
  ck_assert_int_eq(r->status, OUTCOME_INFEASIBLE);
  ck_assert_msg(strstr(r->reason, "32 GPUs hold no copy of the 64-GPU deployment"), "%s", r->reason);
  row_free(r);
  r = first_row("name: f\nsystem: h200-sxm-hgx8\nmodel: llama-3.3-70b\n"
                "workload: {arrival: {kind: poisson, rate: 1 req/s}, duration: 1 min}\n"
                "factory: {provisioning: drawn, floor: {simulate: true}}\n");
  ck_assert_int_eq(r->status, OUTCOME_INFEASIBLE);
  ck_assert_msg(strstr(r->reason, "give factory.gpus"), "%s", r->reason);
  row_free(r);
}
END_TEST

static const char *const ENVELOPE_FLOOR =
  "name: envelope\n"
  "system: h200-sxm-hgx8\n"
  "model: llama-3.1-8b\n"
  "seed: 3\n"
  "workload:\n"
  "  input: {dist: lognormal, mean: 4096, sigma: 0.5, max: 32768}\n"
  "  output: {dist: exponential, mean: 128, max: 4096}\n"
  "  arrival: {kind: poisson, rate: 60 req/s, curve: '0.25 1', period: 10 min}\n"
  "  duration: 20 min\n"
  "serving:\n"
  "  precision: fp8\n"
  "  aggregated: {workers: 1, tp: 1, max_batch: 64}\n"
  "factory:\n"
  "  gpus: 64\n"
  "  power_budget: %.6g W\n"
  "  floor: {simulate: true, sample_engines: 16, series_interval: 30 s}\n"
  "  envelope: {policy: %s}\n";

/* The mean facility draw of the series rows in (FROM, TO] s. */
static double mean_draw(GArray *series, double from, double to)
{
  double sum = 0;
  int n = 0;
  for (guint i = 0; i < series->len; i++) {
    const SeriesRow *r = &g_array_index(series, SeriesRow, i);
    if (r->t > from && r->t <= to)
      sum += r->facility_w, n++;
  }
  ck_assert(n > 0);
  return sum / n;
}

/* The power envelope binds where the arithmetic says. A floor of 64 H200s (Llama 3.1 8B, 4k
 * prompts: prefill-heavy, so the draw follows the load) through ten minutes at 15 req/s, then ten
 * at 60, draws L and then H > L with no envelope (a budget far above both). An envelope E = (L + H)
 * / 2 then leaves the quiet half alone (uncapped: the cap stays at the 700 W TDP, the draw L within
 * 1%) and binds in the busy half: capped, the draw sits at E (within 2% from the second minute on,
 * each half-minute at most 2% above); shedding, the same with requests turned away instead (none
 * in the quiet half). */
START_TEST(power_envelope_binds)
{
  g_autofree char *free_text = g_strdup_printf(ENVELOPE_FLOOR, 10e6, "none");
  g_autoptr(GPtrArray) rows = g_ptr_array_new();
  g_autoptr(GArray) free_run = g_array_new(FALSE, FALSE, sizeof(SeriesRow));
  evaluate_text(free_text, rows, 0, free_run);
  double low = mean_draw(free_run, 60, 600), high = mean_draw(free_run, 720, 1200);
  ck_assert_msg(high > 1.15 * low, "the busy half draws %g W, the quiet %g W", high, low);
  double envelope = (low + high) / 2;
  rows_free(g_steal_pointer(&rows));
  static const char *const policies[] = { "cap", "shed" };
  for (int k = 0; k < 2; k++) {
    g_autofree char *text = g_strdup_printf(ENVELOPE_FLOOR, envelope, policies[k]);
    rows = g_ptr_array_new();
    g_autoptr(GArray) series = g_array_new(FALSE, FALSE, sizeof(SeriesRow));
    evaluate_text(text, rows, 0, series);
    ck_assert_int_eq(((const ResultRow *)rows->pdata[0])->status, OUTCOME_OK);
    ck_assert_close(mean_draw(series, 60, 600), low, 0.01);
    ck_assert_close(mean_draw(series, 720, 1200), envelope, 0.02);
    for (guint i = 0; i < series->len; i++) {
      const SeriesRow *r = &g_array_index(series, SeriesRow, i);
      if (r->t <= 600 && k == 0)
        ck_assert_double_eq(r->power_cap_w, 700);
      if (r->t <= 600 && k == 1)
        ck_assert_double_eq(r->shed, 0);
      if (r->t > 720)
        ck_assert_msg(r->facility_w <= 1.02 * envelope, "%s: %g W at %g s, envelope %g W", policies[k],
                      r->facility_w, r->t, envelope);
      if (r->t > 720 && k == 0)
        ck_assert(r->power_cap_w < 700);
      if (r->t > 720 && k == 1)
        ck_assert(r->shed > 0);
    }
    rows_free(g_steal_pointer(&rows));
  }
}
END_TEST

/* SimGrid and the native network agree on a floor both can run: 64 B200 engines, prefill and decode
 * pools of 8 GPUs each (512 GPUs), 8k-token prompts whose KV caches cross the NICs through an 8:1
 * oversubscribed core, 16 engines simulated; throughput, TTFT p50 and p90 and TPOT p50 within 1%. */
START_TEST(simgrid_agrees_on_a_floor)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new();
  evaluate_text("name: sg\nsystem: b200-hgx8\nmodel: deepseek-r1\nseed: 2\n"
                "workload:\n"
                "  input: {dist: uniform, mean: 8000, min: 6000, max: 10000}\n"
                "  output: {dist: uniform, mean: 300, min: 200, max: 400}\n"
                "  arrival: {kind: poisson, rate: 24 req/s}\n"
                "  duration: 4 min\n"
                "serving:\n"
                "  precision: fp8\n"
                "  mode: disaggregated\n"
                "  engine: [des, simgrid]\n"
                "  disaggregated:\n"
                "    prefill: {workers: 1, tp: 8, ep: 8, attention_dp: true}\n"
                "    decode: {workers: 1, tp: 8, ep: 8, attention_dp: true, max_batch: 64}\n"
                "factory: {gpus: 512, fabric: {oversubscription: 8}, floor: {simulate: true, sample_engines: 16}}\n",
                rows, -1, NULL);
  const ResultRow *native = rows->pdata[0], *sg = rows->pdata[1];
  ck_assert_int_eq(native->status, OUTCOME_OK);
  ck_assert_int_eq(sg->status, OUTCOME_OK);
  ck_assert_str_eq(sg->engine, "simgrid");
  ck_assert_double_eq(native->floor_engines, 64);
  ck_assert_close(sg->out_tok_s_per_gpu, native->out_tok_s_per_gpu, 0.01);
  ck_assert_close(sg->ttft_p50_ms, native->ttft_p50_ms, 0.01);
  ck_assert_close(sg->ttft_p90_ms, native->ttft_p90_ms, 0.01);
  ck_assert_close(sg->tpot_p50_ms, native->tpot_p50_ms, 0.01);
  rows_free(g_steal_pointer(&rows));
}
END_TEST

/* Two models on one floor of 64 H200s, half each: Llama 3.3 70B on TP4 engines (32 GPUs, 8 engines)
 * at 30 req/s and Llama 3.1 8B on one-GPU engines (32) at 100 req/s. */
static const char *const TWO_MODELS =
  "name: two\n"
  "system: h200-sxm-hgx8\n"
  "model: llama-3.3-70b\n"
  "seed: 5\n"
  "workload:\n"
  "  input: {dist: lognormal, mean: 1024, sigma: 0.8, max: 16384}\n"
  "  output: {dist: exponential, mean: 300, max: 4096}\n"
  "  arrival: {kind: poisson, rate: 30 req/s}\n"
  "  duration: 4 min\n"
  "serving: {precision: fp8, router: queue, aggregated: {workers: 1, tp: 4, max_batch: 64}}\n"
  "share: 50%\n"
  "deployments:\n"
  "  - model: llama-3.1-8b\n"
  "    serving: {aggregated: {tp: 1, max_batch: 128}}\n"
  "    workload: {arrival: {rate: 100 req/s}}\n"
  "factory: {gpus: 64, floor: {simulate: true, sample_engines: 0}}\n";

/* The same deployment alone on GPUS GPUs (the floor's half): MODEL, its engines and rate. */
static ResultRow *alone(const char *model, int tp, int batch, double rate)
{
  g_autofree char *text = g_strdup_printf(
    "name: alone\nsystem: h200-sxm-hgx8\nmodel: %s\nseed: 5\n"
    "workload:\n"
    "  input: {dist: lognormal, mean: 1024, sigma: 0.8, max: 16384}\n"
    "  output: {dist: exponential, mean: 300, max: 4096}\n"
    "  arrival: {kind: poisson, rate: %g req/s}\n"
    "  duration: 4 min\n"
    "serving: {precision: fp8, router: queue, aggregated: {workers: 1, tp: %d, max_batch: %d}}\n"
    "factory: {gpus: 32, floor: {simulate: true, sample_engines: 0}}\n", model, rate, tp, batch);
  return first_row(text);
}

/* Without moves the deployments on a floor meet nowhere but in its totals: each serves what it would
 * alone on its half (same seed, same draws), and the floor's tokens and power are theirs summed:
 * tokens/GPU of the 64 = (t70 x 32 + t8 x 32) / 64, power/GPU the same mean (no GPU is between them). */
START_TEST(deployments_without_moves_are_independent)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new();
  evaluate_text(TWO_MODELS, rows, -1, NULL);
  const ResultRow *floor_row = rows->pdata[0];
  ResultRow *big = alone("llama-3.3-70b", 4, 64, 30), *small = alone("llama-3.1-8b", 1, 128, 100);
  ck_assert_int_eq(big->status, OUTCOME_OK);
  ck_assert_int_eq(small->status, OUTCOME_OK);
  ck_assert_msg(floor_row->status == OUTCOME_OK, "%s", floor_row->reason);
  ck_assert_double_eq(floor_row->floor_engines, 8 + 32);
  ck_assert_double_eq(floor_row->deployment_gpus, 64);
  ck_assert_close(floor_row->out_tok_s_per_gpu, (big->out_tok_s_per_gpu * 32 + small->out_tok_s_per_gpu * 32) / 64, 1e-9);
  ck_assert_close(floor_row->gpu_power_w, (big->gpu_power_w + small->gpu_power_w) / 2, 1e-9);
  ck_assert_close(floor_row->goodput_req_s, big->goodput_req_s + small->goodput_req_s, 1e-9);
  /* the latency columns are the point's deployment's (the 70B) */
  ck_assert_double_eq(floor_row->ttft_p90_ms, big->ttft_p90_ms);
  ck_assert_double_eq(floor_row->tpot_p50_ms, big->tpot_p50_ms);
  ck_assert_ptr_nonnull(strstr(floor_row->deployments, "llama-3.1-8b (50% of the GPUs"));
  ck_assert_ptr_nonnull(strstr(floor_row->config, "llama-3.1-8b: agg 32x tp1"));
  row_free(big), row_free(small);
  rows_free(g_steal_pointer(&rows));
}
END_TEST

/* Demand that moves from one model to the other over 16 minutes, on 32 H200s split in half: Llama
 * 3.3 70B at 50 req/s falling to 5, Llama 3.1 8B at 15 req/s rising to 150. Four TP4 engines of the
 * 70B serve ~40 req/s at most (its static half is unstable at the peak: p90 TTFT of minutes); with
 * the autoscaler on, the 8B's idle engines are parked and their GPUs go to the 70B (seven engines at
 * its peak), then back: both meet a 3 s p90 TTFT. At no time do the deployments hold more than the
 * floor's 32 GPUs. */
static const char *const SHIFT =
  "name: shift\n"
  "system: h200-sxm-hgx8\n"
  "model: llama-3.3-70b\n"
  "seed: 2\n"
  "workload:\n"
  "  input: {dist: lognormal, mean: 1024, sigma: 0.8, max: 16384}\n"
  "  output: {dist: exponential, mean: 300, max: 4096}\n"
  "  arrival: {kind: poisson, rate: 50 req/s, curve: '1 1 1 0.6 0.3 0.1 0.1 0.1', period: 2 min}\n"
  "  duration: 16 min\n"
  "serving: {precision: fp8, router: queue, aggregated: {workers: 1, tp: 4, max_batch: 64}}\n"
  "deployments:\n"
  "  - model: llama-3.1-8b\n"
  "    serving: {aggregated: {tp: 1, max_batch: 128}}\n"
  "    workload: {arrival: {rate: 150 req/s, curve: '0.1 0.1 0.1 0.3 0.6 1 1 1'}}\n"
  "factory:\n"
  "  gpus: 32\n"
  "  floor: {simulate: true, sample_engines: 0, series_interval: 30 s}\n"
  "  autoscale: {enabled: [false, true], interval: 10 s, start_time: 30 s}\n"
  "plan: {max_ttft: 3 s, percentile: p90}\n";

START_TEST(moves_follow_demand_between_models)
{
  g_autoptr(GPtrArray) rows = g_ptr_array_new();
  g_autoptr(GArray) series = g_array_new(FALSE, FALSE, sizeof(SeriesRow));
  evaluate_text(SHIFT, rows, 1, series);
  const ResultRow *fixed = rows->pdata[0], *moving = rows->pdata[1];
  ck_assert_int_eq(fixed->status, OUTCOME_SLO_VIOLATED);
  ck_assert_ptr_nonnull(strstr(fixed->reason, "deployment 1 (llama-3.3-70b)"));
  ck_assert_msg(moving->status == OUTCOME_OK, "%s", moving->reason);
  ck_assert(moving->ttft_p90_ms < 3000 && fixed->ttft_p90_ms > 10 * 3000);
  ck_assert_ptr_nonnull(strstr(moving->deployments, "engines in"));
  /* the same demand is served either way: the tokens differ by the requests still queued */
  ck_assert_close(moving->out_tok_s_per_gpu, fixed->out_tok_s_per_gpu, 0.03);
  /* 16 min / 30 s = 32 rows of the floor, then 32 of each deployment; the GPUs the deployments hold
   * are the floor's row's, never more than its 32, and they move: the 70B holds more than its half
   * at the start and less at the end */
  ck_assert_uint_eq(series->len, 3 * 32);
  for (guint i = 0; i < 32; i++) {
    const SeriesRow *r = &g_array_index(series, SeriesRow, i);
    const SeriesRow *big = &g_array_index(series, SeriesRow, 32 + i), *small = &g_array_index(series, SeriesRow, 64 + i);
    ck_assert(r->part == 0 && big->part == 1 && small->part == 2 && big->t == r->t);
    ck_assert_msg(r->gpus <= 32 + 1e-9, "row %u: %g GPUs held", i, r->gpus);
    ck_assert_double_eq_tol(big->gpus + small->gpus, r->gpus, 1e-9);
    ck_assert(isfinite(r->facility_w) && r->facility_w > 0);
  }
  ck_assert(g_array_index(series, SeriesRow, 32 + 4).gpus > 16 && g_array_index(series, SeriesRow, 63).gpus < 16);
  rows_free(g_steal_pointer(&rows));
}
END_TEST

/* What a floor of several deployments refuses, with the numbers: shares above the whole, none left
 * for a deployment without one, a share that holds no engine (the 8B takes the point's TP8), and a
 * floor that is not simulated; and a deployment with nothing done. */
START_TEST(shared_floor_refusals)
{
  static const struct { const char *share, *other_share, *floor, *want; } cases[] = {
    { "70%", "40%", "true", "the deployments' shares add up to 110% of the floor's GPUs, above 100%" },
    { "100%", "0", "true", "the deployments' shares leave nothing for those without one (share 0)" },
    /* 8 GPUs asked for are a rack of 32 H200s: 1% of it holds no 8-GPU engine */
    { "99%", "1%", "true", "deployment 2 (llama-3.1-8b): its share, 1% of the floor's 32 GPUs, holds no copy of its 8-GPU deployment" },
    { "50%", "50%", "false", "deployments share a simulated floor: set factory.floor.simulate: true" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *text = g_strdup_printf(
      "name: r\nsystem: h200-sxm-hgx8\nmodel: llama-3.3-70b\nshare: %s\n"
      "workload: {arrival: {kind: poisson, rate: 1 req/s}, duration: 1 min}\n"
      "serving: {aggregated: {tp: 8}}\n"
      "deployments: [{model: llama-3.1-8b, share: %s}]\n"
      "factory: {gpus: 8, floor: {simulate: %s}}\n", cases[i].share, cases[i].other_share, cases[i].floor);
    ResultRow *r = first_row(text);
    ck_assert_int_eq(r->status, OUTCOME_INFEASIBLE);
    ck_assert_msg(g_str_has_prefix(r->reason, cases[i].want), "got %s", r->reason);
    row_free(r);
  }
  /* a deployment that ran but finished nothing (one request in 1,000 s, for a minute): the floor's
   * row has no figures for it, and says which */
  ResultRow *r = first_row("name: n\nsystem: h200-sxm-hgx8\nmodel: llama-3.1-8b\n"
                           "workload: {arrival: {kind: poisson, rate: 5 req/s}, duration: 1 min}\n"
                           "deployments: [{workload: {arrival: {rate: 0.001 req/s}}}]\n"
                           "factory: {gpus: 16, floor: {simulate: true, sample_engines: 0}}\n");
  ck_assert_int_eq(r->status, OUTCOME_UNSUPPORTED);
  ck_assert_str_eq(r->reason, "deployment 2 (llama-3.1-8b): no request completed inside the measurement window (more requests?)");
  ck_assert_ptr_nonnull(strstr(r->deployments, "0% held on average): unsupported"));
  row_free(r);
}
END_TEST

/* The users search (refine.h) against every count tried by hand: an H200 TP4 engine of
 * Llama-3.3-70B in a closed loop (steady state, deterministic), held to the tokens/s per user it
 * makes at 37 users. Per-user speed never rises with the users, so the counts that meet the floor
 * are 1 up to some U >= 37; bisecting (8, 64) must find U itself (the resolution is one user below
 * 32 users a step), in at most 6 tries (log2 of the 56-user gap), and its row is what the point
 * makes at U users. With a floor no count above 8 meets, it keeps 8 and no row. Past a sweep's
 * most users (refine_past_sweep) it tries twice them first. */
START_TEST(refine_finds_the_most_users)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(GError) err = NULL;
  g_autoptr(Scenario) sc = scenario_load_text("refine",
    "name: refine\nsystem: h200-sxm-hgx8\nmodel: llama-3.3-70b\n"
    "workload: {input: 2048, output: 512, arrival: {kind: closed, users: 8}}\n"
    "serving: {engine: steady, precision: fp8, aggregated: {tp: 4}}\n", c, &err);
  ck_assert_msg(sc, "%s", err ? err->message : "");
  Profile prof;
  profile_defaults(&prof);
  Point pt;
  scenario_point(sc, c, 0, &pt);
  double speed[65];
  for (int u = 1; u <= 64; u++) {
    Point at = pt;
    at.p.workload.users = u;
    ResultRow r;
    result_row_init(&r, 0);
    evaluate_point(&at, &prof, &r);
    speed[u] = r.tok_s_per_user;
    result_row_clear(&r);
  }
  pt.p.plan.min_tok_s_per_user = speed[37];
  int want = 37;
  while (want < 63 && speed[want + 1] >= speed[37])
    want++;
  for (int u = 2; u <= 64; u++)
    ck_assert_msg(speed[u] <= speed[u - 1], "per-user speed rose from %d to %d users", u - 1, u);
  Refine rf;
  refine_users(&pt, &prof, 8, 64, &rf);
  ck_assert_int_eq(rf.users, want);
  ck_assert_uint_le(rf.tries, 6);
  ck_assert_int_eq(rf.row.status, OUTCOME_OK);
  ck_assert_double_eq(rf.row.tok_s_per_user, speed[want]);
  result_row_clear(&rf.row);
  pt.p.plan.min_tok_s_per_user = speed[8] * 1.0001; /* only fewer than 8 users would meet it */
  refine_users(&pt, &prof, 8, 64, &rf);
  ck_assert_int_eq(rf.users, 8);
  ck_assert_int_eq(rf.row.status, OUTCOME_UNSUPPORTED);
  result_row_clear(&rf.row);
  /* Past a sweep whose most users are 16: 32 <= 37 users meet the floor, so the first try (2 x 16)
   * does and the search stops there, its top reached (the sweep's range stopped the pick). Past 32:
   * 64 users miss it, and the bisection of (32, 64) finds U as above, in 1 + 5 tries. */
  pt.p.plan.min_tok_s_per_user = speed[37];
  ck_assert_msg(speed[64] < speed[37], "64 users as fast as 37: no edge to find");
  refine_past_sweep(&pt, &prof, 16, &rf);
  ck_assert_int_eq(rf.users, 32);
  ck_assert_int_eq(rf.top, 32);
  ck_assert_uint_eq(rf.tries, 1);
  ck_assert_double_eq(rf.row.tok_s_per_user, speed[32]);
  result_row_clear(&rf.row);
  refine_past_sweep(&pt, &prof, 32, &rf);
  ck_assert_int_eq(rf.users, want);
  ck_assert_int_eq(rf.top, 64);
  ck_assert_uint_le(rf.tries, 6);
  ck_assert_double_eq(rf.row.tok_s_per_user, speed[want]);
  result_row_clear(&rf.row);
  point_clear(&pt);
  profile_clear(&prof);
}
END_TEST

static Suite *suite(void)
{
  Suite *s = suite_create("floor");
  TCase *tc = tcase_create("floor");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, fast_path_agrees_with_the_whole_floor);
  tcase_add_test(tc, floor_series_is_the_floors);
  tcase_add_test(tc, floor_that_cannot_be_sized);
  tcase_add_test(tc, power_envelope_binds);
  tcase_add_test(tc, simgrid_agrees_on_a_floor);
  tcase_add_test(tc, deployments_without_moves_are_independent);
  tcase_add_test(tc, moves_follow_demand_between_models);
  tcase_add_test(tc, shared_floor_refusals);
  tcase_add_test(tc, refine_finds_the_most_users);
  suite_add_tcase(s, tc);
  return s;
}

int main(void) { return run_suite(suite()); }
