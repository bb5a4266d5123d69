/* sweep.c — parallel, sharded, resumable evaluation of a scenario's points (see sweep.h). */
#include "sweep.h"
#include "keytable.h"
#include "aif_error.h"
#include "evaluate.h"
#include "fd_io.h"
#include "input_file.h"
#include "output_dir.h"
#include "results.h"

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

static void free_rows(GPtrArray *rows)
{
  if (rows)
    evaluate_rows_free(rows);
}

static gint by_point(gconstpointer a, gconstpointer b)
{
  gsize x = (*(ResultRow *const *)a)->point, y = (*(ResultRow *const *)b)->point;
  return (x > y) - (x < y);
}

/* Point INDEX evaluated, as its results CSV line. */
static char *evaluate_line(const Scenario *sc, const Catalog *cat, const Profile *prof, gsize index)
{
  Point pt;
  ResultRow r;
  scenario_point(sc, cat, index, &pt);
  result_row_init(&r, pt.index);
  evaluate_point(&pt, prof, &r);
  char *line = results_csv_line(&r);
  result_row_clear(&r);
  point_clear(&pt);
  return line;
}

/* Points handed to a worker at a time, and how many such batches it holds at once: enough that it
 * never waits for the next, few enough that the last ones spread over every worker. */
#define BATCH 4
#define BATCHES_AHEAD 2

/* A batch of points for a worker: positions in the list of points to do. */
typedef struct {
  guint32 first, count;
} Batch;

/* A worker: evaluates the batches the parent sends on CMD until it closes it, writing each row's
 * CSV line to OUT. Points go to whichever worker is free, so uneven points (an event simulation
 * takes from microseconds to seconds) do not leave one worker with all the slow ones. */
static gboolean work(const Scenario *sc, const Catalog *cat, const Profile *prof, GArray *todo, int cmd, int out)
{
  Batch b;
  while (fd_read_all(cmd, &b, sizeof b)) {
    for (guint32 i = b.first; i < b.first + b.count && i < todo->len; i++) {
      g_autofree char *line = evaluate_line(sc, cat, prof, g_array_index(todo, gsize, i));
      if (!fd_write_all(out, line, strlen(line)))
        return FALSE;
    }
  }
  return TRUE;
}

typedef struct {
  int cmd;              /* write end of the worker's batches; -1 once closed */
  gsize given, returned; /* points sent, rows received */
} WorkerState;

/* Keeps W supplied: batches until BATCHES_AHEAD are outstanding; closes its command pipe when no
 * point is left, so that it ends once its last batch is done. */
static gboolean feed(WorkerState *w, gsize *next, gsize total)
{
  while (w->cmd >= 0 && *next < total && w->given - w->returned < BATCH * BATCHES_AHEAD) {
    Batch b = { (guint32)*next, (guint32)MIN(BATCH, total - *next) };
    if (!fd_write_all(w->cmd, &b, sizeof b))
      return FALSE;
    *next += b.count, w->given += b.count;
  }
  if (w->cmd >= 0 && *next >= total) {
    close(w->cmd);
    w->cmd = -1;
  }
  return TRUE;
}

typedef struct {
  FILE *journal;
  gsize done, total;
  gint64 start, last_draw;
  gboolean bar;
} Progress;

static void draw(Progress *p, gboolean final)
{
  gint64 now = g_get_monotonic_time();
  if (!p->bar || (!final && now - p->last_draw < 100000))
    return;
  p->last_draw = now;
  double secs = (now - p->start) / 1e6, rate = secs > 0 ? p->done / secs : 0;
  double eta = rate > 0 ? (p->total - p->done) / rate : 0;
  int width = 30, fill = p->total ? (int)(width * (double)p->done / p->total) : width;
  fprintf(stderr, "\r[%.*s%*s] %" G_GSIZE_FORMAT "/%" G_GSIZE_FORMAT " points, %.0f/s, ETA %.0f s ", fill,
          "##############################", width - fill, "", p->done, p->total, rate, eta);
  if (final)
    fputc('\n', stderr);
}

