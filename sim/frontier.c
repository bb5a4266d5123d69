/* frontier.c — Pareto frontier by sorting (see frontier.h). */
#include "frontier.h"
#include "aif_error.h"

#include <math.h>
#include <string.h>

typedef struct {
  ResultRow *row;
  double x, y; /* oriented: larger is better */
} Pt;

/* Columns where less is better: what a point costs, draws or makes a user wait. */
static const char *const lower_is_better[] = {
  "usd_per_mtok", "joules_per_token", "gpu_power_w", "it_w_per_gpu", "optics_w_per_gpu", "step_ms", "ttft_p50_ms",
  "ttft_p90_ms", "ttft_p99_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p99_ms", "e2e_p50_ms", "e2e_p99_ms",
  "deployment_gpus", "facility_mw", "it_mw", "racks", "fabric_tiers", NULL,
};

gboolean frontier_column_maximised(const ResultColumn *c)
{
  return !g_strv_contains(lower_is_better, c->name);
}

gboolean frontier_axis_parse(const char *spec, FrontierAxis *out, GError **error)
{
  const char *colon = strrchr(spec, ':');
  g_autofree char *name = g_strndup(spec, colon ? (gsize)(colon - spec) : strlen(spec));
  out->col = results_column(name);
  if (!results_column_numeric(out->col)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "no numeric result column '%s' (see docs/results.md)", name);
    return FALSE;
  }
  if (colon && strcmp(colon, ":max") != 0 && strcmp(colon, ":min") != 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "'%s': expected COLUMN, COLUMN:max or COLUMN:min", spec);
    return FALSE;
  }
  out->maximise = colon ? strcmp(colon, ":max") == 0 : frontier_column_maximised(out->col);
  return TRUE;
}

void frontier_default_axes(FrontierAxis *x, FrontierAxis *y)
{
  *x = (FrontierAxis){ results_column("tok_s_per_user"), TRUE };
  *y = (FrontierAxis){ results_column("tok_s_per_mw"), TRUE };
}

static double oriented(const ResultRow *r, const FrontierAxis *a)
{
  double v = result_value(r, a->col);
  return a->maximise ? v : -v;
}

static gint by_x_then_y_desc(gconstpointer a, gconstpointer b)
{
  const Pt *p = a, *q = b;
  if (p->x != q->x)
    return p->x > q->x ? -1 : 1;
  if (p->y != q->y)
    return p->y > q->y ? -1 : 1;
  return p->row->point < q->row->point ? -1 : p->row->point > q->row->point;
}

/* Marks the frontier of PTS (one group): sorted by x then y, both descending, a point survives when
 * its y is the best of its x and beats every y seen at a larger x. Equal points all survive. */
static void mark_group(GArray *pts)
{
  g_array_sort(pts, by_x_then_y_desc);
  double best_before = -INFINITY;
  for (guint i = 0; i < pts->len;) {
    guint j = i;
    double x = g_array_index(pts, Pt, i).x, top = g_array_index(pts, Pt, i).y;
    for (; j < pts->len && g_array_index(pts, Pt, j).x == x; j++) {
      Pt *p = &g_array_index(pts, Pt, j);
      p->row->on_frontier = p->y == top && top > best_before;
    }
    best_before = MAX(best_before, top);
    i = j;
  }
}

void frontier_mark(GPtrArray *rows, const FrontierAxis *x, const FrontierAxis *y, gboolean per_system)
{
  g_autoptr(GHashTable) groups = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_array_unref);
  for (guint i = 0; i < rows->len; i++) {
    ResultRow *r = rows->pdata[i];
    r->on_frontier = -1;
    Pt p = { r, oriented(r, x), oriented(r, y) };
    if (r->status != OUTCOME_OK || !isfinite(p.x) || !isfinite(p.y))
      continue;
    const char *key = per_system && r->system ? r->system : "";
    GArray *g = g_hash_table_lookup(groups, key);
    if (!g)
      g_hash_table_insert(groups, (gpointer)key, g = g_array_new(FALSE, FALSE, sizeof(Pt)));
    g_array_append_val(g, p);
  }
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, groups);
  while (g_hash_table_iter_next(&it, &k, &v))
    mark_group(v);
}

const ResultRow *frontier_best(GPtrArray *rows, const char *system, const FrontierAxis *y)
{
  const ResultRow *best = NULL;
  for (guint i = 0; i < rows->len; i++) {
    const ResultRow *r = rows->pdata[i];
    double v = oriented(r, y);
    if (r->status != OUTCOME_OK || !isfinite(v) || (system && g_strcmp0(r->system, system) != 0))
      continue;
    if (!best || v > oriented(best, y) || (v == oriented(best, y) && r->point < best->point))
      best = r;
  }
  return best;
}
