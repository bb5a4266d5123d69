/* chart.c — the AI-factory chart with cairo, and its gnuplot twin (see chart.h). */
#include "chart.h"
#include "draw.h"
#include "aif_error.h"
#include "output_dir.h"
#include "results.h"

#include <errno.h>
#include <cairo.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define MARGIN_L 95.0
#define MARGIN_R 300.0
#define MARGIN_T 70.0
#define MARGIN_B 65.0

/* One axis: its column, range, and whether it is logarithmic. */
typedef struct {
  const ResultColumn *col;
  double lo, hi;
  gboolean log;
  double a, b; /* pixel = a + b * t, t the (log) value */
} Axis;

/* A point as the chart needs it: its two values, whom it belongs to, whether it is a candidate. */
typedef struct {
  double x, y;
  gsize point;
  guint16 system, family;
  guint8 ok;           /* status ok: drawn in colour, may be on the frontier */
  gint8 on_frontier;
} ChartPoint;

struct ChartData {
  const ResultColumn *x, *y;
  GArray *points;       /* ChartPoint, in the order added */
  GPtrArray *systems;   /* char * (owned), in first-seen order */
  GPtrArray *families;  /* char * (owned), in first-seen order */
};

static int index_of(GPtrArray *a, const char *s)
{
  for (guint i = 0; i < a->len; i++)
    if (g_strcmp0(a->pdata[i], s) == 0)
      return (int)i;
  return -1;
}

static guint16 intern(GPtrArray *a, const char *s)
{
  int i = index_of(a, s ? s : "");
  if (i >= 0)
    return (guint16)i;
  if (a->len >= G_MAXUINT16)
    return G_MAXUINT16 - 1; /* beyond 65k systems or families, the last stands for the rest */
  g_ptr_array_add(a, g_strdup(s ? s : ""));
  return (guint16)(a->len - 1);
}

ChartData *chart_data_new(const FrontierAxis *x, const FrontierAxis *y)
{
  ChartData *cd = g_new0(ChartData, 1);
  cd->x = x->col, cd->y = y->col;
  cd->points = g_array_new(FALSE, FALSE, sizeof(ChartPoint));
  cd->systems = g_ptr_array_new_with_free_func(g_free);
  cd->families = g_ptr_array_new_with_free_func(g_free);
  return cd;
}

void chart_data_free(ChartData *cd)
{
  if (!cd)
    return;
  g_array_unref(cd->points);
  g_ptr_array_unref(cd->systems);
  g_ptr_array_unref(cd->families);
  g_free(cd);
}

void chart_data_add(ChartData *cd, const ResultRow *r, int on_frontier)
{
  ChartPoint p = { result_value(r, cd->x), result_value(r, cd->y), r->point, 0, 0, r->status == OUTCOME_OK,
                   (gint8)on_frontier };
  if (!outcome_has_figures(r->status) || !isfinite(p.x) || !isfinite(p.y))
    return; /* a point that did not run, or lacks a value, has no place on the chart */
  p.system = intern(cd->systems, r->system);
  p.family = p.ok ? intern(cd->families, r->family) : 0;
  g_array_append_val(cd->points, p);
}

ChartData *chart_data_from_rows(GPtrArray *rows, const FrontierAxis *x, const FrontierAxis *y)
{
  ChartData *cd = chart_data_new(x, y);
  for (guint i = 0; i < rows->len; i++) {
    const ResultRow *r = rows->pdata[i];
    chart_data_add(cd, r, r->on_frontier);
  }
  return cd;
}

static const ChartPoint *pt(const ChartData *cd, guint i) { return &g_array_index(cd->points, ChartPoint, i); }

/* Whether P can be placed on the axes (a log axis has no place for zero or less). */
static gboolean placeable(const ChartPoint *p, const Axis *x, const Axis *y)
{
  return (!x->log || p->x > 0) && (!y->log || p->y > 0);
}

/* Whether P is drawn in colour and may be on a frontier: it meets the SLO. */
static gboolean usable(const ChartPoint *p, const Axis *x, const Axis *y)
{
  return p->ok && placeable(p, x, y);
}

/* The data range of one axis over every point; a log axis when it spans more than 20x. */
static gboolean axis_range(const ChartData *cd, gboolean is_x, Axis *ax)
{
  ax->lo = INFINITY, ax->hi = -INFINITY;
  for (guint i = 0; i < cd->points->len; i++) {
    double v = is_x ? pt(cd, i)->x : pt(cd, i)->y;
    ax->lo = MIN(ax->lo, v);
    ax->hi = MAX(ax->hi, v);
  }
  if (!isfinite(ax->lo))
    return FALSE;
  ax->log = ax->lo > 0 && ax->hi / ax->lo > 20;
  if (ax->log) {
    ax->lo = pow(10, floor(log10(ax->lo))), ax->hi = pow(10, ceil(log10(ax->hi)));
  } else {
    double pad = ax->hi > ax->lo ? 0.05 * (ax->hi - ax->lo) : MAX(fabs(ax->hi) * 0.1, 1);
    ax->lo = MAX(0, ax->lo - pad), ax->hi += pad;
  }
  return TRUE;
}

