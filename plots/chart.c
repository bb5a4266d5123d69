/* chart.c — the AI-factory chart with cairo, and its gnuplot twin (see chart.h). */
#include "chart.h"
#include "aif_error.h"
#include "output_dir.h"
#include "results.h"

#include <errno.h>
#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <cairo.h>
#include <glib/gstdio.h>
#include <math.h>
#include <string.h>

#define MARGIN_L 95.0
#define MARGIN_R 290.0
#define MARGIN_T 70.0
#define MARGIN_B 65.0
#define MAX_LEGEND_FAMILIES 24

/* One axis: its column, range, and whether it is logarithmic. */
typedef struct {
  const ResultColumn *col;
  double lo, hi;
  gboolean log;
  double a, b; /* pixel = a + b * t, t the (log) value */
} Axis;

typedef struct {
  GPtrArray *systems;   /* char *, in first-seen order */
  GPtrArray *families;  /* char *, sorted */
} Groups;

static int index_of(GPtrArray *a, const char *s)
{
  for (guint i = 0; i < a->len; i++)
    if (g_strcmp0(a->pdata[i], s) == 0)
      return (int)i;
  return -1;
}

static gboolean usable(const ResultRow *r, const Axis *x, const Axis *y)
{
  double vx = result_value(r, x->col), vy = result_value(r, y->col);
  return r->status == OUTCOME_OK && isfinite(vx) && isfinite(vy) && (!x->log || vx > 0) && (!y->log || vy > 0);
}

static gint cmp_str(gconstpointer a, gconstpointer b) { return g_strcmp0(*(char *const *)a, *(char *const *)b); }

static void groups_of(GPtrArray *rows, Groups *g)
{
  g->systems = g_ptr_array_new();
  g->families = g_ptr_array_new();
  for (guint i = 0; i < rows->len; i++) {
    const ResultRow *r = rows->pdata[i];
    if (r->status != OUTCOME_OK)
      continue;
    if (index_of(g->systems, r->system) < 0)
      g_ptr_array_add(g->systems, r->system);
    if (index_of(g->families, r->family) < 0)
      g_ptr_array_add(g->families, r->family);
  }
  g_ptr_array_sort(g->families, cmp_str);
}

