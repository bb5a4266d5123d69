/* params.h — the values of one scenario point, as plain types: the workload, how it is served,
 * the factory, the plan's SLO, and the enums they take. The scenario loader (scenario.h) fills them
 * from YAML; the prediction path (predict.h), the event simulation's configuration (sim_config.h)
 * and the measured-row adapter read them without the loader or libyaml. */
#ifndef AIF_PARAMS_H
#define AIF_PARAMS_H

#include <glib.h>

#include "fabric.h"
#include "factory.h"
#include "moe.h"
#include "precision.h"

typedef enum { DIST_FIXED, DIST_UNIFORM, DIST_NORMAL, DIST_LOGNORMAL, DIST_EXPONENTIAL } LengthDist;
typedef enum { ARRIVAL_CLOSED, ARRIVAL_POISSON, ARRIVAL_GAMMA, ARRIVAL_TRACE } ArrivalKind;
typedef enum { MODE_AGGREGATED, MODE_DISAGGREGATED } ServingMode;
typedef enum { FW_TRTLLM, FW_SGLANG, FW_VLLM, FW_DYNAMO_TRT, FW_DYNAMO_SGLANG, FW_DYNAMO_VLLM, FW_COUNT_ } Framework;
typedef enum { KVP_AUTO, KVP_BF16, KVP_FP8, KVP_FP4 } KvPrecision;
typedef enum { ROUTER_ROUND_ROBIN, ROUTER_LEAST_LOADED, ROUTER_KV_AWARE, ROUTER_QUEUE } RouterKind;
typedef enum { SPEC_NONE, SPEC_MTP } SpecMethod;
typedef enum { SIM_AUTO, SIM_STEADY, SIM_DES, SIM_SIMGRID } EngineKind;
typedef enum { FABRIC_INFINIBAND, FABRIC_ETHERNET } FabricKind;
typedef enum { START_SPREAD, START_TOGETHER } StartKind;
typedef enum { WINDOW_STEADY, WINDOW_ALL } WindowKind;
typedef enum { PARALLELISM_MANUAL, PARALLELISM_AUTO } ParallelismKind;
typedef enum { POWER_POLICY_NONE, POWER_POLICY_CAP, POWER_POLICY_SHED } PowerPolicy;

extern const char *const framework_names[];
extern const char *const percentile_names[]; /* "p50", "p90", "p99" */
extern const char *const arrival_names[], *const mode_names[], *const router_names[];

/* A class of requests in a mixed demand (workload.mix): its share of the requests, its mean prompt
 * and answer (tokens; the workload's distributions at these means) and its TTFT limit (s; 0: the
 * plan's). */
#define MIX_MAX_CLASSES 8
typedef struct {
  char name[32];
  double share, input, output, max_ttft;
} MixClass;

/* Token-length distribution of requests; tokens are counts but kept as doubles for the maths. */
typedef struct {
  LengthDist dist;
  double mean, stddev, min, max, sigma;
} LengthSpec;

/* One engine type: an aggregated engine, or one pool of a disaggregated deployment. */
typedef struct {
  int workers;         /* engines of this type */
  int tp, pp, ep;
  gboolean attention_dp;
  int max_batch;       /* sequences per engine step; per attention rank under attention-DP in a
                        * scenario (as the stacks count it), per engine once in a SimConfig */
  int chunked_prefill; /* prefill tokens per step (0 = no chunking) */
} EngineSpec;

/* What a point's requests are: lengths, arrivals, how many, the measurement window. */
typedef struct {
  LengthSpec input, output;
  char *trace;          /* CSV: arrival time, input tokens, output tokens (absolute path) */
  ArrivalKind arrival;
  int users;            /* closed loop: concurrent users */
  double rate;          /* open loop: requests/s */
  char *curve;          /* open loop: the rate's multipliers, one per period, repeating (text), or NULL */
  char *mix;            /* request classes, "NAME SHARE INPUT OUTPUT [MAX_TTFT]; ..." (text), or NULL */
  double curve_period;  /* s each multiplier holds */
  double burst_cv;      /* gamma: coefficient of variation of inter-arrival times */
  StartKind start;      /* closed-loop users start spread out, or all at t = 0 */
  double think_time;    /* s, closed loop */
  int requests;
  double duration, warmup; /* s */
  WindowKind window;    /* which requests the figures count */
  double shift_at, shift_input, shift_output; /* from shift_at s on, new requests take these means */
  /* shared context: a closed loop's users hold sessions of TURNS turns (each prompt is the session
   * so far plus its new input); every prompt opens with one of PREFIX_GROUPS shared prefixes of
   * SHARED_PREFIX tokens (system prompts, documents) */
  int turns;
  double shared_prefix;
  int prefix_groups;
} WorkloadParams;

