/* workload.c — request lengths and arrivals (see workload.h). */
#include "workload.h"
#include "aif_error.h"
#include "csv.h"

#include <math.h>
#include <string.h>

static gboolean trace_row(Workload *w, const char *path, int line, const char *a, const char *b, const char *c,
                          GError **error)
{
  char *e0, *e1, *e2;
  TraceRow t = { g_ascii_strtod(a, &e0), (int)g_ascii_strtoll(b, &e1, 10), (int)g_ascii_strtoll(c, &e2, 10) };
  if (*e0 || *e1 || *e2 || !*a || !*b || !*c || t.isl < 1 || t.osl < 1 || t.arrival < 0 ||
      (w->trace->len && t.arrival < g_array_index(w->trace, TraceRow, w->trace->len - 1).arrival)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT,
                "%s:%d:1: expected arrival_s,input_tokens,output_tokens: a time >= 0, not before the previous "
                "row, and two counts >= 1", path, line);
    return FALSE;
  }
  g_array_append_val(w->trace, t);
  return TRUE;
}

/* A trace is CSV: arrival_s,input_tokens,output_tokens, with or without that header line. */
static gboolean read_trace(Workload *w, const char *path, GError **error)
{
  g_autoptr(CsvFile) csv = csv_read(path, error);
  if (!csv)
    return FALSE;
  w->trace = g_array_new(FALSE, FALSE, sizeof(TraceRow));
  GPtrArray *h = csv->header;
  if (csv_column(csv, "arrival_s") < 0 && /* no header: csv_read took the first row for one */
      !trace_row(w, path, 1, h->len > 0 ? h->pdata[0] : "", h->len > 1 ? h->pdata[1] : "",
                 h->len > 2 ? h->pdata[2] : "", error))
    return FALSE;
  for (guint r = 0; r < csv->rows->len; r++)
    if (!trace_row(w, path, g_array_index(csv->lines, int, r), csv_field(csv, r, 0), csv_field(csv, r, 1),
                   csv_field(csv, r, 2), error))
      return FALSE;
  return TRUE;
}

gboolean workload_init(Workload *w, const ScenarioParams *p, GError **error)
{
  *w = (Workload){ .p = p, .rand = g_rand_new_with_seed((guint32)p->seed) };
  if (p->trace && !read_trace(w, p->trace, error)) {
    workload_clear(w);
    return FALSE;
  }
  return TRUE;
}

void workload_clear(Workload *w)
{
  g_clear_pointer(&w->rand, g_rand_free);
  g_clear_pointer(&w->trace, g_array_unref);
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
  default: break;
  }
  return (int)CLAMP(round(v), MAX(1, l->min), MAX(l->max, 1));
}

/* The length spec in force: after workload.shift.at, its mean moves (min and max follow). */
static int draw_shifted(Workload *w, const LengthSpec *l, double shifted)
{
  if (w->p->shift_at <= 0 || w->now < w->p->shift_at || shifted <= 0)
    return draw(w, l);
  LengthSpec m = *l;
  double k = shifted / l->mean;
  m.mean = shifted, m.stddev *= k, m.min = MAX(1, l->min * k), m.max = MAX(m.min, l->max * k);
  return draw(w, &m);
}

int workload_input(Workload *w) { return draw_shifted(w, &w->p->input, w->p->shift_input); }
int workload_output(Workload *w) { return draw_shifted(w, &w->p->output, w->p->shift_output); }

double workload_gap(Workload *w)
{
  double rate = w->p->rate;
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
