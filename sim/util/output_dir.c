/* output_dir.c — safe names, locks and atomic writes for output folders (see output_dir.h). */
#include "output_dir.h"
#include "aif_error.h"
#include "fd_io.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <stdio.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

struct OutputDir {
  int fd; /* the folder, opened and flock()ed */
};

static gboolean run_error(GError **error, const char *path, const char *what, int err)
{
  g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: %s: %s", path, what, g_strerror(err));
  return FALSE;
}

struct AtomicFile {
  char *path, *tmp;
  FILE *f;
};

AtomicFile *atomic_file_open(const char *path, GError **error)
{
  g_autofree char *tmp = g_strconcat(path, ".XXXXXX", NULL);
  int fd = g_mkstemp_full(tmp, O_WRONLY | O_CLOEXEC, 0644); /* O_CREAT | O_EXCL: never an existing name */
  if (fd < 0) {
    run_error(error, path, "cannot write", errno);
    return NULL;
  }
  FILE *f = fdopen(fd, "w");
  if (!f) {
    run_error(error, path, "cannot write", errno);
    close(fd);
    g_unlink(tmp);
    return NULL;
  }
  AtomicFile *a = g_new0(AtomicFile, 1);
  a->path = g_strdup(path), a->tmp = g_steal_pointer(&tmp), a->f = f;
  return a;
}

FILE *atomic_file_stream(AtomicFile *a) { return a->f; }

void atomic_file_abort(AtomicFile *a)
{
  if (!a)
    return;
  if (a->f)
    fclose(a->f);
  g_unlink(a->tmp);
  g_free(a->path);
  g_free(a->tmp);
  g_free(a);
}

gboolean atomic_file_commit(AtomicFile *a, GError **error)
{
  gboolean ok = !ferror(a->f);
  int err = ok ? 0 : EIO;
  if (fclose(a->f) != 0 && ok)
    ok = FALSE, err = errno;
  a->f = NULL;
  if (ok && g_rename(a->tmp, a->path) != 0)
    ok = FALSE, err = errno;
  if (!ok)
    run_error(error, a->path, "cannot write", err);
  if (ok) {
    g_free(a->path);
    g_free(a->tmp);
    g_free(a);
  } else {
    atomic_file_abort(a);
  }
  return ok;
}

gboolean atomic_file_write(const char *path, const char *text, gssize len, GError **error)
{
  gsize n = len < 0 ? strlen(text) : (gsize)len;
  AtomicFile *a = atomic_file_open(path, error);
  if (!a)
    return FALSE;
  if (n && fwrite(text, 1, n, a->f) != n) {
    int err = errno;
    atomic_file_abort(a);
    return run_error(error, path, "cannot write", err);
  }
  return atomic_file_commit(a, error);
}

char *output_dir_default(const char *name)
{
  GString *safe = g_string_new(NULL);
  for (const char *c = name ? name : ""; *c && safe->len < 128; c++) {
    gboolean keep = g_ascii_isalnum(*c) || *c == '_' || *c == '-' || (*c == '.' && safe->len > 0);
    if (keep || safe->len > 0)
      g_string_append_c(safe, keep ? *c : '_');
  }
  if (safe->len == 0)
    g_string_assign(safe, "scenario");
  g_autofree char *leaf = g_string_free(safe, FALSE);
  return g_build_filename("results", leaf, NULL);
}

OutputDir *output_dir_lock(const char *path, GError **error)
{
  if (g_mkdir_with_parents(path, 0755) != 0) {
    run_error(error, path, "cannot create", errno);
    return NULL;
  }
  int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) {
    run_error(error, path, "cannot open the folder", errno);
    return NULL;
  }
  if (flock(fd, LOCK_EX | LOCK_NB) != 0) {
    int err = errno;
    close(fd);
    if (err == EWOULDBLOCK)
      g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: another aifsim is writing into this folder: wait for it "
                  "to finish, or write elsewhere with -o", path);
    else
      run_error(error, path, "cannot lock the folder", err);
    return NULL;
  }
  OutputDir *od = g_new(OutputDir, 1);
  od->fd = fd;
  return od;
}

void output_dir_unlock(OutputDir *od)
{
  if (!od)
    return;
  close(od->fd); /* closing the last descriptor releases the flock */
  g_free(od);
}

gboolean output_dir_mkdir(const char *dir, const char *sub, GError **error)
{
  g_auto(GStrv) parts = g_strsplit(sub, "/", -1);
  g_autofree char *path = g_strdup(dir);
  for (char **p = parts; *p; p++) {
    if (!**p)
      continue;
    char *next = g_build_filename(path, *p, NULL);
    g_free(path);
    path = next;
    struct stat st;
    if (mkdir(path, 0755) == 0)
      continue;
    if (errno != EEXIST)
      return run_error(error, path, "cannot create", errno);
    if (lstat(path, &st) != 0)
      return run_error(error, path, "cannot create", errno);
    if (!S_ISDIR(st.st_mode)) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: %s, not a folder: refusing to write through it", path,
                  S_ISLNK(st.st_mode) ? "a symlink" : "a file");
      return FALSE;
    }
  }
  return TRUE;
}

int output_dir_open_append(const char *dir, const char *name, gboolean append, GError **error)
{
  g_autofree char *path = g_build_filename(dir, name, NULL);
  int flags = O_WRONLY | O_APPEND | O_NOFOLLOW | O_CLOEXEC;
  if (!append && g_unlink(path) != 0 && errno != ENOENT) {
    run_error(error, path, "cannot replace", errno);
    return -1;
  }
  int fd = open(path, append ? flags : flags | O_CREAT | O_EXCL, 0644);
  if (fd < 0 && errno == ELOOP)
    g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: a symlink: refusing to write through it", path);
  else if (fd < 0)
    run_error(error, path, "cannot write", errno);
  return fd;
}
