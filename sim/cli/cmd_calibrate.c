/* cmd_calibrate.c — `aifsim calibrate [-o PROFILE.yaml] [--quick] [--from RAW.csv ...]`: run the CUDA
 * calibration kernels on the local GPU (or read a saved run), fit the profile for that GPU's
 * architecture and write it with the raw measurements beside it (PROFILE.raw.csv). */
#include "calibrate.h"
#include "commands.h"
#include "datadir.h"
#include "output_dir.h"
#include "results.h"

#include <stdio.h>
#include <string.h>

#include "aif_error.h"
#include "input_file.h"

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
  fprintf(stderr, "calibrate: running %s%s (about %d s on an H200)\n", path, quick ? " --quick" : "", quick ? 20 : 40);
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

/* One saved run at PATH, parsed into OUT; a file that cannot be read is the user's input. */
static gboolean read_run(const char *path, BenchData *out, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  return input_file_read(path, &text, &len, error) && bench_parse(text, path, out, error);
}

/* The measurements: the saved runs FROM merged, or the kernels run now (their output in *RAW). */
static gboolean read_runs(char **from, gboolean quick, char **raw, BenchData *d, GError **error)
{
  if (!from)
    return (*raw = run_bench(quick, error)) && bench_parse(*raw, "aifsim-bench output", d, error);
  if (!read_run(from[0], d, error))
    return FALSE;
  for (char **f = from + 1; *f; f++) {
    BenchData one = { 0 }; /* clearing it is safe whatever failed */
    gboolean ok = read_run(*f, &one, error) && bench_merge(d, &one, *f, error);
    bench_data_clear(&one);
    if (!ok) {
      bench_data_clear(d);
      return FALSE;
    }
  }
  return TRUE;
}

/* What was measured and fitted, one figure per line: printed, and kept at the head of the written
 * profile so that it says what it was made from. */