static double t_of(const Axis *ax, double v) { return ax->log ? log10(v) : v; }
static double px(const Axis *ax, double v) { return ax->a + ax->b * t_of(ax, v); }

static void map_axis(Axis *ax, double from, double to)
{
  double t0 = t_of(ax, ax->lo), t1 = t_of(ax, ax->hi);
  ax->b = (to - from) / (t1 - t0);
  ax->a = from - ax->b * t0;
}

/* "12k", "3.4M": tick labels a reader takes in at a glance. */
static double round_sig(double v, int digits)
{
  if (v == 0)
    return 0;
  double m = pow(10, digits - 1 - floor(log10(fabs(v))));
  return round(v * m) / m;
}

/* Families a planner thinks in (mode x parallelism class: at most ten), each its own colour
 * (Okabe-Ito's palette, distinct for colour-blind readers), in a fixed order so that a colour means
 * the same family on every chart. Families not listed take grey. */
static const char *const family_order[] = {
  "aggregated: TP", "aggregated: TP + PP", "aggregated: TP + EP", "aggregated: attention-DP", "aggregated: attention-DP + EP",
  "disaggregated: TP", "disaggregated: TP + PP", "disaggregated: TP + EP", "disaggregated: attention-DP",
  "disaggregated: attention-DP + EP", NULL,
};
static const double family_rgb[][3] = {
  { 0.90, 0.62, 0.00 }, { 0.80, 0.47, 0.65 }, { 0.34, 0.71, 0.91 }, { 0.60, 0.80, 0.35 }, { 0.00, 0.62, 0.45 },
  { 0.84, 0.37, 0.00 }, { 0.55, 0.35, 0.65 }, { 0.00, 0.45, 0.70 }, { 0.45, 0.55, 0.20 }, { 0.15, 0.35, 0.25 },
};

static void family_colour(const char *family, double *rgb)
{
  for (int i = 0; family_order[i]; i++)
    if (g_strcmp0(family, family_order[i]) == 0) {
      memcpy(rgb, family_rgb[i], 3 * sizeof(double));
      return;
    }
  rgb[0] = rgb[1] = rgb[2] = 0.55;
}

static gint by_family_order(gconstpointer a, gconstpointer b)
{
  const char *x = *(char *const *)a, *y = *(char *const *)b;
  int i = 0, j = 0;
  while (family_order[i] && g_strcmp0(family_order[i], x) != 0)
    i++;
  while (family_order[j] && g_strcmp0(family_order[j], y) != 0)
    j++;
  return i != j ? i - j : g_strcmp0(x, y);
}

/* Systems' frontiers: dark, bold, apart from the families' lighter colours. */
static const double system_rgb[][3] = { { 0.05, 0.05, 0.05 }, { 0.10, 0.20, 0.70 }, { 0.70, 0.05, 0.10 },
                                        { 0.05, 0.40, 0.15 }, { 0.45, 0.15, 0.55 }, { 0.50, 0.30, 0.00 } };

static void set_system_colour(cairo_t *cr, int s)
{
  const double *c = system_rgb[s % G_N_ELEMENTS(system_rgb)];
  cairo_set_source_rgb(cr, c[0], c[1], c[2]);
}

/* A marker per system: circle, square, triangle, diamond, ... */
static void marker(cairo_t *cr, int shape, double x, double y, double r)
{
  cairo_new_path(cr); /* text leaves a current point that an arc would join with a line */
  switch (shape % 4) {
  case 0: cairo_arc(cr, x, y, r, 0, 2 * G_PI); break;
  case 1: cairo_rectangle(cr, x - r, y - r, 2 * r, 2 * r); break;
  case 2:
    cairo_move_to(cr, x, y - 1.2 * r), cairo_line_to(cr, x + 1.1 * r, y + 0.8 * r), cairo_line_to(cr, x - 1.1 * r, y + 0.8 * r);
    cairo_close_path(cr);
    break;
  default:
    cairo_move_to(cr, x, y - 1.3 * r), cairo_line_to(cr, x + 1.3 * r, y), cairo_line_to(cr, x, y + 1.3 * r);
    cairo_line_to(cr, x - 1.3 * r, y), cairo_close_path(cr);
  }
}

