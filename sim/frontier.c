/* frontier.c — Pareto frontier by sorting (see frontier.h). */
#include "frontier.h"
#include "aif_error.h"

#include <math.h>
#include <string.h>

typedef struct {
  ResultRow *row;
  double x, y;
} Pt;

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

gboolean frontier_mark(GPtrArray *rows, const char *x, const char *y, gboolean per_system, GError **error)
{
  const ResultColumn *cx = results_column(x), *cy = results_column(y);
  if (!results_column_numeric(cx) || !results_column_numeric(cy)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "no numeric result column '%s' (see docs/results.md)",
                !results_column_numeric(cx) ? x : y);
    return FALSE;
  }
  g_autoptr(GHashTable) groups = g_hash_table_new_full(g_str_hash, g_str_equal, NULL, (GDestroyNotify)g_array_unref);
  for (guint i = 0; i < rows->len; i++) {
    ResultRow *r = rows->pdata[i];
    r->on_frontier = -1;
    Pt p = { r, result_value(r, cx), result_value(r, cy) };
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
  return TRUE;
}
