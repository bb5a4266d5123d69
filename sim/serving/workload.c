/* workload.c — request lengths and arrivals (see workload.h). */
#include "workload.h"
#include "aif_error.h"
#include "scenario.h"

#include <math.h>
#include <string.h>

gboolean workload_init(Workload *w, const SimConfig *p, GError **error)
{
  *w = (Workload){ .p = p, .rand = g_rand_new_with_seed((guint32)p->seed) };
  if (p->trace && !(w->trace = trace_read(p->trace, error))) {
    workload_clear(w);
    return FALSE;
  }
  g_autofree char *why = NULL;
  if (p->curve && (p->arrival == ARRIVAL_POISSON || p->arrival == ARRIVAL_GAMMA) &&
      !(w->curve = scenario_curve_parse(p->curve, &why))) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "workload.arrival.curve: %s", why);
    workload_clear(w);
    return FALSE;
  }
  if (p->mix && !(w->mix = scenario_mix_parse(p->mix, &why))) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "workload.mix: %s", why);
    workload_clear(w);
    return FALSE;
  }
  return TRUE;
}

void workload_clear(Workload *w)
{
  g_clear_pointer(&w->rand, g_rand_free);
  g_clear_pointer(&w->trace, g_array_unref);
  g_clear_pointer(&w->curve, g_array_unref);
  g_clear_pointer(&w->mix, g_array_unref);
}

double workload_normal(Workload *w)
{
  double u = 1.0 - g_rand_double(w->rand), v = g_rand_double(w->rand); /* Box-Muller, u in (0, 1] */
  return sqrt(-2.0 * log(u)) * cos(2 * G_PI * v);
}

double workload_gamma(Workload *w, double k, double theta)
{
  if (k < 1) /* boost the shape, then scale back (Marsaglia and Tsang) */
    return workload_gamma(w, k + 1, theta) * pow(1.0 - g_rand_double(w->rand), 1.0 / k);
  if (k > 1e6) /* a near-regular gap (burst_cv < 0.001): the gamma is normal to within 0.2% skew, and the
                * rejection test below cancels catastrophically (d - d v + d log v) and never accepts */
    return theta * MAX(0.0, k + sqrt(k) * workload_normal(w));
  double d = k - 1.0 / 3, c = 1 / sqrt(9 * d);
  for (;;) {
    double x = workload_normal(w), v = pow(1 + c * x, 3);
    double u = 1.0 - g_rand_double(w->rand);
    if (v > 0 && log(u) < 0.5 * x * x + d - d * v + d * log(v))
      return d * v * theta;
  }
}

static int draw(Workload *w, const LengthSpec *l)
{
  double v = l->mean;
  switch (l->dist) {
  case DIST_UNIFORM: v = l->min + (l->max - l->min) * g_rand_double(w->rand); break;
  case DIST_NORMAL: v = l->mean + l->stddev * workload_normal(w); break;
  case DIST_LOGNORMAL: v = exp(log(l->mean) - l->sigma * l->sigma / 2 + l->sigma * workload_normal(w)); break;
  case DIST_EXPONENTIAL: v = -l->mean * log(1.0 - g_rand_double(w->rand)); break;
  default: break;
  }
  return (int)CLAMP(round(v), MAX(1, l->min), MAX(l->max, 1));
}

/* L's distribution moved to MEAN (its spread, min and max follow). */
static int draw_at(Workload *w, const LengthSpec *l, double mean)
{
  LengthSpec m = *l;
  double k = mean / l->mean;
  m.mean = mean, m.stddev *= k, m.min = MAX(1, l->min * k), m.max = MAX(m.min, l->max * k);
  return draw(w, &m);
}

/* The length spec in force: a class's mean (workload.mix), or after workload.shift.at the shifted one. */
static int draw_length(Workload *w, const LengthSpec *l, double shifted, int cls, gboolean input)
{
  if (cls >= 0 && w->mix) {
    const MixClass *c = &g_array_index(w->mix, MixClass, cls);
    return draw_at(w, l, input ? c->input : c->output);
  }
  if (w->p->shift_at <= 0 || w->now < w->p->shift_at || shifted <= 0)
    return draw(w, l);
  return draw_at(w, l, shifted);
}

