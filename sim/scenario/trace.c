/* trace.c — reading request traces (see trace.h). */
#include "trace.h"
#include "aif_error.h"
#include "csv.h"
#include "input_file.h"

#include <math.h>
#include <string.h>

/* A token count: a whole number from 1 to the limit, never wrapped into an int. */
static gboolean tokens(const char *s, int *out)
{
  char *end = NULL;
  gint64 v = g_ascii_strtoll(s, &end, 10);
  if (!*s || *end || v < 1 || v > input_limit(LIMIT_TOKENS) || v > G_MAXINT)
    return FALSE;
  *out = (int)v;
  return TRUE;
}

/* An optional id column: empty for none, else a whole number >= 0 below 2^30. */
static gboolean id_field(const char *s, int *out)
{
  if (!s || !*s) {
    *out = -1;
    return TRUE;
  }
  char *end = NULL;
  gint64 v = g_ascii_strtoll(s, &end, 10);
  if (*end || v < 0 || v >= (1 << 30))
    return FALSE;
  *out = (int)v;
  return TRUE;
}

/* The optional columns of row R (SESSION, GROUP, PREFIX: their indices, -1 when absent) into T. */
static gboolean shared_context(const CsvFile *csv, guint r, const int idx[3], TraceRow *t, const char *path, int line,
                               GError **error)
{
  static const char *const names[] = { "session", "prefix_group", "prefix_tokens" };
  for (int k = 0; k < 3; k++) {
    const char *v = idx[k] >= 0 ? csv_field(csv, r, idx[k]) : NULL;
    int got;
    gboolean ok = k < 2 ? id_field(v, &got) : (!v || !*v ? (got = 0, TRUE) : (tokens(v, &got) && got < t->isl));
    if (!ok) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: %s: expected %s, got '%s'", path, line, idx[k] + 1,
                  names[k], k < 2 ? "an id: a whole number >= 0 (or empty: none)"
                                  : "a whole number of tokens below input_tokens (or empty: none)", v);
      return FALSE;
    }
    *(k == 0 ? &t->session : k == 1 ? &t->group : &t->prefix) = got;
  }
  if (t->prefix > 0 && t->group < 0)
    t->group = 0; /* one shared prefix when the trace names no group */
  return TRUE;
}

static gboolean trace_row(GArray *trace, const char *path, int line, const char *a, const char *b, const char *c,
                          GError **error)
{
  char *end = NULL;
  TraceRow t = { g_ascii_strtod(a, &end), 0, 0, -1, -1, 0 };
  gboolean time_ok = *a && !*end && isfinite(t.arrival) && t.arrival >= 0;
  int col = !time_ok ? 1 : !tokens(b, &t.isl) ? 2 : !tokens(c, &t.osl) ? 3 : 0;
  if (col) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: expected arrival_s,input_tokens,output_tokens: %s, "
                "got '%s'", path, line, col, col == 1 ? "a time in seconds >= 0" : "a whole number of tokens from 1 "
                "to AIFSIM_MAX_TOKENS", col == 1 ? a : col == 2 ? b : c);
    return FALSE;
  }
  if (trace->len && t.arrival < g_array_index(trace, TraceRow, trace->len - 1).arrival) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: arrival %s s is before the previous row's: a trace "
                "is in arrival order", path, line, a);
    return FALSE;
  }
  if ((gint64)trace->len >= input_limit(LIMIT_REQUESTS)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: more requests than the limit of %" G_GINT64_FORMAT
                " (raise it with %s=N)", path, line, input_limit(LIMIT_REQUESTS), input_limit_name(LIMIT_REQUESTS));
    return FALSE;
  }
  g_array_append_val(trace, t);
  return TRUE;
}

GArray *trace_read(const char *path, GError **error)
{
  g_autoptr(CsvFile) csv = csv_read(path, error);
  if (!csv)
    return NULL;
  g_autoptr(GArray) trace = g_array_new(FALSE, FALSE, sizeof(TraceRow));
  GPtrArray *h = csv->header;
  gboolean header = csv_column(csv, "arrival_s") >= 0;
  if (header && (h->len < 3 || strcmp(h->pdata[0], "arrival_s") || strcmp(h->pdata[1], "input_tokens") ||
                 strcmp(h->pdata[2], "output_tokens"))) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:1:1: expected the header arrival_s,input_tokens,output_tokens",
                path);
    return NULL;
  }
  if (!header && /* no header: csv_read took the first row for one */
      !trace_row(trace, path, 1, h->len > 0 ? h->pdata[0] : "", h->len > 1 ? h->pdata[1] : "",
                 h->len > 2 ? h->pdata[2] : "", error))
    return NULL;
  int idx[3] = { header ? csv_column(csv, "session") : -1, header ? csv_column(csv, "prefix_group") : -1,
                 header ? csv_column(csv, "prefix_tokens") : -1 };
  for (guint r = 0; r < csv->rows->len; r++) {
    int line = g_array_index(csv->lines, int, r);
    if (!trace_row(trace, path, line, csv_field(csv, r, 0), csv_field(csv, r, 1), csv_field(csv, r, 2), error) ||
        !shared_context(csv, r, idx, &g_array_index(trace, TraceRow, trace->len - 1), path, line, error))
      return NULL;
  }
  if (trace->len == 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:2:1: the trace has a header but no request", path);
    return NULL;
  }
  return g_steal_pointer(&trace);
}