/* What a column measures, in words with its unit, for axis titles and labels. */
static const char *column_words(const ResultColumn *c)
{
  static const struct { const char *name, *words; } w[] = {
    { "tok_s_per_user", "tok/s per user" }, { "tok_s_per_mw", "tok/s per MW" },
    { "tok_s_per_mw_it", "tok/s per MW of IT" }, { "out_tok_s_per_gpu", "tok/s per GPU" },
    { "usd_per_mtok", "$ per M tokens" }, { "joules_per_token", "J per token" }, { "ttft_p50_ms", "ms median TTFT" },
    { "tpot_p50_ms", "ms median TPOT" }, { "gpu_power_w", "W per GPU" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS(w); i++)
    if (strcmp(c->name, w[i].name) == 0)
      return w[i].words;
  return c->name;
}

static const char *axis_title(const ResultColumn *c)
{
  if (strcmp(c->name, "tok_s_per_user") == 0)
    return "tokens/s per user (interactivity)";
  if (strcmp(c->name, "tok_s_per_mw") == 0)
    return "tokens/s per MW of facility power";
  return column_words(c);
}

static void draw_axes(cairo_t *cr, const Axis *x, const Axis *y, double w, double h)
{
  cairo_set_line_width(cr, 1);
  g_autoptr(GArray) tx = draw_ticks(x->lo, x->hi, x->log), ty = draw_ticks(y->lo, y->hi, y->log);
  for (guint i = 0; i < tx->len; i++) {
    double v = g_array_index(tx, double, i), p = px(x, v);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, p, MARGIN_T), cairo_line_to(cr, p, h - MARGIN_B), cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    g_autofree char *l = draw_short_number(v);
    draw_text(cr, p, h - MARGIN_B + 18, 12, FALSE, 0.5, l);
  }
  for (guint i = 0; i < ty->len; i++) {
    double v = g_array_index(ty, double, i), p = px(y, v);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, MARGIN_L, p), cairo_line_to(cr, w - MARGIN_R, p), cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    g_autofree char *l = draw_short_number(v);
    draw_text(cr, MARGIN_L - 8, p + 4, 12, FALSE, 1.0, l);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, MARGIN_L, MARGIN_T, w - MARGIN_L - MARGIN_R, h - MARGIN_T - MARGIN_B);
  cairo_stroke(cr);
  g_autofree char *xl = g_strdup_printf("%s%s", axis_title(x->col), x->log ? "  (log scale)" : "");
  g_autofree char *yl = g_strdup_printf("%s%s", axis_title(y->col), y->log ? "  (log scale)" : "");
  draw_text(cr, (MARGIN_L + w - MARGIN_R) / 2, h - 18, 14, FALSE, 0.5, xl);
  cairo_save(cr);
  cairo_translate(cr, 22, (MARGIN_T + h - MARGIN_B) / 2);
  cairo_rotate(cr, -G_PI / 2);
  draw_text(cr, 0, 0, 14, FALSE, 0.5, yl);
  cairo_restore(cr);
}

static gint by_x(gconstpointer a, gconstpointer b)
{
  double x = (*(const ChartPoint *const *)a)->x, y = (*(const ChartPoint *const *)b)->x;
  return (x > y) - (x < y);
}

/* The frontier of system S, sorted along x. */
static GPtrArray *frontier_of(const ChartData *cd, const Axis *x, const Axis *y, guint16 s)
{
  GPtrArray *f = g_ptr_array_new();
  for (guint i = 0; i < cd->points->len; i++) {
    const ChartPoint *p = pt(cd, i);
    if (p->on_frontier == 1 && p->system == s && usable(p, x, y))
      g_ptr_array_add(f, (gpointer)p);
  }
  g_ptr_array_sort(f, by_x);
  return f;
}

/* Each system's frontier as a bold line; its points keep their family's colour inside a ring of
 * the system's. */
static void draw_frontiers(cairo_t *cr, const ChartData *cd, const Axis *x, const Axis *y)
{
  for (guint s = 0; s < cd->systems->len; s++) {
    g_autoptr(GPtrArray) f = frontier_of(cd, x, y, (guint16)s);
    set_system_colour(cr, (int)s);
    cairo_set_line_width(cr, 3);
    cairo_new_path(cr);
    for (guint i = 0; i < f->len; i++) {
      const ChartPoint *p = f->pdata[i];
      i ? cairo_line_to(cr, px(x, p->x), px(y, p->y)) : cairo_move_to(cr, px(x, p->x), px(y, p->y));
    }
    cairo_stroke(cr);
    for (guint i = 0; i < f->len; i++) {
      const ChartPoint *p = f->pdata[i];
      double rgb[3];
      family_colour(cd->families->pdata[p->family], rgb);
      marker(cr, (int)s, px(x, p->x), px(y, p->y), 5);
      cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
      cairo_fill_preserve(cr);
      set_system_colour(cr, (int)s);
      cairo_set_line_width(cr, 1.6);
      cairo_stroke(cr);
    }
  }
}

typedef struct {
  double x0, y0, x1, y1;
} Box;

static gboolean overlaps(const Box *a, const Box *b)
{
  return a->x0 < b->x1 && b->x0 < a->x1 && a->y0 < b->y1 && b->y0 < a->y1;
}

