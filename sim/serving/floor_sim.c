/* floor_sim.c — several deployments on one floor, simulated together (see floor_sim.h). */
#include "floor_sim.h"

#include <math.h>

/* Part K's engines now: what its autoscaler wants, those here, those parked that may leave. */
typedef struct {
  int want, held, idle;
} Look;

/* The arbiter at time T: parked engines beyond their deployment's need leave, and the GPUs free go to
 * the deployments short of engines, the furthest short (as a share of their need) first. */
static void arbitrate(Sim **sims, FloorPart *parts, int n, double floor_gpus, double t)
{
  g_autofree Look *look = g_new0(Look, n);
  double used = 0, short_gpus = 0;
  for (int k = 0; k < n; k++) {
    Look *l = &look[k];
    l->want = sim_floor_look(sims[k], t, &l->held, &l->idle);
    if (parts[k].d) /* disaggregated pools keep their engines (their planner moves them between pools) */
      l->want = l->held;
    short_gpus += MAX(l->want - l->held, 0) * parts[k].gpus_each;
    used += l->held * parts[k].gpus_each;
  }
  /* someone is short of what is free: those with engines beyond their need park them now, not at
   * their autoscaler's pace (a tenth a look) */
  gboolean short_of = short_gpus > floor_gpus - used + 1e-6;
  used = 0;
  for (int k = 0; k < n; k++) {
    Look *l = &look[k];
    if (short_of && l->held - l->idle > l->want && !parts[k].d) {
      sim_reclaim(sims[k], l->held - l->idle - l->want);
      l->want = sim_floor_look(sims[k], t, &l->held, &l->idle); /* the empty ones parked at once */
    }
    if (l->held > l->want) {
      int gone = sim_release(sims[k], MIN(l->idle, l->held - l->want));
      l->held -= gone;
      parts[k].released += gone;
    }
    used += l->held * parts[k].gpus_each;
  }
  double free_gpus = floor_gpus - used;
  for (;;) {
    int best = -1;
    double short_by = 0;
    for (int k = 0; k < n; k++) {
      double s = look[k].want > look[k].held ? (double)(look[k].want - look[k].held) / look[k].want : 0;
      if (s > short_by && parts[k].gpus_each <= free_gpus + 1e-6)
        best = k, short_by = s;
    }
    if (best < 0)
      break;
    Look *l = &look[best];
    int fit = (int)floor((free_gpus + 1e-6) / parts[best].gpus_each);
    int got = sim_grant(sims[best], MIN(l->want - l->held, fit));
    if (got == 0) { /* none left away to give it: it is at its most */
      l->want = l->held;
      continue;
    }
    l->held += got;
    parts[best].granted += got;
    free_gpus -= got * parts[best].gpus_each;
  }
}

/* The part whose next event is the earliest (the first of equals), or -1 when all are over. */
static int next_part(Sim **sims, gboolean *over, int n, double *t)
{
  int best = -1;
  *t = INFINITY;
  for (int k = 0; k < n; k++) {
    double tk;
    if (over[k])
      continue;
    if (!sim_next_time(sims[k], &tk)) {
      over[k] = TRUE;
      continue;
    }
    if (tk < *t)
      best = k, *t = tk;
  }
  return best;
}

char *floor_simulate(FloorPart *parts, int n, double floor_gpus, double interval, gboolean move)
{
  g_autofree Sim **sims = g_new0(Sim *, n);
  g_autofree gboolean *over = g_new0(gboolean, n);
  char *why = NULL;
  for (int k = 0; k < n && !why; k++) {
    FloorPart *f = &parts[k];
    f->out = (SimResult){ .outcome = OUTCOME_INFEASIBLE };
    f->granted = f->released = 0;
    f->why = NULL;
    char *err = NULL;
    int spare = move && !f->d ? f->spare : 0;
    sims[k] = sim_new(f->p, f->e, f->engines + spare, f->d, f->dec, f->same_domain, &err);
    if (!sims[k]) {
      why = g_strdup_printf("deployment %d: %s", k + 1, err);
      g_free(err);
    } else {
      sim_start_away(sims[k], spare);
    }
  }
  double look_at = move ? interval : INFINITY, t;
  for (int k; !why && (k = next_part(sims, over, n, &t)) >= 0;) {
    if (t > look_at) { /* every event before the look has run: the floor's state at it is known */
      arbitrate(sims, parts, n, floor_gpus, look_at);
      look_at += interval;
      continue;
    }
    sim_step(sims[k]);
  }
  for (int k = 0; k < n && !why; k++)
    parts[k].why = sim_finish(sims[k], &parts[k].out);
  for (int k = 0; k < n; k++)
    sim_free(sims[k]);
  return why;
}

void floor_series_merge(GArray *into, GArray *const *parts, const double *scale, int n)
{
  guint rows = G_MAXUINT;
  for (int k = 0; k < n; k++)
    rows = MIN(rows, parts[k] ? parts[k]->len : 0);
  for (guint i = 0; n > 0 && i < rows; i++) {
    SeriesRow m = { .t = g_array_index(parts[0], SeriesRow, i).t, .power_cap_w = NAN };
    double act = 0, lat[4] = { 0 }, lat_w[4] = { 0 }, shed = 0;
    for (int k = 0; k < n; k++) {
      const SeriesRow *r = &g_array_index(parts[k], SeriesRow, i);
      double c = scale[k];
      m.offered += r->offered * c, m.served += r->served * c, m.out_tok_s += r->out_tok_s * c;
      m.in_flight += r->in_flight * c, m.queued += r->queued * c, m.engines_down += r->engines_down * c;
      m.serving_engines += r->serving_engines * c, m.prefill_engines += r->prefill_engines * c;
      m.gpus += r->gpus * c;
      act += r->gpu_activity * r->gpus * c;
      shed += r->shed * r->offered * c;
      const double v[4] = { r->ttft_p50, r->ttft_p90, r->tpot_p50, r->tpot_p90 };
      for (int j = 0; j < 4; j++)
        if (isfinite(v[j]) && r->served > 0)
          lat[j] += v[j] * r->served * c, lat_w[j] += r->served * c;
    }
    m.gpu_activity = m.gpus > 0 ? act / m.gpus : 0;
    m.shed = m.offered > 0 ? shed / m.offered : 0;
    double *out[4] = { &m.ttft_p50, &m.ttft_p90, &m.tpot_p50, &m.tpot_p90 };
    for (int j = 0; j < 4; j++)
      *out[j] = lat_w[j] > 0 ? lat[j] / lat_w[j] : NAN;
    m.facility_w = NAN;
    g_array_append_val(into, m);
  }
}