static char *report(const BenchData *d, const SystemSpec *sys, const CalibrationFit *f)
{
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "%s (%d SMs, %.0f MHz, %.0f GB) as %s\n", d->device, d->sms, d->sm_clock / 1e6,
                         d->memory / 1e9, sys->id);
  g_string_append_printf(s, "  HBM        %7.2f TB/s of %.2f: hbm_efficiency %.3f\n", f->hbm_bw / 1e12,
                         sys->hbm_bandwidth / 1e12, f->hbm_efficiency);
  if (f->bf16_flops > 0)
    g_string_append_printf(s, "  BF16 GEMM  %7.0f TFLOP/s of %.0f (best shape)\n", f->bf16_flops / 1e12,
                           sys->flops_bf16 / 1e12);
  if (f->fp8_flops > 0)
    g_string_append_printf(s, "  FP8 GEMM   %7.0f TFLOP/s of %.0f (best shape)\n", f->fp8_flops / 1e12,
                           sys->flops_fp8 / 1e12);
  if (f->fp8_block_flops > 0)
    g_string_append_printf(s, "  FP8 block  %7.0f TFLOP/s (best shape, 128 x 128 weight blocks): "
                           "fp8_block_efficiency %.3f\n", f->fp8_block_flops / 1e12, f->fp8_block_efficiency);
  if (f->fp4_flops > 0)
    g_string_append_printf(s, "  FP4 GEMM   %7.0f TFLOP/s of %.0f (best shape, NVFP4): fp4_efficiency %.3f\n",
                           f->fp4_flops / 1e12, sys->flops_fp4 / 1e12, f->fp4_efficiency);
  g_string_append_printf(s, "  GEMM curve gemm_efficiency %.3f (FP8: x fp8_efficiency %.3f), gemm_half_m %.1f rows,\n"
                         "             %.1f us fixed per GEMM (%u shapes, rms log error %.3f)\n", f->gemm_efficiency,
                         f->fp8_efficiency, f->gemm_half_m, f->gemm_fixed * 1e6, f->gemm_rows, f->rms_log_error);
  if (f->grouped_bf16_flops > 0)
    g_string_append_printf(s, "  grouped    %7.0f TFLOP/s BF16 (best shape; expert GEMMs batched over the experts)\n",
                           f->grouped_bf16_flops / 1e12);
  if (f->grouped_fp8_flops > 0)
    g_string_append_printf(s, "  grouped    %7.0f TFLOP/s FP8 (best shape, per-tensor scales)\n", f->grouped_fp8_flops / 1e12);
  if (f->grouped_tile_m > 0)
    g_string_append_printf(s, "             as tiles of %.0f rows (%u batched GEMMs, rms log error %.3f); reported: "
                           "grouped_tile_m stays\n             the profile's, the tile of the stacks' own grouped "
                           "kernels\n", f->grouped_tile_m, f->grouped_rows, f->grouped_rms_log_error);
  if (f->decode_bw > 0)
    g_string_append_printf(s, "  decode     %7.2f TB/s best KV read (%.0f%% of the HBM stream)\n", f->decode_bw / 1e12,
                           100 * f->decode_bw / f->hbm_bw);
  if (f->prefill_flops > 0)
    g_string_append_printf(s, "  prefill    %7.0f TFLOP/s attention's Q K^T and S V as batched GEMMs, head dimension 128\n"
                           "             (%.0f%% of the BF16 peak; reported: fused kernels skip S's round trip)\n",
                           f->prefill_flops / 1e12, 100 * f->prefill_flops / sys->flops_bf16);
  if (f->exp_rate > 0 && f->exp_efficiency > 0)
    g_string_append_printf(s, "  exp        %7.2f T/s exponentials (MUFU.EX2) of %.2f: exp_efficiency %.3f\n",
                           f->exp_rate / 1e12, sys->exp_rate / 1e12, f->exp_efficiency);
  else if (f->exp_rate > 0)
    g_string_append_printf(s, "  exp        %7.2f T/s exponentials (MUFU.EX2; reported: the catalog has no gpu.exp_rate)\n",
                           f->exp_rate / 1e12);
  if (f->p2p_bw > 0)
    g_string_append_printf(s, "  peer copy  %7.1f GB/s GPU 0 -> 1 (NVLink one way: %.0f GB/s)\n", f->p2p_bw / 1e9,
                           sys->nvlink_bandwidth / 2e9);
  if (f->alltoall_rows)
    g_string_append_printf(s, "  NCCL       nvlink_efficiency %.3f, collective_latency %.1f us (%u all-to-all rows)\n",
                           f->nvlink_efficiency, f->collective_latency * 1e6, f->alltoall_rows);
  if (f->allreduce_rows && f->allreduce_split > 0)
    g_string_append_printf(s, "  all-reduce %.1f us + bytes at %.3f of NVLink one way; from %.3g MB moved a GPU, "
                           "%.1f us + bytes at %.3f as a ring's, %.3f as the switch's reduction over %.0f GPUs "
                           "(%u rows)\n", f->allreduce_latency * 1e6, f->allreduce_efficiency,
                           f->allreduce_split / 1e6, f->allreduce_bulk_latency * 1e6, f->allreduce_bulk_efficiency,
                           f->allreduce_nvls_efficiency, f->allreduce_gpus, f->allreduce_rows);
  else if (f->allreduce_rows)
    g_string_append_printf(s, "  all-reduce %.1f us + bytes at %.3f of NVLink one way, one line for every size "
                           "(%u rows)\n", f->allreduce_latency * 1e6, f->allreduce_efficiency, f->allreduce_rows);
  if (f->launch > 0)
    g_string_append_printf(s, "  launch     %7.2f us per empty kernel (reported; the stack overheads are the "
                           "framework's)\n", f->launch * 1e6);
  if (f->h2d_bw > 0)
    g_string_append_printf(s, "  host link  %7.1f GB/s to the GPU, %.1f GB/s back\n", f->h2d_bw / 1e9, f->d2h_bw / 1e9);
  if (f->idle_w > 0)
    g_string_append_printf(s, "  power      %.0f W idle (context open), %.0f W streaming HBM, %.0f W in GEMMs "
                           "(limit %.0f W)\n             for the catalog: idle_power %.0f W, memory_bound_power "
                           "%.3f (it has %.0f W, %.3f)\n",
                           f->idle_w, f->memory_w, f->compute_w, f->power_limit, f->idle_w, f->memory_bound_power,
                           sys->idle_power, sys->memory_bound_power);
  if (f->sustained_flops > 0)
    g_string_append_printf(s, "  sustained  %7.0f TFLOP/s BF16 over seconds of GEMMs (%.0f%% of the burst rate), "
                           "SM clock\n             %.0f%% of its maximum under the power limit\n", f->sustained_flops / 1e12,
                           100 * f->sustained_flops / f->bf16_flops, 100 * f->compute_clock);
  if (f->sustained_fp8_flops > 0 && f->fp8_flops > 0)
    g_string_append_printf(s, "  sustained  %7.0f TFLOP/s FP8 (%.0f%% of the burst rate) at %.0f W, SM clock %.0f%%\n",
                           f->sustained_fp8_flops / 1e12, 100 * f->sustained_fp8_flops / f->fp8_flops, f->compute_fp8_w,
                           100 * f->compute_fp8_clock);
  for (guint i = 0; i < f->n_mix; i++)
    g_string_append_printf(s, "  mixed      GEMMs %2.0f%% of the time: %.0f W at SM clock %.0f%% (power model "
                           "%.0f W)\n", 100 * f->mix[i].share, f->mix[i].watts, 100 * f->mix[i].clock,
                           f->mix[i].model_watts);
  return g_string_free(s, FALSE);
}

