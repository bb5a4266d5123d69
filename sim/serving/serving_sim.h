/* serving_sim.h — the event-driven simulation of a deployment serving a workload.
 *
 * Engines run one step at a time (step_time.h gives each step's length). Aggregated engines batch
 * continuously: every step decodes one token (or MTP's accepted tokens) for each running sequence
 * and feeds prompt chunks up to the chunked-prefill budget. A request is admitted when the engine
 * has a batch slot and KV-cache room for its whole prompt and answer (no eviction), and waits
 * otherwise. With attention data-parallel each sequence sits on one rank (the least busy), and a
 * stack that balances prompts across ranks (TensorRT-LLM) holds them as it does. Disaggregated
 * deployments run prefill engines and decode engines; a finished prompt's KV cache moves to the
 * least-loaded decode engine over NVLink (one domain) or the NICs. Sessions and shared prefixes
 * find what earlier requests left in the engines' prefix caches (prefix_cache.h): a prompt computes
 * only what it did not find, and the router may send it where most of it is. Requests come from workload.h;
 * figures cover a steady window or, like a benchmark client's, every request. Events are engine
 * steps, arrivals and KV transfers, never tokens. */
#ifndef AIF_SERVING_SIM_H
#define AIF_SERVING_SIM_H

#include "engine.h"
#include "network.h"
#include "outcome.h"
#include "sim_config.h"

/* One class of a mixed demand (workload.mix) over the window: requests done, TTFT and TPOT p50, p90,
 * p99 (s), and its goodput against its own TTFT limit (requests/s). */
typedef struct {
  guint measured;
  double ttft[3], tpot[3];
  double goodput;
} ClassFigures;

typedef struct {
  OutcomeKind outcome;    /* ok; unsupported when no request completed in the window; else infeasible */
  double window;          /* s of the measurement window */
  guint measured;         /* requests completed in the window */
  double out_tok_s;       /* output tokens/s of the deployment in the window */
  double req_s;           /* requests/s completed in the window */
  double ttft[3], tpot[3], e2e[3]; /* p50, p90, p99 (s) */
  double mean_in_flight;  /* time-average requests in the system during the window */
  guint arrivals;         /* requests that arrived inside the window */
  int backlog_growth;     /* in flight after the window's last arrival minus at its opening */
  gboolean backlog_judged; /* enough arrivals inside the window to judge the backlog's trend */
  gboolean unstable;      /* open loop: the backlog grew beyond a stable queue's fluctuations */
  double mean_e2e;        /* s */
  double mean_batch;      /* mean decode sequences per step of decoding engines */
  double gpu_activity;    /* mean over the deployment's GPUs (0 idle .. 1 TDP) */
  double goodput;         /* requests/s meeting the SLO (plan keys), when it has one */
  double gpus;
  guint64 steps;          /* engine steps simulated */
  guint64 events;         /* events run (step ends, arrivals, entries, transfers, the planner's ...) */
  guint64 requests;       /* requests created */
  /* per class of workload.mix (n_classes 0: no mix): its figures over the window, its goodput
   * against its own TTFT limit */
  guint n_classes;
  ClassFigures classes[MIX_MAX_CLASSES];
  guint moves;            /* engines the planner moved between pools */
  double cache_hit_rate;  /* share of the window's prompt tokens found in the prefix caches (NAN:
                           * no shared context, or caching off) */
  double cache_host_rate, cache_storage_rate, cache_remote_rate; /* of them, the share reloaded from
                           * the host, storage and remote tiers (NAN: no such tier) */
  /* failures (SimConfig.failures; NAN without): engines failed in the window, the requests on them
   * lost or sent again, and the engines' share of the window in service */
  double failures, lost, retried, availability;
  double lost_share;      /* the window's requests lost, of all measured (answered or lost): TTFT's
                           * and E2E's percentiles count them as never answered (metrics.h) */
  double tray_failures, degraded; /* NVLink switch trays failed, and the engines' share of the run in a
                           * domain with one down (NAN: no failures, or no switch trays) */
  double parked;          /* the autoscaler: the engines' share of the run parked (NAN: none) */
  double maintenance, maintenances; /* planned maintenance: the engines' share of the run out for it,
                           * and how many times an engine went (NAN: none) */
  /* the power envelope (SimConfig.power_policy; NAN without): the share of offered requests turned
   * away, and the GPUs' power cap averaged over the run (W) */
  double shed, mean_cap_w;
} SimResult;

