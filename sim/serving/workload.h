/* workload.h — the requests a simulation serves: prompt and output lengths drawn from the
 * scenario's distributions, arrivals from a closed loop of users, a Poisson or gamma-burst open
 * loop, or a trace file. All randomness comes from one GRand seeded by the scenario, so the same
 * scenario and seed give the same requests. */
#ifndef AIF_WORKLOAD_H
#define AIF_WORKLOAD_H

#include "sim_config.h"
#include "trace.h"

typedef struct {
  const SimConfig *p;
  GRand *rand;
  GArray *trace; /* TraceRow, when arrival is trace */
  GArray *curve; /* double: the rate's multiplier per period (workload.arrival.curve), or NULL */
  GArray *mix;   /* MixClass: the request classes (workload.mix), or NULL */
  guint trace_next;
  double now;    /* the simulation's clock, for workload.shift */
} Workload;

/* Reads the trace if the scenario has one (errors: AIF_ERROR_INPUT with file:line:col). */
gboolean workload_init(Workload *w, const SimConfig *p, GError **error);
void workload_clear(Workload *w);
/* Prompt and output lengths of the next request (tokens, at least 1); of class CLS of the mix
 * (workload_class) at its means, or the workload's (-1). */
int workload_input(Workload *w, int cls);
int workload_output(Workload *w, int cls);
/* The class of the next request, drawn by share (-1: no mix). */
int workload_class(Workload *w);
/* The mean prompt of P's requests, tokens: its new input behind the shared prefix and, in sessions,
 * the turns before it. */
double workload_mean_prompt(const SimConfig *p);
/* The share of those prompt tokens an engine with an unbounded prefix cache finds cached (the
 * workload's reuse; PROMPT_ONLY: the engine kept prompts, not answers, as a prefill engine does),
 * whole blocks aside; 0 with caching off. */
double workload_reuse(const SimConfig *p, gboolean prompt_only);
/* The mean of workload.arrival.curve's multipliers (1 without a curve): the base rate's share offered
 * over a cycle. */
double workload_curve_share(const SimConfig *p);
/* Gap to the next open-loop arrival (s). */
double workload_gap(Workload *w);
/* The next trace row, or NULL at its end. */
const TraceRow *workload_trace_next(Workload *w);
/* A standard normal draw and a gamma draw (shape K, scale THETA), for tests. */
double workload_normal(Workload *w);
double workload_gamma(Workload *w, double k, double theta);

#endif
