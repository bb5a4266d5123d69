/* test_calibrate.c — the calibration fit: the kernels' output parsed with file:line:col errors, the
 * GPU matched to its catalog system, and a known GEMM curve and HBM rate in, the same out. */
#include "test_util.h"
#include "calibrate.h"
#include "moe.h"

#include <string.h>

#include "aif_error.h"

/* What an H200 would print if the model were exact: HBM at HBM_EFF (copies a little lower), BF16
 * GEMMs at EFF of peak and FP8 at EFF x FP8 of its own (block-scaled: x BLOCK more), half of it at
 * HALF_M rows, weight-bound at small M, FIXED seconds more per GEMM; FP8 below 16 rows is timed at
 * 16, repeated as earlier kernels printed it. */
typedef struct {
  double eff, half_m, hbm_eff, fixed, fp8;
  double block; /* block-scaled FP8's factor on top of FP8 (0: no such rows) */
  double fp4;   /* NVFP4's factor on EFF against the FP4 peak (0: no such rows) */
} Truth;

static char *synthetic(const SystemSpec *h200, const Truth *t)
{
  GString *s = g_string_new("# aifsim-bench 1\ndevice,NVIDIA H200,132,1980000,150000000000,9,0\n");
  double bw = h200->hbm_bandwidth * t->hbm_eff;
  g_string_append_printf(s, "hbm,read,,,,4294967296,%.9g\n", 4294967296 / bw);
  g_string_append_printf(s, "hbm,copy,,,,8589934592,%.9g\n", 8589934592 / (0.97 * bw));
  g_string_append_printf(s, "hbm,write,,,,4294967296,%.9g\n", 4294967296 / (1.1 * bw)); /* writes are not used */
  g_string_append(s, "launch,empty,,,,0,2.5e-06\nh2d,pinned,,,,268435456,0.00512\n");
  const int ms[] = { 1, 4, 16, 64, 256, 1024, 4096, 8192 };
  const double nk[][2] = { { 8192, 8192 }, { 28672, 8192 } };
  static const char *const names[] = { "bf16", "fp8", "fp8block", "fp4" };
  for (int p = 0; p < 4; p++)
    for (int j = 0; j < 2 && (p < 2 || (p == 2 ? t->block : t->fp4) > 0); j++)
      for (int i = 0; i < 8; i++) {
        double m = p && ms[i] < 16 ? 16 : ms[i], n = nk[j][0], k = nk[j][1], wb = p == 0 ? 2 : p == 3 ? 0.5 : 1;
        double f = p == 0 ? 1 : p == 1 ? t->fp8 : p == 2 ? t->fp8 * t->block : t->fp4;
        double base = p == 0 ? h200->flops_bf16 : p == 3 ? h200->flops_fp4 : h200->flops_fp8;
        double peak = base * f * t->eff * m / (m + t->half_m);
        double time = fmax(2 * m * n * k / peak, n * k * wb / bw) + t->fixed;
        g_string_append_printf(s, "gemm,%s,%.0f,%.0f,%.0f,%.0f,%.9g\n", names[p], m, n, k, n * k * wb, time);
      }
  return g_string_free(s, FALSE);
}

/* One plain GPU's runs (GEMMs at 80%, half rate at 20 rows, HBM at 92%, no fixed cost, FP8 at the
 * BF16 share, no block-scaled or FP4 rows) followed by ROWS, the kind a test is about. */
static char *plain_runs(const SystemSpec *h200, const char *rows)
{
  const Truth t = { 0.8, 20, 0.92, 0, 1, 0, 0 };
  g_autofree char *base = synthetic(h200, &t);
  return g_strconcat(base, rows, NULL);
}