/* One interval of a run's time series (SimConfig.series): what arrived and was served, the load in
 * flight and the latency of the requests done in it, the GPUs' activity. */
typedef struct {
  double t;                  /* s: the interval's end */
  double offered, served;    /* requests/s arriving (those the power envelope turns away too), completing */
  double out_tok_s;          /* output tokens/s of the requests completing (their whole answers) */
  double in_flight;          /* requests in the system at its end */
  double ttft_p50, ttft_p90; /* s, of the requests done in it (NAN: none) */
  double tpot_p50, tpot_p90; /* s, of the same (NAN: none with more than one token) */
  double queued;             /* requests at its end waiting for a batch: at the queue router and in
                              * the engines' queues */
  double serving_engines;    /* engines in service at its end (not down, not changing pool) */
  double prefill_engines;    /* of them, in the prefill pool (0: aggregated) */
  double gpu_activity;       /* mean over the deployment's GPUs (0 idle .. 1 TDP) */
  double facility_w;         /* facility power the interval's activity draws (the caller's factory
                              * arithmetic; NAN from the simulation) */
  double engines_down;       /* engines out of service at its end (failures) */
  double power_cap_w;        /* the envelope's GPU power cap at its end (NAN: none) */
  double shed;               /* share of its arrivals turned away by the envelope */
  double gpus;               /* GPUs at its end its activity is over (those lent to another deployment
                              * of the floor not counted) */
  int part;                  /* 0: the run's (a floor's: all of it); K: deployment K of a floor of
                              * several (deployments:), its own rows after the floor's */
} SeriesRow;

/* Simulates P (ENGINES of E; or PRE prefill engines E and DEC decode engines D when D is not
 * NULL). Returns NULL, or why it could not run (newly allocated: memory, a bad trace). */
char *serving_simulate(const SimConfig *p, const Engine *e, int engines, const Engine *d, int dec,
                       gboolean same_domain, SimResult *out);
/* serving_simulate's shape, which the SimGrid backend shares: callers pick one. */
typedef char *(*SimulateFunc)(const SimConfig *p, const Engine *e, int engines, const Engine *d, int dec,
                              gboolean same_domain, SimResult *out);

/* The simulation as steps, for a driver that brings its own clock and network (the SimGrid
 * backend): it moves KV caches itself and reports when each ends. */
typedef struct Sim Sim;
typedef void (*SimTransferFunc)(gpointer user, int req, int from_engine, int to_engine, double bytes);

Sim *sim_new(const SimConfig *p, const Engine *e, int engines, const Engine *d, int dec, gboolean same_domain,
             char **why);
void sim_set_transfer(Sim *s, SimTransferFunc f, gpointer user);
/* The time of the next event; FALSE when the simulation is over. */
gboolean sim_next_time(Sim *s, double *t);
/* Runs the next event; FALSE when the simulation is over. */
gboolean sim_step(Sim *s);
/* A KV transfer handed to the driver ended at time T. */
void sim_transfer_done(Sim *s, int req, double t);
/* The engines (FRONT of them take new requests), and one engine's links in the simulation's own
 * network (NVLink up/down, NIC up/down), its fabric link (-1: none) and whether the pools share an
 * NVLink domain: the topology a driver rebuilds. */
int sim_engines(const Sim *s, int *front);
const Network *sim_network(const Sim *s, int engine, int links[4], int *fabric, gboolean *same_domain);
/* Several deployments on one floor (floor_sim.h) lend each other GPUs, an engine at a time. An
 * engine away serves another deployment: it draws no power here, neither fails nor counts. The
 * last ENGINES engines start away (before the first step). */
void sim_start_away(Sim *s, int engines);
/* At time T (no event of the run before it left): the engines the autoscaler's rule wants for the
 * requests in the system, the engines here (*HELD, not away) and of those the parked ones that could
 * leave (*IDLE). */
int sim_floor_look(Sim *s, double t, int *held, int *idle);
/* N engines more than the load needs are parked (the least loaded; those being parked already
 * count), each once it empties, whatever the autoscaler's own pace: another deployment is short. */
void sim_reclaim(Sim *s, int n);
/* Up to N parked engines leave (their GPUs for another deployment); how many did. */
int sim_release(Sim *s, int n);
/* Up to N engines away come back, parked and waking (their weights loading: autoscale_start); how
 * many did. */
int sim_grant(Sim *s, int n);
char *sim_finish(Sim *s, SimResult *out);
void sim_free(Sim *s);

#endif
