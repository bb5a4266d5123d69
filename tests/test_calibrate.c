/* test_calibrate.c — the calibration fit: the kernels' output parsed with file:line:col errors, the
 * GPU matched to its catalog system, and a known GEMM curve and HBM rate in, the same out. */
#include "test_util.h"
#include "calibrate.h"

#include <string.h>

#include "aif_error.h"

/* What an H200 would print if the model were exact: HBM at 82% (copies a little lower), GEMMs at
 * 71% of peak with half of it at 80 rows, BF16 and FP8, weight-bound at small M. */
static char *synthetic(const SystemSpec *h200, double eff, double half_m, double hbm_eff)
{
  GString *s = g_string_new("# aifsim-bench 1\ndevice,NVIDIA H200,132,1980000,150000000000,9,0\n");
  double bw = h200->hbm_bandwidth * hbm_eff;
  g_string_append_printf(s, "hbm,read,,,,4294967296,%.9g\n", 4294967296 / bw);
  g_string_append_printf(s, "hbm,copy,,,,8589934592,%.9g\n", 8589934592 / (0.97 * bw));
  g_string_append_printf(s, "hbm,write,,,,4294967296,%.9g\n", 4294967296 / (1.1 * bw)); /* writes are not used */
  g_string_append(s, "launch,empty,,,,0,2.5e-06\nh2d,pinned,,,,268435456,0.00512\n");
  const int ms[] = { 1, 4, 16, 64, 256, 1024, 4096, 8192 };
  const double nk[][2] = { { 8192, 8192 }, { 28672, 8192 } };
  for (int p = 0; p < 2; p++)
    for (int j = 0; j < 2; j++)
      for (int i = 0; i < 8; i++) {
        double m = ms[i], n = nk[j][0], k = nk[j][1], wb = p ? 1 : 2;
        double peak = (p ? h200->flops_fp8 : h200->flops_bf16) * eff * m / (m + half_m);
        double t = fmax(2 * m * n * k / peak, n * k * wb / bw);
        g_string_append_printf(s, "gemm,%s,%d,%.0f,%.0f,%.0f,%.9g\n", p ? "fp8" : "bf16", ms[i], n, k, n * k * wb, t);
      }
  return g_string_free(s, FALSE);
}

START_TEST(fit_recovers_a_known_curve)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const SystemSpec *h200 = catalog_system(c, "h200-sxm-hgx8");
  ck_assert_ptr_nonnull(h200);
  const double cases[][3] = { { 0.71, 80, 0.82 }, { 0.55, 12, 0.9 }, { 0.93, 400, 0.7 } };
  for (int k = 0; k < 3; k++) {
    g_autofree char *text = synthetic(h200, cases[k][0], cases[k][1], cases[k][2]);
    BenchData d;
    g_autoptr(GError) err = NULL;
    ck_assert_msg(bench_parse(text, "synthetic", &d, &err), "%s", err ? err->message : "");
    ck_assert_str_eq(d.device, "NVIDIA H200");
    ck_assert_int_eq(d.sms, 132);
    ck_assert_close(d.sm_clock, 1.98e9, 1e-12);
    CalibrationFit f;
    ck_assert(calibrate_fit(&d, h200, &f, &err));
    ck_assert_close(f.hbm_efficiency, cases[k][2], 1e-6);
    ck_assert_close(f.gemm_efficiency, cases[k][0], 0.002);
    ck_assert_close(f.gemm_half_m, cases[k][1], 0.02);
    ck_assert_uint_eq(f.gemm_rows, 32);
    ck_assert_msg(f.rms_log_error < 0.01, "rms %g", f.rms_log_error);
    ck_assert_close(f.launch, 2.5e-6, 1e-12);
    ck_assert_close(f.h2d_bw, 268435456 / 0.00512, 1e-9);
    Profile p;
    profile_defaults(&p);
    calibrate_apply(&f, h200, &p);
    ck_assert_close(p.arch[ARCH_HOPPER].gemm_half_m, f.gemm_half_m, 1e-12);
    ck_assert_close(p.arch[ARCH_BLACKWELL].hbm_efficiency, 0.85, 0.2); /* other architectures untouched */
    profile_clear(&p);
    bench_data_clear(&d);
  }
}
END_TEST

