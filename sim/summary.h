/* summary.h — the answer a planner reads after a run, and what `aifsim plan` prints.
 *
 * For every system: the pick (the ok point with the most tokens/s per MW, the point the chart
 * annotates: frontier_best) and the factory it makes; then, aggregated and disaggregated side by
 * side, the top N ok points of each mode, each with its full configuration, tokens/s per GPU,
 * tokens/s per user, TTFT, tokens/s per MW, racks and $/Mtok; and the count of every outcome.
 * "ok" means the point meets the scenario's SLO (slo.h), so nothing here breaks it. Beside each
 * pick, the model's error on held-out measured rows of its system and mode, and where the pick
 * clears an SLO limit by less than that error, the limit that would leave it as headroom (the
 * TTFT error is the median's, applied to the SLO's percentile), and the pick that limit makes: the
 * ok point with the most tokens/s per MW that clears every limit by its system and mode's error
 * (a figure with no held-out error keeps the SLO's own limit; a system and mode without measured
 * rows has no such pick: nothing says how far its figures may be off). Where the scenario sweeps
 * the factory's size (its power budget or GPU count), all of it per system and size. As a table,
 * CSV or JSON. */
#ifndef AIF_SUMMARY_H
#define AIF_SUMMARY_H

#include "held_out.h"
#include "params.h"
#include "results.h"

typedef enum { SUMMARY_TABLE, SUMMARY_CSV, SUMMARY_JSON } SummaryFormat;
extern const char *const summary_format_names[]; /* "table", "csv", "json" */

typedef struct {
  const char *slo;         /* the SLO in words (slo_describe) */
  double budget_w;         /* the facility's power budget, W: the smallest of the points sized by one
                            * (0: none is) */
  double budget_max_w;     /* the largest of them (0: budget_w) */
  int factory_gpus;        /* factory.gpus: the smallest of the points sized by a GPU count (0: none
                            * is); without per_size, > 0 says every point's factory is its
                            * factory.gpus GPUs, not sized by the budget (JSON's budget_mw null) */
  int factory_gpus_max;    /* the largest of them (0: factory_gpus) */
  /* factory.power_budget or factory.gpus swept: each point's factory has a size of its own, and
   * each system is summarised per size (JSON's budget_mw null) */
  gboolean per_size;
  Percentile percentile;   /* the TTFT shown: the SLO's percentile */
  const HeldOut *held_out; /* the profile's error on measured rows it was not fitted on, quoted
                            * beside each pick (held_out.h); NULL: not known (a profile of the user's) */
  /* The SLO's limits (0: none), to tell the planner when a pick clears one by less than that
   * error: a pick on the SLO's edge may not hold as served. max_ttft is 0 for a mixed demand,
   * whose classes have limits of their own. */
  double min_tok_s_per_user;
  double max_ttft;         /* s, at the percentile above */
} SummaryOptions;

/* Rows are added one at a time; the summary keeps copies of the few it shows (the picks and the
 * top TOP per system and mode) and counts the rest: its memory does not grow with the table. OPT
 * is copied; its text and held-out table are borrowed and must outlive the summary. */
typedef struct Summary Summary;
Summary *summary_new(guint top, const SummaryOptions *opt);
void summary_add(Summary *s, const ResultRow *r);
void summary_free(Summary *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Summary, summary_free)

/* The summary in FORMAT, newly allocated. */
char *summary_text(const Summary *s, SummaryFormat format);
/* The systems, in order of first appearance, and each one's pick (frontier_better over tokens/s
 * per MW; NULL where none of its points meets the SLO). Where the factory's size is swept
 * (SummaryOptions' per_size: factory.power_budget or factory.gpus), a system is listed once per
 * size, with the pick among the points of that size: a planner given a budget wants the best
 * factory it makes, not the budget whose factory has the most tokens/s per MW.
 * summary_budget_mw and summary_factory_gpus are that size, a budget in MW or a GPU count (NAN
 * where sizes are not swept, and for the kind of size the system's points do not have). */
guint summary_n_systems(const Summary *s);
const char *summary_system(const Summary *s, guint i);
double summary_budget_mw(const Summary *s, guint i);
double summary_factory_gpus(const Summary *s, guint i);
gboolean summary_per_size(const Summary *s); /* whether systems are listed per size */
const ResultRow *summary_pick(const Summary *s, guint i);
/* What tells R, a point of system I, apart beyond its configuration label: "column=value" for each
 * result column the label does not name (model, arrival, rate_req_s, isl, osl, router, max_batch,
 * oversubscription) that takes more than one value among the system's points, then R's other swept
 * keys (results' swept), "; " between; newly allocated, NULL when nothing does (or R is NULL). The
 * table prints it in brackets after the label; CSV and JSON give it as settings. */
char *summary_settings(const Summary *s, guint i, const ResultRow *r);
/* System I's pick with the model's held-out error as headroom on the SLO's limits (above); NULL where
 * no point clears them so or no held-out error is known for any of its points. */
const ResultRow *summary_headroom_pick(const Summary *s, guint i);
/* The limits a point R was held to for that pick: the SLO's tokens/s per user raised and its TTFT
 * limit (s, at the SLO's percentile) lowered by the held-out error quoted for R, each the SLO's own
 * where R's rows have no error on that figure (0: the SLO has no such limit). FALSE where no
 * held-out error is known for R. */
gboolean summary_headroom_limits(const Summary *s, const ResultRow *r, double *min_tok_s_per_user, double *max_ttft);

#endif