/* A place for a W x H label near (PX, PY) inside AREA that overlaps none of PLACED: around the
 * point first, then further out; the first free one, or the last tried. */
static Box place_label(GArray *placed, const Box *area, double px_, double py_, double w, double h)
{
  static const double dirs[][2] = { { 1, -1 }, { 1, 1 }, { -1, -1 }, { -1, 1 }, { 0, -1 }, { 0, 1 } };
  Box b = { 0 };
  for (int ring = 1; ring <= 12; ring++)
    for (gsize d = 0; d < G_N_ELEMENTS(dirs); d++) {
      double dx = dirs[d][0] * (14 + 10 * ring), dy = dirs[d][1] * (10 + 16 * ring);
      double x0 = dirs[d][0] > 0 ? px_ + dx : dirs[d][0] < 0 ? px_ + dx - w : px_ - w / 2;
      double y0 = dy < 0 ? py_ + dy - h : py_ + dy;
      b = (Box){ x0, y0, x0 + w, y0 + h };
      if (b.x0 < area->x0 || b.x1 > area->x1 || b.y0 < area->y0 || b.y1 > area->y1)
        continue;
      gboolean free = TRUE;
      for (guint k = 0; k < placed->len && free; k++)
        free = !overlaps(&b, &g_array_index(placed, Box, k));
      if (free)
        return b;
    }
  return b;
}

/* The SLO's floor on x as a dashed line. */
static void draw_slo_line(cairo_t *cr, const ChartOptions *opt, const Axis *x, double h)
{
  if (!(opt->slo_x > 0 && opt->slo_x >= x->lo && opt->slo_x <= x->hi))
    return;
  double sx = px(x, opt->slo_x), dash[] = { 6, 4 };
  cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
  cairo_set_line_width(cr, 1.2);
  cairo_set_dash(cr, dash, 2, 0);
  cairo_move_to(cr, sx, MARGIN_T), cairo_line_to(cr, sx, h - MARGIN_B), cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
  g_autofree char *sl = g_strdup_printf("SLO: %g %s", opt->slo_x, column_words(x->col));
  draw_text(cr, sx + 4, h - MARGIN_B - 8, 11, FALSE, 0, sl);
}

/* Whether R can be drawn on the axes. */
static gboolean drawable(const ResultRow *r, const Axis *x, const Axis *y)
{
  double vx = r ? result_value(r, x->col) : NAN, vy = r ? result_value(r, y->col) : NAN;
  return r && isfinite(vx) && isfinite(vy) && (!x->log || vx > 0) && (!y->log || vy > 0);
}

/* The index in the caller's picks of system S's pick (frontier_better's: what `aifsim plan`
 * picks), if it can be drawn; -1 if not. */
static int pick_index(const ChartData *cd, const ChartOptions *opt, guint s, const Axis *x, const Axis *y)
{
  for (guint i = 0; i < opt->n_picks; i++)
    if (opt->picks[i] && g_strcmp0(opt->picks[i]->system, cd->systems->pdata[s]) == 0 && drawable(opt->picks[i], x, y))
      return (int)i;
  return -1;
}

static const ResultRow *pick_of(const ChartData *cd, const ChartOptions *opt, guint s, const Axis *x, const Axis *y)
{
  int i = pick_index(cd, opt, s, x, y);
  return i < 0 ? NULL : opt->picks[i];
}

/* System S's pick with the held-out error as headroom, where it is another point than its pick and
 * can be drawn. */
static const ResultRow *headroom_of(const ChartData *cd, const ChartOptions *opt, guint s, const Axis *x,
                                    const Axis *y)
{
  int i = pick_index(cd, opt, s, x, y);
  const ResultRow *h = i >= 0 && opt->headroom ? opt->headroom[i] : NULL;
  return h && h->point != opt->picks[i]->point && drawable(h, x, y) ? h : NULL;
}

/* A label of TW x TH for the ring at (RX, RY) in system S's colour: placed clear of PLACED (and
 * added to it), on a light box, with a leader line from the ring's edge. Its box. */
static Box ring_label(cairo_t *cr, GArray *placed, const Box *area, guint s, double rx, double ry, double tw,
                      double th)
{
  Box b = place_label(placed, area, rx, ry, tw, th);
  g_array_append_val(placed, b);
  cairo_set_source_rgba(cr, 1, 1, 1, 0.85);
  cairo_rectangle(cr, b.x0, b.y0, tw, th), cairo_fill(cr);
  set_system_colour(cr, (int)s);
  cairo_set_line_width(cr, 1);
  double lx = CLAMP(rx, b.x0, b.x1), ly = CLAMP(ry, b.y0, b.y1), d = MAX(hypot(lx - rx, ly - ry), 10);
  cairo_move_to(cr, rx + (lx - rx) * 10 / d, ry + (ly - ry) * 10 / d);
  cairo_line_to(cr, lx, ly), cairo_stroke(cr);
  return b;
}