START_TEST(fit_recovers_a_known_curve)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const SystemSpec *h200 = catalog_system(c, "h200-sxm-hgx8");
  ck_assert_ptr_nonnull(h200);
  const Truth cases[] = {
    { 0.71, 80, 0.82, 0, 1, 0, 0 }, { 0.55, 12, 0.9, 0, 1, 0, 0 }, { 0.93, 400, 0.7, 0, 1, 0, 0 },
    { 0.82, 20, 0.925, 10e-6, 0.87, 0.8, 0 }, /* like an H200: fixed time per GEMM, FP8 lower, block lower still */
  };
  for (guint k = 0; k < G_N_ELEMENTS(cases); k++) {
    g_autofree char *text = synthetic(h200, &cases[k]);
    BenchData d;
    g_autoptr(GError) err = NULL;
    ck_assert_msg(bench_parse(text, "synthetic", &d, &err), "%s", err ? err->message : "");
    ck_assert_str_eq(d.device, "NVIDIA H200");
    ck_assert_int_eq(d.sms, 132);
    ck_assert_close(d.sm_clock, 1.98e9, 1e-12);
    CalibrationFit f;
    ck_assert(calibrate_fit(&d, h200, &f, &err));
    ck_assert_close(f.hbm_efficiency, cases[k].hbm_eff, 1e-6);
    ck_assert_close(f.gemm_efficiency, cases[k].eff, 0.002);
    ck_assert_close(f.fp8_efficiency, cases[k].fp8, 0.003);
    ck_assert_close(f.gemm_half_m, cases[k].half_m, 0.02);
    ck_assert_msg(fabs(f.gemm_fixed - cases[k].fixed) < 0.1e-6, "fixed %g", f.gemm_fixed);
    ck_assert_uint_eq(f.gemm_rows, 28); /* FP8's three shapes below 16 rows are one */
    if (cases[k].block > 0)
      ck_assert_close(f.fp8_block_efficiency, cases[k].block, 0.003);
    else
      ck_assert(f.fp8_block_efficiency == 0);
    ck_assert_msg(f.rms_log_error < 0.01, "rms %g", f.rms_log_error);
    ck_assert_close(f.launch, 2.5e-6, 1e-12);
    ck_assert_close(f.h2d_bw, 268435456 / 0.00512, 1e-9);
    Profile p;
    profile_defaults(&p);
    calibrate_apply(&f, h200, &p);
    ck_assert_close(p.arch[ARCH_HOPPER].gemm_half_m, f.gemm_half_m, 1e-12);
    ck_assert_close(p.arch[ARCH_HOPPER].fp8_efficiency, f.fp8_efficiency, 1e-12);
    if (cases[k].block > 0) /* measured: set; not measured: the starting profile's stays */
      ck_assert_close(p.arch[ARCH_HOPPER].fp8_block_efficiency, f.fp8_block_efficiency, 1e-12);
    else
      ck_assert_close(p.arch[ARCH_HOPPER].fp8_block_efficiency, 0.84093, 1e-12);
    Profile shipped; /* other architectures untouched */
    profile_defaults(&shipped);
    ck_assert(memcmp(&p.arch[ARCH_BLACKWELL], &shipped.arch[ARCH_BLACKWELL], sizeof(ArchProfile)) == 0);
    profile_clear(&shipped);
    profile_clear(&p);
    bench_data_clear(&d);
  }
}
END_TEST

/* Board power by phase: idle 124 W, HBM 443 W, GEMMs 692 W at 1466 of 1980 MHz give the catalog's
 * idle_power and memory_bound_power ((443 - 124) / (700 - 124) = 0.55382 against the H200's
 * 700 W TDP), the clock the limit leaves (0.74040) and the sustained rate (3.3e15 FLOP in 5 s). */
/* Grouped (expert) GEMMs: batched GEMMs of 32 experts of 4096 x 7168 and 128 of 5760 x 2880 at 1 to
 * 512 rows per expert in BF16, and the first shape in FP8 at 16 to 512 rows, timed as if each
 * expert's rows ran in tiles of TILE rows at the dense curve's rate for the precision (or read the
 * weights): the fit finds TILE back from both precisions and reports it with the best grouped
 * rates; calibrate_apply leaves grouped_tile_m as it was (cuBLAS's batched kernel is not the one a
 * serving stack runs its experts with). With only a few rows per expert every GEMM reads weights
 * and no tile can be told. */
