/* series_chart.c — a run over time as a chart (see series_chart.h). */
#include "series_chart.h"
#include "draw.h"
#include "output_dir.h"

#include <cairo.h>
#include <math.h>
#include <string.h>

#define WIDTH 1280
#define HEIGHT 900
#define LEFT 90
#define RIGHT 40
#define TOP 60
#define GAP 50
#define BOTTOM 60

/* One panel: its place, its y range, how values map to pixels. */
typedef struct {
  double y0, y1;       /* pixels, top and bottom */
  double lo, hi;       /* values */
  gboolean log;
  const char *title;
} Panel;

static double px_y(const Panel *p, double v)
{
  double f = p->log ? (log10(v) - log10(p->lo)) / (log10(p->hi) - log10(p->lo)) : (v - p->lo) / (p->hi - p->lo);
  return p->y1 - f * (p->y1 - p->y0);
}

/* The panel's frame, grid and y ticks; the x ticks under the last. */
static void frame(cairo_t *cr, const Panel *p, double t_hi, double unit, const char *unit_name, gboolean x_labels)
{
  cairo_set_source_rgb(cr, 0.9, 0.9, 0.9);
  cairo_set_line_width(cr, 1);
  g_autoptr(GArray) ty = draw_ticks(p->lo, p->hi, p->log), tx = draw_ticks(0, t_hi / unit, FALSE);
  for (guint i = 0; i < ty->len; i++) {
    double y = px_y(p, g_array_index(ty, double, i));
    cairo_move_to(cr, LEFT, y), cairo_line_to(cr, WIDTH - RIGHT, y);
  }
  for (guint i = 0; i < tx->len; i++) {
    double x = LEFT + g_array_index(tx, double, i) * unit / t_hi * (WIDTH - LEFT - RIGHT);
    cairo_move_to(cr, x, p->y0), cairo_line_to(cr, x, p->y1);
  }
  cairo_stroke(cr);
  cairo_set_source_rgb(cr, 0.2, 0.2, 0.2);
  cairo_rectangle(cr, LEFT, p->y0, WIDTH - LEFT - RIGHT, p->y1 - p->y0);
  cairo_stroke(cr);
  for (guint i = 0; i < ty->len; i++) {
    g_autofree char *s = draw_short_number(g_array_index(ty, double, i));
    draw_text(cr, LEFT - 6, px_y(p, g_array_index(ty, double, i)) + 4, 11, FALSE, 1, s);
  }
  draw_text(cr, LEFT, p->y0 - 8, 13, TRUE, 0, p->title);
  for (guint i = 0; x_labels && i < tx->len; i++) {
    g_autofree char *s = g_strdup_printf("%g", g_array_index(tx, double, i));
    draw_text(cr, LEFT + g_array_index(tx, double, i) * unit / t_hi * (WIDTH - LEFT - RIGHT), p->y1 + 18, 11,
              FALSE, 0.5, s);
  }
  if (x_labels)
    draw_text(cr, (LEFT + WIDTH - RIGHT) / 2.0, p->y1 + 40, 12, FALSE, 0.5, unit_name);
}

/* A line through the points' values of one field (by offset), skipping those that are not finite. */
static void line(cairo_t *cr, const Panel *p, const SeriesPoint *pts, guint n, size_t field, double t_hi,
                 const double *rgb, double width, gboolean dashed)
{
  cairo_set_source_rgb(cr, rgb[0], rgb[1], rgb[2]);
  cairo_set_line_width(cr, width);
  double dash[] = { 6, 4 };
  cairo_set_dash(cr, dash, dashed ? 2 : 0, 0);
  gboolean pen = FALSE;
  for (guint i = 0; i < n; i++) {
    double v = *(const double *)((const char *)&pts[i] + field);
    if (!isfinite(v) || (p->log && v <= 0)) {
      pen = FALSE;
      continue;
    }
    double x = LEFT + pts[i].t / t_hi * (WIDTH - LEFT - RIGHT), y = px_y(p, CLAMP(v, p->lo, p->hi));
    pen ? cairo_line_to(cr, x, y) : cairo_move_to(cr, x, y);
    pen = TRUE;
  }
  cairo_stroke(cr);
  cairo_set_dash(cr, NULL, 0, 0);
}

