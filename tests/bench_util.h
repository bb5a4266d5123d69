/* bench_util.h — what the benchmark programs share: a monotonic clock and the catalog. */
#ifndef AIF_BENCH_UTIL_H
#define AIF_BENCH_UTIL_H

#include "catalog.h"

#include <stdio.h>
#include <time.h>

static inline double bench_now(void)
{
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* The catalog under argv[1], or the source tree's; NULL (with the message printed) on failure. */
static inline Catalog *bench_catalog(int argc, char **argv)
{
  const char *dir = argc > 1 ? argv[1] : AIF_SRCDIR "/models";
  Catalog *c = catalog_new();
  g_autoptr(GError) err = NULL;
  if (!catalog_load_dir(c, dir, &err)) {
    fprintf(stderr, "%s\n", err->message);
    catalog_free(c);
    return NULL;
  }
  return c;
}

#endif
