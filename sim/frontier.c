/* frontier.c — the Pareto frontier, kept as points stream by (see frontier.h). */
#include "frontier.h"
#include "aif_error.h"

#include <math.h>
#include <string.h>

/* Columns where less is better: what a point costs, draws or makes a user wait. */
static const char *const lower_is_better[] = {
  "usd_per_mtok", "joules_per_token", "gpu_power_w", "it_w_per_gpu", "optics_w_per_gpu", "step_ms", "ttft_p50_ms",
  "ttft_p90_ms", "ttft_p99_ms", "tpot_p50_ms", "tpot_p90_ms", "tpot_p99_ms", "e2e_p50_ms", "e2e_p99_ms",
  "deployment_gpus", "facility_mw", "it_mw", "racks", "fabric_tiers", "failures", "requests_lost", "lost_share",
  "requests_retried", "switch_tray_failures", "degraded_share", "shed_rate", NULL,
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

typedef struct {
  gsize point;
  double x, y; /* oriented: larger is better */
} Cand;

struct FrontierSet {
  FrontierAxis x, y;
  gboolean per_system;
  GHashTable *groups; /* system (owned) -> GArray of Cand: the points no other beats so far */
};

FrontierSet *frontier_set_new(const FrontierAxis *x, const FrontierAxis *y, gboolean per_system)
{
  FrontierSet *fs = g_new0(FrontierSet, 1);
  fs->x = *x, fs->y = *y, fs->per_system = per_system;
  fs->groups = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);
  return fs;
}

void frontier_set_free(FrontierSet *fs)
{
  if (!fs)
    return;
  g_hash_table_unref(fs->groups);
  g_free(fs);
}

/* Q beats P: at least as good on both axes, better on one. Equal points beat neither. */
static gboolean beats(const Cand *q, const Cand *p)
{
  return q->x >= p->x && q->y >= p->y && (q->x > p->x || q->y > p->y);
}

static const char *group_key(const FrontierSet *fs, const ResultRow *r)
{
  return fs->per_system && r->system ? r->system : "";
}

/* R takes part when it is ok (it meets the SLO) and both its values are known. */
static gboolean candidate(const FrontierSet *fs, const ResultRow *r, Cand *c)
{
  *c = (Cand){ r->point, oriented(r, &fs->x), oriented(r, &fs->y) };
  return r->status == OUTCOME_OK && isfinite(c->x) && isfinite(c->y);
}

void frontier_set_add(FrontierSet *fs, const ResultRow *r)
{
  Cand c;
  if (!candidate(fs, r, &c))
    return;
  GArray *g = g_hash_table_lookup(fs->groups, group_key(fs, r));
  if (!g)
    g_hash_table_insert(fs->groups, g_strdup(group_key(fs, r)), g = g_array_new(FALSE, FALSE, sizeof(Cand)));
  for (guint i = 0; i < g->len; i++)
    if (beats(&g_array_index(g, Cand, i), &c))
      return;
  for (guint i = g->len; i-- > 0;) /* those the new point beats leave the frontier */
    if (beats(&c, &g_array_index(g, Cand, i)))
      g_array_remove_index_fast(g, i);
  g_array_append_val(g, c);
}

int frontier_set_mark(const FrontierSet *fs, const ResultRow *r)
{
  Cand c;
  if (!candidate(fs, r, &c))
    return -1;
  GArray *g = g_hash_table_lookup(fs->groups, group_key(fs, r));
  for (guint i = 0; g && i < g->len; i++)
    if (g_array_index(g, Cand, i).point == c.point)
      return 1;
  return 0;
}

void frontier_mark(GPtrArray *rows, const FrontierAxis *x, const FrontierAxis *y, gboolean per_system)
{
  g_autoptr(FrontierSet) fs = frontier_set_new(x, y, per_system);
  for (guint i = 0; i < rows->len; i++)
    frontier_set_add(fs, rows->pdata[i]);
  for (guint i = 0; i < rows->len; i++) {
    ResultRow *r = rows->pdata[i];
    r->on_frontier = frontier_set_mark(fs, r);
  }
}

gboolean frontier_better(const ResultRow *r, const ResultRow *best, const FrontierAxis *y)
{
  double v = oriented(r, y);
  if (r->status != OUTCOME_OK || !isfinite(v))
    return FALSE;
  return !best || v > oriented(best, y) || (v == oriented(best, y) && r->point < best->point);
}

const ResultRow *frontier_best(GPtrArray *rows, const char *system, const FrontierAxis *y)
{
  const ResultRow *best = NULL;
  for (guint i = 0; i < rows->len; i++) {
    const ResultRow *r = rows->pdata[i];
    if ((!system || g_strcmp0(r->system, system) == 0) && frontier_better(r, best, y))
      best = r;
  }
  return best;
}