/* System S's pick with the held-out error as headroom, where it is another point: a dashed ring
 * and a one-line label placed clear of the others (PLACED). */
static void draw_headroom_pick(cairo_t *cr, const ChartData *cd, const ChartOptions *opt, guint s, const Axis *x,
                               const Axis *y, const Box *area, GArray *placed)
{
  const ResultRow *h = headroom_of(cd, opt, s, x, y);
  if (!h)
    return;
  static const double dash[] = { 3, 3 };
  double hx = px(x, result_value(h, x->col)), hy = px(y, result_value(h, y->col));
  set_system_colour(cr, (int)s);
  cairo_set_line_width(cr, 2);
  cairo_set_dash(cr, dash, 2, 0);
  cairo_new_path(cr);
  cairo_arc(cr, hx, hy, 10, 0, 2 * G_PI), cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
  g_autofree char *vy = draw_short_number(round_sig(result_value(h, y->col), 3));
  g_autofree char *vx = draw_short_number(round_sig(result_value(h, x->col), 3));
  g_autofree char *l = g_strdup_printf("with headroom: %s %s at %s %s", vy, column_words(y->col), vx,
                                       column_words(x->col));
  Box b = ring_label(cr, placed, area, s, hx, hy, draw_text_width(cr, 10.5, FALSE, l) + 8, 18);
  draw_text(cr, b.x0 + 4, b.y0 + 13, 10.5, FALSE, 0, l);
}

/* Each system's pick: a ring, and a label with units placed clear of the others; beside it, where
 * it is another point, its pick with the held-out error as headroom. */
static void draw_picks(cairo_t *cr, const ChartData *cd, const ChartOptions *opt, const Axis *x, const Axis *y,
                       double w, double h)
{
  Box area = { MARGIN_L + 2, MARGIN_T + 2, w - MARGIN_R - 2, h - MARGIN_B - 2 };
  g_autoptr(GArray) placed = g_array_new(FALSE, FALSE, sizeof(Box));
  for (guint s = 0; s < cd->systems->len; s++) { /* every pick's ring is kept clear of every label */
    const ResultRow *rows[] = { pick_of(cd, opt, s, x, y), headroom_of(cd, opt, s, x, y) };
    for (gsize k = 0; k < G_N_ELEMENTS(rows); k++) {
      if (!rows[k])
        continue;
      double bx = px(x, result_value(rows[k], x->col)), by = px(y, result_value(rows[k], y->col));
      Box ring = { bx - 11, by - 11, bx + 11, by + 11 };
      g_array_append_val(placed, ring);
    }
  }
  for (guint s = 0; s < cd->systems->len; s++) {
    const ResultRow *best = pick_of(cd, opt, s, x, y);
    if (!best)
      continue;
    double bx = px(x, result_value(best, x->col)), by = px(y, result_value(best, y->col));
    set_system_colour(cr, (int)s);
    cairo_set_line_width(cr, 2.2);
    cairo_new_path(cr);
    cairo_arc(cr, bx, by, 10, 0, 2 * G_PI), cairo_stroke(cr);
    g_autofree char *vy = draw_short_number(round_sig(result_value(best, y->col), 3));
    g_autofree char *vx = draw_short_number(round_sig(result_value(best, x->col), 3));
    g_autofree char *l1 = g_strdup_printf("%s: %s %s", best->system, vy, column_words(y->col));
    g_autofree char *l2 = isfinite(best->ttft_p50_ms)
                            ? g_strdup_printf("at %s %s, median TTFT %.2g s; %s", vx, column_words(x->col),
                                              best->ttft_p50_ms / 1e3, best->family ? best->family : "")
                            : g_strdup_printf("at %s %s; %s", vx, column_words(x->col), best->family ? best->family : "");
    double tw = MAX(draw_text_width(cr, 11.5, TRUE, l1), draw_text_width(cr, 10.5, FALSE, l2)) + 8;
    Box b = ring_label(cr, placed, &area, s, bx, by, tw, 32);
    draw_text(cr, b.x0 + 4, b.y0 + 13, 11.5, TRUE, 0, l1);
    draw_text(cr, b.x0 + 4, b.y0 + 27, 10.5, FALSE, 0, l2);
  }
  for (guint s = 0; s < cd->systems->len; s++)
    draw_headroom_pick(cr, cd, opt, s, x, y, &area, placed);
}

static double legend_heading(cairo_t *cr, double x, double y, const char *s)
{
  cairo_set_source_rgb(cr, 0, 0, 0);
  draw_text(cr, x, y, 13, TRUE, 0, s);
  return y + 19;
}

