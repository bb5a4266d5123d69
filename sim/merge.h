/* merge.h — joining the results of the shards of one sweep (`aifsim merge`): a point two shards
 * both hold must be the same row, and every point of the sweep must be in one of them. */
#ifndef AIF_MERGE_H
#define AIF_MERGE_H

#include <glib.h>

#include "results.h"

/* The sweep's size, from the "# sweep: N points" line of a run's scenario.resolved.yaml; 0 when the
 * text has none, or a size no sweep may have (the file was not written by a run). */
gsize merge_sweep_points(const char *resolved);
/* Moves ROWS (one shard's ResultRow *) into ALL; SEEN maps point + 1 to its CSV line (owned). A
 * point already seen must be the same row (else an input error naming FOLDER). ROWS is freed either
 * way, and no row is freed twice. */
gboolean merge_rows(GPtrArray *all, GPtrArray *rows, GHashTable *seen, const char *folder, GError **error);
/* Every point of a sweep of N in SEEN, or an input error that says how many are missing and which. */
gboolean merge_complete(GHashTable *seen, gsize n, GError **error);

#endif