START_TEST(parse_errors)
{
  const char *bad[][2] = {
    { "device,NVIDIA H200,132,1980000,1e11,9,0\nhbm,read,,,,4e9,zero\n", "x.csv:2:17: expected a positive number, got 'zero'" },
    { "device,NVIDIA H200,132,1980000,1e11,9,0\nflops,bf16,1,2,3,4,5\n", "x.csv:2:1: unknown measurement 'flops'" },
    { "hbm,read,,,,4e9,1\n", "x.csv:1:1: expected a device line" },
    { "device,NVIDIA H200,132\n", "x.csv:1:1: expected device,NAME" },
    { "device,NVIDIA H200,132,1980000,1e11,9,0\ngemm,bf16,1,2,3,4\n", "x.csv:2:1: expected KIND,VARIANT" },
  };
  for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
    BenchData d;
    g_autoptr(GError) err = NULL;
    ck_assert(!bench_parse(bad[i][0], "x.csv", &d, &err));
    ck_assert(g_error_matches(err, AIF_ERROR, AIF_ERROR_INPUT));
    ck_assert_msg(g_str_has_prefix(err->message, bad[i][1]), "%s", err->message);
  }
}
END_TEST

START_TEST(match_system)
{
  g_autoptr(Catalog) c = shipped_catalog();
  ck_assert_str_eq(calibrate_match_system(c->systems, "NVIDIA H200")->id, "h200-sxm-hgx8");
  ck_assert_str_eq(calibrate_match_system(c->systems, "NVIDIA H100 80GB HBM3")->id, "h100-sxm-hgx8");
  ck_assert_str_eq(calibrate_match_system(c->systems, "NVIDIA B200")->id, "b200-hgx8");
  ck_assert_ptr_null(calibrate_match_system(c->systems, "Tesla T4"));
  ck_assert_ptr_null(calibrate_match_system(c->systems, "NVIDIA H20"));
}
END_TEST

/* Collectives on 8 GPUs at a known NVLink efficiency and latency come back out; one GPU's run
 * leaves the profile's NVLink entries alone. */
START_TEST(fit_collectives)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const SystemSpec *h200 = catalog_system(c, "h200-sxm-hgx8");
  g_autofree char *base = synthetic(h200, 0.7, 64, 0.85);
  GString *s = g_string_new(base);
  double eff = 0.78, lat = 23e-6, bw = h200->nvlink_bandwidth / 2 * eff;
  for (double bytes = 8192; bytes <= 512e6; bytes *= 4) {
    g_string_append_printf(s, "nccl,allreduce,8,,,%.0f,%.9g\n", bytes, lat + 2 * 7.0 / 8 * bytes / bw);
    g_string_append_printf(s, "nccl,alltoall,8,,,%.0f,%.9g\n", bytes, lat + 7.0 / 8 * bytes / bw);
  }
  g_string_append(s, "p2p,unidirectional,2,,,268435456,0.000671\n");
  BenchData d;
  g_autoptr(GError) err = NULL;
  ck_assert(bench_parse(s->str, "synthetic", &d, &err));
  CalibrationFit f;
  ck_assert(calibrate_fit(&d, h200, &f, &err));
  ck_assert_uint_eq(f.nccl_rows, 16);
  ck_assert_close(f.nvlink_efficiency, eff, 1e-6);
  ck_assert_close(f.collective_latency, lat, 1e-6);
  ck_assert_close(f.p2p_bw, 268435456 / 0.000671, 1e-9);
  Profile p;
  profile_defaults(&p);
  calibrate_apply(&f, h200, &p);
  ck_assert_close(p.arch[ARCH_HOPPER].collective_latency, lat, 1e-6);
  profile_clear(&p);
  bench_data_clear(&d);
  /* one GPU: no collectives, the profile keeps its NVLink figures */
  ck_assert(bench_parse(base, "synthetic", &d, &err));
  ck_assert(calibrate_fit(&d, h200, &f, &err));
  ck_assert_uint_eq(f.nccl_rows, 0);
  profile_defaults(&p);
  double before = p.arch[ARCH_HOPPER].nvlink_efficiency;
  calibrate_apply(&f, h200, &p);
  ck_assert_close(p.arch[ARCH_HOPPER].nvlink_efficiency, before, 1e-12);
  profile_clear(&p);
  bench_data_clear(&d);
  g_string_free(s, TRUE);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("calibrate");
  TCase *tc = tcase_create("calibrate");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, fit_recovers_a_known_curve);
  tcase_add_test(tc, parse_errors);
  tcase_add_test(tc, fit_collectives);
  tcase_add_test(tc, match_system);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
