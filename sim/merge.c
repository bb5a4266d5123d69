/* merge.c — joining the rows of a sweep's shards (see merge.h). */
#include "merge.h"
#include "aif_error.h"
#include "input_file.h"

#include <stdio.h>
#include <string.h>

/* The sweep's size, from the "# sweep: N points" line of a run's scenario.resolved.yaml; 0 when
 * the text has none, or a size no sweep may have (the file was not written by a run). */
gsize merge_sweep_points(const char *resolved)
{
  const char *line = strstr(resolved, "\n# sweep: ");
  guint64 n = 0;
  if (!line || sscanf(line, "\n# sweep: %" G_GUINT64_FORMAT " points", &n) != 1)
    return 0;
  return n <= (guint64)input_limit(LIMIT_POINTS) ? (gsize)n : 0;
}

/* Moves ROWS (one shard's) into ALL; SEEN maps point + 1 to its CSV line. A point two shards both
 * hold must be the same row. ROWS is freed either way. */
gboolean merge_rows(GPtrArray *all, GPtrArray *rows, GHashTable *seen, const char *folder, GError **error)
{
  gboolean ok = TRUE;
  for (guint k = 0; k < rows->len; k++) {
    ResultRow *r = rows->pdata[k];
    rows->pdata[k] = NULL; /* owned here from now on: moved into ALL or freed */
    char *line = results_csv_line(r);
    const char *prev = g_hash_table_lookup(seen, GSIZE_TO_POINTER(r->point + 1));
    if (ok && prev && strcmp(prev, line) != 0) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: point %" G_GSIZE_FORMAT " differs from the same point "
                  "in another shard", folder, r->point);
      ok = FALSE;
    }
    if (!ok || prev) { /* the same point twice: keep one */
      g_free(line);
      result_row_clear(r);
      g_free(r);
      continue;
    }
    g_hash_table_insert(seen, GSIZE_TO_POINTER(r->point + 1), line);
    g_ptr_array_add(all, r);
  }
  g_ptr_array_unref(rows);
  return ok;
}

/* Every point of a sweep of N must be in SEEN, unless the merge is partial. */
gboolean merge_complete(GHashTable *seen, gsize n, GError **error)
{
  gsize missing = 0;
  g_autoptr(GString) some = g_string_new(NULL);
  for (gsize i = 0; i < n; i++)
    if (!g_hash_table_contains(seen, GSIZE_TO_POINTER(i + 1)) && missing++ < 5)
      g_string_append_printf(some, "%s%" G_GSIZE_FORMAT, some->len ? ", " : "", i);
  if (missing == 0)
    return TRUE;
  g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%" G_GSIZE_FORMAT " of the sweep's %" G_GSIZE_FORMAT " points "
              "are in no folder given (%s%s): merge every shard, or --partial to join what is there", missing, n,
              some->str, missing > 5 ? ", ..." : "");
  return FALSE;
}

