/* metrics.c — the event simulation's measurements (see metrics.h). */
#include "metrics.h"
#include "stats.h"

#include <math.h>

/* Fewer arrivals inside the window than this say nothing of a trend (the run's requests came before
 * the window opened: the caller judges the load by the deployment's capacity instead). */
#define METRICS_MIN_ARRIVALS 30

typedef struct {
  double arrival, first, done;
  int osl;
} Done;

struct Metrics {
  MetricsConfig c;
  double start;            /* s, < 0 until the window opens */
  double last_t, area;     /* the time-weighted count in flight since the window opened */
  int in_flight;
  gboolean n0_taken;
  int n0, n_last_arrival;  /* in flight at the window's opening and after its last arrival */
  guint arrivals, completed;
  GArray *done;            /* Done, in completion order */
};

Metrics *metrics_new(const MetricsConfig *c)
{
  Metrics *m = g_new0(Metrics, 1);
  m->c = *c;
  m->start = c->start;
  m->done = g_array_new(FALSE, FALSE, sizeof(Done));
  return m;
}

void metrics_free(Metrics *m)
{
  if (!m)
    return;
  g_array_unref(m->done);
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

void metrics_completed(Metrics *m, double now, double arrival, double first, int osl)
{
  account(m, now);
  m->in_flight--;
  m->completed++;
  Done d = { arrival, first, now, osl };
  g_array_append_val(m->done, d);
  if (m->start < 0 && m->completed >= (m->c.target + 9) / 10)
    m->start = now; /* no warm-up given: the window opens once a tenth of the requests are done */
}

static gboolean meets_slo(const MetricsConfig *c, double ttft, double tpot)
{
  return (c->max_ttft <= 0 || ttft <= c->max_ttft) &&
         (c->min_tok_s_per_user <= 0 || (isfinite(tpot) && tpot > 0 && 1 / tpot >= c->min_tok_s_per_user));
}

void metrics_summary(Metrics *m, double now, MetricsSummary *out)
{
  account(m, now);
  double t0 = m->start >= 0 ? m->start : 0;
  *out = (MetricsSummary){ .window = now - t0, .arrivals = m->arrivals,
                           .backlog_growth = m->arrivals ? m->n_last_arrival - m->n0 : 0 };
  g_autoptr(GArray) ttft = g_array_new(FALSE, FALSE, sizeof(double)), tpot = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) e2e = g_array_new(FALSE, FALSE, sizeof(double));
  double tokens = 0, e2e_sum = 0, good = 0;
  for (guint k = 0; k < m->done->len; k++) {
    const Done *r = &g_array_index(m->done, Done, k);
    if (r->done <= t0 || r->arrival < m->c.warmup)
      continue;
    double a = r->first - r->arrival, b = r->done - r->arrival;
    double c = r->osl > 1 ? (r->done - r->first) / (r->osl - 1) : NAN;
    g_array_append_val(ttft, a);
    g_array_append_val(e2e, b);
    if (isfinite(c))
      g_array_append_val(tpot, c);
    e2e_sum += b;
    tokens += r->osl;
    good += meets_slo(&m->c, a, c);
  }
  double w = out->window;
  out->measured = e2e->len;
  out->out_tok_s = w > 0 ? tokens / w : NAN;
  out->req_s = w > 0 ? e2e->len / w : NAN;
  out->goodput = w > 0 ? good / w : NAN;
  out->mean_e2e = e2e->len ? e2e_sum / e2e->len : NAN;
  out->mean_in_flight = w > 0 ? m->area / w : NAN;
  static const double q[3] = { 0.5, 0.9, 0.99 };
  stats_quantiles(ttft, q, 3, out->ttft);
  stats_quantiles(tpot, q, 3, out->tpot);
  stats_quantiles(e2e, q, 3, out->e2e);
  double a = out->arrivals;
  out->backlog_judged = a >= METRICS_MIN_ARRIVALS;
  out->backlog_grew = out->backlog_judged && out->backlog_growth > MAX(0.1 * a, 4 * sqrt(a));
}
