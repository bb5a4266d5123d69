/* serving_sim.h — the event-driven simulation of a deployment serving a workload.
 *
 * Engines run one step at a time (step_time.h gives each step's length). Aggregated engines batch
 * continuously: every step decodes one token (or MTP's accepted tokens) for each running sequence
 * and feeds prompt chunks up to the chunked-prefill budget. A request is admitted when the engine
 * has a batch slot and KV-cache room for its whole prompt and answer (no eviction), and waits
 * otherwise. Disaggregated deployments run prefill engines and decode engines; a finished prompt's
 * KV cache moves to the least-loaded decode engine over NVLink (one domain) or the NICs. Requests
 * come from workload.h. Events are engine steps, arrivals and KV transfers, never tokens. */
#ifndef AIF_SERVING_SIM_H
#define AIF_SERVING_SIM_H

#include "engine.h"
#include "scenario.h"

typedef struct {
  double window;          /* s of the measurement window */
  guint measured;         /* requests completed in the window */
  double out_tok_s;       /* output tokens/s of the deployment in the window */
  double req_s;           /* requests/s completed in the window */
  double ttft[3], tpot[3], e2e[3]; /* p50, p90, p99 (s) */
  double mean_in_flight;  /* time-average requests in the system during the window */
  double mean_e2e;        /* s */
  double mean_batch;      /* mean decode sequences per step of decoding engines */
  double gpu_activity;    /* mean over the deployment's GPUs (0 idle .. 1 TDP) */
  double goodput;         /* requests/s meeting the SLO (plan keys), when it has one */
  double gpus;
  guint64 steps;          /* engine steps simulated */
  guint moves;            /* engines the planner moved between pools */
} SimResult;

/* Simulates P (ENGINES of E; or PRE prefill engines E and DEC decode engines D when D is not
 * NULL). Returns NULL, or why it could not run (newly allocated: memory, a bad trace). */
char *serving_simulate(const ScenarioParams *p, const Engine *e, int engines, const Engine *d, int dec,
                       gboolean same_domain, SimResult *out);

#endif
