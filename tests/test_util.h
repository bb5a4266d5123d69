/* test_util.h — helpers shared by the Check tests: where the source tree is, the shipped
 * catalog, scratch directories. AIF_SRCDIR is set by `make check` (AM_TESTS_ENVIRONMENT). */
#ifndef AIF_TEST_UTIL_H
#define AIF_TEST_UTIL_H

#include <check.h>
#include <glib.h>
#include <glib/gstdio.h>
#include <math.h>
#include <stdlib.h>

#include "catalog.h"
#include "recipes.h"

static inline char *src_path(const char *rel)
{
  const char *root = g_getenv("AIF_SRCDIR");
  return g_build_filename(root ? root : ".", rel, NULL);
}

static inline Catalog *shipped_catalog(void)
{
  g_autofree char *dir = src_path("models");
  g_autoptr(GError) err = NULL;
  Catalog *c = catalog_new();
  if (!catalog_load_dir(c, dir, &err))
    ck_abort_msg("shipped catalog: %s", err->message);
  return c;
}

/* The shipped launch recipes (calibration/measured/recipes.yaml). */
static inline Recipes *shipped_recipes(void)
{
  g_autofree char *path = src_path("calibration/measured/recipes.yaml");
  g_autoptr(GError) err = NULL;
  Recipes *r = recipes_load(path, &err);
  if (!r)
    ck_abort_msg("shipped recipes: %s", err->message);
  return r;
}

/* Scratch directories live until the test process exits (Check forks one per test), then go
 * with everything written in them, so runs do not pile up directories in /tmp. A failing test's
 * process ends without the exit handlers, which leaves its directory to look at. */
static GPtrArray *test_tmp_dirs;

static inline void rm_tree(const char *path)
{
  GDir *d = g_file_test(path, G_FILE_TEST_IS_SYMLINK) ? NULL : g_dir_open(path, 0, NULL);
  if (d) {
    const char *name;
    while ((name = g_dir_read_name(d))) {
      g_autofree char *child = g_build_filename(path, name, NULL);
      rm_tree(child);
    }
    g_dir_close(d);
    g_rmdir(path);
  } else {
    g_remove(path);
  }
}

static inline void remove_test_tmp_dirs(void)
{
  for (guint i = 0; test_tmp_dirs && i < test_tmp_dirs->len; i++)
    rm_tree(test_tmp_dirs->pdata[i]);
  g_clear_pointer(&test_tmp_dirs, g_ptr_array_unref);
}

/* A fresh empty directory (caller frees the string), removed when the process exits. */
static inline char *test_tmpdir(void)
{
  char *dir = g_dir_make_tmp("aifsim-test-XXXXXX", NULL);
  ck_assert_msg(dir, "cannot make a scratch directory");
  if (!test_tmp_dirs) {
    test_tmp_dirs = g_ptr_array_new_with_free_func(g_free);
    atexit(remove_test_tmp_dirs);
  }
  g_ptr_array_add(test_tmp_dirs, g_strdup(dir));
  return dir;
}

#define ck_assert_close(a, b, rel)                                                                   \
  ck_assert_msg(fabs((double)(a) - (double)(b)) <= (rel) * fabs((double)(b)),                        \
                "%s = %.9g, expected %.9g (within %g)", #a, (double)(a), (double)(b), (double)(rel))

static inline int run_suite(Suite *s)
{
  SRunner *sr = srunner_create(s);
  srunner_run_all(sr, CK_ENV);
  int failed = srunner_ntests_failed(sr);
  srunner_free(sr);
  return failed ? 1 : 0;
}

#endif