static char *with_grouped(const SystemSpec *h200, const Truth *t, double tile, int max_rows)
{
  g_autofree char *base = synthetic(h200, t);
  GString *s = g_string_new(base);
  const double shapes[][3] = { { 32, 4096, 7168 }, { 128, 5760, 2880 } };
  const int ms[] = { 1, 2, 4, 8, 16, 24, 32, 48, 64, 96, 128, 192, 256, 512 };
  double bw = h200->hbm_bandwidth * t->hbm_eff;
  for (int j = 0; j < 3; j++) /* j == 2: DeepSeek's shape in FP8, 1 byte a weight, at FP8's rate */
    for (int i = 0; i < 14 && ms[i] <= max_rows; i++) {
      int sh = j == 1;
      double e = shapes[sh][0], n = shapes[sh][1], k = shapes[sh][2], m = ms[i];
      double wb = j == 2 ? 1 : 2, peak = j == 2 ? h200->flops_fp8 * t->fp8 : h200->flops_bf16;
      if (j == 2 && m < 16)
        continue;
      double rate = peak * t->eff * m / moe_tile_rows(m, tile);
      double time = fmax(2 * e * m * n * k / rate, e * n * k * wb / bw) + t->fixed;
      g_string_append_printf(s, "grouped,%s,%.0f,%.0f,%.0f,%.0f,%.9g\n", j == 2 ? "fp8" : "bf16", m, n, k,
                             e * n * k * wb, time);
    }
  return g_string_free(s, FALSE);
}

START_TEST(fit_grouped_tiles)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const SystemSpec *h200 = catalog_system(c, "h200-sxm-hgx8");
  const Truth t = { 0.82, 20, 0.925, 10e-6, 0.87, 0, 0 };
  const double tiles[] = { 64, 128, 16 };
  for (int i = 0; i < 3; i++) {
    g_autofree char *text = with_grouped(h200, &t, tiles[i], 512);
    BenchData d;
    g_autoptr(GError) err = NULL;
    ck_assert_msg(bench_parse(text, "synthetic", &d, &err), "%s", err ? err->message : "");
    CalibrationFit f;
    ck_assert(calibrate_fit(&d, h200, &f, &err));
    ck_assert_uint_eq(f.grouped_rows, 28 + 10); /* 14 rows x 2 shapes in BF16, 16-512 rows in FP8 */
    ck_assert_msg(fabs(f.grouped_tile_m / tiles[i] - 1) < 0.02, "tile %g, fitted %g", tiles[i], f.grouped_tile_m);
    /* best BF16 rate: 512 rows of 128 experts x 5760 x 2880 (2.17e12 FLOP) at 989e12 x 0.82 x 512 /
     * moe_tile_rows(512, TILE), 10 us more; FP8 likewise at 1979e12 x 0.82 x 0.87 on 32 x 4096 x 7168 */
    double bf16 = 2.0 * 128 * 512 * 5760 * 2880, fp8 = 2.0 * 32 * 512 * 4096 * 7168;
    double t_bf16 = bf16 / (h200->flops_bf16 * 0.82 * 512 / moe_tile_rows(512, tiles[i])) + 10e-6;
    double t_fp8 = fp8 / (h200->flops_fp8 * 0.82 * 0.87 * 512 / moe_tile_rows(512, tiles[i])) + 10e-6;
    ck_assert_close(f.grouped_bf16_flops, bf16 / t_bf16, 1e-6);
    ck_assert_close(f.grouped_fp8_flops, fp8 / t_fp8, 1e-6);
    Profile p;
    profile_defaults(&p);
    double before = p.arch[ARCH_HOPPER].grouped_tile_m;
    calibrate_apply(&f, h200, &p);
    ck_assert(p.arch[ARCH_HOPPER].grouped_tile_m == before);
    g_autofree char *keys = calibrate_measured_keys(&f, h200, &p);
    ck_assert_msg(!strstr(keys, "grouped_tile_m"), "%s", keys);
    profile_clear(&p);
    bench_data_clear(&d);
  }
  /* 1-4 rows per expert: every grouped GEMM reads its weights; no tile is measured */
  g_autofree char *text = with_grouped(h200, &t, 64, 4);
  BenchData d;
  g_autoptr(GError) err = NULL;
  ck_assert(bench_parse(text, "synthetic", &d, &err));
  CalibrationFit f;
  ck_assert(calibrate_fit(&d, h200, &f, &err));
  ck_assert(f.grouped_tile_m == 0);
  Profile p;
  profile_defaults(&p);
  double before = p.arch[ARCH_HOPPER].grouped_tile_m;
  calibrate_apply(&f, h200, &p);
  ck_assert(p.arch[ARCH_HOPPER].grouped_tile_m == before);
  profile_clear(&p);
  bench_data_clear(&d);
}
END_TEST

