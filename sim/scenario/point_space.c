/* point_space.c — the points of a scenario, without keys that do not apply (see point_space.h). */
#include "point_space.h"
#include "scenario.h"

#include <stdlib.h>
#include <string.h>

/* Keys that apply only to some points: a path, or a group ending in '.', and when. */
typedef struct {
  const char *prefix;
  gboolean (*applies)(const ScenarioParams *p, const char *path);
} Condition;

static gboolean aggregated(const ScenarioParams *p, const char *path)
{
  if (p->serving.mode == MODE_AGGREGATED)
    return TRUE;
  /* auto shapes a disaggregated point's decode pool with the aggregated TP, EP and attention-DP */
  return p->serving.parallelism == PARALLELISM_AUTO &&
         (g_str_has_suffix(path, ".tp") || g_str_has_suffix(path, ".ep") || g_str_has_suffix(path, ".attention_dp"));
}
static gboolean disaggregated(const ScenarioParams *p, const char *path)
{
  (void)path;
  return p->serving.mode == MODE_DISAGGREGATED;
}
static gboolean planning(const ScenarioParams *p, const char *path)
{
  (void)path;
  return p->serving.planner;
}
static gboolean closed(const ScenarioParams *p, const char *path)
{
  (void)path;
  return p->workload.arrival == ARRIVAL_CLOSED;
}
static gboolean rated(const ScenarioParams *p, const char *path)
{
  (void)path;
  return p->workload.arrival == ARRIVAL_POISSON || p->workload.arrival == ARRIVAL_GAMMA;
}
static gboolean bursty(const ScenarioParams *p, const char *path)
{
  (void)path;
  return p->workload.arrival == ARRIVAL_GAMMA;
}
static gboolean drafting(const ScenarioParams *p, const char *path)
{
  (void)path;
  return p->serving.spec_method == SPEC_MTP;
}

static const Condition conditions[] = {
  { "serving.aggregated.", aggregated },
  { "serving.disaggregated.", disaggregated },
  { "serving.disaggregated.planner.interval", planning },
  { "serving.disaggregated.planner.reconfigure_time", planning },
  { "serving.disaggregated.planner.threshold", planning },
  { "workload.arrival.users", closed },
  { "workload.arrival.start", closed },
  { "workload.arrival.think_time", closed },
  { "workload.arrival.rate", rated },
  { "workload.arrival.burst_cv", bursty },
  { "serving.speculative.draft_tokens", drafting },
  { "serving.speculative.acceptance", drafting },
};

/* The keys the conditions read: swept, they are the space's outer dimensions. */
static const char *const selector_paths[] = {
  "serving.mode", "serving.disaggregated.planner.enabled", "workload.arrival.kind", "serving.speculative.method",
};

struct PointSpace {
  guint n_axes, n_sel, n_combos;
  guint *sel;          /* axis index of each selector */
  guint *len;          /* values of each axis */
  gboolean *applies;   /* n_combos x n_axes */
  gsize *start;        /* n_combos + 1: the first point of each combination */
  /* parallelism auto: its three generated axes (TP, EP, attention-DP, in that order from LINK)
   * vary together over the layouts an engine can be, one digit triple each; LINK is -1 without */
  int link;
  GArray *layouts;     /* guint[3] */
};

static const Axis *axis(const Scenario *s, guint i) { return s->axes->pdata[i]; }

static gboolean linked(const PointSpace *ps, guint i) { return ps->link >= 0 && i >= (guint)ps->link && i < (guint)ps->link + 3; }

static long axis_number(const Scenario *s, guint i, guint d)
{
  return strtol(yaml_doc_scalar(yaml_doc_get(s->doc, g_array_index(axis(s, i)->values, int, d))), NULL, 10);
}

/* The layouts auto generates that an engine can be: EP within the engine's GPUs (a larger EP is no
 * layout, and would only be refused when evaluated), and attention data-parallel only over more
 * than one GPU (over one it is the same engine as without). In the order of the plain product. */
static void auto_layouts(const Scenario *s, PointSpace *ps)
{
  ps->layouts = g_array_new(FALSE, FALSE, sizeof(guint) * 3);
  guint t0 = (guint)ps->link;
  for (guint t = 0; t < ps->len[t0]; t++)
    for (guint e = 0; e < ps->len[t0 + 1]; e++)
      for (guint d = 0; d < ps->len[t0 + 2]; d++) {
        long tp = axis_number(s, t0, t), ep = axis_number(s, t0 + 1, e);
        gboolean dp = strcmp(yaml_doc_scalar(yaml_doc_get(s->doc, g_array_index(axis(s, t0 + 2)->values, int, d))),
                             "true") == 0;
        if (ep > tp || (dp && tp == 1))
          continue;
        guint triple[3] = { t, e, d };
        g_array_append_vals(ps->layouts, triple, 1);
      }
}

/* Values of axis I as a factor of a combination's size: the linked group counts once, as its
 * layouts, at its first axis. */
static gsize factor(const PointSpace *ps, guint i)
{
  if (!linked(ps, i))
    return ps->len[i];
  return i == (guint)ps->link ? MAX(ps->layouts->len, 1) : 1;
}

static gboolean is_selector(const Axis *a)
{
  if (a->table != &scenario_table || a->values->len < 2)
    return FALSE;
  for (gsize k = 0; k < G_N_ELEMENTS(selector_paths); k++)
    if (strcmp(a->key->path, selector_paths[k]) == 0)
      return TRUE;
  return FALSE;
}

