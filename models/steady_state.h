/* steady_state.h — throughput and latency of a deployment in steady state, from the step model.
 *
 * Closed loop (C users, each sending its next request when the last one ends) has a fixed point:
 * the request rate X sets how much prefill work interleaves with decode steps (TPOT) and how long
 * prompts wait (TTFT), and X = C / (TTFT + OSL x TPOT). It is solved by damped iteration.
 * Aggregated engines interleave chunked prefill with decode; disaggregated deployments run
 * prefill engines (batched prompts, queueing) and decode engines apart, with the KV cache moved
 * between them. Offline runs saturate memory or the batch cap; an SLO run picks the largest batch
 * that meets the TPOT limit and, prompts arriving as a Poisson stream, the p99 TTFT limit. The
 * event simulator replaces this where queues matter. */
#ifndef AIF_STEADY_STATE_H
#define AIF_STEADY_STATE_H

#include "engine.h"

typedef struct {
  double isl, osl;         /* mean prompt and output tokens per request */
  double cached;           /* of the prompt, tokens found in a prefix cache: not computed, but
                            * attended to (0: none) */
  double users;            /* closed-loop concurrency of the whole deployment; 0 = offline */
  double think_time;       /* s between a reply and the user's next request */
  double max_batch;        /* sequences per engine step (per decode engine) */
  double chunk;            /* prefill token budget per step (aggregated) or per prefill batch */
  double tpot_limit;       /* s, mean TPOT; > 0 with users = 0: the best throughput meeting the limits */
  double ttft_p99_limit;   /* s, the 99th percentile of TTFT, prompts arriving as a Poisson stream */
} Load;

typedef struct {
  double out_tok_s;        /* output tokens/s of the whole deployment */
  double out_tok_s_per_gpu;
  double tok_s_per_user;   /* 1 / TPOT */
  double tpot, ttft;       /* s */
  double ttft_p99;         /* s, prompts arriving as a Poisson stream (aggregated engines) */
  double batch;            /* mean decode sequences per (decode) engine */
  double step;             /* s, one decode step */
  double gpus;
  double weights, kv_free, max_seqs; /* per GPU (decode engines), and sequences per engine */
  double prefill_share;    /* fraction of engine time spent on prefill (aggregated) */
  double pool_load;        /* disaggregated: the busier pool's load, a share of its ceiling (0..1) */
  double gpu_activity;     /* mean GPU power activity over the deployment (0 idle .. 1 TDP) */
} SteadyState;

/* The 99th percentile of a prompt's wait behind other prompts when RATE prompts/s arrive as a
 * Poisson stream (MLPerf's server scenarios) and each takes SERVICE seconds of the engine's
 * prefill budget (its prefill plus its share of the decode steps that carry it). An M/D/1 queue at
 * load rho = RATE x SERVICE: the wait is zero with probability 1 - rho, and otherwise has an
 * exponential tail of mean SERVICE / (2 (1 - rho)) (Kingman's heavy-traffic law), so its 99th
 * percentile is that mean x ln(100 rho), and 0 below rho = 1%. */
double steady_prompt_wait_p99(double rate, double service);

/* ENGINES copies of E serving LOAD. Returns NULL, or why the deployment cannot run (newly
 * allocated): memory, parallelism, precision. */
char *steady_aggregated(const Engine *e, int engines, const Load *load, SteadyState *out);
/* PRE prefill engines of P and DEC decode engines of D. SAME_DOMAIN: the KV cache moves over
 * NVLink (both pools in one NVLink domain) rather than the NICs. */
char *steady_disaggregated(const Engine *p, int pre, const Engine *d, int dec, gboolean same_domain,
                           const Load *load, SteadyState *out);

#endif
