/* bench_step_time.c — how many engine steps per second the step-time model evaluates on one core.
 * A benchmark, not a test: it prints figures (`make && tests/bench_step_time`). */
#include "bench_util.h"
#include "step_time.h"

#include <stdio.h>

int main(int argc, char **argv)
{
  g_autoptr(Catalog) c = bench_catalog(argc, argv);
  if (!c)
    return 1;
  Profile prof;
  profile_defaults(&prof);
  static const struct { const char *sys, *model; Precision p; int gpus, ep; gboolean dp; int mtp; } cases[] = {
    { "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 8, 1, FALSE, 0 },
    { "b200-hgx8", "deepseek-r1", PREC_FP4, 8, 8, TRUE, 3 },
    { "gb200-nvl72", "deepseek-r1", PREC_FP4, 32, 32, TRUE, 0 },
  };
  printf("%-16s %-14s %12s %14s\n", "system", "model", "steps", "steps/s");
  for (gsize k = 0; k < G_N_ELEMENTS(cases); k++) {
    Engine e = { .sys = catalog_system(c, cases[k].sys), .model = catalog_model(c, cases[k].model), .prof = &prof,
                 .precision = cases[k].p, .kv_precision = PREC_FP8, .gpus = cases[k].gpus, .pp = 1, .ep = cases[k].ep,
                 .dp_attention = cases[k].dp, .draft_tokens = cases[k].mtp, .acceptance = 0.7 };
    const long n = 2000000;
    double sink = 0, t0 = bench_now();
    for (long i = 0; i < n; i++) {
      StepBatch b = { .decode_seqs = 1 + i % 512, .decode_ctx = 1000 + i % 4096, .prefill_tokens = (i % 8) ? 0 : 512,
                      .prefill_seqs = (i % 8) ? 0 : 1, .prefill_ctx = 256 };
      StepTime t;
      step_time(&e, &b, &t);
      sink += t.total;
    }
    double dt = bench_now() - t0;
    printf("%-16s %-14s %12ld %14.3g   (checksum %.6g s)\n", cases[k].sys, cases[k].model, n, n / dt, sink);
  }
  profile_clear(&prof);
  return 0;
}
