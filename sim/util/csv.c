/* csv.c — a small RFC 4180 reader (see csv.h). */
#include "csv.h"
#include "aif_error.h"
#include "input_file.h"

#include <string.h>

static GPtrArray *new_row(void) { return g_ptr_array_new_with_free_func(g_free); }

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
  g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  g_autoptr(GArray) starts = g_array_new(FALSE, FALSE, sizeof(int));
  GPtrArray *row = new_row();
  GString *field = g_string_new(NULL);
  gboolean quoted = FALSE, any = FALSE;
  int line = 1, row_line = 1;
  for (gsize i = 0; i <= len; i++) {
    char ch = i < len ? text[i] : '\n';
    if (quoted) {
      if (ch == '"' && i + 1 < len && text[i + 1] == '"')
        g_string_append_c(field, '"'), i++;
      else if (ch == '"')
        quoted = FALSE;
      else
        g_string_append_c(field, ch), line += ch == '\n';
      continue;
    }
    if (ch == '"') {
      quoted = any = TRUE;
    } else if (ch == ',') {
      g_ptr_array_add(row, g_string_free(field, FALSE));
      field = g_string_new(NULL);
      any = TRUE;
    } else if (ch == '\n' || ch == '\r') {
      if (ch == '\r' && i + 1 < len && text[i + 1] == '\n')
        i++;
      if (any || field->len) {
        g_ptr_array_add(row, g_string_free(field, FALSE));
        field = g_string_new(NULL);
        g_ptr_array_add(all, row);
        g_array_append_val(starts, row_line);
        row = new_row();
      }
      any = FALSE;
      row_line = ++line;
    } else {
      g_string_append_c(field, ch);
      any = TRUE;
    }
  }
  g_string_free(field, TRUE);
  g_ptr_array_unref(row);
  if (quoted) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: a quoted field is never closed", path, row_line);
    return NULL;
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

void csv_append_field(GString *out, const char *s)
{
  if (!s)
    return;
  if (!strpbrk(s, ",\"\n\r")) {
    g_string_append(out, s);
    return;
  }
  g_string_append_c(out, '"');
  for (; *s; s++) {
    if (*s == '"')
      g_string_append_c(out, '"');
    g_string_append_c(out, *s);
  }
  g_string_append_c(out, '"');
}