/* How a point is served: the stack, precision, mode, pools, router, planner, speculation. */
typedef struct {
  Framework framework;
  Precision precision;
  KvPrecision kv_precision;
  ServingMode mode;
  gboolean weight_only; /* a precision the GPU has no tensor cores for runs weight-only (else infeasible) */
  int expert_slots;     /* EPLB slots per MoE layer for engines with EP > 1 (0 = no EPLB) */
  MoeBackend moe_backend; /* TensorRT-LLM's backend for block-scaled FP8 experts on Blackwell+ */
  gboolean cuda_graphs; /* steps run as CUDA graphs where the stack captures them */
  ParallelismKind parallelism; /* auto is expanded at load into the aggregated keys' lists */
  EngineKind engine;
  EngineSpec agg, prefill, decode;
  RouterKind router;
  double kv_overlap_weight; /* kv_aware: weight of the prompt left to compute against the load */
  gboolean planner;     /* move engines between the prefill and decode pools as the load shifts */
  double plan_interval, plan_reconfigure, plan_threshold;
  double green_prefill_sms; /* Green Contexts: SM share of the prefill stream (0: one stream) */
  SpecMethod spec_method;
  int spec_tokens;
  double spec_acceptance;
  gboolean prefix_cache; /* engines keep finished requests' KV for later prompts with the same prefix */
  int cache_block;       /* tokens per KV block: hits count whole blocks */
  double cache_hit_rate; /* the steady state's share of prompt tokens found cached (0: the workload's) */
  double cache_host, cache_storage; /* shares of the nodes' CPU memory and local NVMe for KV offload */
  double cache_remote;   /* B per GPU of a remote KV store (over the NICs) */
  char *profile;        /* calibration profile (absolute path), NULL = defaults */
} ServingParams;

/* The facility around a point's GPUs: power, fabric, optics, prices. */
typedef struct {
  double power_budget;  /* W at the facility */
  double pue;           /* 0 = the system's default */
  int fabric_tiers;     /* 0 = sized from the GPU count */
  OpticsKind optics;
  FabricKind fabric_kind;
  int switch_radix;
  double oversubscription; /* scale-out fabric: traffic it can carry between racks is the NICs' over this */
  double energy_price;  /* USD/J */
  double amortisation;  /* s */
  int factory_gpus;     /* 0 = as many as the budget allows */
  double other_it_fraction;
  Provisioning provisioning;
  double gpu_power_cap; /* W, 0 = none */
  double rack_power_cap; /* W at the wall per rack, 0 = none: shared out as a cap per GPU */
  gboolean copper_first_tier;
  double transceiver_power, transceiver_cost, cpo_port_power, switch_port_power;
  /* the floor simulated as a whole: the point's deployment copied over every GPU the factory has,
   * the workload its demand; SAMPLE_ENGINES of them simulated in full (0: all), the rest served
   * alike; a time series row each SERIES_INTERVAL s (0: none) */
  gboolean floor;
  int sample_engines;
  double series_interval;
  /* engines stop when a GPU or node of theirs fails (exponential times, these means per GPU and per
   * node), out of service for REPAIR_TIME s; their requests are sent again (RETRY) or lost */
  gboolean failures;
  double gpu_mtbf, node_mtbf, tray_mtbf, repair_time;
  gboolean retry;
  /* planned maintenance: every engine out for MAINT_DURATION s once every MAINT_INTERVAL s (0: none),
   * staggered over the engines, drained first */
  double maint_interval, maint_duration;
  /* held to power_budget as the load draws it: GPUs' power capped, or requests turned away,
   * looked at every POWER_PERIOD s */
  PowerPolicy power_policy;
  double power_period;
  /* the autoscaler: every AUTOSCALE_INTERVAL s, the aggregated engines the load needs at
   * AUTOSCALE_TARGET of their batch slots serve, the rest are parked (idle power), a parked one
   * taking AUTOSCALE_START s to serve again (its weights loaded) */
  gboolean autoscale;
  double autoscale_interval, autoscale_target, autoscale_start;
  int autoscale_min;
} FactoryParams;

typedef enum { PCT_P50, PCT_P90, PCT_P99 } Percentile;

/* The scenario's SLO, one per scenario (not swept): what every point is held to (its status), the
 * frontier, the chart's annotation, `aifsim plan` and the goodput. */
typedef struct {
  double min_tok_s_per_user;
  double max_ttft;      /* s, 0 = no limit */
  double max_tpot;      /* s, 0 = no limit */
  Percentile percentile; /* the latency percentile the TTFT and TPOT limits hold at */
  double max_lost_share; /* largest share of requests lost with failed engines, 0 = no limit of its own */
} PlanParams;

/* The values of one point: every scenario key, resolved. Name, description, seed and plan are
 * one per scenario (not swept); the rest may differ from point to point. */
typedef struct {
  char *name, *description;
  int seed;
  char *system_id, *model_id;
  WorkloadParams workload;
  ServingParams serving;
  FactoryParams factory;
  /* on a floor of several deployments: this deployment's share of the floor's GPUs (0: an equal part
   * of what the others' shares leave) */
  double share;
  char *deployments;    /* never set: the deployments are the scenario's (scenario.h), read by the
                         * loader itself; the key is declared for help and the resolved file */
  PlanParams plan;
} ScenarioParams;

#endif
