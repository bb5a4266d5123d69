/* scheduler.c — the stacks' scheduler rules as state machines (see scheduler.h). */
#include "scheduler.h"

#include <math.h>

/* Whether every one of N ranks counts at least one sequence in V. */
static gboolean every_rank(const int *v, int n)
{
  for (int k = 0; k < n; k++)
    if (v[k] <= 0)
      return FALSE;
  return TRUE;
}

/* The balancer's timeout in whole steps (0: it does not balance). */
static int balance_timeout(const StackProfile *sp, int ranks)
{
  return ranks > 1 ? (int)ceil(sp->adp_balance_timeout) : 0;
}

gboolean hold_balance(PromptHold *h, const StackProfile *sp, int ranks, const int *rank_ctx, const int *rank_gen)
{
  int timeout = balance_timeout(sp, ranks);
  if (timeout <= 0)
    return FALSE;
  gboolean all_gen = every_rank(rank_gen, ranks);
  if (every_rank(rank_ctx, ranks)) {
    h->adp_wait = 0;
    if (all_gen && h->adp_batch < sp->adp_batching_wait) {
      h->adp_batch++;
      return TRUE;
    }
    h->adp_batch = 0;
    return FALSE;
  }
  if (++h->adp_wait >= timeout || !all_gen) {
    h->adp_wait = 0;
    return FALSE;
  }
  return TRUE;
}

void hold_balance_idle(PromptHold *h, const StackProfile *sp, int ranks, const int *rank_gen, int n)
{
  int timeout = balance_timeout(sp, ranks);
  if (timeout > 0)
    h->adp_wait = every_rank(rank_gen, ranks) ? (h->adp_wait + n) % timeout : 0;
}

gboolean hold_batch_wait(PromptHold *h, const StackProfile *sp, double budget, int n_dec, double step_tokens)
{
  if (n_dec == 0) { /* nobody decodes: holding the prompts would only idle the engine */
    h->batch_wait = 0;
    return FALSE;
  }
  if (h->batch_wait < sp->batch_wait_timeout && MIN(step_tokens, budget) < sp->batch_wait_tokens * budget) {
    h->batch_wait++;
    return TRUE;
  }
  h->batch_wait = 0;
  return FALSE;
}

RankPolicy rank_policy(Stack stack)
{
  return stack == STACK_SGLANG ? RANKS_ROUND_ROBIN : RANKS_FEWEST;
}

int rank_place(RankPolicy policy, int *next, int ranks, const int *rank_ctx, const int *rank_gen)
{
  if (policy == RANKS_ROUND_ROBIN) {
    int k = *next % ranks;
    *next = k + 1;
    return k;
  }
  int best = 0;
  for (int k = 1; k < ranks; k++)
    if (rank_ctx[k] + rank_gen[k] < rank_ctx[best] + rank_gen[best])
      best = k;
  return best;
}

void receiver_init(Receiver *r)
{
  *r = (Receiver){ .interval = 1 };
  g_queue_init(&r->inbox);
  g_queue_init(&r->fresh);
  g_queue_init(&r->deferred);
}

void receiver_clear(Receiver *r)
{
  g_queue_clear(&r->inbox);
  g_queue_clear(&r->fresh);
  g_queue_clear(&r->deferred);
}

void receiver_set_policy(Receiver *r, int interval, gboolean overlap)
{
  r->interval = MAX(interval, 1);
  r->overlap = overlap;
  r->count = 0;
}

static void queue_move(GQueue *to, GQueue *from)
{
  while (!g_queue_is_empty(from))
    g_queue_push_tail(to, g_queue_pop_head(from));
}

GQueue *receiver_arrival(Receiver *r, gboolean busy, GQueue *waiting)
{
  return busy && r->interval > 1 ? &r->inbox : busy && r->overlap ? &r->fresh : waiting;
}

/* The overlap scheduler's batch for the step about to start was formed when the last one began:
 * the requests that came during that one wait a step more. SGLang's receive skipping: a step with
 * prompt work makes the scheduler look at once, as does having nothing left to run (its idle loop
 * spins); decode steps count towards the interval; what it sees joins the batch it forms now, which
 * is the step after next when it overlaps. */
void receiver_after_step(Receiver *r, gboolean had_prefill, int steps, gboolean nothing_running, GQueue *waiting)
{
  if (r->overlap) {
    queue_move(waiting, &r->deferred);
    queue_move(&r->deferred, &r->fresh);
  }
  gboolean idle = nothing_running && g_queue_is_empty(waiting); /* after the lag's requests moved */
  if (had_prefill || idle) {
    r->count = 0;
  } else {
    /* a run of decode steps stops at the next look while requests wait unseen; with none waiting,
     * the looks it passed found nothing, and the count goes on from the last of them (were it
     * reset at the run's end, the look would fall in step with the arrivals that end runs) */
    r->count += steps;
    if (r->count < r->interval)
      return;
    r->count %= r->interval;
  }
  queue_move(r->overlap && !idle ? &r->deferred : waiting, &r->inbox);
}

gboolean receiver_lagging(const Receiver *r) { return r->fresh.length > 0 || r->deferred.length > 0; }

void receiver_spin(Receiver *r, GQueue *waiting)
{
  queue_move(waiting, &r->deferred);
  queue_move(waiting, &r->fresh);
}

int receiver_steps_to_look(const Receiver *r) { return r->interval - r->count; }
