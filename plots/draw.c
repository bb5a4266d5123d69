/* draw.c — what the charts share (see draw.h). */
#include "draw.h"
#include "aif_error.h"
#include "output_dir.h"

#include <cairo-pdf.h>
#include <cairo-svg.h>
#include <math.h>

void draw_font(cairo_t *cr, double size, gboolean bold)
{
  cairo_select_font_face(cr, "sans-serif", CAIRO_FONT_SLANT_NORMAL, bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL);
  cairo_set_font_size(cr, size);
}

double draw_text_width(cairo_t *cr, double size, gboolean bold, const char *s)
{
  draw_font(cr, size, bold);
  cairo_text_extents_t e;
  cairo_text_extents(cr, s, &e);
  return e.x_advance;
}

void draw_text(cairo_t *cr, double x, double y, double size, gboolean bold, double align, const char *s)
{
  double w = draw_text_width(cr, size, bold, s);
  cairo_move_to(cr, x - align * w, y);
  cairo_show_text(cr, s);
}

char *draw_short_number(double v)
{
  static const struct { double f; const char *s; } u[] = { { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" } };
  for (gsize i = 0; i < G_N_ELEMENTS(u); i++)
    if (fabs(v) >= u[i].f)
      return g_strdup_printf("%g%s", v / u[i].f, u[i].s);
  return g_strdup_printf("%g", v);
}

GArray *draw_ticks(double lo, double hi, gboolean log)
{
  GArray *t = g_array_new(FALSE, FALSE, sizeof(double));
  if (log) {
    for (double d = lo; d <= hi * 1.0001; d *= 10)
      for (int m = 1; m <= 5; m += m == 1 ? 1 : 3) {
        double v = d * m;
        if (v <= hi * 1.0001)
          g_array_append_val(t, v);
      }
    return t;
  }
  double raw = (hi - lo) / 10, mag = pow(10, floor(log10(raw))), step = mag;
  for (int m = 1; m <= 10; m = m == 1 ? 2 : m == 2 ? 5 : 10)
    if (mag * m >= raw) {
      step = mag * m;
      break;
    }
  for (double v = ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step)
    g_array_append_val(t, v);
  return t;
}

void draw_gp_string(GString *out, const char *text)
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

void draw_gp_colour(GString *out, const double *rgb)
{
  g_string_append_printf(out, "'#%02x%02x%02x'", (int)(rgb[0] * 255 + 0.5), (int)(rgb[1] * 255 + 0.5),
                         (int)(rgb[2] * 255 + 0.5));
}

static cairo_status_t to_bytes(void *closure, const unsigned char *data, unsigned int len)
{
  g_byte_array_append(closure, data, len);
  return CAIRO_STATUS_SUCCESS;
}

gboolean draw_to_file(const char *path, int width, int height, DrawFunc f, gconstpointer user, GError **error)
{
  g_autoptr(GByteArray) bytes = g_byte_array_new();
  cairo_surface_t *s;
  gboolean png = g_str_has_suffix(path, ".png");
  if (png)
    s = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, width, height);
  else if (g_str_has_suffix(path, ".svg"))
    s = cairo_svg_surface_create_for_stream(to_bytes, bytes, width, height);
  else if (g_str_has_suffix(path, ".pdf"))
    s = cairo_pdf_surface_create_for_stream(to_bytes, bytes, width, height);
  else {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: expected a .png, .svg or .pdf file name", path);
    return FALSE;
  }
  cairo_t *cr = cairo_create(s);
  f(cr, user);
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
