/* progress.h — how far a long command has got, told on stderr.
 *
 * On a terminal a bar redrawn in place; off a terminal (a Slurm log, a pipe) a whole line every
 * few seconds, so a log shows a run is alive without filling up; nothing under --quiet. A run
 * shorter than the first interval prints nothing off a terminal. Sweeps, validate and fit use it. */
#ifndef AIF_PROGRESS_H
#define AIF_PROGRESS_H

#include <glib.h>

typedef enum {
  PROGRESS_NONE,  /* --quiet */
  PROGRESS_BAR,   /* stderr is a terminal */
  PROGRESS_LINES, /* off a terminal: a line every PROGRESS_LINE_SECONDS */
  PROGRESS_EACH_SECOND, /* --progress: a line every second, terminal or not */
} ProgressStyle;

#define PROGRESS_LINE_SECONDS 10

typedef struct {
  ProgressStyle style;
  const char *what;  /* "points", "rows": what is counted */
  gsize done, total;
  gint64 start, last; /* monotonic microseconds */
  gint64 every;       /* microseconds between lines */
  gboolean printed;   /* a line or the bar is on stderr */
} Progress;

/* The style for a command's --quiet and --progress flags and whether stderr is a terminal. */
ProgressStyle progress_style(gboolean quiet, gboolean forced);
/* Starts counting TOTAL things called WHAT (a static string), DONE of them already done. */
void progress_start(Progress *p, ProgressStyle style, const char *what, gsize done, gsize total);
/* Counts N more done, and tells it when it is time. */
void progress_add(Progress *p, gsize n);
/* The last word: the bar completed, or a closing line where lines were printed. */
void progress_end(Progress *p);

#endif