static gboolean key_applies(const Axis *a, const ScenarioParams *p)
{
  if (a->table != &scenario_table)
    return TRUE; /* catalog figures apply to every point */
  for (gsize k = 0; k < G_N_ELEMENTS(conditions); k++) {
    const char *pre = conditions[k].prefix;
    gboolean group = g_str_has_suffix(pre, ".");
    if ((group ? g_str_has_prefix(a->key->path, pre) : strcmp(a->key->path, pre) == 0) &&
        !conditions[k].applies(p, a->key->path))
      return FALSE;
  }
  return TRUE;
}

/* The selectors' value index in combination C (the last selector fastest). */
static guint selector_digit(const PointSpace *ps, guint c, guint k)
{
  for (guint j = ps->n_sel; j-- > k + 1;)
    c /= ps->len[ps->sel[j]];
  return c % ps->len[ps->sel[k]];
}

static gsize saturating_mul(gsize a, gsize b) { return b && a > G_MAXSIZE / b ? G_MAXSIZE : a * b; }

/* Which axes apply in combination C, and how many points it holds. */
static gsize combination(const Scenario *s, PointSpace *ps, guint c)
{
  ScenarioParams p = { 0 };
  kt_defaults(&scenario_table, &p);
  for (guint i = 0; i < ps->n_axes; i++) { /* the fixed keys, then this combination's selectors */
    const Axis *a = axis(s, i);
    if (a->table == &scenario_table && a->values->len == 1 && !kt_assign(a->key, s->doc, yaml_doc_get(s->doc,
        g_array_index(a->values, int, 0)), &p, NULL))
      g_error("value checked at load failed later"); /* cannot happen */
  }
  for (guint k = 0; k < ps->n_sel; k++) {
    const Axis *a = axis(s, ps->sel[k]);
    if (!kt_assign(a->key, s->doc, yaml_doc_get(s->doc, g_array_index(a->values, int, selector_digit(ps, c, k))), &p,
                   NULL))
      g_error("value checked at load failed later");
  }
  gboolean *ap = &ps->applies[(gsize)c * ps->n_axes];
  gsize size = 1;
  for (guint i = 0; i < ps->n_axes; i++)
    ap[i] = key_applies(axis(s, i), &p);
  for (guint k = 0; k < ps->n_sel; k++) /* a selector that does not apply keeps its first value */
    if (!ap[ps->sel[k]] && selector_digit(ps, c, k) != 0)
      size = 0;
  for (guint i = 0; i < ps->n_axes; i++) {
    gboolean sel = FALSE;
    for (guint k = 0; k < ps->n_sel; k++)
      sel |= ps->sel[k] == i;
    if (!sel && ap[i])
      size = saturating_mul(size, factor(ps, i));
  }
  kt_clear(&scenario_table, &p);
  return size;
}

PointSpace *point_space_new(const Scenario *s)
{
  PointSpace *ps = g_new0(PointSpace, 1);
  ps->n_axes = s->axes->len;
  ps->len = g_new0(guint, ps->n_axes + 1);
  ps->sel = g_new0(guint, ps->n_axes + 1);
  ps->n_combos = 1;
  for (guint i = 0; i < ps->n_axes; i++) {
    ps->len[i] = axis(s, i)->values->len;
    if (is_selector(axis(s, i))) {
      ps->sel[ps->n_sel++] = i;
      ps->n_combos *= ps->len[i]; /* a few enumerations' values: small */
    }
  }
  ps->link = s->auto_axes >= 0 && (guint)s->auto_axes + 3 <= ps->n_axes ? s->auto_axes : -1;
  if (ps->link >= 0)
    auto_layouts(s, ps);
  ps->applies = g_new0(gboolean, (gsize)ps->n_combos * ps->n_axes + 1);
  ps->start = g_new0(gsize, ps->n_combos + 1);
  for (guint c = 0; c < ps->n_combos; c++) {
    gsize n = combination(s, ps, c);
    ps->start[c + 1] = ps->start[c] > G_MAXSIZE - n ? G_MAXSIZE : ps->start[c] + n;
  }
  return ps;
}

void point_space_free(PointSpace *ps)
{
  if (!ps)
    return;
  g_free(ps->len);
  g_free(ps->sel);
  g_free(ps->applies);
  g_free(ps->start);
  if (ps->layouts)
    g_array_unref(ps->layouts);
  g_free(ps);
}

gsize point_space_size(const PointSpace *ps) { return ps->start[ps->n_combos]; }

void point_space_digits(const PointSpace *ps, gsize index, guint *digits)
{
  guint c = 0;
  while (c + 1 < ps->n_combos && index >= ps->start[c + 1])
    c++;
  gsize r = index - ps->start[c];
  const gboolean *ap = &ps->applies[(gsize)c * ps->n_axes];
  for (guint i = ps->n_axes; i-- > 0;) {
    digits[i] = 0;
    gboolean sel = FALSE;
    for (guint k = 0; k < ps->n_sel; k++)
      if (ps->sel[k] == i)
        sel = TRUE, digits[i] = selector_digit(ps, c, k);
    if (sel || !ap[i] || (linked(ps, i) && i != (guint)ps->link))
      continue;
    if (linked(ps, i) && ps->layouts->len) { /* the group's digit picks a layout: all three axes' values */
      const guint *t = &g_array_index(ps->layouts, guint, 3 * (r % ps->layouts->len));
      digits[i] = t[0], digits[i + 1] = t[1], digits[i + 2] = t[2];
      r /= ps->layouts->len;
    } else {
      digits[i] = (guint)(r % ps->len[i]);
      r /= ps->len[i];
    }
  }
}

gboolean point_space_axis_varies(const PointSpace *ps, guint i)
{
  for (guint c = 0; c < ps->n_combos; c++)
    if (ps->start[c + 1] > ps->start[c] && ps->applies[(gsize)c * ps->n_axes + i] && ps->len[i] > 1)
      return TRUE;
  return FALSE;
}
