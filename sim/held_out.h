/* held_out.h — how far the model's figures were from measured ones it was never fitted on, per
 * system and serving mode: the table `calibration/held-out.sh -t` writes for a profile
 * (calibration/profiles/held-out/errors.csv is the shipped profile's). The summary quotes it beside
 * each system's pick, so a planner reads a figure with the error it carries, and learns when no
 * measured row stands behind it (a system or mode the data never ran: the model's extrapolation).
 * Read by the command line, handed to the summary (summary.h); nothing in the prediction reads it. */
#ifndef AIF_HELD_OUT_H
#define AIF_HELD_OUT_H

#include <glib.h>

/* One system and mode: the measured rows, and the median |predicted / measured - 1| of throughput
 * per GPU, tokens/s per user and TTFT on the rows a fit did not see (NAN where the rows have none). */
typedef struct {
  char *system, *mode; /* mode as results name it: "aggregated" or "disaggregated" */
  guint rows;
  double throughput, per_user, ttft;
} HeldOutError;

typedef struct HeldOut HeldOut;

/* Reads PATH (columns system, mode, rows, out_tok_s_per_gpu, tok_s_per_user, ttft_ms); a bad cell
 * is an AIF_ERROR_INPUT at its file:line:col. */
HeldOut *held_out_load(const char *path, GError **error);
/* SYSTEM's entry in MODE, or NULL: no measured row of that system and mode (or either is NULL). */
const HeldOutError *held_out_find(const HeldOut *h, const char *system, const char *mode);
void held_out_free(HeldOut *h);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(HeldOut, held_out_free)

#endif
