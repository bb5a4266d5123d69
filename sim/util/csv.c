/* csv.c — a small RFC 4180 reader (see csv.h). */
#include "csv.h"
#include "aif_error.h"
#include "input_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A record longer than this is no CSV a results file or a measured file holds. */
#define CSV_MAX_RECORD (16 << 20)

struct CsvReader {
  char *path;
  FILE *f;              /* a file, or */
  const char *text;     /* a buffer of LEN bytes */
  gsize len, pos;
  int line;             /* the line the next character is on */
};

static int get(CsvReader *r)
{
  if (r->f)
    return getc(r->f);
  return r->pos < r->len ? (unsigned char)r->text[r->pos++] : EOF;
}

static int peek(CsvReader *r)
{
  if (r->f) {
    int c = getc(r->f);
    if (c != EOF)
      ungetc(c, r->f);
    return c;
  }
  return r->pos < r->len ? (unsigned char)r->text[r->pos] : EOF;
}

CsvReader *csv_reader_open(const char *path, GError **error)
{
  FILE *f = strcmp(path, "-") == 0 ? fdopen(dup(STDIN_FILENO), "r") : fopen(path, "re");
  if (!f) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: cannot read: %s", path, g_strerror(errno));
    return NULL;
  }
  CsvReader *r = g_new0(CsvReader, 1);
  r->path = g_strdup(path);
  r->f = f;
  r->line = 1;
  return r;
}

CsvReader *csv_reader_new(const char *path, const char *text, gsize len)
{
  CsvReader *r = g_new0(CsvReader, 1);
  r->path = g_strdup(path);
  r->text = text, r->len = len;
  r->line = 1;
  return r;
}

void csv_reader_free(CsvReader *r)
{
  if (!r)
    return;
  if (r->f)
    fclose(r->f);
  g_free(r->path);
  g_free(r);
}

const char *csv_reader_path(const CsvReader *r) { return r->path; }

gboolean csv_reader_skip_comments(CsvReader *r)
{
  while (peek(r) == '#') {
    int c;
    while ((c = get(r)) != EOF && c != '\n')
      ;
    r->line++;
    if (c == EOF)
      return FALSE;
  }
  return TRUE;
}

gboolean csv_reader_next(CsvReader *r, GPtrArray *fields, int *line, GError **error)
{
  g_ptr_array_set_size(fields, 0);
  g_autoptr(GString) field = g_string_new(NULL);
  gboolean quoted = FALSE, any = FALSE;
  gsize size = 0;
  *line = r->line;
  for (;;) {
    int c = get(r);
    if (++size > CSV_MAX_RECORD) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: a record longer than %d MiB", r->path, *line,
                  CSV_MAX_RECORD >> 20);
      return FALSE;
    }
    if (quoted) {
      if (c == EOF) {
        g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: a quoted field is never closed", r->path, *line);
        return FALSE;
      }
      if (c == '"' && peek(r) == '"')
        g_string_append_c(field, '"'), get(r);
      else if (c == '"')
        quoted = FALSE;
      else
        g_string_append_c(field, (char)c), r->line += c == '\n';
      continue;
    }
    if (c == '"') {
      quoted = any = TRUE;
    } else if (c == ',') {
      g_ptr_array_add(fields, g_strdup(field->str));
      g_string_truncate(field, 0);
      any = TRUE;
    } else if (c == '\n' || c == '\r' || c == EOF) {
      if (c == '\r' && peek(r) == '\n')
        get(r);
      if (c != EOF)
        r->line++;
      if (any || field->len) {
        g_ptr_array_add(fields, g_strdup(field->str));
        return TRUE;
      }
      if (c == EOF)
        return FALSE; /* the end: no record */
      *line = r->line; /* a blank line: the record starts on the next */
    } else {
      g_string_append_c(field, (char)c);
      any = TRUE;
    }
  }
}

CsvFile *csv_read(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len;
  if (!input_file_read(path, &text, &len, error))
    return NULL;
  return csv_parse(path, text, len, error);
}

CsvFile *csv_parse(const char *path, const char *text, gsize len, GError **error)
{
  g_autoptr(CsvReader) r = csv_reader_new(path, text, len);
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  g_autoptr(GArray) starts = g_array_new(FALSE, FALSE, sizeof(int));
  for (;;) {
    GPtrArray *row = g_ptr_array_new_with_free_func(g_free);
    int line;
    GError *e = NULL;
    if (!csv_reader_next(r, row, &line, &e)) {
      g_ptr_array_unref(row);
      if (e) {
        g_propagate_error(error, e);
        return NULL;
      }
      break;
    }
    g_ptr_array_add(all, row);
    g_array_append_val(starts, line);
  }
  if (all->len == 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:1:1: empty file: expected a header line", path);
    return NULL;
  }
  CsvFile *c = g_new0(CsvFile, 1);
  c->path = g_strdup(path);
  c->header = g_ptr_array_ref(all->pdata[0]);
  g_ptr_array_remove_index(all, 0);
  g_array_remove_index(starts, 0);
  c->rows = g_steal_pointer(&all);
  c->lines = g_steal_pointer(&starts);
  return c;
}

void csv_free(CsvFile *c)
{
  if (!c)
    return;
  g_free(c->path);
  g_ptr_array_unref(c->header);
  g_ptr_array_unref(c->rows);
  g_array_unref(c->lines);
  g_free(c);
}

int csv_column(const CsvFile *c, const char *name)
{
  for (guint i = 0; i < c->header->len; i++)
    if (strcmp(c->header->pdata[i], name) == 0)
      return (int)i;
  return -1;
}

const char *csv_field(const CsvFile *c, guint r, int col)
{
  GPtrArray *row = c->rows->pdata[r];
  return col >= 0 && (guint)col < row->len ? row->pdata[col] : "";
}

void csv_append_quoted(GString *out, const char *s)
{
  g_string_append_c(out, '"');
  for (; s && *s; s++) {
    if (*s == '"')
      g_string_append_c(out, '"');
    g_string_append_c(out, *s);
  }
  g_string_append_c(out, '"');
}

void csv_append_field(GString *out, const char *s)
{
  if (!s)
    return;
  if (!strpbrk(s, ",\"\n\r")) {
    g_string_append(out, s);
    return;
  }
  csv_append_quoted(out, s);
}

int csv_field_start(char *const *fields, int i)
{
  int col = 1;
  for (int k = 0; k < i; k++)
    col += (int)strlen(fields[k]) + 1;
  return col;
}
