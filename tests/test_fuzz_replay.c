/* test_fuzz_replay.c — every fuzz target (tests/fuzz/harness.c) on its committed corpus and on every
 * regression case: tests/fuzz/corpus/NAME/ seeds the fuzzers, tests/fuzz/regress/NAME/ holds the
 * inputs that once crashed, hung or broke a property. Runs with any compiler, no libFuzzer; under
 * --enable-sanitizers it replays them with AddressSanitizer and UBSan. Check forks each test, so a
 * crash fails the target's test with the file it was on printed first. */
#include "test_util.h"
#include "fuzz/harness.h"

#include <stdio.h>
#include <string.h>

static gint by_name(gconstpointer a, gconstpointer b) { return g_strcmp0(*(char *const *)a, *(char *const *)b); }

/* Runs TARGET on every file of DIR; the count of files. */
static guint replay_dir(const FuzzEntry *t, const char *dir)
{
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  if (!d)
    return 0;
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  for (const char *n; (n = g_dir_read_name(d));)
    g_ptr_array_add(names, g_strdup(n));
  g_ptr_array_sort(names, by_name);
  for (guint i = 0; i < names->len; i++) {
    g_autofree char *path = g_build_filename(dir, names->pdata[i], NULL), *data = NULL;
    gsize len = 0;
    ck_assert_msg(g_file_get_contents(path, &data, &len, NULL), "%s: cannot read", path);
    fprintf(stderr, "replay %s\n", path); /* the last one printed is the one that crashed */
    ck_assert_int_eq(t->run((const uint8_t *)data, len), 0);
  }
  return names->len;
}

START_TEST(replay)
{
  const FuzzEntry *t = &fuzz_targets[_i];
  g_autofree char *corpus = src_path("tests/fuzz/corpus"), *regress = src_path("tests/fuzz/regress");
  g_autofree char *c = g_build_filename(corpus, t->name, NULL), *r = g_build_filename(regress, t->name, NULL);
  guint n = replay_dir(t, c);
  replay_dir(t, r);
  ck_assert_msg(n > 0, "fuzz target %s has no seed corpus in %s", t->name, c);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("fuzz-replay");
  TCase *tc = tcase_create("replay");
  tcase_set_timeout(tc, 600);
  tcase_add_loop_test(tc, replay, 0, (int)n_fuzz_targets);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
