/* slo.h — the one definition of a scenario's SLO, applied to a result row.
 *
 * A row meets the SLO when its TTFT and TPOT at the stated percentile are within their limits and
 * its tokens/s per user (1 / median TPOT) reaches the floor. evaluate.c applies it to every point
 * (a point that breaks it is slo-violated, with the limit it broke); the frontier, the chart's
 * annotation and `aifsim plan` then consider only points whose status is ok, so the three agree.
 * Rows of the steady-state model carry no p90 / p99: the median stands in for them. */
#ifndef AIF_SLO_H
#define AIF_SLO_H

#include "params.h"
#include "results.h"

typedef enum { SLO_MET, SLO_LOST, SLO_TTFT, SLO_TPOT, SLO_TOK_S_PER_USER } SloBreach;

/* The first limit of S that R breaks, or SLO_MET: more requests lost to failed engines
 * (R's lost_share) than S's percentile lets miss (a lost request is never answered, so it misses
 * every limit: a p99 limit allows 1% of them) or than S's max_lost_share, the tighter of the two,
 * then TTFT, TPOT and tokens/s per user; with *WHY (when WHY is not NULL) the numbers, newly
 * allocated. */
SloBreach slo_check(const PlanParams *s, const ResultRow *r, char **why);
/* The figure at percentile P of one given at p50, p90 and p99: the median where the method computed
 * no other (NAN), as the steady state's rows have. */
double slo_at(Percentile p, double p50, double p90, double p99);
/* The share of requests percentile P holds to (0.5, 0.9, 0.99). */
double percentile_fraction(Percentile p);
/* S in words ("p50 TTFT <= 2 s, >= 50 tok/s per user"), newly allocated; "none" without limits. */
char *slo_describe(const PlanParams *s);
/* The same for a mixed demand's points (workload.mix's text, or NULL): TTFT by class, each at its
 * own limit or the plan's ("p90 TTFT by class (chat <= 3 s, reasoning <= 6 s), ..."). */
char *slo_describe_mix(const PlanParams *s, const char *mix);

#endif