/* The special-function units' exponentials: 135,168 threads (4 blocks of 256 on each of 132 SMs) x
 * 32,768 exponentials = 4.42919e9 in 1.0325 ms, 4.28977e12/s, best of two runs; the H200's catalog
 * has 3.9e12/s (FlashAttention-3's H100 figure), so exp_efficiency = 4.28977 / 3.9 = 1.09994, which
 * calibrate_apply writes into the Hopper layer. Where the catalog has no rate (0) the figure is
 * reported only: nothing to scale, the key not measured. A rate 11x the catalog's is refused. */
START_TEST(fit_exponentials)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const SystemSpec *h200 = catalog_system(c, "h200-sxm-hgx8");
  g_autofree char *text = plain_runs(h200, "sfu,exp2,135168,32768,,0,0.0011\nsfu,exp2,135168,32768,,0,0.0010325\n");
  BenchData d;
  g_autoptr(GError) err = NULL;
  ck_assert_msg(bench_parse(text, "synthetic", &d, &err), "%s", err ? err->message : "");
  CalibrationFit f;
  ck_assert(calibrate_fit(&d, h200, &f, &err));
  ck_assert_close(f.exp_rate, 4.28977e12, 1e-5);
  ck_assert_close(f.exp_efficiency, 1.09994, 1e-5);
  Profile p;
  profile_defaults(&p);
  ck_assert(p.arch[ARCH_HOPPER].exp_efficiency == 1);
  calibrate_apply(&f, h200, &p);
  ck_assert_close(p.arch[ARCH_HOPPER].exp_efficiency, 1.09994, 1e-5);
  g_autofree char *keys = calibrate_measured_keys(&f, h200, &p);
  ck_assert_msg(strstr(keys, "hopper.exp_efficiency"), "%s", keys);
  profile_clear(&p);
  SystemSpec unknown = *h200; /* a shallow copy, never cleared */
  unknown.exp_rate = 0;
  ck_assert(calibrate_fit(&d, &unknown, &f, &err));
  ck_assert_close(f.exp_rate, 4.28977e12, 1e-5);
  ck_assert(f.exp_efficiency == 0);
  g_autofree char *none = calibrate_measured_keys(&f, &unknown, NULL);
  ck_assert_msg(!strstr(none, "exp_efficiency"), "%s", none);
  bench_data_clear(&d);
  /* a loop 10x the catalog's rate (SECONDS a digit short) is not this GPU's: refused, said why */
  g_autofree char *wrong = plain_runs(h200, "sfu,exp2,135168,32768,,0,0.00010325\n");
  ck_assert(bench_parse(wrong, "synthetic", &d, &err));
  ck_assert(!calibrate_fit(&d, h200, &f, &err));
  ck_assert_msg(err && strstr(err->message, "not a measurement") && strstr(err->message, "sfu"), "%s",
                err ? err->message : "");
  bench_data_clear(&d);
}
END_TEST