/* The data range of a column over usable rows; a log axis when it spans more than 20x. */
static gboolean axis_range(GPtrArray *rows, Axis *ax)
{
  ax->lo = INFINITY, ax->hi = -INFINITY;
  for (guint i = 0; i < rows->len; i++) {
    const ResultRow *r = rows->pdata[i];
    double v = result_value(r, ax->col);
    if (r->status == OUTCOME_OK && isfinite(v)) {
      ax->lo = MIN(ax->lo, v);
      ax->hi = MAX(ax->hi, v);
    }
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
static char *short_number(double v)
{
  static const struct { double f; const char *s; } u[] = { { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } };
  for (gsize i = 0; i < G_N_ELEMENTS(u); i++)
    if (fabs(v) >= u[i].f)
      return g_strdup_printf("%g%s", v / u[i].f, u[i].s);
  return g_strdup_printf("%g", v);
}

static double round_sig(double v, int digits)
{
  if (v == 0)
    return 0;
  double m = pow(10, digits - 1 - floor(log10(fabs(v))));
  return round(v * m) / m;
}

/* Tick values: 1-2-5 per decade on a log axis, a 1-2-5 step on a linear one. */
static GArray *ticks(const Axis *ax)
{
  GArray *t = g_array_new(FALSE, FALSE, sizeof(double));
  if (ax->log) {
    for (double d = ax->lo; d <= ax->hi * 1.0001; d *= 10)
      for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
        double v = d * m;
        if (v <= ax->hi * 1.0001)
          g_array_append_val(t, v);
      }
    return t;
  }
  double raw = (ax->hi - ax->lo) / 10, mag = pow(10, floor(log10(raw))), step = mag;
  for (int m = 1; m <= 10; m = m == 1 ? 2 : m == 2 ? 5 : 10)
    if (mag * m >= raw) {
      step = mag * m;
      break;
    }
  for (double v = ceil(ax->lo / step) * step; v <= ax->hi + 1e-9 * step; v += step)
    g_array_append_val(t, v);
  return t;
}

static void hsv(double h, double *r, double *g, double *b)
{
  double s = 0.75, v = 0.88, c = v * s, hp = fmod(h, 1.0) * 6, x = c * (1 - fabs(fmod(hp, 2) - 1)), m = v - c;
  double rr = 0, gg = 0, bb = 0;
  if (hp < 1) rr = c, gg = x;
  else if (hp < 2) rr = x, gg = c;
  else if (hp < 3) gg = c, bb = x;
  else if (hp < 4) gg = x, bb = c;
  else if (hp < 5) rr = x, bb = c;
  else rr = c, bb = x;
  *r = rr + m, *g = gg + m, *b = bb + m;
}

static const double system_rgb[][3] = { { 0.05, 0.05, 0.05 }, { 0.10, 0.25, 0.75 }, { 0.75, 0.10, 0.10 },
                                        { 0.05, 0.50, 0.20 }, { 0.50, 0.20, 0.60 }, { 0.60, 0.40, 0.05 } };

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

static void text(cairo_t *cr, double x, double y, double size, gboolean bold, double align, const char *s)
{
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  cairo_move_to(cr, x - align * e.x_advance, y);
  cairo_show_text(cr, s);
}

static const char *axis_title(const ResultColumn *c)
{
  if (strcmp(c->name, "tok_s_per_user") == 0)
    return "tokens/s per user (interactivity)";
  if (strcmp(c->name, "tok_s_per_mw") == 0)
    return "tokens/s per MW of facility power";
  return c->name;
}

static void draw_axes(cairo_t *cr, const Axis *x, const Axis *y, double w, double h)
{
  cairo_set_line_width(cr, 1);
  g_autoptr(GArray) tx = ticks(x), ty = ticks(y);
  for (guint i = 0; i < tx->len; i++) {
    double v = g_array_index(tx, double, i), p = px(x, v);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, p, MARGIN_T), cairo_line_to(cr, p, h - MARGIN_B), cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    g_autofree char *l = short_number(v);
    text(cr, p, h - MARGIN_B + 18, 12, FALSE, 0.5, l);
  }
  for (guint i = 0; i < ty->len; i++) {
    double v = g_array_index(ty, double, i), p = px(y, v);
    cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
    cairo_move_to(cr, MARGIN_L, p), cairo_line_to(cr, w - MARGIN_R, p), cairo_stroke(cr);
    cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
    g_autofree char *l = short_number(v);
    text(cr, MARGIN_L - 8, p + 4, 12, FALSE, 1.0, l);
  }
  cairo_set_source_rgb(cr, 0, 0, 0);
  cairo_rectangle(cr, MARGIN_L, MARGIN_T, w - MARGIN_L - MARGIN_R, h - MARGIN_T - MARGIN_B);
  cairo_stroke(cr);
  g_autofree char *xl = g_strdup_printf("%s%s", axis_title(x->col), x->log ? "  (log scale)" : "");
  g_autofree char *yl = g_strdup_printf("%s%s", axis_title(y->col), y->log ? "  (log scale)" : "");
  text(cr, (MARGIN_L + w - MARGIN_R) / 2, h - 18, 14, FALSE, 0.5, xl);
  cairo_save(cr);
  cairo_translate(cr, 22, (MARGIN_T + h - MARGIN_B) / 2);
  cairo_rotate(cr, -G_PI / 2);
  text(cr, 0, 0, 14, FALSE, 0.5, yl);
  cairo_restore(cr);
}

static gint by_x(gconstpointer a, gconstpointer b, gpointer col)
{
  double x = result_value(*(ResultRow *const *)a, col), y = result_value(*(ResultRow *const *)b, col);
  return (x > y) - (x < y);
}

static void draw_frontiers(cairo_t *cr, GPtrArray *rows, const Axis *x, const Axis *y, const Groups *g)
{
  for (guint s = 0; s < g->systems->len; s++) {
    g_autoptr(GPtrArray) f = g_ptr_array_new();
    for (guint i = 0; i < rows->len; i++) {
      ResultRow *r = rows->pdata[i];
      if (r->on_frontier == 1 && g_strcmp0(r->system, g->systems->pdata[s]) == 0 && usable(r, x, y))
        g_ptr_array_add(f, r);
    }
    g_ptr_array_sort_with_data(f, by_x, (gpointer)x->col);
    set_system_colour(cr, s);
    cairo_set_line_width(cr, 2.5);
    for (guint i = 0; i < f->len; i++) {
      double xx = px(x, result_value(f->pdata[i], x->col)), yy = px(y, result_value(f->pdata[i], y->col));
      i ? cairo_line_to(cr, xx, yy) : cairo_move_to(cr, xx, yy);
    }
    cairo_stroke(cr);
    for (guint i = 0; i < f->len; i++) {
      marker(cr, s, px(x, result_value(f->pdata[i], x->col)), px(y, result_value(f->pdata[i], y->col)), 4.5);
      cairo_fill(cr);
    }
  }
}

