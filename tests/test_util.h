/* test_util.h — helpers shared by the Check tests: where the source tree is, and the shipped
 * catalog. AIF_SRCDIR is set by `make check` (AM_TESTS_ENVIRONMENT). */
#ifndef AIF_TEST_UTIL_H
#define AIF_TEST_UTIL_H

#include <check.h>
#include <glib.h>
#include <math.h>

#include "catalog.h"

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
