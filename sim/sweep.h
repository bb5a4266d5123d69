/* sweep.h — running the points of a scenario: in parallel worker processes, one shard of them,
 * resumable.
 *
 * Each finished point is appended at once, as a CSV line, to DIR/results.partial.csv (the journal),
 * so a sweep that is stopped, even by kill -9, keeps every point it reported done; --resume reads
 * the journal and computes only the rest. The journal's first line is a digest of the scenario,
 * catalog, profile and shard its rows belong to: --resume refuses another run's journal, and cuts a
 * torn last line before it appends. Workers are forked processes (no shared state; SimGrid
 * needs one process per platform anyway) that take batches of points from the parent as they
 * finish the last (a slow point does not hold up a fixed share) and stream their rows back
 * through pipes; the parent journals them in point order (holding the few that finish early), so
 * the rows read back do not depend on the number of workers, on their timing, or on resuming, and
 * the final files stream from the journal. */
#ifndef AIF_SWEEP_H
#define AIF_SWEEP_H

#include "profile.h"
#include "progress.h"
#include "results.h"
#include "scenario.h"

/* Called where a point was evaluated (a worker) with its time series when it has one (a simulated
 * floor with factory.floor.series_interval): the caller writes it out. */
typedef gboolean (*SweepSeriesFunc)(const Point *pt, const ResultRow *row, GArray *series, gpointer user,
                                    GError **error);

typedef struct {
  int jobs;          /* worker processes (1: in this process) */
  int shard, shards; /* run points with index % shards == shard - 1; shards 0 = all points */
  gboolean resume;   /* keep the points already in the journal */
  ProgressStyle progress; /* how far the sweep has got, on stderr */
  SweepSeriesFunc series; /* NULL: no time series */
  gpointer series_user;
} SweepOptions;

/* Evaluates the owned points of SC into DIR's journal, in point order. The journal stays until the
 * caller has written the final files (sweep_finish). */
gboolean sweep_run(const Scenario *sc, const Catalog *catalog, const Profile *prof, const char *dir,
                   const SweepOptions *opt, GError **error);
/* Calls F on every row of DIR's journal, in point order, one at a time (ROW is F's to read, not to
 * keep): the final files are written from it with memory that does not grow with the sweep. */
typedef gboolean (*SweepRowFunc)(ResultRow *row, gpointer user, GError **error);
gboolean sweep_foreach(const Scenario *sc, const char *dir, SweepRowFunc f, gpointer user, GError **error);
/* Removes DIR's journal once results.csv holds everything. */
void sweep_finish(const char *dir);
/* Parses "K/N" (1 <= K <= N). */
gboolean sweep_parse_shard(const char *text, int *k, int *n);

#endif
