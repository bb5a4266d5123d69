/* metrics.c — the event simulation's measurements (see metrics.h). */
#include "metrics.h"
#include "stats.h"

#include <math.h>

/* Fewer arrivals inside the window than this say nothing of a trend (the run's requests came before
 * the window opened: the caller judges the load by the deployment's capacity instead). */
#define METRICS_MIN_ARRIVALS 30
/* Latencies kept exactly up to this many measured requests; past it they fold into histograms
 * (bins 0.1% wide on a log scale from 1 us to 10^6 s: quantiles within 0.1%), so a day of a
 * factory's 10^8 requests holds a few hundred kB, not gigabytes. */
#define METRICS_EXACT (1u << 21)
#define HIST_LO 1e-6
#define HIST_STEP 1.001
#define HIST_BINS 27650 /* log(1e12) / log(1.001) */

/* One latency's distribution: its values while few, a histogram once many. */
typedef struct {
  GArray *exact;  /* double, or NULL once folded */
  guint64 *bins;  /* HIST_BINS counts (NULL while exact); bin k holds [LO x STEP^k, LO x STEP^(k+1)) */
  guint64 n;
} Dist;

struct Metrics {
  MetricsConfig c;
  double start;            /* s, < 0 until the window opens */
  double last_t, area;     /* the time-weighted count in flight since the window opened */
  int in_flight;
  gboolean n0_taken;
  int n0, n_last_arrival;  /* in flight at the window's opening and after its last arrival */
  guint arrivals, completed;
  /* the window's throughput: every request completed inside it, whenever it arrived (one that
   * arrived during the warm-up and finished after it produced its tokens in the window too) */
  guint done;
  double tokens;
  /* the measured requests, the latency sample: completed inside the window and arrived after the
   * warm-up (the warm-up's queue is not a steady state's) */
  guint measured, lost;     /* answered, and lost (never answered) */
  double e2e_sum, good;
  Dist ttft, tpot, e2e;
  /* completions before the window opens (a tenth of the requests at most): measured only if it
   * never does (a run stopped by its duration first counts from t = 0), dropped when it does */
  GArray *early;           /* Early */
};

typedef struct {
  double arrival, first, done;
  int osl;
  gboolean lost;           /* lost at DONE, never answered */
} Early;

static void dist_init(Dist *d) { *d = (Dist){ .exact = g_array_new(FALSE, FALSE, sizeof(double)) }; }

static void dist_clear(Dist *d)
{
  if (d->exact)
    g_array_unref(d->exact);
  g_free(d->bins);
}

static int bin_of(double v)
{
  if (!(v > HIST_LO))
    return 0;
  double k = floor(log(v / HIST_LO) / log(HIST_STEP));
  return (int)MIN(k, HIST_BINS - 1);
}

static void dist_add(Dist *d, double v)
{
  d->n++;
  if (d->exact) {
    g_array_append_val(d->exact, v);
    if (d->exact->len <= METRICS_EXACT)
      return;
    d->bins = g_new0(guint64, HIST_BINS); /* many: fold what was kept */
    for (guint k = 0; k < d->exact->len; k++)
      d->bins[bin_of(g_array_index(d->exact, double, k))]++;
    g_clear_pointer(&d->exact, g_array_unref);
    return;
  }
  d->bins[bin_of(v)]++;
}

/* The quantiles Q (N of them) of D into OUT: exact, or the geometric middle of the bin. */
static void dist_quantiles(const Dist *d, const double *q, int n, double *out)
{
  if (d->exact) {
    stats_quantiles(d->exact, q, n, out);
    return;
  }
  for (int i = 0; i < n; i++) {
    guint64 want = (guint64)ceil(q[i] * d->n), seen = 0;
    int k = 0;
    while (k < HIST_BINS - 1 && seen + d->bins[k] < MAX(want, 1))
      seen += d->bins[k++];
    out[i] = HIST_LO * pow(HIST_STEP, k + 0.5);
  }
}

Metrics *metrics_new(const MetricsConfig *c)
{
  Metrics *m = g_new0(Metrics, 1);
  m->c = *c;
  m->start = c->start;
  dist_init(&m->ttft), dist_init(&m->tpot), dist_init(&m->e2e);
  m->early = g_array_new(FALSE, FALSE, sizeof(Early));
  return m;
}

void metrics_free(Metrics *m)
{
  if (!m)
    return;
  dist_clear(&m->ttft), dist_clear(&m->tpot), dist_clear(&m->e2e);
  g_array_unref(m->early);
  g_free(m);
}

gboolean metrics_window_open(const Metrics *m, double now) { return m->start >= 0 && now >= m->start; }

/* The count in flight held from the last change until NOW: its area inside the window, and its
 * value at the window's opening. */
static void account(Metrics *m, double now)
{
  double from = MAX(m->last_t, m->start);
  if (m->start >= 0 && now > from)
    m->area += m->in_flight * (now - from);
  if (metrics_window_open(m, now) && !m->n0_taken)
    m->n0 = m->in_flight, m->n0_taken = TRUE;
  m->last_t = now;
}