/* Appends complete lines of BUF to the journal and counts them. */
static gboolean journal_lines(Progress *p, GString *buf)
{
  char *nl;
  while ((nl = memchr(buf->str, '\n', buf->len))) {
    gsize n = (gsize)(nl - buf->str) + 1;
    if (fwrite(buf->str, 1, n, p->journal) != n || fflush(p->journal) != 0)
      return FALSE;
    g_string_erase(buf, 0, (gssize)n);
    p->done++;
    draw(p, FALSE);
  }
  return TRUE;
}

/* Forks JOBS workers over the points in todo and journals what they stream back. */
static gboolean run_workers(const Scenario *sc, const Catalog *cat, const Profile *prof, GArray *todo, int jobs,
                            Progress *p, GError **error)
{
  int n = MAX(1, MIN(jobs, (int)todo->len));
  g_autofree struct pollfd *fds = g_new0(struct pollfd, n);
  g_autofree pid_t *pids = g_new0(pid_t, n);
  g_autofree WorkerState *ws = g_new0(WorkerState, n);
  GString **bufs = g_new0(GString *, n);
  fflush(NULL); /* children must not inherit unwritten stdio buffers */
  for (int w = 0; w < n; w++) {
    int fd[2], cmd[2];
    if (pipe(fd) != 0 || pipe(cmd) != 0 || (pids[w] = fork()) < 0) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "cannot start a worker: %s", g_strerror(errno));
      return FALSE;
    }
    if (pids[w] == 0) {
      close(fd[0]);
      close(cmd[1]);
      for (int o = 0; o < w; o++) /* the other workers' pipes: their ends must close with the parent's */
        close(fds[o].fd), close(ws[o].cmd);
      _exit(work(sc, cat, prof, todo, cmd[0], fd[1]) ? 0 : 1);
    }
    close(fd[1]);
    close(cmd[0]);
    fds[w] = (struct pollfd){ .fd = fd[0], .events = POLLIN };
    ws[w] = (WorkerState){ .cmd = cmd[1] };
    bufs[w] = g_string_new(NULL);
  }
  gsize next = 0;
  gboolean ok = TRUE;
  /* a worker that died leaves its batch pipe without a reader: a write there is an error to report,
   * not a signal that ends the parent */
  struct sigaction ignore = { .sa_handler = SIG_IGN }, old;
  sigaction(SIGPIPE, &ignore, &old);
  for (int w = 0; w < n && ok; w++)
    ok = feed(&ws[w], &next, todo->len);
  for (int open = n; open > 0 && ok;) {
    if (poll(fds, n, -1) < 0 && errno != EINTR)
      break;
    for (int w = 0; w < n && ok; w++) {
      if (fds[w].fd < 0 || !(fds[w].revents & (POLLIN | POLLHUP | POLLERR)))
        continue;
      char chunk[65536];
      ssize_t got = read(fds[w].fd, chunk, sizeof chunk);
      if (got > 0) {
        gsize before = p->done;
        g_string_append_len(bufs[w], chunk, got);
        ok = journal_lines(p, bufs[w]);
        ws[w].returned += p->done - before;
        ok = ok && feed(&ws[w], &next, todo->len);
      } else if (got == 0 || errno != EINTR) {
        close(fds[w].fd);
        fds[w].fd = -1, open--;
      }
    }
  }
  for (int w = 0; w < n; w++) {
    int status = 0;
    if (fds[w].fd >= 0)
      close(fds[w].fd);
    if (ws[w].cmd >= 0)
      close(ws[w].cmd);
    if (waitpid(pids[w], &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
      ok = FALSE;
    g_string_free(bufs[w], TRUE);
  }
  sigaction(SIGPIPE, &old, NULL);
  g_free(bufs);
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

/* The journal's rows, after checking they belong to HEADER. A torn last line (the disk filled, the
 * machine stopped mid-write) is cut off the file, so appending starts on a line of its own. Sets
 * *EMPTY when not even the CSV header line is whole (the caller starts afresh). */
static GPtrArray *journal_read(const char *path, const char *header, gsize n_points, gboolean *empty,
                               GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0, hl = strlen(header);
  *empty = FALSE;
  if (!input_file_read(path, &text, &len, error))
    return NULL;
  if (len < hl || memcmp(text, header, hl) != 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: the journal of another run (its scenario, catalog, "
                "profile or shard differ): run without --resume to start again", path);
    return NULL;
  }
  gsize keep = len;
  while (keep > hl && text[keep - 1] != '\n')
    keep--;
  if (keep < len && truncate(path, (off_t)keep) != 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: cannot cut its torn last line: %s", path, g_strerror(errno));
    return NULL;
  }
  if (!memchr(text + hl, '\n', keep - hl)) {
    *empty = TRUE;
    return NULL;
  }
  GPtrArray *rows = results_parse(path, text + hl, keep - hl, error);
  for (guint i = 0; rows && i < rows->len; i++)
    if (((ResultRow *)rows->pdata[i])->point >= n_points) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: point %" G_GSIZE_FORMAT " is not in this sweep of %"
                  G_GSIZE_FORMAT " points", path, ((ResultRow *)rows->pdata[i])->point, n_points);
      g_clear_pointer(&rows, free_rows);
    }
  return rows;
}

