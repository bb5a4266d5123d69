/* sim_config.h — what the event simulation reads of a deployment's question: the workload
 * (requests, their lengths and arrivals, the measurement window), the pools' scheduler limits, the
 * router and planner, Green Contexts, the fabric's oversubscription and the SLO goodput counts.
 *
 * The simulation takes this narrow configuration, never a whole scenario: a scenario point
 * (sim_config_from_scenario) and a measured row (validate.c, on the scenario's defaults) both make
 * one. Field names are the scenario's (ScenarioParams), with the same units (SI). */
#ifndef AIF_SIM_CONFIG_H
#define AIF_SIM_CONFIG_H

#include "params.h"

typedef struct {
  /* the workload */
  int seed;
  LengthSpec input, output;
  const char *trace;          /* CSV of requests (borrowed), or NULL */
  ArrivalKind arrival;
  int users;                  /* closed loop */
  double rate, burst_cv;      /* open loop: requests/s; gamma's coefficient of variation */
  const char *curve;          /* open loop: the rate's multiplier per period, repeating (borrowed), or NULL */
  const char *mix;            /* request classes, workload.mix's text (borrowed), or NULL */
  double curve_period;        /* s */
  StartKind start;
  double think_time;          /* s */
  int requests;
  double duration, warmup;    /* s */
  WindowKind window;
  double shift_at, shift_input, shift_output;
  int turns;                  /* closed loop: turns per session (1: no sessions) */
  double shared_prefix;       /* tokens every prompt opens with, one of PREFIX_GROUPS prefixes */
  int prefix_groups;
  gboolean prefix_cache;      /* engines keep finished requests' KV for later prompts */
  int cache_block;            /* tokens per KV block (hits are whole blocks) */
  double cache_host, cache_storage; /* shares of the nodes' CPU memory and NVMe for KV offload */
  double cache_remote;        /* B per GPU of a remote KV store reached over the NICs */
  /* the pools and their schedulers: workers, max_batch (per engine), chunked_prefill per pool */
  EngineSpec agg, prefill, decode;
  RouterKind router;
  double kv_overlap_weight;   /* kv_aware: weight of the prompt left to compute against the load */
  gboolean planner;
  double plan_interval, plan_reconfigure, plan_threshold;
  double green_prefill_sms;   /* SM share of the prefill stream (0: one stream) */
  double oversubscription;    /* of the scale-out fabric cross-domain KV transfers cross */
  /* failures: per-GPU and per-node mean times between them, an engine's time out, retry or lose */
  gboolean failures, retry;
  double gpu_mtbf, node_mtbf, tray_mtbf, repair_time;
  /* planned maintenance: each engine drained and out for MAINT_DURATION s every MAINT_INTERVAL s (0: none) */
  double maint_interval, maint_duration;
  /* the power envelope: a GPU drawing W stands for POWER_FIXED + POWER_SLOPE x W of facility power
   * (its share of the rest of the facility); the controller holds that to ENVELOPE_PER_GPU, every
   * POWER_PERIOD s, by POWER_POLICY (the caller's factory arithmetic fills the figures) */
  PowerPolicy power_policy;
  double power_period, envelope_per_gpu, power_fixed, power_slope;
  /* the autoscaler (aggregated engines) */
  gboolean autoscale;
  double autoscale_interval, autoscale_target, autoscale_start;
  int autoscale_min;
  /* the SLO the goodput counts */
  double min_tok_s_per_user, max_ttft;
  /* a time series of the run (SeriesRow, serving_sim.h), a row per SERIES_INTERVAL s, appended to
   * SERIES when it is not NULL (borrowed: `aifsim estimate --series`) */
  double series_interval;
  GArray *series;
} SimConfig;

/* The simulation's configuration of a scenario point P (TRACE borrowed from P). */
void sim_config_from_scenario(const ScenarioParams *p, SimConfig *out);
/* The scenario's defaults for every field (a caller sets what it knows). */
void sim_config_defaults(SimConfig *out);

#endif
