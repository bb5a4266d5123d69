/* sweep.c — parallel, sharded, resumable evaluation of a scenario's points (see sweep.h). */
#include "sweep.h"
#include "keytable.h"
#include "aif_error.h"
#include "evaluate.h"
#include "fd_io.h"
#include "input_file.h"
#include "output_dir.h"
#include "progress.h"
#include "results.h"
#include "serving_sim.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define JOURNAL "results.partial.csv"

gboolean sweep_parse_shard(const char *text, int *k, int *n)
{
  char *end;
  gint64 a = g_ascii_strtoll(text, &end, 10);
  if (end == text || *end != '/')
    return FALSE;
  const char *rest = end + 1;
  gint64 b = g_ascii_strtoll(rest, &end, 10);
  if (end == rest || *end || b < 1 || a < 1 || a > b || b > G_MAXINT)
    return FALSE;
  *k = (int)a, *n = (int)b;
  return TRUE;
}

/* Point INDEX evaluated, as its results CSV line; its time series handed to OPT's writer. NULL when
 * that fails. */
static char *evaluate_line(const Scenario *sc, const Catalog *cat, const Profile *prof, const SweepOptions *opt,
                           gsize index, GError **error)
{
  Point pt;
  ResultRow r;
  scenario_point(sc, cat, index, &pt);
  result_row_init(&r, pt.index);
  const FactoryParams *f = &pt.p.factory;
  g_autoptr(GArray) series = opt->series && f->floor && f->series_interval > 0 ? g_array_new(FALSE, FALSE, sizeof(SeriesRow))
                                                                           : NULL;
  evaluate_point_series(&pt, prof, &r, series ? f->series_interval : 0, series);
  char *line = series && !opt->series(&pt, &r, series, opt->series_user, error) ? NULL : results_csv_line(&r);
  result_row_clear(&r);
  point_clear(&pt);
  return line;
}

/* Points handed to a worker at a time, and how many such batches it holds at once: enough that it
 * never waits for the next, few enough that the last ones spread over every worker. */
#define BATCH 4
#define BATCHES_AHEAD 2
/* Rows finished ahead of the next one the journal waits for, per worker: the parent holds them
 * until their turn (the journal is in point order), and stops handing out points beyond. */
#define AHEAD_PER_WORKER 256

/* A batch of points for a worker: positions in the list of points to do. */
typedef struct {
  guint32 first, count;
} Batch;

/* What a worker sends back per point: its position in the list, then the row's CSV line. */
typedef struct {
  guint32 pos, len;
} Frame;

/* A worker: evaluates the batches the parent sends on CMD until it closes it, writing each row to
 * OUT as a frame. Points go to whichever worker is free, so uneven points (an event simulation takes
 * from microseconds to seconds) do not leave one worker with all the slow ones. */
static gboolean work(const Scenario *sc, const Catalog *cat, const Profile *prof, const SweepOptions *opt, GArray *todo,
                     int cmd, int out)
{
  Batch b;
  while (fd_read_all(cmd, &b, sizeof b)) {
    for (guint32 i = b.first; i < b.first + b.count && i < todo->len; i++) {
      g_autoptr(GError) err = NULL;
      g_autofree char *line = evaluate_line(sc, cat, prof, opt, g_array_index(todo, gsize, i), &err);
      if (!line) { /* the parent reports that a worker failed; this says why */
        fprintf(stderr, "aifsim: %s\n", err->message);
        return FALSE;
      }
      Frame f = { i, (guint32)strlen(line) };
      if (!fd_write_all(out, &f, sizeof f) || !fd_write_all(out, line, f.len))
        return FALSE;
    }
  }
  return TRUE;
}

typedef struct {
  FILE *journal;
  Progress progress;
} Journal;

/* Appends one row to the journal at once (a kill -9 keeps it) and counts it. */
static gboolean journal_row(Journal *p, const char *line, gsize len)
{
  if (fwrite(line, 1, len, p->journal) != len || fflush(p->journal) != 0)
    return FALSE;
  progress_add(&p->progress, 1);
  return TRUE;
}

/* The parent's side of the workers: who holds what, and the rows waiting for their turn. */
typedef struct {
  int cmd;               /* write end of the worker's batches; -1 once closed */
  gsize given, returned; /* points sent, rows received */
  GByteArray *in;        /* bytes received, not yet whole frames */
} WorkerState;