GPtrArray *sweep_run(const Scenario *sc, const Catalog *cat, const Profile *prof, const char *dir,
                     const SweepOptions *opt, GError **error)
{
  g_autofree char *path = g_build_filename(dir, JOURNAL, NULL);
  g_autofree char *header = journal_header(sc, cat, prof, opt);
  g_autoptr(GHashTable) done = g_hash_table_new(g_direct_hash, g_direct_equal);
  struct stat st;
  gboolean have_journal = opt->resume && lstat(path, &st) == 0, empty = FALSE;
  if (have_journal) {
    GPtrArray *old = journal_read(path, header, sc->n_points, &empty, error);
    if (!old && !empty)
      return NULL;
    for (guint i = 0; old && i < old->len; i++)
      g_hash_table_add(done, GSIZE_TO_POINTER(((ResultRow *)old->pdata[i])->point + 1));
    free_rows(old);
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
  Progress p = { .total = owned, .done = owned - todo->len, .start = g_get_monotonic_time(), .bar = opt->progress };
  int fd = output_dir_open_append(dir, JOURNAL, have_journal, error);
  if (fd < 0 || !(p.journal = fdopen(fd, "a"))) {
    if (fd >= 0) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: cannot write: %s", path, g_strerror(errno));
      close(fd);
    }
    return NULL;
  }
  gboolean ok = TRUE;
  if (!have_journal) {
    g_autofree char *csv_header = results_csv_header();
    ok = fputs(header, p.journal) >= 0 && fputs(csv_header, p.journal) >= 0 && fflush(p.journal) == 0;
  }
  if (ok && todo->len > 0 && opt->jobs <= 1) { /* in this process, through the same journal */
    GString *buf = g_string_new(NULL);
    for (guint i = 0; i < todo->len && ok; i++) {
      g_autofree char *line = evaluate_line(sc, cat, prof, g_array_index(todo, gsize, i));
      g_string_append(buf, line);
      ok = journal_lines(&p, buf);
    }
    g_string_free(buf, TRUE);
  } else if (ok && todo->len > 0) {
    ok = run_workers(sc, cat, prof, todo, opt->jobs, &p, error);
  }
  draw(&p, TRUE);
  if (fclose(p.journal) != 0)
    ok = FALSE;
  if (!ok) {
    if (error && !*error)
      g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: cannot write: %s", path, g_strerror(errno));
    return NULL;
  }
  GPtrArray *rows = journal_read(path, header, sc->n_points, &empty, error);
  if (rows)
    g_ptr_array_sort(rows, by_point);
  else if (empty)
    g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: the journal lost its header line", path);
  return rows;
}

void sweep_finish(const char *dir)
{
  g_autofree char *path = g_build_filename(dir, JOURNAL, NULL);
  g_unlink(path);
}
