/* floor_sim.h — several deployments on one floor, simulated together.
 *
 * A floor may serve more than one model (a scenario's deployments): each deployment is its own event
 * simulation (serving_sim.h) with its own demand, and they meet only where the floor is shared: its
 * GPUs. With moves on, an arbiter looks every interval at what each deployment's autoscaler wants
 * (engines for the requests in its system at its target share of their slots) and moves GPUs from
 * deployments with engines parked beyond their need to deployments short of engines: a parked engine
 * leaves (its GPUs freed), and the GPUs go, whole engines at a time, to the deployments furthest short,
 * each new engine loading its weights before it serves (autoscale_start). The simulations run in
 * step (the earliest event of any next), and the arbiter looks once every event before its time has
 * run: between looks the deployments are independent, so this is the whole floor's simulation, not an
 * approximation of it. */
#ifndef AIF_FLOOR_SIM_H
#define AIF_FLOOR_SIM_H

#include "serving_sim.h"

typedef struct {
  const SimConfig *p;    /* its demand (as its simulated part's share) and serving */
  const Engine *e, *d;   /* the aggregated engine, or the prefill (E) and decode (D) engines */
  int engines, dec;      /* engines at the start: aggregated or prefill, and decode */
  gboolean same_domain;  /* disaggregated: its pools in one NVLink domain */
  int spare;             /* aggregated with moves: further engines it may be given (away at the start) */
  double gpus_each;      /* floor GPUs one of its simulated engines stands for */
  SimResult out;         /* its figures */
  char *why;             /* why it has none (owned), or NULL */
  double granted, released; /* engines the arbiter gave it and took from it */
} FloorPart;

/* Simulates the N PARTS on a floor of FLOOR_GPUS GPUs, the arbiter looking every INTERVAL s when
 * MOVE. NULL, or why a part could not start (newly allocated, prefixed with its index "deployment K:"):
 * then none runs. A part that ran but has no figures says why in its WHY (free it). */
char *floor_simulate(FloorPart *parts, int n, double floor_gpus, double interval, gboolean move);

/* Rows of N time series (same interval, the same run length) as one floor's: part K's counts times
 * SCALE[K] (the floor's engines per simulated one) summed, the GPUs' activity their mean over the
 * GPUs, the latency percentiles the mean of the parts' weighted by the requests each served (the
 * floor's mix of models has no one percentile). Appended to INTO. */
void floor_series_merge(GArray *into, GArray *const *parts, const double *scale, int n);

#endif
