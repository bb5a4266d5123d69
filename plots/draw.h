/* draw.h — what the charts share (chart.c, series_chart.c): text, short numbers, axis ticks, and
 * text made safe for a gnuplot script. */
#ifndef AIF_DRAW_H
#define AIF_DRAW_H

#include <cairo.h>
#include <glib.h>

void draw_font(cairo_t *cr, double size, gboolean bold);
double draw_text_width(cairo_t *cr, double size, gboolean bold, const char *s);
/* S at (X, Y), ALIGN 0 left, 0.5 centred, 1 right. */
void draw_text(cairo_t *cr, double x, double y, double size, gboolean bold, double align, const char *s);
/* V with a k, M or G suffix ("1.5M"), newly allocated. */
char *draw_short_number(double v);
/* Tick values from LO to HI: 1-2-5 per decade on a log axis, a 1-2-5 step on a linear one. */
GArray *draw_ticks(double lo, double hi, gboolean log);
/* TEXT as a gnuplot single-quoted string. Inside single quotes gnuplot expands nothing (no
 * backquotes, no escapes); a quote is written twice, and a line break (which would end the string
 * and let the rest run as a command) or any other control character becomes a space. */
void draw_gp_string(GString *out, const char *text);
/* RGB (0..1 each) as gnuplot's '#rrggbb'. */
void draw_gp_colour(GString *out, const double *rgb);

/* Draws a WIDTH x HEIGHT picture with F(cr, USER) to PATH: .png, .svg or .pdf (another name is an
 * AIF_ERROR_INPUT). Drawn into memory, then written like every other output (output_dir.h):
 * cairo's own file writers would open the final name, or a fixed temporary one, through whatever
 * link is there. */
typedef void (*DrawFunc)(cairo_t *cr, gconstpointer user);
gboolean draw_to_file(const char *path, int width, int height, DrawFunc f, gconstpointer user, GError **error);

#endif