typedef struct {
  WorkerState *ws;
  int n;
  gsize next;            /* the next position in the list to hand out */
  gsize written;         /* positions before this one are in the journal */
  GHashTable *ahead;     /* position -> GBytes: rows finished before their turn */
  GArray *todo;
  Journal *p;
} Pool;

/* Keeps worker W supplied: batches until BATCHES_AHEAD are outstanding and the rows held ahead of
 * the journal stay bounded; closes its command pipe when no point is left, so that it ends once its
 * last batch is done. */
static gboolean feed(Pool *pool, WorkerState *w)
{
  gsize total = pool->todo->len, limit = pool->written + (gsize)AHEAD_PER_WORKER * pool->n;
  while (w->cmd >= 0 && pool->next < total && pool->next < limit && w->given - w->returned < BATCH * BATCHES_AHEAD) {
    Batch b = { (guint32)pool->next, (guint32)MIN(BATCH, total - pool->next) };
    if (!fd_write_all(w->cmd, &b, sizeof b))
      return FALSE;
    pool->next += b.count, w->given += b.count;
  }
  if (w->cmd >= 0 && pool->next >= total) {
    close(w->cmd);
    w->cmd = -1;
  }
  return TRUE;
}

/* Takes the whole frames out of W's bytes; journals every row whose turn has come. */
static gboolean take_frames(Pool *pool, WorkerState *w)
{
  Frame f;
  while (w->in->len >= sizeof f) {
    memcpy(&f, w->in->data, sizeof f);
    if (w->in->len < sizeof f + f.len)
      break;
    g_hash_table_insert(pool->ahead, GSIZE_TO_POINTER((gsize)f.pos + 1),
                        g_bytes_new(w->in->data + sizeof f, f.len));
    g_byte_array_remove_range(w->in, 0, (guint)(sizeof f + f.len));
    w->returned++;
  }
  GBytes *row;
  while ((row = g_hash_table_lookup(pool->ahead, GSIZE_TO_POINTER(pool->written + 1)))) {
    gsize len;
    const char *data = g_bytes_get_data(row, &len);
    if (!journal_row(pool->p, data, len))
      return FALSE;
    g_hash_table_remove(pool->ahead, GSIZE_TO_POINTER(pool->written + 1));
    pool->written++;
  }
  return TRUE;
}

