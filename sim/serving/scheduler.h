/* scheduler.h — the serving stacks' scheduler rules the event simulation runs, each a small state
 * machine behind the hooks the simulation calls: where an arriving request waits, whether this
 * step holds the prompts back, and what a finished step lets the scheduler see.
 *
 * - Prompt holding (TensorRT-LLM): attention-DP balancing (prompts held until every rank has one,
 *   then for the batching steps, or until the timeout) and batch waiting (prompts held while
 *   sequences decode until the step would carry a share of its token budget, or the timeout).
 * - Rank placement under attention-DP: SGLang's controller deals requests out in turn, TensorRT-LLM's
 *   scheduler gives each to the rank with the fewest active requests.
 * - Receiving (SGLang's --scheduler-recv-interval) and the overlap scheduler (TensorRT-LLM's and
 *   SGLang's: the host forms the next batch while the GPU runs this one), which decide when a
 *   request that reached an engine becomes visible to it.
 * Their figures come from the stack's profile (StackProfile), the same ones the steady state's
 * analytic forms of these rules read (models/steady_state.c). */
#ifndef AIF_SCHEDULER_H
#define AIF_SCHEDULER_H

#include <glib.h>

#include "profile.h"

typedef struct {
  int adp_wait, adp_batch; /* the attention-DP balancer's step counters */
  int batch_wait;          /* steps prompts have been held by batch waiting */
} PromptHold;

/* Attention-DP balancing over RANKS ranks, decided once per step from each rank's prefilling
 * (RANK_CTX) and decoding (RANK_GEN) sequences: TRUE holds the prompts this step. The counter runs
 * even while no prompt waits, so a lone prompt waits for what is left of its cycle; a rank with
 * nothing to decode releases the prompts at once. */
gboolean hold_balance(PromptHold *h, const StackProfile *sp, int ranks, const int *rank_ctx, const int *rank_gen);
/* The balancer's counter through N more steps of a decode-only run. */
void hold_balance_idle(PromptHold *h, const StackProfile *sp, int ranks, const int *rank_gen, int n);
/* Batch waiting on an engine without attention-DP: N_DEC sequences decode and the step would carry
 * STEP_TOKENS (their tokens and the waiting prompts', counted up to BUDGET) of a BUDGET-token step. */
gboolean hold_batch_wait(PromptHold *h, const StackProfile *sp, double budget, int n_dec, double step_tokens);

/* How a stack places a new sequence on an attention-DP rank. */
typedef enum {
  RANKS_FEWEST,      /* the rank with the fewest sequences, prefilling or decoding (the first of equals) */
  RANKS_ROUND_ROBIN, /* in turn, whatever the ranks hold (SGLang's load_balance_method round_robin) */
} RankPolicy;

/* The policy of STACK's attention-DP engines. */
RankPolicy rank_policy(Stack stack);
/* The rank of RANKS a new sequence goes to: by POLICY from each rank's prefilling (RANK_CTX) and
 * decoding (RANK_GEN) sequences, or from *NEXT, the turn, which it advances. */
int rank_place(RankPolicy policy, int *next, int ranks, const int *rank_ctx, const int *rank_gen);

typedef struct {
  int interval;            /* decode steps between the scheduler's looks (1: every step) */
  gboolean overlap;        /* the host forms a step's batch while the GPU runs the one before */
  GQueue inbox;            /* reached the engine, not yet seen by its scheduler */
  GQueue fresh, deferred;  /* came during the step in flight, and during the one before it */
  int count;               /* decode steps since the scheduler last looked */
} Receiver;

void receiver_init(Receiver *r);
void receiver_clear(Receiver *r);
/* The policy of an engine (re)configured for a role; the step count starts again. */
void receiver_set_policy(Receiver *r, int interval, gboolean overlap);
/* The queue a request reaching an engine joins: WAITING (the scheduler sees it), or one of the
 * receiver's while the engine is BUSY. */
GQueue *receiver_arrival(Receiver *r, gboolean busy, GQueue *waiting);
/* After a step (or a run of STEPS decode steps) ends: HAD_PREFILL when it carried prompt work,
 * NOTHING_RUNNING when the engine has no sequence left (it is idle if nothing waits either). What
 * the scheduler sees moves into WAITING (or, overlapping, into the next step's deferred). */
void receiver_after_step(Receiver *r, gboolean had_prefill, int steps, gboolean nothing_running, GQueue *waiting);
/* Whether requests wait only for the overlap's lag. */
gboolean receiver_lagging(const Receiver *r);
/* The host's loop spinning with nothing to run: what came meanwhile is seen at once. */
void receiver_spin(Receiver *r, GQueue *waiting);
/* Decode steps until the scheduler next looks at its inbox. */
int receiver_steps_to_look(const Receiver *r);

#endif