/* The best y at or beyond the SLO on x, per system: a ring, a dashed SLO line, a label. */
static void draw_slo(cairo_t *cr, GPtrArray *rows, const Axis *x, const Axis *y, const Groups *g, double slo, double h)
{
  if (slo <= 0 || slo < x->lo || slo > x->hi)
    return;
  double sx = px(x, slo);
  cairo_set_source_rgb(cr, 0.35, 0.35, 0.35);
  cairo_set_line_width(cr, 1.2);
  double dash[] = { 6, 4 };
  cairo_set_dash(cr, dash, 2, 0);
  cairo_move_to(cr, sx, MARGIN_T), cairo_line_to(cr, sx, h - MARGIN_B), cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
  g_autofree char *sl = g_strdup_printf("SLO %g", slo);
  text(cr, sx + 4, MARGIN_T + 14, 12, FALSE, 0, sl);
  for (guint s = 0; s < g->systems->len; s++) {
    const ResultRow *best = NULL;
    for (guint i = 0; i < rows->len; i++) {
      const ResultRow *r = rows->pdata[i];
      if (g_strcmp0(r->system, g->systems->pdata[s]) == 0 && usable(r, x, y) && result_value(r, x->col) >= slo &&
          (!best || result_value(r, y->col) > result_value(best, y->col)))
        best = r;
    }
    if (!best)
      continue;
    double bx = px(x, result_value(best, x->col)), by = px(y, result_value(best, y->col));
    set_system_colour(cr, s);
    cairo_set_line_width(cr, 2);
    cairo_new_path(cr);
    cairo_arc(cr, bx, by, 9, 0, 2 * G_PI), cairo_stroke(cr);
    g_autofree char *v = short_number(round_sig(result_value(best, y->col), 3));
    g_autofree char *l = g_strdup_printf("%s: %s %s at %.0f (%s)", best->system, v, y->col->name, result_value(best, x->col),
                                         best->family);
    text(cr, bx + 12, by - 10 - 14.0 * s, 11.5, TRUE, 0, l);
  }
}

static void draw_legend(cairo_t *cr, const Groups *g, double w)
{
  double x = w - MARGIN_R + 18, y = MARGIN_T + 6;
  cairo_set_source_rgb(cr, 0, 0, 0);
  text(cr, x, y, 13, TRUE, 0, "frontier per system");
  y += 20;
  for (guint s = 0; s < g->systems->len; s++, y += 18) {
    set_system_colour(cr, s);
    cairo_set_line_width(cr, 2.5);
    cairo_move_to(cr, x, y - 4), cairo_line_to(cr, x + 26, y - 4), cairo_stroke(cr);
    marker(cr, s, x + 13, y - 4, 4.5), cairo_fill(cr);
    cairo_set_source_rgb(cr, 0, 0, 0);
    text(cr, x + 34, y, 12, FALSE, 0, g->systems->pdata[s]);
  }
  y += 14;
  text(cr, x, y, 13, TRUE, 0, "configuration family");
  y += 18;
  guint n = g->families->len, shown = MIN(n, MAX_LEGEND_FAMILIES);
  for (guint f = 0; f < shown; f++, y += 15) {
    double r, gg, b;
    hsv((double)f / MAX(n, 1), &r, &gg, &b);
    cairo_set_source_rgb(cr, r, gg, b);
    cairo_new_path(cr);
    cairo_arc(cr, x + 5, y - 4, 4, 0, 2 * G_PI), cairo_fill(cr);
    cairo_set_source_rgb(cr, 0.1, 0.1, 0.1);
    text(cr, x + 16, y, 10.5, FALSE, 0, g->families->pdata[f]);
  }
  if (n > shown) {
    g_autofree char *more = g_strdup_printf("... and %u more", n - shown);
    text(cr, x + 16, y, 10.5, FALSE, 0, more);
  }
}

