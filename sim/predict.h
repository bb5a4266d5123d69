/* predict.h — the one way from a deployment to a prediction.
 *
 * A Deployment is what runs: its pools of engines and their counts, whether the pools share an
 * NVLink domain, and the load they serve (the steady state's view, and the event simulation's:
 * arrivals, lengths, measurement window). Exactly two adapters build one: a scenario point
 * (evaluate.c) and a measured row (validate.c). predict() runs it by the steady-state model, the
 * event simulation or SimGrid, and returns an Outcome: its kind and reason, the figures the method
 * computes (NAN where it computes none), and the power at that load. The stack rules both adapters
 * share (a framework's stack, the KV cache's precision) live here too, so neither has its own. */
#ifndef AIF_PREDICT_H
#define AIF_PREDICT_H

#include "engine.h"
#include "outcome.h"
#include "params.h"
#include "serving_sim.h"
#include "sim_config.h"
#include "steady_state.h"

typedef enum { METHOD_STEADY, METHOD_DES, METHOD_SIMGRID } PredictMethod;

/* "steady", "des", "simgrid": what results call the method. */
extern const char *const method_names[];

typedef struct {
  gboolean disaggregated;
  Framework framework;         /* what launched the engines (their stack is in each Engine) */
  Engine prefill;              /* disaggregated: the prefill pool's engine */
  Engine decode;               /* the decode pool's engine, or the aggregated engine */
  int pre_workers, dec_workers; /* engines of each pool; aggregated: dec_workers */
  gboolean same_domain;        /* disaggregated: both pools in one NVLink domain (KV over NVLink) */
  Load load;                   /* the steady-state model's load */
  const SimConfig *sim;        /* the event simulation's workload (arrivals, lengths, window, pools) */
} Deployment;

typedef struct {
  OutcomeKind kind;
  char *reason;                /* why not ok (owned), or NULL */
  PredictMethod method;
  double gpus;                 /* of the deployment */
  double batch;                /* mean decode sequences per (decode) engine step */
  double out_tok_s_per_gpu, tok_s_per_user;
  double ttft, tpot;           /* s: the median (event simulation) or the mean (steady state) */
  double ttft_p90, ttft_p99, tpot_p90, tpot_p99, e2e_p50, e2e_p99; /* s */
  double steady_ttft_p99;      /* s, the steady state's p99 TTFT of Poisson prompts (aggregated) */
  double goodput;              /* requests/s meeting the plan's SLO (event simulation) */
  double served;               /* requests/s completed in the window (event simulation) */
  double moves;                /* engines the planner moved (event simulation) */
  double step;                 /* s, one decode step (steady state) */
  double weights, kv_free, max_seqs; /* per GPU of a decode engine, sequences per engine (steady) */
  double pool_load;            /* disaggregated steady state: the busier pool's share of its ceiling */
  double gpu_activity;         /* mean GPU power activity (0 idle .. 1 TDP) */
  double gpu_power_w;          /* W per GPU at that activity and the engines' clock */
  double cache_hit_rate;       /* share of prompt tokens found in the prefix caches: measured (event
                                * simulation), or the steady state's given or derived rate */
  double cache_host_rate, cache_storage_rate, cache_remote_rate; /* of them, reloaded from the offload
                                * tiers (event simulation) */
  double it_w_per_gpu;         /* W per GPU at the wall (its share of the node, NICs, switches) */
  double failures, lost, retried, availability; /* engines failed, requests lost and sent again, the
                                * engines' share of the run in service (event simulation, failures) */
  double lost_share;           /* the window's requests lost, of those answered or lost (failures) */
  double shed, mean_cap_w;     /* the power envelope: share of requests turned away, the mean GPU cap */
  double tray_failures, degraded; /* NVLink switch trays failed, engines' share of the run degraded */
  double parked;               /* the autoscaler: engines' share of the run parked */
  double maintenance;          /* planned maintenance: engines' share of the run out for it */
  double events, requests;     /* the event simulation's events and requests (its cost) */
  guint n_classes;             /* workload.mix's classes (event simulation; 0: none) */
  ClassFigures classes[MIX_MAX_CLASSES];
  /* the load against the deployment's ceilings (predict_judge_load) */
  double slots;                /* sequences the deployment runs at once (decode engines x batch) */
  double capacity_req_s;       /* requests/s it serves saturated (steady state) */
  double offered_req_s;        /* open loop: requests/s offered (NAN: a trace, or a closed loop) */
  int backlog_growth;          /* event simulation, open loop: in flight grew by this over the window */
  gboolean backlog_judged, backlog_grew; /* enough arrivals to judge the trend; it grew */
} Outcome;

/* Predicts D by METHOD into OUT (free with outcome_clear). Never fails: a deployment that cannot
 * run is an Outcome of kind infeasible or unsupported with the reason. */
void predict(const Deployment *d, PredictMethod method, Outcome *out);
void outcome_clear(Outcome *o);
/* Deployments sharing one floor's GPUs (floor_sim.h), by the event simulation together: member K's
 * deployment D, the further engines it may be given when MOVE (SPARE) and the floor GPUs one of its
 * simulated engines stands for; its outcome into OUT (free each with outcome_clear), the engines the
 * arbiter gave it and took into GRANTED and RELEASED. A member that cannot run makes the whole
 * floor's outcome infeasible, with its reason. */
typedef struct {
  const Deployment *d;
  int spare;
  double gpus_each;
  Outcome out;
  double granted, released;
} FloorMember;
void predict_floor(FloorMember *m, int n, double floor_gpus, double interval, gboolean move);
/* A deployment's ceilings, by the steady state saturated: the sequences it runs at once and the
 * requests/s it serves, with the memory plan behind them; KNOWN is FALSE when it cannot run. */
typedef struct {
  gboolean known;
  double slots, capacity_req_s;
  double weights, kv_free, max_seqs; /* per GPU of a decode engine; sequences per engine */
} Ceilings;
void predict_ceilings(const Deployment *d, Ceilings *out);
/* The sequences one of D's decode engines runs at once when its KV room holds MAX_SEQS: the least of
 * that, the load's batch cap and the stack's. */
double predict_engine_slots(const Deployment *d, double max_seqs);
/* Judges an ok OUT of D against its ceilings C: queue-bound when a closed loop keeps more users in
 * flight than it runs sequences at once (the rest wait for a slot, whatever the method); unstable
 * when an open loop's backlog grew over the simulated window, or, too few arrivals inside the
 * window to tell, when more requests/s are offered than the steady state serves saturated. */
void predict_judge_load(const Deployment *d, const Ceilings *c, Outcome *out);

/* The framework NAME names (a scenario's serving.framework, or a measured row's, where InferenceX
 * writes "trt" for TensorRT-LLM); FALSE when none. */
gboolean framework_parse(const char *name, Framework *out);
/* The serving stack a framework runs (Dynamo's workers run TensorRT-LLM, SGLang or vLLM). */
Stack framework_stack(Framework f);
/* Whether the framework's requests come through Dynamo's front end (engine.h, dynamo_front). */
gboolean framework_dynamo(Framework f);
/* The KV cache's precision: the one asked for (KVP_AUTO: none), else BF16 when serving BF16, else
 * the stack's default from the profile. */
Precision kv_precision_for(KvPrecision asked, Precision weights, const Profile *prof, Stack stack);

#endif