int cmd_calibrate(int argc, char **argv)
{
  g_autofree char *out_path = NULL, *system_id = NULL, *base_path = NULL;
  g_auto(GStrv) dirs = NULL, from = NULL;
  gboolean quick = FALSE;
  GOptionEntry entries[] = {
    { "output", 'o', 0, G_OPTION_ARG_FILENAME, &out_path, "write the profile to FILE, the raw measurements to FILE's .raw.csv (default: stdout)", "PROFILE.yaml" },
    { "quick", 0, 0, G_OPTION_ARG_NONE, &quick, "fewer shapes and repetitions, shorter power phases (about 20 s on an H200, 40 s without)", NULL },
    { "from", 0, 0, G_OPTION_ARG_FILENAME_ARRAY, &from, "fit a saved run of the kernels instead of running them (repeat: several runs on one GPU fitted together)", "RAW.csv" },
    { "system", 0, 0, G_OPTION_ARG_STRING, &system_id, "the catalog system of this GPU (default: matched by the GPU's name)", "ID" },
    { "profile", 'p', 0, G_OPTION_ARG_FILENAME, &base_path, "start from this profile (default: the shipped one)", "PROFILE.yaml" },
    { "catalog", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, "add catalog folder DIR", "DIR" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
  g_option_context_set_summary(ctx, "Measure the local GPU with the CUDA calibration kernels (HBM, cuBLAS GEMMs, decode\n"
                                    "attention, launches, host copies, board power), fit the profile's efficiencies\n"
                                    "for its architecture and write the profile (use it with --profile).");
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
  BenchData d;
  if (!read_runs(from, quick, &raw, &d, &err))
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
  g_autofree char *summary = fitted ? report(&d, sys, &fit) : NULL;
  if (summary)
    fprintf(stderr, "calibrate: %s", summary);
  Profile prof;
  if (!fitted || !cli_profile(base_path, &prof, &err)) {
    bench_data_clear(&d);
    return cli_fail("calibrate", err);
  }
  calibrate_apply(&fit, sys, &prof);
  g_autofree char *held = calibrate_measured_keys(&fit, sys, &prof);
  g_free(prof.source);
  guint runs = from ? g_strv_length(from) : 1;
  prof.source = g_strdup_printf("aifsim calibrate on %s (%s architecture measured%s; the rest from %s)", d.device,
                                gpu_arch_names[sys->arch], runs > 1 ? ", several runs" : "",
                                base_path ? base_path : "the shipped profile");
  g_auto(GStrv) lines = g_strsplit(g_strchomp(summary), "\n", -1);
  g_autofree char *commented = g_strjoinv("\n# ", lines);
  g_autofree char *head = g_strdup_printf("# aifsim efficiency profile measured by `aifsim calibrate` "
                                          "(calibration/README.md):\n# %s\n", commented);
  g_autofree char *yaml = profile_to_yaml(&prof, head);
  profile_clear(&prof);
  bench_data_clear(&d);
  if (!out_path) {
    fputs(yaml, stdout);
    return 0;
  }
  g_autofree char *stem = g_str_has_suffix(out_path, ".yaml") ? g_strndup(out_path, strlen(out_path) - 5) : g_strdup(out_path);
  g_autofree char *raw_path = g_strconcat(stem, ".raw.csv", NULL);
  if ((!from && !atomic_file_write(raw_path, raw, -1, &err)) || !atomic_file_write(out_path, yaml, -1, &err))
    return cli_fail("calibrate", err);
  fprintf(stderr, "calibrate: wrote %s%s%s\n", out_path, from ? "" : " and ", from ? "" : raw_path);
  fprintf(stderr, "calibrate: measured %s; the rest of the hardware layer is %s's\n", held,
          base_path ? base_path : "the shipped profile");
  fprintf(stderr, "calibrate: to fit the stack layer around the measured hardware on your own measured rows (the fit "
          "holds the hardware layer):\n  aifsim fit ROWS.csv -p %s -o FITTED.yaml\n", out_path);
  return 0;
}