static void draw_legend(cairo_t *cr, const ChartData *cd, const ChartOptions *opt, GPtrArray *families,
                        gboolean faded, gboolean headroom, double w)
{
  double x = w - MARGIN_R + 18, y = legend_heading(cr, x, MARGIN_T + 6, "frontier per system");
  for (guint s = 0; s < cd->systems->len; s++, y += 18) {
    set_system_colour(cr, s);
    cairo_set_line_width(cr, 3);
    cairo_move_to(cr, x, y - 4), cairo_line_to(cr, x + 26, y - 4), cairo_stroke(cr);
    marker(cr, (int)s, x + 13, y - 4, 4.5), cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    draw_text(cr, x + 34, y, 12, FALSE, 0, cd->systems->pdata[s]);
  }
  y = legend_heading(cr, x, y + 12, "mode: parallelism");
  for (guint f = 0; f < families->len; f++, y += 16) {
    double rgb[3];
    family_colour(families->pdata[f], rgb);
    cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
    cairo_new_path(cr);
    cairo_arc(cr, x + 5, y - 4, 4.5, 0, 2 * G_PI), cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    draw_text(cr, x + 16, y, 11, FALSE, 0, families->pdata[f]);
  }
  if (faded) {
    cairo_set_source_rgba(cr, 0.6, 0.6, 0.6, 0.6);
    cairo_new_path(cr);
    cairo_arc(cr, x + 5, y - 4, 3, 0, 2 * G_PI), cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    draw_text(cr, x + 16, y, 11, FALSE, 0, "breaks the SLO, queue-bound");
    draw_text(cr, x + 16, y + 14, 11, FALSE, 0, "or unstable (not a candidate)");
    y += 30;
  }
  cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
  draw_text(cr, x, y + 8, 11, FALSE, 0, opt->picks_over_sizes ? "ringed: each system's best pick;" : "ringed: each system's pick,");
  draw_text(cr, x, y + 22, 11, FALSE, 0, opt->picks_over_sizes ? "`aifsim plan` picks per size" : "as `aifsim plan` picks it");
  if (headroom) {
    draw_text(cr, x, y + 42, 11, FALSE, 0, "dashed: its pick with the model's");
    draw_text(cr, x, y + 56, 11, FALSE, 0, "held-out error as headroom");
  }
}

/* "better: right (more tok/s per user), up (more tok/s per MW)" */
static char *directions(const ChartOptions *opt)
{
  return g_strdup_printf("better: %s (%s %s), %s (%s %s)", opt->x.maximise ? "right" : "left",
                         opt->x.maximise ? "more" : "less", column_words(opt->x.col), opt->y.maximise ? "up" : "down",
                         opt->y.maximise ? "more" : "less", column_words(opt->y.col));
}

static void draw(cairo_t *cr, const ChartData *cd, const ChartOptions *opt, Axis *x, Axis *y)
{
  double w = opt->width, h = opt->height;
  g_autoptr(GPtrArray) families = g_ptr_array_new(); /* the legend's order: fixed, not first-seen */
  for (guint f = 0; f < cd->families->len; f++)
    g_ptr_array_add(families, cd->families->pdata[f]);
  g_ptr_array_sort(families, by_family_order);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  map_axis(x, MARGIN_L, w - MARGIN_R);
  map_axis(y, h - MARGIN_B, MARGIN_T);
  draw_axes(cr, x, y, w, h);
  cairo_save(cr);
  cairo_rectangle(cr, MARGIN_L, MARGIN_T, w - MARGIN_L - MARGIN_R, h - MARGIN_T - MARGIN_B);
  cairo_clip(cr);
  gboolean faded = FALSE;
  for (guint i = 0; i < cd->points->len; i++) { /* points that are no answer, faded beneath the rest */
    const ChartPoint *p = pt(cd, i);
    if (!placeable(p, x, y) || p->ok)
      continue;
    faded = TRUE;
    cairo_set_source_rgba(cr, 0.6, 0.6, 0.6, 0.35);
    marker(cr, p->system, px(x, p->x), px(y, p->y), 2.5);
    cairo_fill(cr);
  }
  for (guint i = 0; i < cd->points->len; i++) { /* every candidate, by family */
    const ChartPoint *p = pt(cd, i);
    if (!usable(p, x, y))
      continue;
    double rgb[3];
    family_colour(cd->families->pdata[p->family], rgb);
    cairo_set_source_rgba(cr, rgb[0], rgb[1], rgb[2], 0.8);
    marker(cr, p->system, px(x, p->x), px(y, p->y), 3.2);
    cairo_fill(cr);
  }
  draw_frontiers(cr, cd, x, y);
  draw_slo_line(cr, opt, x, h);
  cairo_restore(cr);
  draw_picks(cr, cd, opt, x, y, w, h);
  gboolean headroom = FALSE;
  for (guint s = 0; s < cd->systems->len; s++)
    headroom = headroom || headroom_of(cd, opt, s, x, y);
  draw_legend(cr, cd, opt, families, faded, headroom, w);
  cairo_set_source_rgb(cr, 0, 0, 0);
  draw_text(cr, MARGIN_L, 30, 19, TRUE, 0, opt->title ? opt->title : "AI-factory chart");
  g_autofree char *dir = directions(opt);
  g_autofree char *sub = opt->slo_text ? g_strdup_printf("each dot a configuration; lines: each system's Pareto frontier "
                                                          "of those meeting the SLO (%s); %s", opt->slo_text, dir)
                                       : g_strdup_printf("each dot a configuration; lines: each system's Pareto "
                                                         "frontier; %s", dir);
  draw_text(cr, MARGIN_L, 52, 11.5, FALSE, 0, sub);
}

