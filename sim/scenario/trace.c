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

static gboolean trace_row(GArray *trace, const char *path, int line, const char *a, const char *b, const char *c,
                          GError **error)
{
  char *end = NULL;
  TraceRow t = { g_ascii_strtod(a, &end), 0, 0 };
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
  for (guint r = 0; r < csv->rows->len; r++)
    if (!trace_row(trace, path, g_array_index(csv->lines, int, r), csv_field(csv, r, 0), csv_field(csv, r, 1),
                   csv_field(csv, r, 2), error))
      return NULL;
  if (trace->len == 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:2:1: the trace has a header but no request", path);
    return NULL;
  }
  return g_steal_pointer(&trace);
}