/* Forks JOBS workers over the points in todo and journals what they send back, in todo's order. */
static gboolean run_workers(const Scenario *sc, const Catalog *cat, const Profile *prof, const SweepOptions *opt,
                            GArray *todo, Journal *p, GError **error)
{
  int n = MAX(1, MIN(opt->jobs, (int)todo->len));
  g_autofree struct pollfd *fds = g_new0(struct pollfd, n);
  g_autofree pid_t *pids = g_new0(pid_t, n);
  g_autoptr(GHashTable) ahead = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_bytes_unref);
  Pool pool = { .ws = g_new0(WorkerState, n), .n = n, .ahead = ahead, .todo = todo, .p = p };
  fflush(NULL); /* children must not inherit unwritten stdio buffers */
  gboolean ok = TRUE;
  int started = 0;
  for (int w = 0; w < n && ok; w++) {
    int fd[2], cmd[2];
    if (pipe(fd) != 0 || pipe(cmd) != 0 || (pids[w] = fork()) < 0) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "cannot start a worker: %s", g_strerror(errno));
      ok = FALSE;
      break;
    }
    if (pids[w] == 0) {
      close(fd[0]);
      close(cmd[1]);
      for (int o = 0; o < w; o++) /* the other workers' pipes: their ends must close with the parent's */
        close(fds[o].fd), close(pool.ws[o].cmd);
      _exit(work(sc, cat, prof, opt, todo, cmd[0], fd[1]) ? 0 : 1);
    }
    close(fd[1]);
    close(cmd[0]);
    fds[w] = (struct pollfd){ .fd = fd[0], .events = POLLIN };
    pool.ws[w] = (WorkerState){ .cmd = cmd[1], .in = g_byte_array_new() };
    started++;
  }
  /* a worker that died leaves its batch pipe without a reader: a write there is an error to report,
   * not a signal that ends the parent */
  struct sigaction ignore = { .sa_handler = SIG_IGN }, old;
  sigaction(SIGPIPE, &ignore, &old);
  for (int w = 0; w < started && ok; w++)
    ok = feed(&pool, &pool.ws[w]);
  for (int open = started; open > 0 && ok;) {
    if (poll(fds, started, -1) < 0 && errno != EINTR)
      break;
    for (int w = 0; w < started && ok; w++) {
      if (fds[w].fd < 0 || !(fds[w].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      guint8 chunk[65536];
      ssize_t got = read(fds[w].fd, chunk, sizeof chunk);
      if (got > 0) {
        g_byte_array_append(pool.ws[w].in, chunk, (guint)got);
        ok = take_frames(&pool, &pool.ws[w]);
        for (int o = 0; o < started && ok; o++) /* the journal moved on: every worker may take more */
          ok = feed(&pool, &pool.ws[o]);
      } else if (got == 0 || errno != EINTR) {
        close(fds[w].fd);
        fds[w].fd = -1, open--;
      }
    }
  }
  for (int w = 0; w < started; w++) {
    int status = 0;
    if (fds[w].fd >= 0)
      close(fds[w].fd);
    if (pool.ws[w].cmd >= 0)
      close(pool.ws[w].cmd);
    if (waitpid(pids[w], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      ok = FALSE;
    g_byte_array_unref(pool.ws[w].in);
  }
  sigaction(SIGPIPE, &old, NULL);
  g_free(pool.ws);
  if (ok && pool.written != todo->len)
    ok = FALSE;
  if (!ok && !(error && *error))
    g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "a worker failed; finished points are kept: rerun with --resume");
  return ok;
}

/* The journal's first line names what its rows belong to: a digest of the resolved scenario (its
 * leading comment, which names the file as it was typed, left out), every catalog entry, the
 * profile and the shard. --resume keeps rows only under the same line. */
static char *journal_header(const Scenario *sc, const Catalog *cat, const Profile *prof, const SweepOptions *opt)
{
  g_autoptr(GChecksum) sum = g_checksum_new(G_CHECKSUM_SHA256);
  g_autofree char *resolved = scenario_resolved_yaml(sc, cat);
  const char *body = resolved;
  while (*body == '#' && strchr(body, '\n'))
    body = strchr(body, '\n') + 1;
  g_autoptr(GString) all = g_string_new(body);
  for (guint i = 0; i < cat->systems->len; i++)
    kt_emit_yaml(&hardware_table, cat->systems->pdata[i], all, 0, NULL, NULL);
  for (guint i = 0; i < cat->models->len; i++)
    kt_emit_yaml(&llm_table, cat->models->pdata[i], all, 0, NULL, NULL);
  g_autofree char *profile = profile_to_yaml(prof, "");
  g_string_append_printf(all, "%s\nshard %d/%d\n", profile, opt->shard, opt->shards);
  g_checksum_update(sum, (const guchar *)all->str, all->len);
  return g_strdup_printf("# aifsim journal %s\n", g_checksum_get_string(sum));
}

/* Checks that the journal at PATH belongs to HEADER, and cuts a torn last line (the disk filled,
 * the machine stopped mid-write) so that appending starts on a line of its own; only its head and
 * tail are read. Sets *EMPTY when not even the CSV header line is whole (the caller starts afresh). */
static gboolean journal_check(const char *path, const char *header, gboolean *empty, GError **error)
{
  gsize hl = strlen(header);
  *empty = FALSE;
  FILE *f = fopen(path, "re");
  if (!f) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: cannot read: %s", path, g_strerror(errno));
    return FALSE;
  }
  g_autofree char *head = g_malloc(hl);
  gboolean mine = fread(head, 1, hl, f) == hl && memcmp(head, header, hl) == 0;
  struct stat st;
  off_t keep = fstat(fileno(f), &st) == 0 ? st.st_size : 0;
  char buf[4096];
  gboolean found = FALSE;
  while (mine && keep > (off_t)hl && !found) { /* back to the last line break */
    off_t from = MAX((off_t)hl, keep - (off_t)sizeof buf);
    gsize n = (gsize)(keep - from);
    if (fseeko(f, from, SEEK_SET) != 0 || fread(buf, 1, n, f) != n)
      break;
    while (n > 0 && buf[n - 1] != '\n')
      n--, keep--;
    found = n > 0;
  }
  fclose(f);
  if (!mine) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: the journal of another run (its scenario, catalog, "
                "profile or shard differ): run without --resume to start again", path);
    return FALSE;
  }
  if (!found) { /* no line after the digest is whole, not even the CSV header */
    *empty = TRUE;
    return TRUE;
  }
  if (keep < st.st_size && truncate(path, keep) != 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: cannot cut its torn last line: %s", path, g_strerror(errno));
    return FALSE;
  }
  return TRUE;
}

