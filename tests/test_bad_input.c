/* test_bad_input.c — the bad-input corpus: every tests/bad-input/NAME.yaml must fail to load with
 * exactly the message in NAME.expect ("line:col: what was expected"), as an input error (exit 2).
 * BADINPUT in an expectation stands for the corpus folder. */
#include "test_util.h"
#include "aif_error.h"
#include "scenario.h"

#include <string.h>

START_TEST(corpus)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autofree char *dir = src_path("tests/bad-input");
  g_autofree char *absdir = g_canonicalize_filename(dir, NULL);
  g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
  ck_assert_ptr_nonnull(d);
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);
  for (const char *n; (n = g_dir_read_name(d));)
    if (g_str_has_suffix(n, ".yaml"))
      g_ptr_array_add(names, g_strndup(n, strlen(n) - 5));
  ck_assert_uint_ge(names->len, 20);
  for (guint i = 0; i < names->len; i++) {
    const char *name = names->pdata[i];
    g_autofree char *yaml = g_strdup_printf("%s/%s.yaml", dir, name);
    g_autofree char *expect_path = g_strdup_printf("%s/%s.expect", dir, name);
    g_autofree char *expect = NULL;
    ck_assert_msg(g_file_get_contents(expect_path, &expect, NULL, NULL), "%s has no .expect file", name);
    g_strchomp(expect);
    g_auto(GStrv) parts = g_strsplit(expect, "BADINPUT", -1);
    g_autofree char *expanded = g_strjoinv(absdir, parts);
    g_autofree char *want = g_strdup_printf("%s:%s", yaml, expanded);
    g_autoptr(GError) err = NULL;
    g_autoptr(Scenario) s = scenario_load(yaml, c, &err);
    ck_assert_msg(!s, "%s loaded but must fail", name);
    ck_assert_msg(err->domain == AIF_ERROR && err->code == AIF_ERROR_INPUT, "%s: not an input error", name);
    ck_assert_msg(strcmp(err->message, want) == 0, "%s:\n got  %s\n want %s", name, err->message, want);
  }
}
END_TEST

START_TEST(bad_catalog_entries)
{
  static const struct { const char *text, *want; } cases[] = {
    { "id: x\nname: X\narch: hopper\ngpu: {name: G, bf16_dense: 1 PFLOP/s}\n", ":1:1: missing required hardware key 'gpu.fp8_dense' (dense FP8 tensor FLOP/s)" },
    { "id: x\nname: X\narch: volta\n", ":3:7: 'arch' expects one of hopper, blackwell, blackwell-ultra, rubin, rubin-ultra, got 'volta'" },
    { "id: x\nname: X\narch: hopper\ngpu: {tdp: {value: 700 W, sauce: me}}\n", ":4:27: 'gpu.tdp': a figure's mapping takes value, source, uncertain and note, not 'sauce'" },
    { "id: x\nname: X\narch: hopper\ngpu: {tdp: {source: me}}\n", ":4:12: 'gpu.tdp': missing 'value' in the figure's mapping" },
    /* a required text given as null once crashed the loader (it compared the id with the file name) */
    { "id: null\nname: X\narch: hopper\n", ":1:5: 'id' is required: expected a value, not null" },
    { "id: x\nname: ~\narch: hopper\n", ":2:7: 'name' is required: expected a value, not null" },
  };
  g_autofree char *dir = test_tmpdir();
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *path = g_build_filename(dir, "x.yaml", NULL);
    ck_assert(g_file_set_contents(path, cases[i].text, -1, NULL));
    SystemSpec s = { 0 };
    g_autoptr(GError) err = NULL;
    ck_assert(!catalog_load_entry(&hardware_table, path, &s, &s.sources, &err));
    g_autofree char *want = g_strconcat(path, cases[i].want, NULL);
    ck_assert_str_eq(err->message, want);
    system_spec_clear(&s);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("bad-input");
  TCase *tc = tcase_create("bad-input");
  tcase_add_test(tc, corpus);
  tcase_add_test(tc, bad_catalog_entries);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