static void draw(cairo_t *cr, GPtrArray *rows, const ChartOptions *opt, Axis *x, Axis *y)
{
  double w = opt->width, h = opt->height;
  Groups g;
  groups_of(rows, &g);
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  map_axis(x, MARGIN_L, w - MARGIN_R);
  map_axis(y, h - MARGIN_B, MARGIN_T);
  draw_axes(cr, x, y, w, h);
  cairo_save(cr);
  cairo_rectangle(cr, MARGIN_L, MARGIN_T, w - MARGIN_L - MARGIN_R, h - MARGIN_T - MARGIN_B);
  cairo_clip(cr);
  for (guint i = 0; i < rows->len; i++) { /* the rainbow: every point, by family */
    const ResultRow *r = rows->pdata[i];
    if (!usable(r, x, y))
      continue;
    double cr_, cg, cb;
    hsv((double)index_of(g.families, r->family) / MAX(g.families->len, 1), &cr_, &cg, &cb);
    cairo_set_source_rgba(cr, cr_, cg, cb, 0.75);
    marker(cr, index_of(g.systems, r->system), px(x, result_value(r, x->col)), px(y, result_value(r, y->col)), 3);
    cairo_fill(cr);
  }
  draw_frontiers(cr, rows, x, y, &g);
  cairo_restore(cr);
  draw_slo(cr, rows, x, y, &g, opt->slo, h);
  draw_legend(cr, &g, w);
  cairo_set_source_rgb(cr, 0, 0, 0);
  text(cr, MARGIN_L, 32, 19, TRUE, 0, opt->title ? opt->title : "AI-factory chart");
  text(cr, MARGIN_L, 52, 12, FALSE, 0, "each dot a configuration; lines: the Pareto frontier of each system (up and to the right is better)");
  g_ptr_array_unref(g.systems);
  g_ptr_array_unref(g.families);
}

static gboolean setup_axes(GPtrArray *rows, const ChartOptions *opt, Axis *x, Axis *y, GError **error)
{
  x->col = results_column(opt->x ? opt->x : "tok_s_per_user");
  y->col = results_column(opt->y ? opt->y : "tok_s_per_mw");
  if (!results_column_numeric(x->col) || !results_column_numeric(y->col)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "no numeric result column '%s'",
                !results_column_numeric(x->col) ? opt->x : opt->y);
    return FALSE;
  }
  if (!axis_range(rows, x) || !axis_range(rows, y)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "no point with status ok and both %s and %s: nothing to draw",
                x->col->name, y->col->name);
    return FALSE;
  }
  return TRUE;
}

static cairo_status_t to_bytes(void *closure, const unsigned char *data, unsigned int len)
{
  g_byte_array_append(closure, data, len);
  return CAIRO_STATUS_SUCCESS;
}

gboolean chart_render(GPtrArray *rows, const ChartOptions *opt, const char *path, GError **error)
{
  Axis x = { 0 }, y = { 0 };
  if (!setup_axes(rows, opt, &x, &y, error))
    return FALSE;
  /* Drawn into memory, then written like every other output (output_dir.h): cairo's own file
   * writers would open the final name, or a fixed temporary one, through whatever link is there. */
  g_autoptr(GByteArray) bytes = g_byte_array_new();
  cairo_surface_t *s;
  gboolean png = g_str_has_suffix(path, ".png");
  if (png)
    s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, opt->width, opt->height);
  else if (g_str_has_suffix(path, ".svg"))
    s = cairo_svg_surface_create_for_stream(to_bytes, bytes, opt->width, opt->height);
  else if (g_str_has_suffix(path, ".pdf"))
    s = cairo_pdf_surface_create_for_stream(to_bytes, bytes, opt->width, opt->height);
  else {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: expected a .png, .svg or .pdf file name", path);
    return FALSE;
  }
  cairo_t *cr = cairo_create(s);
  draw(cr, rows, opt, &x, &y);
  cairo_destroy(cr);
  cairo_status_t st = png ? cairo_surface_write_to_png_stream(s, to_bytes, bytes) : CAIRO_STATUS_SUCCESS;
  cairo_surface_finish(s);
  if (st == CAIRO_STATUS_SUCCESS)
    st = cairo_surface_status(s);
  cairo_surface_destroy(s);
  if (st != CAIRO_STATUS_SUCCESS) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: cannot draw the chart: %s", path, cairo_status_to_string(st));
    return FALSE;
  }
  return atomic_file_write(path, (const char *)bytes->data, bytes->len, error);
}

/* TEXT as a gnuplot single-quoted string. Inside single quotes gnuplot expands nothing (no
 * backquotes, no escapes); a quote is written twice, and a line break (which would end the string
 * and let the rest run as a command) or any other control character becomes a space. */