void metrics_arrived(Metrics *m, double now)
{
  account(m, now);
  m->in_flight++;
  if (metrics_window_open(m, now)) {
    m->arrivals++;
    m->n_last_arrival = m->in_flight;
  }
}

static gboolean meets_slo(const MetricsConfig *c, double ttft, double tpot)
{
  return (c->max_ttft <= 0 || ttft <= c->max_ttft) &&
         (c->min_tok_s_per_user <= 0 || (isfinite(tpot) && tpot > 0 && 1 / tpot >= c->min_tok_s_per_user));
}

/* A measured request: its figures go into the sums and distributions at once. */
static void measure(Metrics *m, double arrival, double first, double done, int osl)
{
  double a = first - arrival, b = done - arrival, c = osl > 1 ? (done - first) / (osl - 1) : NAN;
  m->measured++;
  dist_add(&m->ttft, a), dist_add(&m->e2e, b);
  if (isfinite(c))
    dist_add(&m->tpot, c);
  m->e2e_sum += b, m->good += meets_slo(&m->c, a, c);
}

/* A request completed inside the window: its tokens count toward the throughput. */
static void count_done(Metrics *m, int osl)
{
  m->done++;
  m->tokens += osl;
}

void metrics_completed(Metrics *m, double now, double arrival, double first, int osl)
{
  account(m, now);
  m->in_flight--;
  m->completed++;
  /* done inside the window (a request done before it opens, or as it opens, is not): its tokens
   * count; measured too if it arrived after the warm-up, its figures into the sums and
   * distributions at once */
  if (m->start >= 0 && now > m->start) {
    count_done(m, osl);
    if (arrival >= m->c.warmup)
      measure(m, arrival, first, now, osl);
  } else if (m->start < 0)
    g_array_append_val(m->early, ((Early){ arrival, first, now, osl, FALSE }));
  if (m->start < 0 && m->completed >= (m->c.open_after > 0 ? m->c.open_after : (m->c.target + 9) / 10)) {
    m->start = now; /* no warm-up given: the window opens once a tenth of the requests are done, or
                     * the caller's count (a closed loop's first cycle) */
    g_array_set_size(m->early, 0);
  }
}

void metrics_dropped(Metrics *m, double now, double arrival)
{
  account(m, now);
  m->in_flight--;
  if (m->start >= 0 && now > m->start && arrival >= m->c.warmup)
    m->lost++;
  else if (m->start < 0)
    g_array_append_val(m->early, ((Early){ arrival, NAN, now, 0, TRUE }));
}

void metrics_summary(Metrics *m, double now, MetricsSummary *out)
{
  account(m, now);
  double t0 = m->start >= 0 ? m->start : 0;
  *out = (MetricsSummary){ .window = now - t0, .arrivals = m->arrivals,
                           .backlog_growth = m->arrivals ? m->n_last_arrival - m->n0 : 0 };
  for (guint k = 0; m->start < 0 && k < m->early->len; k++) { /* the window never opened: from t = 0 */
    const Early *r = &g_array_index(m->early, Early, k);
    if (r->done > 0 && !r->lost)
      count_done(m, r->osl);
    if (r->done > 0 && r->arrival >= m->c.warmup) {
      if (r->lost)
        m->lost++;
      else
        measure(m, r->arrival, r->first, r->done, r->osl);
    }
  }
  g_array_set_size(m->early, 0);
  double w = out->window;
  out->measured = m->measured, out->lost = m->lost;
  out->out_tok_s = w > 0 ? m->tokens / w : NAN;
  out->req_s = w > 0 ? m->done / w : NAN;
  /* the sample's count that met the SLO over the window, scaled to every request answered in it
   * where the warm-up left some out of the sample */
  out->goodput = w > 0 ? m->good / w * (m->done > m->measured && m->measured ? (double)m->done / m->measured : 1) : NAN;
  out->mean_e2e = m->measured ? m->e2e_sum / m->measured : NAN;
  out->mean_in_flight = w > 0 ? m->area / w : NAN;
  static const double q[3] = { 0.5, 0.9, 0.99 };
  /* the lost requests sit above every answered one: quantile q of all is the answered ones' at
   * q / (1 - lost share), none (NAN) where it falls among the lost */
  double answered = m->measured ? (double)m->measured / (m->measured + m->lost) : 1, qa[3];
  for (int i = 0; i < 3; i++)
    qa[i] = MIN(q[i] / answered, 1.0);
  dist_quantiles(&m->ttft, qa, 3, out->ttft);
  dist_quantiles(&m->tpot, q, 3, out->tpot);
  dist_quantiles(&m->e2e, qa, 3, out->e2e);
  for (int i = 0; i < 3; i++)
    if (q[i] > answered)
      out->ttft[i] = out->e2e[i] = NAN;
  double a = out->arrivals;
  out->backlog_judged = a >= METRICS_MIN_ARRIVALS;
  out->backlog_grew = out->backlog_judged && out->backlog_growth > MAX(0.1 * a, 4 * sqrt(a));
}