/* The range of fields (by offset) over the points: from 0 on a linear panel, decades on a log one. */
static void range(Panel *p, const SeriesPoint *pts, guint n, const size_t *fields, int nf)
{
  double lo = INFINITY, hi = 0;
  for (guint i = 0; i < n; i++)
    for (int f = 0; f < nf; f++) {
      double v = *(const double *)((const char *)&pts[i] + fields[f]);
      if (isfinite(v) && v > 0)
        lo = MIN(lo, v), hi = MAX(hi, v);
    }
  if (!isfinite(lo))
    lo = 1, hi = 10;
  if (p->log) {
    p->lo = pow(10, floor(log10(lo))), p->hi = pow(10, ceil(log10(hi)));
    if (p->hi <= p->lo)
      p->hi = p->lo * 10;
  } else {
    p->lo = 0, p->hi = hi > 0 ? hi * 1.1 : 1;
  }
}

static const double OFFERED[3] = { 0.6, 0.6, 0.6 }, SERVED[3] = { 0.0, 0.45, 0.70 }, POWER[3] = { 0.84, 0.37, 0.0 },
                    P50[3] = { 0.0, 0.62, 0.45 }, P90[3] = { 0.70, 0.05, 0.10 };

/* The time axis: hours for a run of three hours or more, minutes below, seconds below two. */
static double time_unit(double t_hi, const char **name)
{
  *name = t_hi >= 3 * 3600 ? "time (h)" : t_hi >= 120 ? "time (min)" : "time (s)";
  return t_hi >= 3 * 3600 ? 3600 : t_hi >= 120 ? 60 : 1;
}

static void draw(cairo_t *cr, const SeriesPoint *pts, guint n, const SeriesChart *c)
{
  const char *title = c->title;
  cairo_set_source_rgb(cr, 1, 1, 1);
  cairo_paint(cr);
  cairo_set_source_rgb(cr, 0, 0, 0);
  draw_text(cr, LEFT, 32, 18, TRUE, 0, title ? title : "the run over time");
  double t_hi = n ? pts[n - 1].t : 1;
  const char *unit_name;
  double unit = time_unit(t_hi, &unit_name);
  double h = (HEIGHT - TOP - BOTTOM - 2 * GAP) / 3.0;
  Panel load = { TOP, TOP + h, 0, 1, FALSE, "load: requests/s offered (grey) and served (blue)" };
  g_autofree char *power_title = g_strdup_printf("power: %s%s%s%s", c->power_unit,
                                                 isfinite(c->power_limit) ? " (dashed: " : "",
                                                 isfinite(c->power_limit) ? c->limit_name : "",
                                                 isfinite(c->power_limit) ? ")" : "");
  Panel power = { TOP + h + GAP, TOP + 2 * h + GAP, 0, 1, FALSE, power_title };
  Panel lat = { TOP + 2 * (h + GAP), TOP + 3 * h + 2 * GAP, 1, 10, TRUE, "latency: TTFT ms, p50 (green) and p90 (red), log scale" };
  size_t lf[] = { offsetof(SeriesPoint, offered), offsetof(SeriesPoint, served) };
  size_t pf[] = { offsetof(SeriesPoint, power) };
  size_t tf[] = { offsetof(SeriesPoint, ttft_p50), offsetof(SeriesPoint, ttft_p90) };
  range(&load, pts, n, lf, 2), range(&power, pts, n, pf, 1);
  if (isfinite(c->power_limit) && c->power_limit > 0)
    power.hi = MAX(power.hi, c->power_limit * 1.1);
  /* latency in ms */
  g_autofree SeriesPoint *ms = g_new(SeriesPoint, MAX(n, 1));
  for (guint i = 0; i < n; i++)
    ms[i] = pts[i], ms[i].ttft_p50 *= 1e3, ms[i].ttft_p90 *= 1e3;
  range(&lat, ms, n, tf, 2);
  frame(cr, &load, t_hi, unit, unit_name, FALSE);
  line(cr, &load, pts, n, lf[0], t_hi, OFFERED, 2, TRUE);
  line(cr, &load, pts, n, lf[1], t_hi, SERVED, 2, FALSE);
  frame(cr, &power, t_hi, unit, unit_name, FALSE);
  line(cr, &power, pts, n, pf[0], t_hi, POWER, 2, FALSE);
  if (isfinite(c->power_limit) && c->power_limit > 0) {
    SeriesPoint lim[2] = { { .t = 0, .power = c->power_limit }, { .t = t_hi, .power = c->power_limit } };
    line(cr, &power, lim, 2, pf[0], t_hi, OFFERED, 1.5, TRUE);
  }
  frame(cr, &lat, t_hi, unit, unit_name, TRUE);
  line(cr, &lat, ms, n, tf[0], t_hi, P50, 2, FALSE);
  line(cr, &lat, ms, n, tf[1], t_hi, P90, 2, FALSE);
}

