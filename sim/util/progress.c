/* progress.c — progress on stderr (see progress.h). */
#include "progress.h"

#include <stdio.h>
#include <unistd.h>

ProgressStyle progress_style(gboolean quiet, gboolean forced)
{
  if (quiet)
    return PROGRESS_NONE;
  if (forced)
    return PROGRESS_EACH_SECOND;
  return isatty(STDERR_FILENO) ? PROGRESS_BAR : PROGRESS_LINES;
}

void progress_start(Progress *p, ProgressStyle style, const char *what, gsize done, gsize total)
{
  *p = (Progress){ .style = style, .what = what, .done = done, .total = total, .start = g_get_monotonic_time() };
  p->last = p->start;
  p->every = (style == PROGRESS_EACH_SECOND ? 1 : PROGRESS_LINE_SECONDS) * G_USEC_PER_SEC;
}

static void tell(Progress *p, gint64 now, gboolean final)
{
  double secs = (now - p->start) / 1e6, rate = secs > 0 ? p->done / secs : 0;
  double eta = rate > 0 ? (p->total - p->done) / rate : 0;
  if (p->style == PROGRESS_BAR) {
    int width = 30, fill = p->total ? (int)(width * (double)p->done / p->total) : width;
    fprintf(stderr, "\r[%.*s%*s] %" G_GSIZE_FORMAT "/%" G_GSIZE_FORMAT " %s, %.0f/s, ETA %.0f s %s", fill,
            "##############################", width - fill, "", p->done, p->total, p->what, rate, eta,
            final ? "\n" : "");
  } else {
    fprintf(stderr, "%" G_GSIZE_FORMAT "/%" G_GSIZE_FORMAT " %s (%.0f%%) after %.0f s, %.1f/s%s\n", p->done,
            p->total, p->what, p->total ? 100.0 * p->done / p->total : 100.0, secs, rate,
            final ? ": done" : "");
  }
  p->printed = TRUE;
  p->last = now;
}

void progress_add(Progress *p, gsize n)
{
  p->done += n;
  if (p->style == PROGRESS_NONE)
    return;
  gint64 now = g_get_monotonic_time();
  gint64 gap = p->style == PROGRESS_BAR ? G_USEC_PER_SEC / 10 : p->every;
  if (now - p->last >= gap)
    tell(p, now, FALSE);
}

void progress_end(Progress *p)
{
  if (p->style == PROGRESS_BAR || (p->style != PROGRESS_NONE && p->printed))
    tell(p, g_get_monotonic_time(), TRUE);
}
