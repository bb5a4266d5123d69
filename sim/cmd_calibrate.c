/* cmd_calibrate.c — `aifsim calibrate [-o PROFILE.yaml] [--quick] [--from RAW.csv]`: run the CUDA
 * calibration kernels on the local GPU (or read a saved run), fit the profile for that GPU's
 * architecture and write it with the raw measurements beside it (PROFILE.raw.csv). */
#include "calibrate.h"
#include "commands.h"
#include "datadir.h"
#include "results.h"

#include <stdio.h>
#include <string.h>

#include "aif_error.h"

/* The kernels' program: $AIFSIM_BENCH, else the one built or installed with this aifsim, if
 * it was built (configure found nvcc). */
static char *bench_path(void)
{
  const char *env = g_getenv("AIFSIM_BENCH");
  if (env && *env)
    return g_strdup(env);
  g_autofree char *path = datadir_program("calibration", "aifsim-bench");
  return g_file_test(path, G_FILE_TEST_IS_EXECUTABLE) ? g_steal_pointer(&path) : NULL;
}

/* Runs the kernels; their output, or NULL with why. */
static char *run_bench(gboolean quick, GError **error)
{
  g_autofree char *path = bench_path();
  if (!path) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "the calibration kernels are not built: install the CUDA "
                "toolkit (nvcc, cuBLAS), then ./configure && make (see calibration/README.md)");
    return NULL;
  }
  char *argv[] = { path, quick ? "--quick" : NULL, NULL };
  char *out = NULL, *err = NULL;
  int status = 0;
  fprintf(stderr, "calibrate: running %s%s (%s)\n", path, quick ? " --quick" : "", quick ? "about a minute" : "a few minutes");
  if (!g_spawn_sync(NULL, argv, NULL, G_SPAWN_CHILD_INHERITS_STDIN, NULL, NULL, &out, &err, &status, error))
    return NULL;
  g_autofree char *msg = g_strstrip(err ? err : g_strdup(""));
  if (WIFEXITED(status) && WEXITSTATUS(status) == 3) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "no NVIDIA GPU found: calibration measures the local GPU "
                "(%s)", msg);
    g_free(out);
    return NULL;
  }
  if (!g_spawn_check_wait_status(status, NULL)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "the calibration kernels failed: %s", msg);
    g_free(out);
    return NULL;
  }
  return out;
}

static void report(const BenchData *d, const SystemSpec *sys, const CalibrationFit *f)
{
  fprintf(stderr, "calibrate: %s (%d SMs, %.0f MHz, %.0f GB) as %s\n", d->device, d->sms, d->sm_clock / 1e6,
          d->memory / 1e9, sys->id);
  fprintf(stderr, "  HBM        %7.2f TB/s of %.2f: hbm_efficiency %.3f\n", f->hbm_bw / 1e12, sys->hbm_bandwidth / 1e12,
          f->hbm_efficiency);
  if (f->bf16_flops > 0)
    fprintf(stderr, "  BF16 GEMM  %7.0f TFLOP/s of %.0f (best shape)\n", f->bf16_flops / 1e12, sys->flops_bf16 / 1e12);
  if (f->fp8_flops > 0)
    fprintf(stderr, "  FP8 GEMM   %7.0f TFLOP/s of %.0f (best shape)\n", f->fp8_flops / 1e12, sys->flops_fp8 / 1e12);
  fprintf(stderr, "  GEMM curve gemm_efficiency %.3f, gemm_half_m %.1f rows (%u shapes, rms log error %.3f)\n",
          f->gemm_efficiency, f->gemm_half_m, f->gemm_rows, f->rms_log_error);
  if (f->p2p_bw > 0)
    fprintf(stderr, "  peer copy  %7.1f GB/s GPU 0 -> 1 (NVLink one way: %.0f GB/s)\n", f->p2p_bw / 1e9, sys->nvlink_bandwidth / 2e9);
  if (f->nccl_rows)
    fprintf(stderr, "  NCCL       nvlink_efficiency %.3f, collective_latency %.1f us (%u all-reduce / all-to-all rows)\n",
            f->nvlink_efficiency, f->collective_latency * 1e6, f->nccl_rows);
  if (f->launch > 0)
    fprintf(stderr, "  launch     %7.2f us per empty kernel (reported; the stack overheads are the framework's)\n", f->launch * 1e6);
  if (f->h2d_bw > 0)
    fprintf(stderr, "  host link  %7.1f GB/s to the GPU, %.1f GB/s back\n", f->h2d_bw / 1e9, f->d2h_bw / 1e9);
}

