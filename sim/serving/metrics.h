/* metrics.h — what the event simulation measures, kept apart from how it simulates.
 *
 * serving_sim.c tells the collector when requests arrive and complete; the collector keeps the
 * measurement window (from a warm-up, from t = 0 like a benchmark client, or from when a tenth of
 * the requests are done), every measured request's latencies, the time-average count in flight,
 * and the backlog: how far the count in flight grew over the window while requests still arrived,
 * the sign of an offered load above what the deployment serves. It knows nothing of engines. */
#ifndef AIF_METRICS_H
#define AIF_METRICS_H

#include <glib.h>

typedef struct {
  double start;              /* s the window opens; < 0: once OPEN_AFTER requests are done */
  guint target;              /* requests the run completes */
  guint open_after;          /* requests done when a window with START < 0 opens (0: a tenth of TARGET) */
  double warmup;             /* s: requests arriving before are not in the latency sample */
  double max_ttft;           /* s, goodput's TTFT limit (0: none) */
  double min_tok_s_per_user; /* goodput's floor (0: none) */
} MetricsConfig;

typedef struct {
  double window;             /* s */
  guint measured;            /* requests completed in the window that arrived after the warm-up:
                              * the latency sample (out_tok_s and req_s count every request
                              * completed in the window) */
  guint lost;                /* requests lost in the window (their engine failed), arrived after
                              * the warm-up: never answered (metrics_dropped) */
  double out_tok_s, req_s, goodput;
  double ttft[3], tpot[3], e2e[3]; /* p50, p90, p99 (s) */
  double mean_in_flight, mean_e2e;
  guint arrivals;            /* requests that arrived inside the window */
  int backlog_growth;        /* in flight at the window's last arrival minus at its opening */
  /* Whether the window saw enough arrivals (30) to judge a trend, and whether the backlog grew
   * beyond what a stable queue's fluctuations explain: by more than a tenth of the window's
   * arrivals and four times their square root. */
  gboolean backlog_judged, backlog_grew;
} MetricsSummary;

typedef struct Metrics Metrics;

Metrics *metrics_new(const MetricsConfig *c);
void metrics_free(Metrics *m);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Metrics, metrics_free)

/* Whether the window is open at NOW (steps before it are not counted). */
gboolean metrics_window_open(const Metrics *m, double now);
/* A request arrived at NOW. */
void metrics_arrived(Metrics *m, double now);
/* A request that arrived at ARRIVAL, gave its first token at FIRST and asked for OSL tokens
 * completed at NOW. */
void metrics_completed(Metrics *m, double now, double arrival, double first, int osl);
/* A request that arrived at ARRIVAL was lost at NOW (its engine failed with nowhere to send it
 * again): it leaves the count in flight and is never answered. Measured like a completion (inside
 * the window, arrived after the warm-up), it counts as a request whose first token and end never
 * came: TTFT's and E2E's quantile q is the answered requests' quantile q / (1 - lost share)
 * (none, NAN, where q > 1 - lost share: it falls among the lost); it never meets the goodput's
 * SLO; TPOT and the token sums leave it out. */
void metrics_dropped(Metrics *m, double now, double arrival);
/* The figures over the window, which closes at NOW. */
void metrics_summary(Metrics *m, double now, MetricsSummary *out);

#endif