int workload_input(Workload *w, int cls) { return draw_length(w, &w->p->input, w->p->shift_input, cls, TRUE); }
int workload_output(Workload *w, int cls) { return draw_length(w, &w->p->output, w->p->shift_output, cls, FALSE); }

int workload_class(Workload *w)
{
  if (!w->mix)
    return -1;
  double u = g_rand_double(w->rand), acc = 0;
  for (guint k = 0; k + 1 < w->mix->len; k++)
    if (u < (acc += g_array_index(w->mix, MixClass, k).share))
      return (int)k;
  return (int)w->mix->len - 1;
}

/* The gap to the next arrival of a Poisson process whose rate is RATE x the curve's figure of each
 * period in turn, from NOW: an exponential draw of unit mean spent period by period at each one's
 * rate (time rescaling: exact for a piecewise-constant rate). */
static double curve_gap(Workload *w, double rate, double now)
{
  double e = -log(1.0 - g_rand_double(w->rand)), t = now, period = w->p->curve_period;
  guint n = w->curve->len;
  for (int guard = 0; guard < 1 << 24; guard++) {
    double k = floor(t / period), end = (k + 1) * period;
    double r = rate * g_array_index(w->curve, double, (guint)fmod(k, n));
    if (r > 0 && e <= r * (end - t))
      return t + e / r - now;
    if (r > 0)
      e -= r * (end - t);
    t = end;
  }
  return INFINITY;
}

double workload_gap(Workload *w)
{
  double rate = w->p->rate;
  if (w->curve) {
    if (w->p->arrival == ARRIVAL_GAMMA) { /* bursts at the rate of the moment */
      double m = g_array_index(w->curve, double, (guint)fmod(floor(w->now / w->p->curve_period), w->curve->len));
      if (m > 0) {
        double k = 1 / (w->p->burst_cv * w->p->burst_cv);
        return workload_gamma(w, k, 1 / (rate * m * k));
      }
    }
    return curve_gap(w, rate, w->now);
  }
  if (w->p->arrival == ARRIVAL_GAMMA) { /* CV c: shape 1/c^2, mean gap 1/rate */
    double k = 1 / (w->p->burst_cv * w->p->burst_cv);
    return workload_gamma(w, k, 1 / (rate * k));
  }
  return -log(1.0 - g_rand_double(w->rand)) / rate;
}

const TraceRow *workload_trace_next(Workload *w)
{
  if (!w->trace || w->trace_next >= w->trace->len)
    return NULL;
  return &g_array_index(w->trace, TraceRow, w->trace_next++);
}

/* Turns of a session that count: sessions need a closed loop (an open loop's arrivals belong to no
 * user), and a trace carries its own lengths. */
static double session_turns(const SimConfig *p)
{
  return p->turns > 1 && p->arrival == ARRIVAL_CLOSED && !p->trace ? p->turns : 1;
}

double workload_mean_prompt(const SimConfig *p)
{
  if (p->trace)
    return p->input.mean;
  /* turn t of N resends the shared prefix and t earlier prompts and answers: the mean over a
   * session is S + U + (N - 1) / 2 x (U + O) */
  double n = session_turns(p), u = p->input.mean, o = p->output.mean;
  return p->shared_prefix + u + (n - 1) / 2 * (u + o);
}

double workload_reuse(const SimConfig *p, gboolean prompt_only)
{
  if (p->trace || !p->prefix_cache)
    return 0;
  /* turn t >= 1 finds the prefix and the session so far cached: t (U + O) behind S, less the last
   * answer where the engine that cached the prompt never saw it (a prefill engine); turn 0 finds
   * the prefix (its group is warm after a few requests) */
  double n = session_turns(p), u = p->input.mean, o = p->output.mean, s = p->shared_prefix;
  double cached = s + (n - 1) / 2 * (u + o) - (n - 1) / n * (prompt_only ? o : 0);
  return cached / workload_mean_prompt(p);
}

double workload_curve_share(const SimConfig *p)
{
  g_autofree char *why = NULL;
  g_autoptr(GArray) curve = p->curve ? scenario_curve_parse(p->curve, &why) : NULL;
  return curve ? scenario_curve_mean(curve) : 1;
}