int cmd_calibrate(int argc, char **argv)
{
  g_autofree char *out_path = NULL, *from = NULL, *system_id = NULL, *base_path = NULL;
  g_auto(GStrv) dirs = NULL;
  gboolean quick = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out_path, "write the profile to FILE, the raw measurements to FILE's .raw.csv (default: stdout)", "PROFILE.yaml" },
    { "quick", 'q', 0, G_OPTION_ARG_NONE, &quick, "fewer shapes and repetitions (about a minute)", NULL },
    { "from", 'f', 0, G_OPTION_ARG_FILENAME, &from, "fit a saved run of the kernels instead of running them", "RAW.csv" },
    { "system", 's', 0, G_OPTION_ARG_STRING, &system_id, "the catalog system of this GPU (default: matched by the GPU's name)", "ID" },
    { "profile", 'p', 0, G_OPTION_ARG_FILENAME, &base_path, "start from this profile (default: the shipped one)", "PROFILE.yaml" },
    { "catalog", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, "add catalog folder DIR", "DIR" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
  g_option_context_set_summary(ctx, "Measure the local GPU with the CUDA calibration kernels (HBM, cuBLAS GEMMs, decode\n"
                                    "attention, launches, host copies), fit the profile's efficiencies for its\n"
                                    "architecture and write the profile (use it with --profile).");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "calibrate", &argc, &argv))
    return 2;
  if (argc != 1) {
    fprintf(stderr, "aifsim calibrate: unexpected argument '%s'\n", argv[1]);
    return 2;
  }
  g_autoptr(GError) err = NULL;
  g_autoptr(Catalog) cat = cli_catalog(dirs, &err);
  if (!cat)
    return cli_fail("calibrate", err);
  g_autofree char *raw = NULL;
  if (from ? !g_file_get_contents(from, &raw, NULL, &err) : !(raw = run_bench(quick, &err))) {
    if (from && err->domain == G_FILE_ERROR) /* a missing or unreadable file is the user's input */
      err->domain = AIF_ERROR, err->code = AIF_ERROR_INPUT;
    return cli_fail("calibrate", err);
  }
  BenchData d;
  if (!bench_parse(raw, from ? from : "aifsim-bench output", &d, &err))
    return cli_fail("calibrate", err);
  const SystemSpec *sys = system_id ? catalog_system(cat, system_id) : calibrate_match_system(cat->systems, d.device);
  if (!sys) {
    bench_data_clear(&d);
    fprintf(stderr, "aifsim calibrate: %s%s%s: name the catalog system with --system (aifsim catalog lists them)\n",
            system_id ? "no system " : "no catalog system has the GPU ", system_id ? system_id : d.device,
            system_id ? " in the catalog" : "");
    return 2;
  }
  CalibrationFit fit;
  gboolean fitted = calibrate_fit(&d, sys, &fit, &err);
  if (fitted)
    report(&d, sys, &fit);
  Profile prof;
  if (!fitted || !cli_profile(base_path, &prof, &err)) {
    bench_data_clear(&d);
    return cli_fail("calibrate", err);
  }
  calibrate_apply(&fit, sys, &prof);
  g_free(prof.source);
  prof.source = g_strdup_printf("aifsim calibrate on %s (%s architecture measured; the rest from %s)", d.device,
                                gpu_arch_names[sys->arch], base_path ? base_path : "the shipped profile");
  g_autofree char *yaml = profile_to_yaml(&prof, "# aifsim efficiency profile measured by `aifsim calibrate` "
                                                 "(calibration/README.md).\n");
  profile_clear(&prof);
  bench_data_clear(&d);
  if (!out_path) {
    fputs(yaml, stdout);
    return 0;
  }
  g_autofree char *stem = g_str_has_suffix(out_path, ".yaml") ? g_strndup(out_path, strlen(out_path) - 5) : g_strdup(out_path);
  g_autofree char *raw_path = g_strconcat(stem, ".raw.csv", NULL);
  if ((!from && !results_write_file(raw_path, raw, -1, &err)) || !results_write_file(out_path, yaml, -1, &err))
    return cli_fail("calibrate", err);
  fprintf(stderr, "calibrate: wrote %s%s%s\n", out_path, from ? "" : " and ", from ? "" : raw_path);
  return 0;
}