/* What draw_to_file hands the drawing. */
typedef struct {
  const SeriesPoint *p;
  guint n;
  const SeriesChart *c;
} SeriesJob;

static void draw_job(cairo_t *cr, gconstpointer user)
{
  const SeriesJob *j = user;
  draw(cr, j->p, j->n, j->c);
}

gboolean series_chart_render(const SeriesPoint *p, guint n, const SeriesChart *c, const char *path, GError **error)
{
  SeriesJob job = { p, n, c };
  return draw_to_file(path, WIDTH, HEIGHT, draw_job, &job, error);
}

gboolean series_chart_gnuplot(const SeriesPoint *p, guint n, const SeriesChart *c, const char *script, GError **error)
{
  const char *title = c->title;
  double t_hi = n ? p[n - 1].t : 1;
  const char *unit_name;
  double unit = time_unit(t_hi, &unit_name);
  g_autofree char *png = g_strconcat(script, ".png", NULL), *png_base = g_path_get_basename(png);
  g_autoptr(GString) sc = g_string_new("# gnuplot script written by aifsim: `gnuplot THIS_FILE` draws the run over time\n"
                                       "# into the PNG named below, in the current directory; the data is inside.\n");
  g_string_append_printf(sc, "set terminal pngcairo noenhanced size %d,%d font 'sans,10'\nset output ", WIDTH, HEIGHT);
  draw_gp_string(sc, png_base);
  /* the data: time in the axis' unit, then the panels' figures (TTFT in ms; NaN where none) */
  g_string_append(sc, "\n$series << EOD\n# t offered served power ttft_p50_ms ttft_p90_ms\n");
  for (guint i = 0; i < n; i++) {
    g_string_append_printf(sc, "%.6g %.6g %.6g %.6g", p[i].t / unit, p[i].offered, p[i].served, p[i].power);
    for (int k = 0; k < 2; k++) { /* no request done in the interval: gnuplot's NaN leaves a gap */
      double v = k ? p[i].ttft_p90 : p[i].ttft_p50;
      if (isfinite(v))
        g_string_append_printf(sc, " %.6g", v * 1e3);
      else
        g_string_append(sc, " NaN");
    }
    g_string_append_c(sc, '\n');
  }
  g_string_append(sc, "EOD\nset multiplot layout 3,1 title ");
  draw_gp_string(sc, title ? title : "the run over time");
  g_string_append(sc, "\nset grid\nset key top right\nset ylabel 'requests/s'\nplot $series using 1:2 with lines dt 2 lw 2 lc rgb ");
  draw_gp_colour(sc, OFFERED);
  g_string_append(sc, " title 'offered', $series using 1:3 with lines lw 2 lc rgb ");
  draw_gp_colour(sc, SERVED);
  g_string_append(sc, " title 'served'\nset ylabel ");
  draw_gp_string(sc, c->power_unit);
  g_string_append(sc, "\nplot $series using 1:4 with lines lw 2 lc rgb ");
  draw_gp_colour(sc, POWER);
  g_string_append(sc, " title 'power'");
  if (isfinite(c->power_limit) && c->power_limit > 0) {
    g_string_append_printf(sc, ", %.6g with lines dt 2 lw 1.5 lc rgb ", c->power_limit);
    draw_gp_colour(sc, OFFERED);
    g_string_append(sc, " title ");
    draw_gp_string(sc, c->limit_name);
  }
  g_string_append(sc, "\nset logscale y\nset ylabel 'TTFT ms'\nset xlabel ");
  draw_gp_string(sc, unit_name);
  g_string_append(sc, "\nplot $series using 1:5 with lines lw 2 lc rgb ");
  draw_gp_colour(sc, P50);
  g_string_append(sc, " title 'p50', $series using 1:6 with lines lw 2 lc rgb ");
  draw_gp_colour(sc, P90);
  g_string_append(sc, " title 'p90'\nunset multiplot\n");
  return atomic_file_write(script, sc->str, sc->len, error);
}