static void gp_string(GString *out, const char *text)
{
  g_string_append_c(out, '\'');
  for (const char *c = text ? text : ""; *c; c++) {
    if (*c == '\'')
      g_string_append(out, "''");
    else if ((unsigned char)*c < 0x20 || *c == 0x7f)
      g_string_append_c(out, ' ');
    else
      g_string_append_c(out, *c);
  }
  g_string_append_c(out, '\'');
}

gboolean chart_gnuplot(GPtrArray *rows, const ChartOptions *opt, const char *script, const char *data, GError **error)
{
  Axis x = { 0 }, y = { 0 };
  if (!setup_axes(rows, opt, &x, &y, error))
    return FALSE;
  Groups g;
  groups_of(rows, &g);
  g_autoptr(GString) d = g_string_new("# x y family_index system_index (block 0: every point; block k: frontier of system k)\n");
  for (guint i = 0; i < rows->len; i++) {
    const ResultRow *r = rows->pdata[i];
    if (usable(r, &x, &y))
      g_string_append_printf(d, "%.6g %.6g %d %d\n", result_value(r, x.col), result_value(r, y.col),
                             index_of(g.families, r->family), index_of(g.systems, r->system));
  }
  for (guint s = 0; s < g.systems->len; s++) {
    g_autofree char *name = g_strdup(g.systems->pdata[s]);
    g_strdelimit(name, "\n\r", ' '); /* a comment line stays one line */
    g_string_append_printf(d, "\n\n# frontier of %s\n", name);
    g_autoptr(GPtrArray) f = g_ptr_array_new();
    for (guint i = 0; i < rows->len; i++) {
      ResultRow *r = rows->pdata[i];
      if (r->on_frontier == 1 && g_strcmp0(r->system, g.systems->pdata[s]) == 0 && usable(r, &x, &y))
        g_ptr_array_add(f, r);
    }
    g_ptr_array_sort_with_data(f, by_x, (gpointer)x.col);
    for (guint i = 0; i < f->len; i++)
      g_string_append_printf(d, "%.6g %.6g\n", result_value(f->pdata[i], x.col), result_value(f->pdata[i], y.col));
  }
  g_autofree char *base = g_path_get_basename(data);
  g_autofree char *png = g_strconcat(script, ".png", NULL);
  g_autofree char *png_base = g_path_get_basename(png);
  g_autoptr(GString) sc = g_string_new(NULL);
  /* Every text from the results or the scenario reaches the script through gp_string: the
   * script must never run what an input carried. */
  g_autofree char *script_base = g_path_get_basename(script);
  g_string_append(sc, "# gnuplot script written by aifsim: `gnuplot ");
  for (const char *c = script_base; *c; c++) /* a comment ends at a line break: keep it on one line */
    g_string_append_c(sc, (unsigned char)*c < 0x20 ? ' ' : *c);
  g_string_append(sc, "` draws the chart\nset terminal pngcairo noenhanced size ");
  g_string_append_printf(sc, "%d,%d\nset output ", opt->width, opt->height);
  gp_string(sc, png_base);
  g_string_append(sc, "\nset title ");
  gp_string(sc, opt->title ? opt->title : "AI-factory chart");
  g_string_append(sc, "\nset xlabel ");
  gp_string(sc, axis_title(x.col));
  g_string_append(sc, "\nset ylabel ");
  gp_string(sc, axis_title(y.col));
  g_string_append(sc, "\nset grid\nset key outside right\n");
  g_string_append_printf(sc, "%s%s", x.log ? "set logscale x\n" : "", y.log ? "set logscale y\n" : "");
  g_string_append_printf(sc, "set palette rgbformulae 33,13,10\nunset colorbox\n");
  g_string_append(sc, "plot ");
  gp_string(sc, base);
  g_string_append(sc, " index 0 using 1:2:3 with points pt 7 ps 0.6 lc palette notitle");
  for (guint s = 0; s < g.systems->len; s++) {
    g_string_append(sc, ", \\\n     ");
    gp_string(sc, base);
    g_string_append_printf(sc, " index %u using 1:2 with linespoints lw 2 pt %u title ", s + 1, 5 + 2 * s);
    gp_string(sc, g.systems->pdata[s]);
  }
  g_string_append_c(sc, '\n');
  g_ptr_array_unref(g.systems);
  g_ptr_array_unref(g.families);
  return atomic_file_write(data, d->str, d->len, error) && atomic_file_write(script, sc->str, sc->len, error);
}
