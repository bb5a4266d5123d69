/* held_out.h — how far the model's figures were from measured ones it was never fitted on, per
 * system and serving mode, and per model on a system or on a GPU architecture: the table
 * `calibration/held-out.sh -t` writes for a profile (calibration/profiles/held-out/errors.csv is the
 * shipped profile's). The summary quotes it beside each system's pick, so a planner reads a figure
 * with the error it carries, and learns when no measured row stands behind it (a system or mode the
 * data never ran: the model's extrapolation). The evidence quoted is the nearest there is: rows of
 * the pick's own model on its system first, then of its model on other systems of the same GPU
 * architecture, then of any model on its system, since the error follows the model and its
 * workload more than the chassis (a DeepSeek-R1 pick on GB200 judged by Llama-3.1-405B's MLPerf
 * rows on GB200 quoted their 17% per-user error where 221 DeepSeek-R1 rows on B200 held out at 4%).
 * Read by the command line, handed to the summary (summary.h); nothing in the prediction reads it. */
#ifndef AIF_HELD_OUT_H
#define AIF_HELD_OUT_H

#include <glib.h>

/* One line of the table: the measured rows of a system (or, system empty, of every system of a GPU
 * architecture) in a mode, of one model (model empty: of every model), and the median |predicted /
 * measured - 1| of throughput per GPU, tokens/s per user and TTFT on the rows a fit did not see
 * (NAN where the rows have none). Empty strings, never NULL. */
typedef struct {
  char *system, *arch, *mode, *model; /* mode as results name it: "aggregated" or "disaggregated" */
  guint rows;
  double throughput, per_user, ttft;
} HeldOutError;

/* Which rows an entry quotes for a pick (held_out_find). */
typedef enum {
  HELD_OUT_SYSTEM_MODEL, /* the pick's model on its system */
  HELD_OUT_ARCH_MODEL,   /* its model on the systems of its GPU architecture */
  HELD_OUT_SYSTEM,       /* its system, any model */
} HeldOutScope;

/* Fewer rows of a model than this leave the figure to the next scope: with each row in two of the
 * four held-out halves, a median over four or five rows a half is one row's error. */
#define HELD_OUT_MIN_ROWS 10

typedef struct HeldOut HeldOut;

/* Reads PATH (columns system, mode, rows, out_tok_s_per_gpu, tok_s_per_user, ttft_ms, and arch and
 * model where the table has them: without them every line is a system's over every model); a bad
 * cell is an AIF_ERROR_INPUT at its file:line:col. */
HeldOut *held_out_load(const char *path, GError **error);
/* The nearest evidence for MODEL (NULL: not known) on SYSTEM in MODE: the system's lines of that
 * model with HELD_OUT_MIN_ROWS rows or more, else the lines of that model on the architecture the
 * table gives SYSTEM with as many, else the system's over every model; *SCOPE (may be NULL) says
 * which. NULL: no measured row of that system and mode (or SYSTEM or MODE is NULL). */
const HeldOutError *held_out_find(const HeldOut *h, const char *system, const char *mode, const char *model,
                                  HeldOutScope *scope);
void held_out_free(HeldOut *h);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HeldOut, held_out_free)

#endif
