/* test_hardening.c — the mechanisms that keep hostile input harmless (docs/hardening.md): safe folder
 * names, writes that never go through a link, the folder lock, bounded reads, gnuplot strings, and
 * text that round-trips through CSV and YAML whatever characters it holds. */
#include "test_util.h"
#include "aif_error.h"
#include "chart.h"
#include "csv.h"
#include "input_file.h"
#include "keytable.h"
#include "output_dir.h"
#include "results.h"

#include <string.h>
#include <unistd.h>

START_TEST(safe_folder_names)
{
  static const char *const cases[][2] = {
    { "default", "results/default" },
    { "../../x", "results/x" },           /* leading dots and slashes are dropped */
    { "a/../b", "results/a_.._b" },        /* one folder: the slashes become '_' */
    { "..", "results/scenario" },          /* nothing left */
    { "", "results/scenario" },
    { "v1.2 run", "results/v1.2_run" },
    { ".hidden", "results/hidden" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *got = output_dir_default(cases[i][0]);
    ck_assert_str_eq(got, cases[i][1]);
  }
  g_autofree char *long_name = g_strnfill(500, 'a');
  g_autofree char *got = output_dir_default(long_name);
  ck_assert_uint_eq(strlen(got), strlen("results/") + 128);
}
END_TEST

/* A link planted at the final name is replaced, its target untouched; a planted catalog/ link is
 * refused; the journal is never opened through a link. */
START_TEST(no_write_through_links)
{
  g_autofree char *dir = test_tmpdir();
  g_autofree char *target = g_build_filename(dir, "target", NULL), *link = g_build_filename(dir, "out.csv", NULL);
  ck_assert(g_file_set_contents(target, "keep", -1, NULL));
  ck_assert_int_eq(symlink(target, link), 0);
  g_autoptr(GError) err = NULL;
  ck_assert(atomic_file_write(link, "new", -1, &err));
  g_autofree char *kept = NULL, *written = NULL;
  ck_assert(g_file_get_contents(target, &kept, NULL, NULL) && g_file_get_contents(link, &written, NULL, NULL));
  ck_assert_str_eq(kept, "keep");
  ck_assert_str_eq(written, "new");
  ck_assert(!g_file_test(link, G_FILE_TEST_IS_SYMLINK));

  g_autofree char *elsewhere = g_build_filename(dir, "elsewhere", NULL), *cat = g_build_filename(dir, "catalog", NULL);
  ck_assert_int_eq(g_mkdir(elsewhere, 0755), 0);
  ck_assert_int_eq(symlink(elsewhere, cat), 0);
  ck_assert(!output_dir_mkdir(dir, "catalog/hardware", &err));
  ck_assert(g_error_matches(err, AIF_ERROR, AIF_ERROR_RUN));
  ck_assert_msg(strstr(err->message, "a symlink, not a folder"), "%s", err->message);
  g_clear_error(&err);
  ck_assert(output_dir_mkdir(dir, "fresh/hardware", &err));
  ck_assert(output_dir_mkdir(dir, "fresh/hardware", &err)); /* existing real folders are fine */

  g_autofree char *journal = g_build_filename(dir, "j.csv", NULL);
  ck_assert_int_eq(symlink(target, journal), 0);
  ck_assert_int_eq(output_dir_open_append(dir, "j.csv", TRUE, &err), -1);
  ck_assert_msg(strstr(err->message, "a symlink: refusing"), "%s", err->message);
  g_clear_error(&err);
  int fd = output_dir_open_append(dir, "j.csv", FALSE, &err); /* afresh: the link goes, a file comes */
  ck_assert_int_ge(fd, 0);
  ck_assert_int_eq(write(fd, "x", 1), 1);
  close(fd);
  g_clear_pointer(&kept, g_free);
  ck_assert(g_file_get_contents(target, &kept, NULL, NULL));
  ck_assert_str_eq(kept, "keep");
}
END_TEST

START_TEST(one_writer_per_folder)
{
  g_autofree char *dir = test_tmpdir();
  g_autoptr(GError) err = NULL;
  OutputDir *first = output_dir_lock(dir, &err);
  ck_assert_ptr_nonnull(first);
  ck_assert_ptr_null(output_dir_lock(dir, &err)); /* flock: another open file, even in this process */
  ck_assert(g_error_matches(err, AIF_ERROR, AIF_ERROR_RUN));
  ck_assert_msg(strstr(err->message, "another aifsim is writing into this folder"), "%s", err->message);
  g_clear_error(&err);
  output_dir_unlock(first);
  OutputDir *again = output_dir_lock(dir, &err);
  ck_assert_ptr_nonnull(again);
  output_dir_unlock(again);
}
END_TEST

START_TEST(bounded_reads)
{
  g_autofree char *dir = test_tmpdir();
  g_autofree char *path = g_build_filename(dir, "big", NULL);
  g_autofree char *text = g_strnfill(4096, 'x');
  ck_assert(g_file_set_contents(path, text, -1, NULL));
  g_setenv("AIFSIM_MAX_INPUT_BYTES", "4095", TRUE);
  g_autofree char *got = NULL;
  gsize len = 0;
  g_autoptr(GError) err = NULL;
  ck_assert(!input_file_read(path, &got, &len, &err));
  ck_assert(g_error_matches(err, AIF_ERROR, AIF_ERROR_INPUT));
  ck_assert_msg(strstr(err->message, "larger than 4095 bytes (raise the limit with AIFSIM_MAX_INPUT_BYTES)"), "%s",
                err->message);
  g_clear_error(&err);
  ck_assert(!input_file_read("/dev/zero", &got, &len, &err)); /* endless: stops at the limit */
  g_clear_error(&err);
  g_setenv("AIFSIM_MAX_INPUT_BYTES", "4096", TRUE);
  ck_assert(input_file_read(path, &got, &len, &err));
  ck_assert_uint_eq(len, 4096);
  g_setenv("AIFSIM_MAX_INPUT_BYTES", "lots", TRUE); /* not a number: the default */
  ck_assert_int_eq(input_limit(LIMIT_INPUT_BYTES), G_GINT64_CONSTANT(256) << 20);
  g_unsetenv("AIFSIM_MAX_INPUT_BYTES");
}
END_TEST

/* The gnuplot twin carries titles and system names as single-quoted strings: a quote doubled, a
 * line break a space, so the script holds exactly one line per command it means to run; the
 * labels of the picks with the held-out error as headroom too. */
START_TEST(gnuplot_strings)
{
  g_autofree char *dir = test_tmpdir();
  GPtrArray *rows = g_ptr_array_new();
  const char *systems[] = { "a'\n!touch PWNED", "b", "a'\n!touch PWNED" };
  for (int i = 0; i < 3; i++) {
    ResultRow *r = g_new(ResultRow, 1);
    result_row_init(r, (gsize)i);
    r->system = g_strdup(systems[i]);
    r->status = OUTCOME_OK;
    r->family = g_strdup("f");
    r->tok_s_per_user = 1 + i, r->tok_s_per_mw = 3 - i, r->on_frontier = 1;
    g_ptr_array_add(rows, r);
  }
  ChartOptions co = { .title = "t'; system 'id'; '\nreset", .width = 400, .height = 300 };
  frontier_default_axes(&co.x, &co.y);
  const ResultRow *picks[] = { rows->pdata[0], rows->pdata[1] }; /* both labelled: names through gp_string */
  const ResultRow *headroom[] = { rows->pdata[2], rows->pdata[1] }; /* a's another point, b's its pick */
  co.picks = picks, co.n_picks = 2, co.headroom = headroom;
  g_autofree char *gp = g_build_filename(dir, "c.gp", NULL), *dat = g_build_filename(dir, "c.dat", NULL);
  g_autoptr(GError) err = NULL;
  g_autoptr(ChartData) cd = chart_data_from_rows(rows, &co.x, &co.y);
  ck_assert_msg(chart_gnuplot(cd, &co, gp, dat, &err), "%s", err ? err->message : "");
  g_autofree char *script = NULL;
  ck_assert(g_file_get_contents(gp, &script, NULL, NULL));
  ck_assert_msg(strstr(script, "set title 't''; system ''id''; '' reset'\n"), "%s", script);
  ck_assert_msg(strstr(script, "title 'a'' !touch PWNED'"), "%s", script);
  ck_assert_msg(strstr(script, "set label 50 'a'' !touch PWNED with headroom (the held-out error): "), "%s", script);
  ck_assert_msg(!strstr(script, "set label 51 "), "%s", script); /* b's is its pick: no second label */
  g_autofree char *png = g_build_filename(dir, "c.png", NULL); /* and the PNG draws them */
  ck_assert_msg(chart_render(cd, &co, png, &err), "%s", err ? err->message : "");
  g_auto(GStrv) lines = g_strsplit(script, "\n", -1);
  for (char **l = lines; *l; l++) /* no line starts a shell escape or another command */
    ck_assert_msg(**l != '!' && !g_str_has_prefix(*l, "system") && strcmp(*l, "reset") != 0, "%s", *l);
  for (guint i = 0; i < rows->len; i++) {
    result_row_clear(rows->pdata[i]);
    g_free(rows->pdata[i]);
  }
  g_ptr_array_unref(rows);
}
END_TEST

/* Text with quotes, line breaks (\n and \r) and control characters survives a CSV field and a YAML
 * scalar unchanged. */
START_TEST(text_round_trips)
{
  const char *texts[] = { "plain", "a,b", "say \"hi\"", "two\nlines", "cr\ronly", "tab\there", "bell\x07", "- dash",
                          "key: value", "# hash", "null", "~", "" };
  for (gsize i = 0; i < G_N_ELEMENTS(texts); i++) {
    g_autoptr(GString) line = g_string_new(NULL);
    csv_append_field(line, texts[i]);
    g_string_append(line, ",x\n");
    g_autoptr(GError) err = NULL;
    g_autofree char *csv_text = g_strconcat("h,y\n", line->str, NULL);
    g_autoptr(CsvFile) csv = csv_parse("t.csv", csv_text, strlen(csv_text), &err);
    ck_assert_msg(csv && csv->rows->len == 1, "%s", texts[i]);
    ck_assert_str_eq(csv_field(csv, 0, 0), texts[i]);

    g_autofree char *q = kt_yaml_quote(texts[i]);
    g_autofree char *doc = g_strconcat("k: ", q, "\n", NULL);
    yaml_parser_t p;
    yaml_document_t d;
    yaml_parser_initialize(&p);
    yaml_parser_set_input_string(&p, (const unsigned char *)doc, strlen(doc));
    ck_assert_msg(yaml_parser_load(&p, &d), "%s", doc);
    yaml_node_t *root = yaml_document_get_root_node(&d);
    yaml_node_t *v = yaml_document_get_node(&d, root->data.mapping.pairs.start->value);
    ck_assert_msg(strcmp((const char *)v->data.scalar.value, texts[i]) == 0, "%s -> %s", texts[i], doc);
    yaml_document_delete(&d);
    yaml_parser_delete(&p);
  }
}
END_TEST

int main(void)
{
  Suite *s = suite_create("hardening");
  TCase *tc = tcase_create("hardening");
  tcase_add_test(tc, safe_folder_names);
  tcase_add_test(tc, no_write_through_links);
  tcase_add_test(tc, one_writer_per_folder);
  tcase_add_test(tc, bounded_reads);
  tcase_add_test(tc, gnuplot_strings);
  tcase_add_test(tc, text_round_trips);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