START_TEST(power_phases)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const SystemSpec *h200 = catalog_system(c, "h200-sxm-hgx8");
  g_autofree char *text = plain_runs(h200, "attn,decode,16,32768,,2147483648,0.000567\n"
                                           "attn,decode,128,32768,,17179869184,0.004993\n"
                                           "attn,prefill,4096,64,128,2147483648,0.0005\n"
                                           "power,idle,124,1980,700,0,5.0\npower,memory,443,1980,700,1.97e13,5.0\n"
                                           "power,mix25,560,1800,700,1e15,5.0\n"
                                           "power,compute,692,1466,700,3.3e15,5.0\n"
                                           "power,compute-fp8,695,1386,700,5.5e15,5.0\n");
  BenchData d;
  g_autoptr(GError) err = NULL;
  ck_assert_msg(bench_parse(text, "synthetic", &d, &err), "%s", err ? err->message : "");
  CalibrationFit f;
  ck_assert(calibrate_fit(&d, h200, &f, &err));
  ck_assert_close(f.idle_w, 124, 1e-12);
  ck_assert_close(f.memory_w, 443, 1e-12);
  ck_assert_close(f.compute_w, 692, 1e-12);
  ck_assert_close(f.power_limit, 700, 1e-12);
  ck_assert_close(f.memory_bound_power, 0.553819444, 1e-6);
  ck_assert_close(f.compute_clock, 0.740404040, 1e-6);
  ck_assert_close(f.sustained_flops, 6.6e14, 1e-9);
  ck_assert_close(f.decode_bw, 2147483648 / 0.000567, 1e-9); /* the better of the two reads */
  ck_assert_close(f.prefill_flops, 4.0 * 4096 * 4096 * 128 * 64 / 0.0005, 1e-9); /* not a decode read */
  ck_assert_close(f.sustained_fp8_flops, 1.1e15, 1e-9);
  ck_assert_close(f.compute_fp8_clock, 0.7, 1e-9);
  ck_assert_uint_eq(f.n_mix, 1);
  ck_assert_close(f.mix[0].share, 0.25, 1e-12);
  ck_assert_close(f.mix[0].watts, 560, 1e-12);
  ck_assert_close(f.mix[0].clock, 1800 / 1980.0, 1e-9);
  bench_data_clear(&d);
  /* without power rows nothing is made up */
  g_autofree char *bare = plain_runs(h200, "");
  ck_assert(bench_parse(bare, "synthetic", &d, &err));
  ck_assert(calibrate_fit(&d, h200, &f, &err));
  ck_assert(f.idle_w == 0 && f.memory_bound_power == 0 && f.compute_clock == 0 && f.decode_bw == 0 &&
            f.prefill_flops == 0);
  bench_data_clear(&d);
}
END_TEST

/* NVFP4 on a B200 (the rows name an H200, which calibrate_fit does not read): the FP4 share of its
 * own peak comes back as fp4_efficiency; on an H200, which has no FP4 tensor cores, such rows are
 * not fitted. */
START_TEST(fit_fp4)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const SystemSpec *b200 = catalog_system(c, "b200-hgx8"), *h200 = catalog_system(c, "h200-sxm-hgx8");
  Truth t = { 0.7, 40, 0.8, 5e-6, 0.9, 0, 0.8 };
  g_autofree char *text = synthetic(b200, &t);
  BenchData d;
  g_autoptr(GError) err = NULL;
  ck_assert(bench_parse(text, "synthetic", &d, &err));
  CalibrationFit f;
  ck_assert(calibrate_fit(&d, b200, &f, &err));
  ck_assert_close(f.gemm_efficiency, 0.7, 0.002);
  ck_assert_close(f.fp4_efficiency, 0.7 * 0.8, 0.004);
  ck_assert(f.fp4_flops > 0);
  g_autofree char *keys = calibrate_measured_keys(&f, b200, NULL);
  ck_assert_msg(strstr(keys, "blackwell.fp4_efficiency"), "%s", keys);
  Profile p;
  profile_defaults(&p);
  calibrate_apply(&f, b200, &p);
  ck_assert_close(p.arch[ARCH_BLACKWELL].fp4_efficiency, f.fp4_efficiency, 1e-12);
  profile_clear(&p);
  /* B200 runs are faster than an H200's datasheet: fitted as an H200 they are refused, not written
   * as efficiencies above 1 */
  ck_assert(!calibrate_fit(&d, h200, &f, &err));
  ck_assert_msg(strstr(err->message, "not a measurement of h200-sxm-hgx8"), "%s", err->message);
  g_clear_error(&err);
  bench_data_clear(&d);
  /* H200 runs with the B200's FP4 GEMM rows among them: nothing FP4 is fitted on Hopper */
  Truth th = t;
  th.fp4 = 0;
  g_autofree char *h_text = synthetic(h200, &th);
  g_autoptr(GString) mixed = g_string_new(h_text);
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (char **l = lines; *l; l++)
    if (g_str_has_prefix(*l, "gemm,fp4,"))
      g_string_append_printf(mixed, "%s\n", *l);
  ck_assert(bench_parse(mixed->str, "synthetic", &d, &err));
  ck_assert(calibrate_fit(&d, h200, &f, &err));
  ck_assert(f.fp4_efficiency == 0 && f.fp4_flops == 0);
  bench_data_clear(&d);
}
END_TEST

