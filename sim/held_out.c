/* held_out.c — the held-out error table (see held_out.h). */
#include "held_out.h"
#include "aif_error.h"
#include "csv.h"

#include <math.h>
#include <string.h>

struct HeldOut {
  GArray *entries; /* HeldOutError */
};

static void entry_clear(gpointer p)
{
  HeldOutError *e = p;
  g_free(e->system);
  g_free(e->arch);
  g_free(e->mode);
  g_free(e->model);
}

void held_out_free(HeldOut *h)
{
  if (!h)
    return;
  g_array_unref(h->entries);
  g_free(h);
}

static const char *const columns[] = { "system", "mode", "rows", "out_tok_s_per_gpu", "tok_s_per_user", "ttft_ms" };

/* Cell COL of row R as a number from LO up (an error fraction, a row count); empty: NAN where
 * EMPTY_OK. */
static gboolean number(const CsvFile *c, guint r, int col, double lo, gboolean empty_ok, double *out, GError **error)
{
  const char *s = csv_field(c, r, col);
  char *end = NULL;
  double v = g_ascii_strtod(s, &end);
  if (!*s && empty_ok) {
    *out = NAN;
    return TRUE;
  }
  if (*s && !*end && isfinite(v) && v >= lo) {
    *out = v;
    return TRUE;
  }
  g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: column '%s' expects a number from %g%s, got '%s'", c->path,
              g_array_index(c->lines, int, r), col + 1, (const char *)c->header->pdata[col], lo,
              empty_ok ? " or nothing" : "", s);
  return FALSE;
}

HeldOut *held_out_load(const char *path, GError **error)
{
  g_autoptr(CsvFile) c = csv_read(path, error);
  if (!c)
    return NULL;
  int col[G_N_ELEMENTS(columns)];
  for (gsize k = 0; k < G_N_ELEMENTS(columns); k++)
    if ((col[k] = csv_column(c, columns[k])) < 0) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:1:1: missing column '%s' (expected system, mode, rows, "
                  "out_tok_s_per_gpu, tok_s_per_user, ttft_ms)", path, columns[k]);
      return NULL;
    }
  HeldOut *h = g_new0(HeldOut, 1);
  h->entries = g_array_new(FALSE, TRUE, sizeof(HeldOutError));
  g_array_set_clear_func(h->entries, entry_clear);
  int arch = csv_column(c, "arch"), model = csv_column(c, "model"); /* optional: older tables lack them */
  for (guint r = 0; r < c->rows->len; r++) {
    const char *mode = csv_field(c, r, col[1]);
    if (strcmp(mode, "aggregated") != 0 && strcmp(mode, "disaggregated") != 0) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: column 'mode' expects aggregated or disaggregated, "
                  "got '%s'", path, g_array_index(c->lines, int, r), col[1] + 1, mode);
      return held_out_free(h), NULL;
    }
    double rows, err[3];
    gboolean ok = number(c, r, col[2], 1, FALSE, &rows, error);
    if (ok && rows != floor(rows)) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: column 'rows' expects a whole number, got '%s'", path,
                  g_array_index(c->lines, int, r), col[2] + 1, csv_field(c, r, col[2]));
      ok = FALSE;
    }
    for (int k = 0; ok && k < 3; k++)
      ok = number(c, r, col[3 + k], 0, TRUE, &err[k], error);
    if (!ok)
      return held_out_free(h), NULL;
    const char *system = csv_field(c, r, col[0]), *arch_name = arch >= 0 ? csv_field(c, r, arch) : "";
    if (!*system && !*arch_name) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: column 'system' expects a system, or 'arch' an "
                  "architecture, got neither", path, g_array_index(c->lines, int, r), col[0] + 1);
      return held_out_free(h), NULL;
    }
    HeldOutError e = { g_strdup(system), g_strdup(arch_name), g_strdup(mode),
                       g_strdup(model >= 0 ? csv_field(c, r, model) : ""), (guint)MIN(rows, G_MAXUINT), err[0],
                       err[1], err[2] };
    g_array_append_val(h->entries, e);
  }
  return h;
}

/* The line of SYSTEM (empty: of architecture ARCH) in MODE for MODEL (empty: every model), or NULL. */
static const HeldOutError *line(const HeldOut *h, const char *system, const char *arch, const char *mode,
                                const char *model)
{
  for (guint i = 0; i < h->entries->len; i++) {
    const HeldOutError *e = &g_array_index(h->entries, HeldOutError, i);
    if (strcmp(e->system, system) == 0 && (*system || strcmp(e->arch, arch) == 0) && strcmp(e->mode, mode) == 0 &&
        strcmp(e->model, model) == 0)
      return e;
  }
  return NULL;
}

/* The GPU architecture the table gives SYSTEM, or "" where it gives none. */
static const char *arch_of(const HeldOut *h, const char *system)
{
  for (guint i = 0; i < h->entries->len; i++) {
    const HeldOutError *e = &g_array_index(h->entries, HeldOutError, i);
    if (strcmp(e->system, system) == 0 && *e->arch)
      return e->arch;
  }
  return "";
}

const HeldOutError *held_out_find(const HeldOut *h, const char *system, const char *mode, const char *model,
                                  HeldOutScope *scope)
{
  if (!h || !system || !*system || !mode)
    return NULL;
  const HeldOutError *e = NULL;
  HeldOutScope s = HELD_OUT_SYSTEM;
  if (model && *model) {
    const char *arch = arch_of(h, system);
    if ((e = line(h, system, "", mode, model)) && e->rows >= HELD_OUT_MIN_ROWS)
      s = HELD_OUT_SYSTEM_MODEL;
    else if (*arch && (e = line(h, "", arch, mode, model)) && e->rows >= HELD_OUT_MIN_ROWS)
      s = HELD_OUT_ARCH_MODEL;
    else
      e = NULL;
  }
  if (!e)
    e = line(h, system, "", mode, "");
  if (e && scope)
    *scope = s;
  return e;
}