static gboolean setup_axes(const ChartData *cd, Axis *x, Axis *y, GError **error)
{
  x->col = cd->x, y->col = cd->y;
  if (!axis_range(cd, TRUE, x) || !axis_range(cd, FALSE, y)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "no point that ran with both %s and %s: nothing to draw",
                x->col->name, y->col->name);
    return FALSE;
  }
  return TRUE;
}

/* What draw_to_file hands the drawing. */
typedef struct {
  const ChartData *cd;
  const ChartOptions *opt;
  Axis *x, *y; /* draw sets their pixel mapping */
} ChartJob;

static void draw_job(cairo_t *cr, gconstpointer user)
{
  const ChartJob *j = user;
  draw(cr, j->cd, j->opt, j->x, j->y);
}

gboolean chart_render(const ChartData *cd, const ChartOptions *opt, const char *path, GError **error)
{
  Axis x = { 0 }, y = { 0 };
  if (!setup_axes(cd, &x, &y, error))
    return FALSE;
  ChartJob job = { cd, opt, &x, &y };
  return draw_to_file(path, opt->width, opt->height, draw_job, &job, error);
}

gboolean chart_gnuplot(const ChartData *cd, const ChartOptions *opt, const char *script, const char *data,
                       GError **error)
{
  Axis x = { 0 }, y = { 0 };
  if (!setup_axes(cd, &x, &y, error))
    return FALSE;
  /* The data: block 0 every point that ran (x, y, its colour packed, its system), block k the
   * frontier of system k. Written to DATA for other tools, and inside the script as a datablock,
   * so that the script draws from any directory. No line of it can read "EOD": each is numbers or
   * a comment. */
  g_autoptr(GString) d = g_string_new("# x y rgb system_index (block 0: every point that ran, its family's colour, grey "
                                      "when it breaks the SLO; block k: frontier of system k)\n");
  for (guint i = 0; i < cd->points->len; i++) {
    const ChartPoint *p = pt(cd, i);
    if (!placeable(p, &x, &y))
      continue;
    double rgb[3] = { 0.8, 0.8, 0.8 };
    if (p->ok)
      family_colour(cd->families->pdata[p->family], rgb);
    int packed = ((int)(rgb[0] * 255 + 0.5) << 16) | ((int)(rgb[1] * 255 + 0.5) << 8) | (int)(rgb[2] * 255 + 0.5);
    g_string_append_printf(d, "%.6g %.6g %d %d\n", p->x, p->y, packed, p->system);
  }
  for (guint s = 0; s < cd->systems->len; s++) {
    g_autofree char *name = g_strdup(cd->systems->pdata[s]);
    g_strdelimit(name, "\n\r", ' '); /* a comment line stays one line */
    g_string_append_printf(d, "\n\n# frontier of %s\n", name);
    g_autoptr(GPtrArray) f = frontier_of(cd, &x, &y, (guint16)s);
    for (guint i = 0; i < f->len; i++)
      g_string_append_printf(d, "%.6g %.6g\n", ((const ChartPoint *)f->pdata[i])->x, ((const ChartPoint *)f->pdata[i])->y);
  }
  g_autofree char *png = g_strconcat(script, ".png", NULL);
  g_autofree char *png_base = g_path_get_basename(png);
  g_autoptr(GString) sc = g_string_new(NULL);
  /* Every text from the results or the scenario reaches the script through gp_string: the
   * script must never run what an input carried. */
  g_autofree char *script_base = g_path_get_basename(script);
  g_string_append(sc, "# gnuplot script written by aifsim: `gnuplot ");
  for (const char *c = script_base; *c; c++) /* a comment ends at a line break: keep it on one line */
    g_string_append_c(sc, (unsigned char)*c < 0x20 ? ' ' : *c);
  g_string_append(sc, "` draws the chart the PNG shows into the PNG named below, in the current\n"
                      "# directory; the data is inside the script, so it runs from anywhere.\n");
  g_string_append_printf(sc, "set terminal pngcairo noenhanced size %d,%d font 'sans,10'\nset output ", opt->width,
                         opt->height);
  draw_gp_string(sc, png_base);
  g_string_append(sc, "\nset title ");
  draw_gp_string(sc, opt->title ? opt->title : "AI-factory chart");
  g_string_append(sc, "\nset xlabel ");
  draw_gp_string(sc, axis_title(x.col));
  g_string_append(sc, "\nset ylabel ");
  draw_gp_string(sc, axis_title(y.col));
  g_string_append(sc, "\nset grid\nset key outside right top\n");
  g_string_append_printf(sc, "%s%s", x.log ? "set logscale x\n" : "", y.log ? "set logscale y\n" : "");
  if (opt->slo_x > 0) { /* the SLO's floor, dashed, as the PNG draws it */
    g_string_append_printf(sc, "set arrow 1 from %.6g, graph 0 to %.6g, graph 1 nohead dashtype 2 lc rgb '#777777'\n",
                           opt->slo_x, opt->slo_x);
    g_string_append_printf(sc, "set label 100 at %.6g, graph 0.98 offset 0.5,0 ", opt->slo_x);
    draw_gp_string(sc, opt->slo_text ? opt->slo_text : "SLO");
    g_string_append(sc, " textcolor rgb '#555555'\n");
  }
  for (guint s = 0; s < cd->systems->len; s++) { /* each system's pick, ringed and labelled */
    const ResultRow *best = pick_of(cd, opt, s, &x, &y);
    if (!best)
      continue;
    g_autofree char *label = g_strdup_printf("%s: %.3g %s at %.3g %s (point %" G_GSIZE_FORMAT ")", best->system,
                                             result_value(best, y.col), column_words(y.col), result_value(best, x.col),
                                             column_words(x.col), best->point);
    g_string_append_printf(sc, "set label %u ", s + 1);
    draw_gp_string(sc, label);
    g_string_append_printf(sc, " at %.6g,%.6g point pt 6 ps 2.5 lc rgb ", result_value(best, x.col),
                           result_value(best, y.col));
    draw_gp_colour(sc, system_rgb[s % G_N_ELEMENTS(system_rgb)]);
    g_string_append_printf(sc, " offset 1.5,%.1f\n", 1.0 + 1.2 * s);
    const ResultRow *h = headroom_of(cd, opt, s, &x, &y);
    if (!h)
      continue;
    g_autofree char *hl = g_strdup_printf("%s with headroom (the held-out error): %.3g %s at %.3g %s (point %" G_GSIZE_FORMAT ")",
                                          h->system, result_value(h, y.col), column_words(y.col),
                                          result_value(h, x.col), column_words(x.col), h->point);
    g_string_append_printf(sc, "set label %u ", 50 + s);
    draw_gp_string(sc, hl);
    g_string_append_printf(sc, " at %.6g,%.6g point pt 4 ps 2 lc rgb ", result_value(h, x.col), result_value(h, y.col));
    draw_gp_colour(sc, system_rgb[s % G_N_ELEMENTS(system_rgb)]);
    g_string_append_printf(sc, " offset 1.5,%.1f\n", -1.0 - 1.2 * s);
  }
  g_string_append(sc, "$chart << EOD\n");
  g_string_append_len(sc, d->str, (gssize)d->len);
  g_string_append(sc, "EOD\nplot $chart index 0 using 1:2:3 with points pt 7 ps 0.6 lc rgb variable notitle");
  for (guint s = 0; s < cd->systems->len; s++) { /* frontiers in the PNG's colours and markers */
    g_string_append_printf(sc, ", \\\n     $chart index %u using 1:2 with linespoints lw 2.5 pt %u ps 1.2 lc rgb ", s + 1,
                           (guint[]){ 7, 5, 9, 13 }[s % 4]);
    draw_gp_colour(sc, system_rgb[s % G_N_ELEMENTS(system_rgb)]);
    g_string_append(sc, " title ");
    draw_gp_string(sc, cd->systems->pdata[s]);
  }
  g_autoptr(GPtrArray) families = g_ptr_array_new(); /* the legend's families, in the PNG's order */
  for (guint f = 0; f < cd->families->len; f++)
    g_ptr_array_add(families, cd->families->pdata[f]);
  g_ptr_array_sort(families, by_family_order);
  for (guint f = 0; f < families->len; f++) {
    double rgb[3];
    family_colour(families->pdata[f], rgb);
    g_string_append(sc, ", \\\n     NaN with points pt 7 ps 1 lc rgb ");
    draw_gp_colour(sc, rgb);
    g_string_append(sc, " title ");
    draw_gp_string(sc, families->pdata[f]);
  }
  g_string_append(sc, ", \\\n     NaN with points pt 7 ps 1 lc rgb '#cccccc' title 'breaks the SLO, queue-bound or unstable'\n");
  return atomic_file_write(data, d->str, d->len, error) && atomic_file_write(script, sc->str, sc->len, error);
}