START_TEST(parse_errors)
{
  const char *bad[][2] = {
    { "device,NVIDIA H200,132,1980000,1e11,9,0\nhbm,read,,,,4e9,zero\n", "x.csv:2:17: expected a time of at least 1e-9 s, got 'zero'" },
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

/* Runs of one GPU merge (each shape at its best time, power phases averaged); another GPU's run is
 * refused at its device line. */
START_TEST(merge_runs)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const SystemSpec *h200 = catalog_system(c, "h200-sxm-hgx8");
  g_autofree char *text = plain_runs(h200, "power,idle,120,1980,700,0,5\n");
  GString *slow = g_string_new("# slower run\ndevice,NVIDIA H200,132,1980000,150000000000,9,0\n");
  g_string_append(slow, "gemm,bf16,8192,8192,8192,134217728,0.5\npower,idle,130,1980,700,0,5\n");
  BenchData a, b, other;
  g_autoptr(GError) err = NULL;
  ck_assert(bench_parse(text, "a.csv", &a, &err));
  ck_assert(bench_parse(slow->str, "b.csv", &b, &err));
  const char *b200 = "device,NVIDIA B200,148,1965000,180000000000,10,0\nhbm,read,,,,1e9,1e-3\n";
  ck_assert(bench_parse(b200, "c.csv", &other, &err));
  ck_assert(bench_merge(&a, &b, "b.csv", &err));
  CalibrationFit f;
  ck_assert(calibrate_fit(&a, h200, &f, &err));
  ck_assert_uint_eq(f.gemm_rows, 28);            /* the slow repeat is the same shape */
  ck_assert_close(f.gemm_efficiency, 0.8, 0.002); /* at its best time */
  ck_assert_close(f.idle_w, 125, 1e-12);          /* power phases averaged */
  ck_assert(!bench_merge(&a, &other, "c.csv", &err));
  ck_assert_msg(g_str_has_prefix(err->message, "c.csv:1:1: measured on NVIDIA B200"), "%s", err->message);
  bench_data_clear(&a);
  bench_data_clear(&b);
  bench_data_clear(&other);
  g_string_free(slow, TRUE);
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

/* Collectives on N x H200 (NVLink 4: 450 GB/s one way) come back out. All-to-alls on one line:
 * 23 us + (N-1)/N x bytes at 0.78 (351 GB/s). All-reduces in two regimes, each time the faster:
 * small messages 30 us + 2(N-1)/N x bytes at 0.6 (270 GB/s), large ones 60 us + the same at BULK
 * as a ring reads them. On 8 GPUs with BULK 1.0 they cross at 20.25 MB moved (test_model
 * all_reduce_algorithms), so of the sizes here (8 KiB x 4^k to 128 MiB: 1.75 x size moved) the six
 * up to 8 MiB (14.7 MB moved) are the small regime's and the two from 32 MiB (58.7 MB) the bulk's:
 * the split at 58.7 MB leaves no residual, any other leaves some (BULK 0.8 crosses at 32.4 MB
 * moved, 30e-6 x 450e9 / (1/0.6 - 1/0.8): the same split). Runs on one line give both regimes that
 * line.
 * Which line the large ones write: read as the switch's reduction, (N+1)/N of the message each way
 * where a ring's reading counts 2(N-1)/N, BULK x (N+1) / (2(N-1)): 1.0 on 8 GPUs is 9/14 = 0.642857,
 * 1.2 is 0.771429; 1.0 on 4 GPUs 5/6 = 0.833333; 0.9 on 2 GPUs 1.35, past the bound.
 * - 8 GPUs, 1.0, the shipped profile (a switch line, the ring's bulk at 0.822): faster than its
 *   ring, so NCCL ran the switch's: allreduce_nvls_* written (60 us, 0.642857), the ring's kept.
 * - 4 GPUs, 1.0, the same: 0.833333 as the switch's.
 * - 8 GPUs, 0.8, the same: no faster than its ring (0.822): the ring's bulk line, 0.8.
 * - 8 GPUs, 1.2, a profile with no switch line: no ring moves that much, the switch's (0.771429).
 * - 8 GPUs, 0.6 (one line), the shipped profile: the ring's, 0.6 for both.
 * - 2 GPUs, 0.9, the shipped profile: faster than its ring, but as the switch's it would read 1.35:
 *   the ring's, 0.9.
 * - 2 GPUs, 1.2: faster than a ring, and 1.8 as the switch's: not a measurement, refused.
 * One GPU's run leaves the profile's collective figures alone. */
START_TEST(fit_collectives)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const SystemSpec *h200 = catalog_system(c, "h200-sxm-hgx8");
  Truth t = { 0.7, 64, 0.85, 0, 1, 0, 0 };
  g_autofree char *base = synthetic(h200, &t);
  double one_way = h200->nvlink_bandwidth / 2;
  const struct {
    int gpus;
    double bulk;              /* as a ring reads it; 0.6: one line */
    gboolean switch_line;     /* the profile has one */
    double written;           /* -1: refused */
    gboolean nvls;
  } cases[] = {
    { 8, 1.0, TRUE, 0.642857, TRUE },  { 4, 1.0, TRUE, 0.833333, TRUE }, { 8, 0.8, TRUE, 0.8, FALSE },
    { 8, 1.2, FALSE, 0.771429, TRUE }, { 8, 0.6, TRUE, 0.6, FALSE },     { 2, 0.9, TRUE, 0.9, FALSE },
    { 2, 1.2, TRUE, -1, FALSE },
  };
  for (gsize k = 0; k < G_N_ELEMENTS(cases); k++) {
    double n = cases[k].gpus, ring = 2 * (n - 1) / n;
    gboolean two = cases[k].bulk != 0.6;
    GString *s = g_string_new(base);
    for (double bytes = 8192; bytes <= 512e6; bytes *= 4) {
      double moved = ring * bytes, small = 30e-6 + moved / (0.6 * one_way);
      double bulk = two ? 60e-6 + moved / (cases[k].bulk * one_way) : small;
      g_string_append_printf(s, "nccl,allreduce,%d,,,%.0f,%.9g\n", cases[k].gpus, bytes, MIN(small, bulk));
      g_string_append_printf(s, "nccl,alltoall,%d,,,%.0f,%.9g\n", cases[k].gpus, bytes,
                             23e-6 + (n - 1) / n * bytes / (0.78 * one_way));
    }
    g_string_append(s, "p2p,unidirectional,2,,,268435456,0.000671\n");
    BenchData d;
    g_autoptr(GError) err = NULL;
    ck_assert(bench_parse(s->str, "synthetic", &d, &err));
    CalibrationFit f;
    gboolean fitted = calibrate_fit(&d, h200, &f, &err);
    ck_assert(fitted == (cases[k].written > 0));
    if (!fitted) {
      ck_assert(strstr(err->message, "allreduce_bulk_efficiency"));
      bench_data_clear(&d);
      g_string_free(s, TRUE);
      continue;
    }
    ck_assert_uint_eq(f.alltoall_rows, 8);
    ck_assert_uint_eq(f.allreduce_rows, 8);
    ck_assert_close(f.nvlink_efficiency, 0.78, 1e-6);
    ck_assert_close(f.collective_latency, 23e-6, 1e-6);
    ck_assert_close(f.allreduce_efficiency, 0.6, 1e-6);
    ck_assert_close(f.allreduce_latency, 30e-6, 1e-6);
    ck_assert_close(f.allreduce_bulk_efficiency, cases[k].bulk, 1e-6);
    ck_assert_close(f.allreduce_bulk_latency, two ? 60e-6 : 30e-6, 1e-6);
    ck_assert_close(f.allreduce_gpus, n, 1e-12);
    if (two)
      ck_assert_close(f.allreduce_split, ring * 8192 * 4096, 1e-9);
    else
      ck_assert(f.allreduce_split == 0);
    ck_assert_close(f.p2p_bw, 268435456 / 0.000671, 1e-9);
    Profile p;
    profile_defaults(&p);
    ArchProfile *a = &p.arch[ARCH_HOPPER];
    if (!cases[k].switch_line)
      a->allreduce_nvls_efficiency = 0;
    double ring_before = a->allreduce_bulk_efficiency, switch_before = a->allreduce_nvls_efficiency;
    calibrate_apply(&f, h200, &p);
    ck_assert_close(a->collective_latency, 23e-6, 1e-6);
    ck_assert_close(a->allreduce_efficiency, 0.6, 1e-6);
    g_autofree char *keys = calibrate_measured_keys(&f, h200, &p);
    ck_assert(strstr(keys, "hopper.allreduce_latency") && strstr(keys, "hopper.nvlink_efficiency"));
    if (cases[k].nvls) {
      ck_assert_close(a->allreduce_nvls_efficiency, cases[k].written, 1e-5);
      ck_assert_close(a->allreduce_nvls_latency, 60e-6, 1e-6);
      ck_assert_close(a->allreduce_bulk_efficiency, ring_before, 1e-12);
      ck_assert(strstr(keys, "hopper.allreduce_nvls_efficiency") && !strstr(keys, "allreduce_bulk"));
    } else {
      ck_assert_close(a->allreduce_bulk_efficiency, cases[k].written, 1e-6);
      ck_assert_close(a->allreduce_bulk_latency, two ? 60e-6 : 30e-6, 1e-6);
      ck_assert_close(a->allreduce_nvls_efficiency, switch_before, 1e-12);
      ck_assert(strstr(keys, "hopper.allreduce_bulk_efficiency") && !strstr(keys, "allreduce_nvls"));
    }
    profile_clear(&p);
    bench_data_clear(&d);
    g_string_free(s, TRUE);
  }
  /* one GPU: no collectives, the profile keeps its collective figures */
  BenchData d;
  g_autoptr(GError) err = NULL;
  ck_assert(bench_parse(base, "synthetic", &d, &err));
  CalibrationFit f;
  ck_assert(calibrate_fit(&d, h200, &f, &err));
  ck_assert_uint_eq(f.alltoall_rows, 0);
  ck_assert_uint_eq(f.allreduce_rows, 0);
  Profile p;
  profile_defaults(&p);
  double before = p.arch[ARCH_HOPPER].nvlink_efficiency, bulk = p.arch[ARCH_HOPPER].allreduce_bulk_efficiency,
         nvls = p.arch[ARCH_HOPPER].allreduce_nvls_efficiency;
  calibrate_apply(&f, h200, &p);
  ck_assert_close(p.arch[ARCH_HOPPER].nvlink_efficiency, before, 1e-12);
  ck_assert_close(p.arch[ARCH_HOPPER].allreduce_bulk_efficiency, bulk, 1e-12);
  ck_assert_close(p.arch[ARCH_HOPPER].allreduce_nvls_efficiency, nvls, 1e-12);
  profile_clear(&p);
  bench_data_clear(&d);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("calibrate");
  TCase *tc = tcase_create("calibrate");
  tcase_set_timeout(tc, 60);
  tcase_add_test(tc, fit_recovers_a_known_curve);
  tcase_add_test(tc, power_phases);
  tcase_add_test(tc, fit_exponentials);
  tcase_add_test(tc, fit_grouped_tiles);
  tcase_add_test(tc, fit_fp4);
  tcase_add_test(tc, parse_errors);
  tcase_add_test(tc, fit_collectives);
  tcase_add_test(tc, match_system);
  tcase_add_test(tc, merge_runs);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
