/* harness.h — the fuzz targets: one per loader of files other people write.
 *
 * Each target takes raw bytes, writes them where its loader reads (a file in a scratch folder),
 * loads them, and runs what a command would run on a loaded input (a few points evaluated, the
 * rows predicted, the chart's gnuplot twin written, a profile written and read back). A target
 * returns 0, or abort()s when a property every input must keep is broken (a written file that does
 * not read back). Built two ways: with clang's libFuzzer (`./configure --enable-fuzzing`, one
 * program per target, tests/fuzz/libfuzzer.c), and into tests/test_fuzz_replay, which `make check`
 * uses to replay the committed corpus and every regression case with any compiler. */
#ifndef AIF_FUZZ_HARNESS_H
#define AIF_FUZZ_HARNESS_H

#include <stddef.h>
#include <stdint.h>

typedef int (*FuzzTarget)(const uint8_t *data, size_t size);

int fuzz_scenario(const uint8_t *data, size_t size);    /* scenario YAML */
int fuzz_catalog(const uint8_t *data, size_t size);     /* catalog entry YAML (first byte: hardware or llm) */
int fuzz_profile(const uint8_t *data, size_t size);     /* profile YAML */
int fuzz_measured(const uint8_t *data, size_t size);    /* measured-results CSV */
int fuzz_trace(const uint8_t *data, size_t size);       /* request trace CSV */
int fuzz_results(const uint8_t *data, size_t size);     /* results CSV (plot, pareto, merge) */
int fuzz_calibration(const uint8_t *data, size_t size); /* calibration kernels' raw runs */
int fuzz_import(const uint8_t *data, size_t size);      /* a model's config.json (catalog import) */
int fuzz_held_out(const uint8_t *data, size_t size);    /* the held-out error table CSV */

typedef struct {
  const char *name; /* the corpus folder: tests/fuzz/corpus/NAME, tests/fuzz/regress/NAME */
  FuzzTarget run;
} FuzzEntry;

extern const FuzzEntry fuzz_targets[];
extern const size_t n_fuzz_targets;

#endif