/* Calls F on every row of the journal at PATH, in order, one at a time; a point outside the sweep or
 * out of order (rows are journaled in point order) is an error. */
static gboolean journal_foreach(const char *path, gsize n_points, SweepRowFunc f, gpointer user, GError **error)
{
  g_autoptr(ResultsReader) r = results_reader_open(path, error);
  if (!r)
    return FALSE;
  gboolean first = TRUE;
  gsize last = 0;
  for (;;) {
    ResultRow row;
    GError *e = NULL;
    if (!results_reader_next(r, &row, &e)) {
      if (e)
        g_propagate_error(error, e);
      return !e;
    }
    gboolean ok = TRUE;
    if (row.point >= n_points || (!first && row.point <= last)) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, row.point >= n_points
                  ? "%s: point %" G_GSIZE_FORMAT " is not in this sweep of %" G_GSIZE_FORMAT " points"
                  : "%s: point %" G_GSIZE_FORMAT " is out of order (a journal of an older aifsim?): run without "
                    "--resume to start again", path, row.point, n_points);
      ok = FALSE;
    }
    first = FALSE, last = row.point;
    ok = ok && f(&row, user, error);
    result_row_clear(&row);
    if (!ok)
      return FALSE;
  }
}

static gboolean note_done(ResultRow *row, gpointer done, GError **error)
{
  (void)error;
  g_hash_table_add(done, GSIZE_TO_POINTER(row->point + 1));
  return TRUE;
}

gboolean sweep_run(const Scenario *sc, const Catalog *cat, const Profile *prof, const char *dir,
                   const SweepOptions *opt, GError **error)
{
  g_autofree char *path = g_build_filename(dir, JOURNAL, NULL);
  g_autofree char *header = journal_header(sc, cat, prof, opt);
  g_autoptr(GHashTable) done = g_hash_table_new(g_direct_hash, g_direct_equal);
  struct stat st;
  gboolean have_journal = opt->resume && lstat(path, &st) == 0, empty = FALSE;
  if (have_journal) {
    if (!journal_check(path, header, &empty, error) ||
        (!empty && !journal_foreach(path, sc->n_points, note_done, done, error)))
      return FALSE;
    have_journal = !empty;
  }
  g_autoptr(GArray) todo = g_array_new(FALSE, FALSE, sizeof(gsize));
  gsize owned = 0;
  for (gsize i = 0; i < sc->n_points; i++) {
    if (opt->shards > 0 && (int)(i % (gsize)opt->shards) != opt->shard - 1)
      continue;
    owned++;
    if (!g_hash_table_contains(done, GSIZE_TO_POINTER(i + 1)))
      g_array_append_val(todo, i);
  }
  Journal p = { 0 };
  progress_start(&p.progress, opt->progress, "points", owned - todo->len, owned);
  int fd = output_dir_open_append(dir, JOURNAL, have_journal, error);
  if (fd < 0 || !(p.journal = fdopen(fd, "a"))) {
    if (fd >= 0) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: cannot write: %s", path, g_strerror(errno));
      close(fd);
    }
    return FALSE;
  }
  gboolean ok = TRUE;
  if (!have_journal) {
    g_autofree char *csv_header = results_csv_header();
    ok = fputs(header, p.journal) >= 0 && fputs(csv_header, p.journal) >= 0 && fflush(p.journal) == 0;
  }
  if (ok && todo->len > 0 && opt->jobs <= 1) { /* in this process, through the same journal */
    for (guint i = 0; i < todo->len && ok; i++) {
      g_autofree char *line = evaluate_line(sc, cat, prof, opt, g_array_index(todo, gsize, i), error);
      ok = line && journal_row(&p, line, strlen(line));
    }
  } else if (ok && todo->len > 0) {
    ok = run_workers(sc, cat, prof, opt, todo, &p, error);
  }
  progress_end(&p.progress);
  if (fclose(p.journal) != 0)
    ok = FALSE;
  if (!ok && error && !*error)
    g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: cannot write: %s", path, g_strerror(errno));
  return ok;
}

gboolean sweep_foreach(const Scenario *sc, const char *dir, SweepRowFunc f, gpointer user, GError **error)
{
  g_autofree char *path = g_build_filename(dir, JOURNAL, NULL);
  return journal_foreach(path, sc->n_points, f, user, error);
}

void sweep_finish(const char *dir)
{
  g_autofree char *path = g_build_filename(dir, JOURNAL, NULL);
  g_unlink(path);
}
