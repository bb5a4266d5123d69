/* serving_sim.c — event-driven serving simulation (see serving_sim.h). */
#include "serving_sim.h"
#include "comm.h"
#include "event_queue.h"
#include "memory.h"
#include "metrics.h"
#include "network.h"
#include "power.h"
#include "prefix_cache.h"
#include "scheduler.h"
#include "stats.h"
#include "step_time.h"
#include "workload.h"

#include <math.h>
#include <string.h>


/* The longest simulated time a run may reach. Nothing served takes years; a clock that gets there
 * comes from figures no hardware has (an efficiency of 1e-300), and past it a double's steps grow
 * longer than the flows and steps they time, so the run would stall at one instant for ever. */
#define SIM_HORIZON 1e8
typedef enum { ROLE_AGG, ROLE_PREFILL, ROLE_DECODE } Role;
enum { EV_ARRIVAL, EV_ENTER, EV_KV, EV_PSTEP, EV_PLAN, EV_RECONF, EV_HANDOFF, EV_READY, EV_FAIL, EV_REPAIR, EV_POWER, EV_TRAY, EV_TRAY_FIX, EV_SCALE, EV_WAKE, EV_MAINT, EV_MAINT_DONE, EV_JOIN };

typedef struct {
  double arrival, first, done;
  int isl, osl, prefilled, generated, user;
  double reserved; /* KV tokens held on its current engine */
  int source;      /* the prefill engine that ran its prompt (disaggregated) */
  int target;      /* the decode engine its KV cache is moving to */
  double entry_step, entry_ctx; /* the engine's step count and its context when it began decoding */
  int rank;        /* attention-DP rank holding its sequence on its engine */
  /* shared context (prefix_cache.h): its prefix group and session (-1: none), the group's shared
   * tokens and the session's history in front of its new input; found cached on its engine */
  int group, session;
  double shared, history, cached;
  double ready_at; /* its cached tokens reloaded from an offload tier by then: its prompt waits */
  double reloaded[CACHE_TIERS]; /* of its cached tokens, those reloaded from each offload tier */
  gboolean pinned; /* it holds a pin on its group's cached prefix */
  int cls;         /* its class in workload.mix (-1: none) */
} Req;

/* A closed-loop user's conversation: the session it is in, the turns it has had, what the next
 * prompt resends. */
typedef struct {
  int session, turn, group;
  double history;
} User;

/* A figure that holds between its changes (engines down, parked or degraded; the power cap) and its
 * integral over time, from which the run's mean of it comes. */
typedef struct {
  double value, area, since;
} Held;

/* H takes VALUE from NOW on, its time at the old value summed first. */
static void held_set(Held *h, double now, double value)
{
  h->area += h->value * (now - h->since);
  h->since = now;
  h->value = value;
}

/* H's integral up to NOW. */
static double held_area(Held *h, double now)
{
  held_set(h, now, h->value);
  return h->area;
}

typedef struct {
  int id;                 /* index in Sim.engs */
  Role role;
  const Engine *e;        /* &own */
  Engine own;             /* what it is: its role's engine, with the power cap and the NVLink share
                           * the run gives it now */
  int domain;             /* the NVLink domain it sits in (its first GPU's) */
  double kv_cap, kv_used; /* tokens */
  int max_running;
  GQueue waiting;         /* request indices (GINT_TO_POINTER) */
  GArray *prefilling;     /* int request indices still feeding their prompts, in admission order */
  /* Decoding requests are not visited step by step: the engine counts its steps, keeps the sum of
   * their contexts, and knows from each one's admission at which step it finishes. */
  int n_dec;
  double ctx_sum;         /* tokens of context of the decoding requests together */
  double step_count;      /* decode steps run so far */
  double tps;             /* expected tokens per decode step per sequence (MTP: above 1) */
  EventQueue done_at;     /* decoding requests keyed by the step count at which they finish */
  gboolean busy;
  /* the end of the step (or run of decode steps) in flight, and its place in the order of events
   * (a number drawn from the event queue's sequence): engines keep their own step events, so the
   * queue holds only the outside events a decode run must stop for */
  double step_at;
  guint64 step_seq;
  double decode_step;     /* s, its last decode step: what a handed-over request waits steps of */
  int heap_pos;           /* its place in Sim.stepping while a step is in flight; -1 when idle */
  double green;           /* Green Contexts: SM share of a separate prefill stream (0: one stream) */
  gboolean pbusy;         /* that prefill stream has a step in flight */
  GArray *pre, *pre_tok;  /* the step in flight: prefilling requests and their tokens */
  int steps;              /* decode steps the event in flight stands for (1, or more: a run of steps) */
  int nvl_up, nvl_down, nic_up, nic_down; /* its links in the network (disaggregated) */
  gboolean draining;      /* the planner is moving it to the other pool: it takes no new work */
  gboolean down;          /* failed, out of service until repaired (SimConfig.failures) */
  gboolean parking;       /* the autoscaler parks it: it takes no new work, and parks once empty */
  gboolean parked;        /* parked (idle power) or waking up (its weights loading) */
  gboolean waking;        /* parked, and waking up */
  gboolean servicing;     /* planned maintenance: drained (it takes no new work), then down */
  gboolean away;          /* parked, its GPUs serving another deployment of the floor (floor_sim.h):
                           * no power, no failures, not this run's until it is granted back */
  int nodes;              /* the nodes its GPUs sit in: each may fail */
  gboolean reconfiguring; /* drained, out of service until it changes pool */
  /* attention data-parallel ranks: each sequence lives on one; the stack may balance prompts
   * across them (StackProfile.adp_balance_timeout) */
  int adp;
  int *rank_ctx, *rank_gen; /* per rank: sequences prefilling, decoding */
  double *rank_budget;      /* per rank: prompt tokens the step being filled may still take */
  double *rank_taken;       /* per rank: prompt tokens the step being filled has taken */
  int next_rank;            /* the rank a round robin deals the next sequence to */
  PromptHold hold;          /* the stack's prompt holding: balancing, batch waiting (scheduler.h) */
  /* requests that reached the engine but that its scheduler has not looked at yet: the receive
   * interval and the overlap scheduler (scheduler.h) */
  Receiver rx;
  double busy_activity;   /* activity-weighted seconds of steps inside the window */
  double batch_sum;       /* decode sequences summed over decode steps (for the mean batch) */
  guint64 decode_steps;
  PrefixCache *cache;     /* finished requests' KV kept for later prompts (aggregated and prefill engines) */
  double routed;          /* KV tokens of requests routed here and not admitted yet: its load to come */
  double bpt;             /* bytes a token of context takes on one of its GPUs (the offload tiers' unit) */
  double tier_bw[CACHE_TIERS]; /* B/s per GPU from each offload tier */
} Eng;

struct Sim {
  const SimConfig *p;
  Workload w;
  GPtrArray *stepping;    /* Eng * with a step in flight, a binary heap on (step_at, step_seq): the
                           * next step's end in O(1), kept in O(log engines) */
  EventQueue q;           /* every event but the engines' steps (Eng.step_at): arrivals, entries,
                           * transfers, prefill streams, the planner */
  GArray *reqs;           /* Req, a slot per request in flight (finished ones' slots are reused) */
  GArray *free_reqs;      /* int: slots of finished requests */
  GPtrArray *engs;        /* Eng *: aggregated, or prefill then decode engines (the planner moves them) */
  int rr;
  GQueue held;            /* the queue router's requests waiting for an engine with room, in arrival order */
  const Engine *pre_e, *dec_e; /* what a prefill and a decode engine are (disaggregated) */
  double plan_ctx;        /* the context memory is planned for */
  gboolean moving;        /* one engine at a time changes pool */
  guint moves;
  SimTransferFunc transfer; /* another network (the SimGrid backend) moves the KV caches, or NULL */
  gpointer transfer_user;
  double now;
  Network net;            /* KV transfers between pools, max-min fair */
  /* the network's next flow end, kept like an engine's step (its time changes whenever a flow
   * starts or ends, so it is not queued), and its place in the order of events */
  double net_at;
  guint64 net_seq;
  gboolean same_domain;   /* both pools in one NVLink domain */
  int fabric;             /* the oversubscribed scale-out core every cross-domain flow crosses; -1: none */
  double kv_bytes_per_token, link_latency;
  double handoff;         /* s from a prompt's last step to its KV transfer (the stack's handoff_overhead) */
  const Engine *front;    /* the engine whose front end delays a new request (engine_front_end) */
  guint created, completed, target;
  gboolean stop;
  gboolean past_horizon; /* the clock passed SIM_HORIZON: the run was stopped there */
  Metrics *m;             /* the measurement window and what it measures */
  Metrics *cm[MIX_MAX_CLASSES]; /* the same per class of workload.mix (its own TTFT limit for goodput) */
  guint64 steps, events;
  /* shared context: the users' sessions, and the prompt tokens admitted in the window and those
   * found cached */
  gboolean prefixes;      /* the workload has sessions or a shared prefix */
  User *users;
  GHashTable *contexts;   /* a trace's sessions: session + 1 -> its last prompt and answer (tokens) */
  int next_session;
  guint64 stamp;          /* the caches' LRU clock: one tick per admission or finish */
  double prompt_tokens, hit_tokens;
  double reload_tokens[CACHE_TIERS]; /* of the hit tokens, those reloaded from each offload tier */
  /* failures: their own random stream (the workload's draws stay as they were), the engines out of
   * service now and their time out summed, what was lost or sent again */
  GRand *fail_rand;
  Held down;
  double failures, lost, retried;
  /* planned maintenance: engines out for it (in DOWN too), and how many times */
  Held serviced;
  double maintenances;
  /* the autoscaler: engines parked; engines and GPUs away (serving another deployment of the
   * floor: sim_release, sim_grant) */
  Held parked, away, away_gpus;
  /* NVLink switch trays down per domain (failures), engines in a domain with one down and their
   * time so */
  int n_domains;
  int *trays_down;
  Held degraded;
  double tray_failures;
  /* what an engine of each role is (aggregated or prefill, decode), as the run was given it: each
   * engine copies its role's into its own (Eng.own), where the power envelope's controller sets its
   * cap and a degraded domain its NVLink share; the cap now (0: none), its time integral, the share
   * of arrivals turned away, the activity drawn since the last look */
  Engine own[2];
  double cap, shed_p, shed, power_act, power_t;
  Held cap_w;             /* the cap in force, W (the TDP while uncapped) */
  double drawn;           /* the facility's draw per GPU as the controller sees it (smoothed), W */
  GRand *power_rand;
  /* the time series (SimConfig.series): the interval under way and what it has seen */
  double series_end, series_arrivals, series_done, series_tokens, series_act, series_shed;
  GArray *series_ttft;    /* double: TTFTs of the requests done in the interval */
  GArray *series_tpot;    /* double: their TPOTs (those with more than one token) */
};

static Req *req(Sim *s, int i) { return &g_array_index(s->reqs, Req, i); }

static void push_external(Sim *s, double t, int kind, int who) { event_queue_push(&s->q, t, kind, who); }

/* How far a decode-only engine may run ahead in one event: to the next outside event (a flow's end
 * brings a KV cache soon after). */
static double next_external(const Sim *s)
{
  return MIN(s->q.heap->len ? g_array_index(s->q.heap, Event, 0).time : INFINITY, s->net_at);
}

/* Whether A's step ends before B's (time, then the order they were scheduled in). */
static gboolean ends_first(const Eng *a, const Eng *b)
{
  return a->step_at < b->step_at || (a->step_at == b->step_at && a->step_seq < b->step_seq);
}

static void heap_swap(GPtrArray *h, int i, int j)
{
  Eng *a = h->pdata[i], *b = h->pdata[j];
  h->pdata[i] = b, h->pdata[j] = a;
  b->heap_pos = i, a->heap_pos = j;
}

/* Restores the heap's order around G's place. */
static void heap_fix(GPtrArray *h, Eng *g)
{
  int i = g->heap_pos;
  while (i > 0 && ends_first(h->pdata[i], h->pdata[(i - 1) / 2]))
    heap_swap(h, i, (i - 1) / 2), i = (i - 1) / 2;
  for (;;) {
    int l = 2 * i + 1, r = l + 1, m = i, n = (int)h->len;
    if (l < n && ends_first(h->pdata[l], h->pdata[m]))
      m = l;
    if (r < n && ends_first(h->pdata[r], h->pdata[m]))
      m = r;
    if (m == i)
      break;
    heap_swap(h, i, m), i = m;
  }
}

/* G's step is over: it leaves the heap. */
static void heap_remove(GPtrArray *h, Eng *g)
{
  int i = g->heap_pos, last = (int)h->len - 1;
  if (i < 0)
    return;
  g->heap_pos = -1;
  if (i != last) {
    Eng *moved = h->pdata[last];
    h->pdata[i] = moved, moved->heap_pos = i;
    g_ptr_array_set_size(h, last);
    heap_fix(h, moved);
  } else {
    g_ptr_array_set_size(h, last);
  }
}

/* G's step in flight ends at T; it takes its turn among the queued events by sequence number. */
static void schedule_step(Sim *s, Eng *g, double t)
{
  g->step_at = t;
  g->step_seq = s->q.next_seq++;
  if (g->heap_pos < 0) {
    g->heap_pos = (int)s->stepping->len;
    g_ptr_array_add(s->stepping, g);
  }
  heap_fix(s->stepping, g);
}

/* Sets what G is: its role, its engine, its KV room and batch cap. */
static void eng_configure(Eng *g, Role role, const Engine *e, const SimConfig *p, gboolean prefixes)
{
  double ctx = p->input.mean + (role == ROLE_PREFILL ? 0 : p->output.mean);
  const EngineSpec *es = role == ROLE_AGG ? &p->agg : role == ROLE_PREFILL ? &p->prefill : &p->decode;
  g->role = role;
  if (e != &g->own) { /* a new role: its engine, with the cap and NVLink share this one has now */
    double limit = g->e ? g->own.power_limit : e->power_limit, share = g->e ? g->own.nvlink_share : 0;
    g->own = *e;
    g->own.power_limit = limit, g->own.nvlink_share = share;
  }
  g->e = e = &g->own;
  MemoryPlan m;
  memory_plan(e, ctx, &m);
  /* KV room in tokens: the bytes left over the bytes one token of context takes on a GPU */
  g->kv_cap = MAX(m.kv_free, 0) / memory_kv_bytes_per_seq_gpu(e, 1) * engine_attn_dp(e);
  g->max_running = (int)engine_launch_cap(e, es->max_batch);
  g->tps = engine_tokens_per_step(e);
  g->green = role == ROLE_AGG ? p->green_prefill_sms : 0;
  g->adp = engine_attn_dp(e); /* a drained engine changes role: no sequence is on its ranks */
  g_free(g->rank_ctx), g_free(g->rank_gen), g_free(g->rank_budget), g_free(g->rank_taken);
  g->rank_ctx = g_new0(int, g->adp), g->rank_gen = g_new0(int, g->adp), g->rank_budget = g_new0(double, g->adp);
  g->rank_taken = g_new0(double, g->adp);
  g->hold = (PromptHold){ 0 };
  g->next_rank = 0;
  receiver_set_policy(&g->rx, role == ROLE_AGG ? (int)lround(engine_recv_interval(e)) : 1,
                      role == ROLE_AGG && g->green == 0 && engine_overlaps(e));
  /* a drained engine changes role empty: what it cached goes with its old role */
  g_clear_pointer(&g->cache, prefix_cache_free);
  if (role != ROLE_DECODE && p->prefix_cache && prefixes) {
    g->cache = prefix_cache_new(p->cache_block);
    /* the offload tiers: the engine's GPUs' share of their nodes' CPU memory and NVMe, in tokens
     * (a GPU's bytes per token of context, over its attention-DP ranks as the KV room counts) */
    const SystemSpec *sys = e->sys;
    double per_node = MAX(sys->gpus_per_node, 1), bpt = memory_kv_bytes_per_seq_gpu(e, 1), adp = engine_attn_dp(e);
    g->bpt = bpt / adp;
    prefix_cache_set_tiers(g->cache, p->cache_host * sys->host_memory / per_node / g->bpt,
                           p->cache_storage * sys->storage / per_node / g->bpt, p->cache_remote / g->bpt);
    g->tier_bw[CACHE_HOST] = sys->host_bandwidth;
    g->tier_bw[CACHE_STORAGE] = sys->storage_bandwidth / per_node;
    /* a remote store comes over the GPU's scale-out NIC, through the fabric's oversubscription */
    g->tier_bw[CACHE_REMOTE] = sys->nic_bandwidth / MAX(p->oversubscription, 1);
  }
}

static Eng *eng_new(Role role, const Engine *e, const SimConfig *p, gboolean prefixes)
{
  Eng *g = g_new0(Eng, 1);
  g->heap_pos = -1;
  receiver_init(&g->rx); /* before its policy is set */
  eng_configure(g, role, e, p, prefixes);
  g_queue_init(&g->waiting);
  g->prefilling = g_array_new(FALSE, FALSE, sizeof(int));
  event_queue_init(&g->done_at);
  g->pre = g_array_new(FALSE, FALSE, sizeof(int));
  g->pre_tok = g_array_new(FALSE, FALSE, sizeof(int));
  return g;
}

static void eng_free(gpointer p)
{
  Eng *g = p;
  g_queue_clear(&g->waiting);
  receiver_clear(&g->rx);
  g_array_unref(g->prefilling);
  event_queue_clear(&g->done_at);
  g_array_unref(g->pre);
  g_array_unref(g->pre_tok);
  g_free(g->rank_ctx), g_free(g->rank_gen), g_free(g->rank_budget), g_free(g->rank_taken);
  prefix_cache_free(g->cache);
  g_free(g);
}

static int running(const Eng *g) { return g->n_dec + (int)g->prefilling->len; }

/* Requests G has to run or start: running, waiting, and sent but not in a batch yet (its scheduler
 * has not looked, or the overlap scheduler formed the next batch without them): a router that missed
 * those would send every request of a step to the same engine. */
static guint eng_load(const Eng *g)
{
  return (guint)running(g) + g->waiting.length + g->rx.inbox.length + g->rx.fresh.length + g->rx.deferred.length;
}

/* Whether G takes new work: not moving pool, failed, parked or being parked. */
static gboolean in_service(const Eng *g)
{
  return !g->draining && !g->reconfiguring && !g->down && !g->parking && !g->parked && !g->servicing;
}

/* KV tokens a request must hold on an engine of this role. */
static double need(const Eng *g, const Req *r) { return g->role == ROLE_PREFILL ? r->isl : r->isl + r->osl; }

/* Tokens a decode step yields for one sequence: 1, plus MTP drafts accepted in a row. */
static int accepted(Sim *s, const Engine *e)
{
  int n = 1;
  for (int k = 0; k < e->draft_tokens && g_rand_double(s->w.rand) < e->acceptance; k++)
    n++;
  return n;
}

/* Request I (its first token out) starts decoding on G; the steps it needs are known now: its
 * remaining tokens, or with MTP the steps the accepted drafts add up to. */
static void start_decode(Sim *s, Eng *g, int i)
{
  Req *r = req(s, i);
  int need_tokens = r->osl - r->generated;
  double steps = need_tokens;
  if (g->e->draft_tokens > 0)
    for (int got = steps = 0; got < need_tokens; steps++)
      got += accepted(s, g->e);
  r->entry_step = g->step_count;
  r->entry_ctx = r->isl + r->generated;
  g->rank_gen[r->rank]++;
  g->n_dec++;
  g->ctx_sum += r->entry_ctx;
  event_queue_push(&g->done_at, g->step_count + steps, 0, i);
}

/* The rank a new sequence goes to, as the engine's stack places it (scheduler.h). Counting the
 * prompts of the step in flight, TensorRT-LLM's rule sends a busy prefill engine's arrivals to the
 * ranks that step left idle, two at a time, while the others get none; SGLang's turn does not. */
static int place_rank(Eng *g)
{
  return rank_place(rank_policy(g->e->stack), &g->next_rank, g->adp, g->rank_ctx, g->rank_gen);
}

/* Whether R's prompt could find anything in a cache. */
static gboolean has_prefix(const Req *r) { return r->group >= 0 || r->session >= 0; }

/* What R finds cached on G: tokens, in whole blocks, short of its last (which makes its first token). */
static double cached_on(const Eng *g, const Req *r, gboolean *group_hit)
{
  *group_hit = FALSE;
  if (!g->cache || !has_prefix(r))
    return 0;
  return prefix_cache_match(g->cache, r->group, r->shared, r->session, r->history, r->isl - 1, group_hit, NULL);
}

/* R takes its hit on G, which evicts what it must for R's room: the KV R reserves (N, less its
 * group's prefix when that stays the cache's) and whether it fits beside the cache. */
static gboolean take_cached(Sim *s, Eng *g, Req *r, double *n, double *taken)
{
  gboolean group_hit;
  double tier[CACHE_TIERS];
  r->cached = prefix_cache_match(g->cache, r->group, r->shared, r->session, r->history, r->isl - 1, &group_hit, tier);
  r->ready_at = s->now;
  double lower = tier[CACHE_HOST] + tier[CACHE_STORAGE] + tier[CACHE_REMOTE];
  if (lower > 0) {
    /* a hit below HBM comes back over the host link or from NVMe, or is computed again: whichever
     * is sooner (the reload runs beside the engine's steps; the recompute is a prefill of those
     * tokens behind the ones in HBM) */
    double reload = 0;
    for (int t = CACHE_HOST; t < CACHE_TIERS; t++)
      reload += tier[t] > 0 ? tier[t] * g->bpt / MAX(g->tier_bw[t], 1) : 0;
    double recompute = step_time_prefill_after(g->e, 1, lower, tier[CACHE_HBM]);
    if (reload < recompute) {
      r->ready_at = s->now + reload;
      for (int t = CACHE_HOST; t < CACHE_TIERS; t++)
        r->reloaded[t] = tier[t];
    } else {
      r->cached = tier[CACHE_HBM];
    }
  }
  *taken = prefix_cache_take(g->cache, r->group, r->session, ++s->stamp, &r->pinned);
  if (r->pinned && group_hit)
    *n -= r->shared;
  return g->kv_used + *n + prefix_cache_evict(g->cache, MAX(0, g->kv_cap - g->kv_used - *n)) <= g->kv_cap;
}

/* R did not fit after all: its session's tokens go back to the cache, its pin comes off. */
static void untake_cached(Sim *s, Eng *g, Req *r, double taken)
{
  if (r->pinned)
    prefix_cache_unpin(g->cache, r->group);
  r->pinned = FALSE;
  if (taken > 0)
    prefix_cache_put(g->cache, r->group, 0, r->session, taken, ++s->stamp);
  r->cached = 0, r->ready_at = 0;
  memset(r->reloaded, 0, sizeof r->reloaded);
}

/* R is done on G: its context stays cached (its session's tokens after the shared ones: the prompt,
 * and the answer where G decoded it), as far as the room the running requests leave allows. */
static void keep_cached(Sim *s, Eng *g, Req *r, double answer)
{
  if (!g->cache || !has_prefix(r))
    return;
  if (r->pinned)
    prefix_cache_unpin(g->cache, r->group);
  r->pinned = FALSE;
  prefix_cache_put(g->cache, r->group, r->shared, r->session, r->isl - r->shared + answer, ++s->stamp);
  prefix_cache_evict(g->cache, MAX(0, g->kv_cap - g->kv_used));
}

static void try_admit(Sim *s, Eng *g)
{
  while (!g_queue_is_empty(&g->waiting) && running(g) < g->max_running) {
    int i = GPOINTER_TO_INT(g_queue_peek_head(&g->waiting));
    Req *r = req(s, i);
    double n = need(g, r), taken = 0;
    gboolean fits = g->cache && has_prefix(r) ? take_cached(s, g, r, &n, &taken) : g->kv_used + n <= g->kv_cap;
    if (!fits && running(g) > 0) { /* wait for room; an empty engine takes it anyway rather than stall forever */
      if (g->cache && has_prefix(r))
        untake_cached(s, g, r, taken);
      break;
    }
    g_queue_pop_head(&g->waiting);
    if (g->role != ROLE_DECODE) /* routed here: its load is now its reservation */
      g->routed = MAX(0, g->routed - need(g, r));
    if (g->role != ROLE_DECODE) { /* the prompt computes what it did not find cached */
      r->prefilled = (int)r->cached;
      if (r->ready_at > s->now) /* its prompt can start when the reload is done */
        push_external(s, r->ready_at, EV_READY, g->id);
      if (metrics_window_open(s->m, s->now)) {
        s->prompt_tokens += r->isl, s->hit_tokens += r->cached;
        for (int t = CACHE_HOST; t < CACHE_TIERS; t++)
          s->reload_tokens[t] += r->reloaded[t];
      }
    }
    r->reserved = n;
    g->kv_used += n;
    r->rank = place_rank(g);
    if (g->role == ROLE_DECODE) {
      r->first = s->now; /* see kv_arrived */
      start_decode(s, g, i);
    } else {
      g->rank_ctx[r->rank]++;
      g_array_append_val(g->prefilling, i);
    }
  }
}

/* Fills the step's prompt chunks from the prefilling requests, in admission order, up to the
 * chunked-prefill budget (each attention-DP rank schedules its own prompts, within a budget of its
 * own). */
static void take_prefill(Sim *s, Eng *g, StepBatch *b)
{
  g_array_set_size(g->pre, 0), g_array_set_size(g->pre_tok, 0);
  const EngineSpec *es = g->role == ROLE_PREFILL ? &s->p->prefill : &s->p->agg;
  double span = 0, tokens = 0;
  int open = g->adp; /* ranks with budget left */
  for (int k = 0; k < g->adp; k++)
    g->rank_budget[k] = es->chunked_prefill > 0 ? es->chunked_prefill : 1e18, g->rank_taken[k] = 0;
  for (guint k = 0; k < g->prefilling->len && open > 0; k++) {
    int i = g_array_index(g->prefilling, int, k);
    const Req *r = req(s, i);
    if (r->ready_at > s->now) /* its cached tokens are still coming back from an offload tier */
      continue;
    double *budget = &g->rank_budget[r->rank];
    int take = (int)MIN(r->isl - r->prefilled, *budget);
    if (take <= 0)
      continue;
    *budget -= take;
    g->rank_taken[r->rank] += take;
    open -= *budget <= 0;
    g_array_append_val(g->pre, i);
    g_array_append_val(g->pre_tok, take);
    tokens += take;
    span += take * (r->prefilled + take / 2.0);
  }
  b->prefill_tokens = tokens, b->prefill_seqs = g->pre->len, b->prefill_ctx = tokens ? span / tokens : 0;
  /* the step waits for the rank with the most prompt tokens: whole prompts land on ranks, so
   * nine prompts over eight ranks put two on one of them */
  b->prefill_rank_tokens = 0;
  for (int k = 0; g->adp > 1 && k < g->adp; k++)
    b->prefill_rank_tokens = MAX(b->prefill_rank_tokens, g->rank_taken[k]);
}

/* Times B on E. A decode-only batch that cannot change before its next completion or the next
 * request from outside runs those steps as one event, timed at their mean context: the count is
 * returned. */
static int timed_steps(Sim *s, Eng *g, const Engine *e, StepBatch *b, StepTime *t)
{
  step_time(e, b, t);
  if (b->prefill_tokens > 0 || g->n_dec == 0 || g->prefilling->len > 0 || receiver_lagging(&g->rx) ||
      (!g_queue_is_empty(&g->waiting) && running(g) < g->max_running))
    return 1; /* held prompts (balancing, batch waiting, the overlap's lag) are looked at every step */
  double to_done = g_array_index(g->done_at.heap, Event, 0).time - g->step_count;
  double room = (next_external(s) - s->now) / t->total;
  if (!g_queue_is_empty(&g->rx.inbox)) /* the run ends where the scheduler next looks */
    room = MIN(room, receiver_steps_to_look(&g->rx));
  int n = (int)MIN(MIN(to_done, room), 1 << 16);
  if (n < 2)
    return 1;
  b->decode_ctx += (n - 1) * g->tps / 2;
  step_time(e, b, t);
  return n;
}

static void account_step(Sim *s, Eng *g, const StepTime *t, int steps, int n_dec, double sm_share)
{
  s->steps += (guint64)steps;
  double busy = steps * t->total * t->activity * sm_share; /* activity-weighted seconds of one GPU */
  if (s->series_ttft) /* the interval it starts in takes the step */
    s->series_act += busy * g->e->gpus;
  if (s->p->power_policy != POWER_POLICY_NONE) /* and the envelope's controller, next time it looks */
    s->power_act += busy * g->e->gpus;
  if (!metrics_window_open(s->m, s->now))
    return;
  g->busy_activity += busy;
  if (n_dec) {
    g->batch_sum += (double)n_dec * steps;
    g->decode_steps += (guint64)steps;
  }
}

/* Green Contexts: prompts on their own SMs, decode on the rest, both streams sharing HBM. */
static void start_streams(Sim *s, Eng *g)
{
  if (!g->pbusy && g->prefilling->len) {
    StepBatch b = { 0 };
    take_prefill(s, g, &b);
    Engine pe = *g->e;
    pe.sm_share = g->green;
    pe.bw_share = g->n_dec ? g->green : 1;
    StepTime t;
    step_time(&pe, &b, &t);
    g->pbusy = TRUE;
    account_step(s, g, &t, 1, 0, g->green);
    push_external(s, s->now + t.total, EV_PSTEP, g->id); /* it may end a decode run: see timed_steps */
  }
  if (!g->busy && g->n_dec) {
    StepBatch b = { .decode_seqs = g->n_dec, .decode_ctx = g->ctx_sum / g->n_dec };
    Engine de = *g->e;
    de.sm_share = 1 - g->green;
    de.bw_share = g->pbusy ? 1 - g->green : 1;
    StepTime t;
    g->steps = timed_steps(s, g, &de, &b, &t);
    g->decode_step = t.total;
    g->busy = TRUE;
    account_step(s, g, &t, g->steps, g->n_dec, 1 - g->green);
    schedule_step(s, g, s->now + g->steps * t.total);
  }
}

/* Whether the stack holds this step's prompts back (scheduler.h): attention-DP balancing on an
 * aggregated engine with ranks, batch waiting on one without. */
static gboolean holds_prompts(Sim *s, Eng *g)
{
  const StackProfile *sp = &g->e->prof->stack[g->e->stack];
  if (g->role != ROLE_AGG)
    return FALSE;
  if (g->adp > 1)
    return hold_balance(&g->hold, sp, g->adp, g->rank_ctx, g->rank_gen);
  double budget = s->p->agg.chunked_prefill;
  if (sp->batch_wait_timeout <= 0 || !(budget > 0) || g->prefilling->len == 0)
    return FALSE;
  double tokens = g->n_dec * g->tps; /* the step's tokens, the waiting prompts' up to the budget */
  for (guint k = 0; k < g->prefilling->len && tokens < budget; k++) {
    const Req *r = req(s, g_array_index(g->prefilling, int, k));
    tokens += r->isl - r->prefilled;
  }
  return hold_batch_wait(&g->hold, sp, budget, g->n_dec, tokens);
}

static void start_step(Sim *s, Eng *g)
{
  if (s->stop)
    return;
  if (g->green > 0) {
    start_streams(s, g);
    return;
  }
  if (g->busy)
    return;
  StepBatch b = { .decode_seqs = g->n_dec, .decode_ctx = g->n_dec ? g->ctx_sum / g->n_dec : 0 };
  if (holds_prompts(s, g))
    g_array_set_size(g->pre, 0), g_array_set_size(g->pre_tok, 0);
  else
    take_prefill(s, g, &b);
  if (g->n_dec == 0 && g->pre->len == 0) {
    if (!receiver_lagging(&g->rx))
      return;
    /* nothing to run: the host's loop spins and sees what came meanwhile at once */
    receiver_spin(&g->rx, &g->waiting);
    try_admit(s, g);
    start_step(s, g);
    return;
  }
  StepTime t;
  g->steps = timed_steps(s, g, g->e, &b, &t);
  if (g->n_dec)
    g->decode_step = t.total;
  if (g->steps > 1 && g->role == ROLE_AGG)
    hold_balance_idle(&g->hold, &g->e->prof->stack[g->e->stack], g->adp, g->rank_gen, g->steps - 1);
  g->busy = TRUE;
  account_step(s, g, &t, g->steps, g->n_dec, 1);
  schedule_step(s, g, s->now + g->steps * t.total);
}

/* Whether G, with LOAD requests to run or start, could start R at once: a batch slot free, and KV
 * room for it beside what it holds and was sent (an empty engine takes it anyway, as try_admit
 * does). */
static gboolean has_room(const Eng *g, guint load, const Req *r)
{
  return (int)load < g->max_running && (load == 0 || g->kv_used + g->routed + need(g, r) <= g->kv_cap);
}

/* The engine of ROLE in service with the least work (and room to start ROOM_FOR at once, when it is
 * given), or NULL: the search starts at the turn (Sim.rr), so the first of equals changes as the
 * callers move the turn on. */
static Eng *least_loaded_from(const Sim *s, Role role, const Req *room_for)
{
  Eng *best = NULL;
  guint best_load = G_MAXUINT, n = s->engs->len;
  for (guint j = 0; j < n; j++) {
    Eng *g = s->engs->pdata[(s->rr + j) % n];
    guint load = eng_load(g);
    if (g->role == role && in_service(g) && load < best_load && (!room_for || has_room(g, load, room_for)))
      best = g, best_load = load;
  }
  return best;
}

/* The engine of ROLE in service with the least work, or NULL. Equals take turns (the search starts
 * one engine further each time): always taking the first of equals herds a closed loop's users onto
 * the first engines, where each finished request frees the slot its user's next one takes. */
static Eng *least_loaded(Sim *s, Role role)
{
  Eng *best = least_loaded_from(s, role, NULL);
  s->rr = s->engs->len ? (s->rr + 1) % s->engs->len : 0;
  return best;
}

/* The engine a new request goes to, by the scenario's router. */
static Eng *route(Sim *s, const Req *r)
{
  Role front = s->dec_e ? ROLE_PREFILL : ROLE_AGG;
  if (s->p->router == ROUTER_LEAST_LOADED)
    return least_loaded(s, front);
  Eng *best = NULL;
  double best_cost = 0;
  guint n = s->engs->len;
  for (guint k = 0; k < n; k++) {
    Eng *g = s->engs->pdata[(s->rr + k) % n];
    if (g->role != front || !in_service(g))
      continue;
    if (s->p->router == ROUTER_ROUND_ROBIN) { /* the next one in turn */
      s->rr = (s->rr + k + 1) % n;
      return g;
    }
    /* KV-aware, as Dynamo's KV router scores workers: the prompt tokens left to compute there (what
     * it holds cached of this prompt is not), weighted, plus its load, the KV its running requests
     * hold; so without shared prefixes, the most free KV */
    gboolean group_hit;
    double cost = s->p->kv_overlap_weight * (r->isl - cached_on(g, r, &group_hit)) - (g->kv_cap - g->kv_used - g->routed);
    if (!best || cost < best_cost)
      best = g, best_cost = cost;
  }
  s->rr = (s->rr + 1) % n; /* equals take turns, as a router that breaks ties at random would */
  return best;
}

static Req *new_request(Sim *s, int user, int isl, int osl)
{
  Req r = { .arrival = s->now, .first = NAN, .done = NAN, .isl = isl, .osl = osl, .user = user, .group = -1,
            .session = -1, .cls = -1 };
  int i;
  if (s->free_reqs->len) { /* a finished request's slot: memory follows the requests in flight */
    i = g_array_index(s->free_reqs, int, s->free_reqs->len - 1);
    g_array_set_size(s->free_reqs, s->free_reqs->len - 1);
    *req(s, i) = r;
  } else {
    i = (int)s->reqs->len;
    g_array_append_val(s->reqs, r);
  }
  s->created++;
  metrics_arrived(s->m, s->now);
  s->series_arrivals++;
  /* the stack's front end (HTTP, tokenizer) delays the request before an engine sees it */
  push_external(s, s->now + engine_front_end(s->front, r.isl), EV_ENTER, i);
  return req(s, i);
}

static void complete(Sim *s, int i);
static void next_request(Sim *s, const Req *r);

/* Request I is lost (its engine failed with nowhere to send it again): it counts as done for the
 * run's end, not in the figures, and a closed loop's user sends its next one. */
static void drop(Sim *s, int i)
{
  Req *r = req(s, i);
  s->lost++;
  s->completed++;
  metrics_dropped(s->m, s->now, r->arrival);
  if (r->cls >= 0)
    metrics_dropped(s->cm[r->cls], s->now, r->arrival);
  if (s->completed >= s->target)
    s->stop = TRUE;
  else
    next_request(s, r);
  g_array_append_val(s->free_reqs, i);
}

/* Request I reaches G. */
static void send_to(Sim *s, Eng *g, int i)
{
  /* a busy scheduler that skips receives sees the request when it next looks, one that overlaps
   * with its GPU forms its next batch without it; an idle one takes it at once */
  gboolean busy = g->busy || g->pbusy;
  g->routed += need(g, req(s, i));
  GQueue *to = receiver_arrival(&g->rx, busy, &g->waiting);
  g_queue_push_tail(to, GINT_TO_POINTER(i));
  try_admit(s, g);
  start_step(s, g);
}

/* The queue router: held requests go, oldest first, to the least loaded engine with room for them;
 * the oldest waits while none has (the ones behind it wait too: arrival order). */
static void dispatch_held(Sim *s)
{
  Role front = s->dec_e ? ROLE_PREFILL : ROLE_AGG;
  while (!g_queue_is_empty(&s->held)) {
    int i = GPOINTER_TO_INT(g_queue_peek_head(&s->held));
    Eng *best = least_loaded_from(s, front, req(s, i));
    if (!best)
      return;
    s->rr = (s->rr + 1) % s->engs->len;
    g_queue_pop_head(&s->held);
    send_to(s, best, i);
  }
}

/* The time by which R's first token is due: its arrival plus its class's TTFT limit, or the plan's
 * (INFINITY: none). */
static double deadline(const Sim *s, const Req *r)
{
  double limit = r->cls >= 0 && s->w.mix ? g_array_index(s->w.mix, MixClass, r->cls).max_ttft : 0;
  if (!(limit > 0))
    limit = s->p->max_ttft;
  return limit > 0 ? r->arrival + limit : INFINITY;
}

/* The queue router holds I: in arrival order, or with classes of their own limits, earliest
 * deadline first (equal deadlines in arrival order; a new request is mostly due last, so the search
 * starts at the tail). */
static void hold(Sim *s, int i)
{
  if (!s->w.mix) {
    g_queue_push_tail(&s->held, GINT_TO_POINTER(i));
    return;
  }
  double due = deadline(s, req(s, i));
  GList *l = s->held.tail;
  while (l && deadline(s, req(s, GPOINTER_TO_INT(l->data))) > due)
    l = l->prev;
  if (l)
    g_queue_insert_after(&s->held, l, GINT_TO_POINTER(i));
  else
    g_queue_push_head(&s->held, GINT_TO_POINTER(i));
}

static void enter(Sim *s, int i)
{
  if (s->p->router == ROUTER_QUEUE) {
    hold(s, i);
    dispatch_held(s);
    return;
  }
  Eng *g = route(s, req(s, i));
  if (g)
    send_to(s, g, i);
  else /* every engine is out of service */
    drop(s, i);
}

static void stop_prefilling(Eng *g, int i)
{
  for (guint k = 0; k < g->prefilling->len; k++)
    if (g_array_index(g->prefilling, int, k) == i) {
      g_array_remove_index(g->prefilling, k);
      break;
    }
}

/* Request I is done: its latency counts, and in a closed loop its user sends the next one. */
static void complete(Sim *s, int i)
{
  Req *r = req(s, i);
  r->done = s->now;
  s->completed++;
  if (s->users && r->user >= 0 && r->session >= 0) { /* the next turn resends this one and its answer */
    User *u = &s->users[r->user];
    u->history = r->isl - r->shared + r->osl;
    u->turn++;
  } else if (s->contexts && r->session >= 0) { /* a trace's session: its next request resends this */
    g_hash_table_insert(s->contexts, GINT_TO_POINTER(r->session + 1),
                        GSIZE_TO_POINTER((gsize)(r->isl - r->shared + r->osl)));
  }
  metrics_completed(s->m, s->now, r->arrival, r->first, r->osl);
  if (r->cls >= 0)
    metrics_completed(s->cm[r->cls], s->now, r->arrival, r->first, r->osl);
  if (s->series_ttft) {
    double ttft = r->first - r->arrival, tpot = r->osl > 1 ? (r->done - r->first) / (r->osl - 1) : NAN;
    s->series_done++, s->series_tokens += r->osl;
    g_array_append_val(s->series_ttft, ttft);
    if (isfinite(tpot))
      g_array_append_val(s->series_tpot, tpot);
  }
  if (s->completed >= s->target)
    s->stop = TRUE;
  else
    next_request(s, r);
  /* nothing refers to it any more (its events, queues and flows are behind it): its slot is free */
  g_array_append_val(s->free_reqs, i);
}

/* R is over: in a closed loop its user sends the next request after thinking (a benchmark client
 * sends exactly its requests). */
static void next_request(Sim *s, const Req *r)
{
  if (r->user >= 0 && s->p->arrival == ARRIVAL_CLOSED && (s->p->window != WINDOW_ALL || s->created < s->target))
    push_external(s, s->now + s->p->think_time, EV_ARRIVAL, r->user);
}

/* A decoding request leaves G at its last step. */
static void finish_decode(Sim *s, Eng *g, int i)
{
  Req *r = req(s, i);
  g->n_dec--;
  g->rank_gen[r->rank]--;
  g->ctx_sum -= r->entry_ctx + (g->step_count - r->entry_step) * g->tps;
  g->kv_used -= r->reserved;
  r->generated = r->osl;
  keep_cached(s, g, r, r->osl);
  complete(s, i);
}

/* The next end among the network's flows becomes the network's pending event. */
static void schedule_network(Sim *s)
{
  int f;
  s->net_at = network_next_end(&s->net, &f);
  s->net_seq = s->q.next_seq++;
}

/* A finished prompt's KV cache starts for the least-loaded decode engine: over NVLink when both
 * pools share a domain, over the NICs otherwise, sharing links with the transfers in flight. */
static void start_transfer(Sim *s, Eng *from, int i)
{
  Req *r = req(s, i);
  Eng *to = least_loaded(s, ROLE_DECODE);
  if (!to) { /* every decode engine is out of service */
    drop(s, i);
    return;
  }
  r->target = to->id;
  if (s->transfer) {
    s->transfer(s->transfer_user, i, from->id, to->id, r->isl * s->kv_bytes_per_token);
    return;
  }
  int route[3] = { s->same_domain ? from->nvl_up : from->nic_up, s->same_domain ? to->nvl_down : to->nic_down,
                    s->fabric };
  network_advance(&s->net, s->now);
  network_start(&s->net, route, !s->same_domain && s->fabric >= 0 ? 3 : 2, r->isl * s->kv_bytes_per_token, i);
  schedule_network(s);
}

static void network_event(Sim *s)
{
  network_advance(&s->net, s->now);
  for (guint k = 0; k < s->net.flows->len; k++) {
    Flow *f = &g_array_index(s->net.flows, Flow, k);
    if (f->active && f->remaining <= 1e-6 * MAX(1.0, f->rate)) {
      push_external(s, s->now + s->link_latency, EV_KV, f->tag);
      network_end(&s->net, (int)k);
    }
  }
  schedule_network(s);
}

/* Whether G has nothing left to run, start or receive. */
static gboolean emptied(const Eng *g)
{
  return running(g) == 0 && !g->busy && !g->pbusy && eng_load(g) == 0 && !receiver_lagging(&g->rx);
}

/* An engine drained for maintenance with nothing left goes out of service for its duration (its
 * prefix cache gone with the restart). */
static void check_serviced(Sim *s, Eng *g)
{
  if (!g->servicing || g->down || !emptied(g))
    return;
  g->down = TRUE;
  held_set(&s->down, s->now, s->down.value + 1);
  held_set(&s->serviced, s->now, s->serviced.value + 1);
  s->maintenances++;
  if (g->cache)
    eng_configure(g, g->role, g->e, s->p, s->prefixes);
  push_external(s, s->now + s->p->maint_duration, EV_MAINT_DONE, g->id);
}

/* G's turn for maintenance: drained unless it is out of service already (parked, away, failed,
 * changing pool), which skips this turn; the next one an interval on. */
static void maintain(Sim *s, Eng *g)
{
  if (g->parked || g->parking || g->away || g->down || g->draining || g->reconfiguring) {
    push_external(s, s->now + s->p->maint_interval, EV_MAINT, g->id);
    return;
  }
  g->servicing = TRUE;
  check_serviced(s, g);
}

/* G's maintenance is done: it serves again, its next turn an interval after this one began. */
static void maintained(Sim *s, Eng *g)
{
  g->down = g->servicing = FALSE;
  held_set(&s->down, s->now, s->down.value - 1);
  held_set(&s->serviced, s->now, s->serviced.value - 1);
  push_external(s, s->now + MAX(s->p->maint_interval - s->p->maint_duration, 0), EV_MAINT, g->id);
  if (g->role != ROLE_DECODE)
    dispatch_held(s);
}

/* An engine being parked with nothing left parks: its GPUs idle, its prefix cache dropped. */
static void check_parked(Sim *s, Eng *g)
{
  if (g->parking && emptied(g)) {
    g->parking = FALSE, g->parked = TRUE;
    held_set(&s->parked, s->now, s->parked.value + 1);
    if (g->cache) /* what it cached goes with its memory */
      eng_configure(g, g->role, g->e, s->p, s->prefixes);
  }
}

/* A draining engine with nothing left leaves service to change pool. */
static void check_drained(Sim *s, Eng *g)
{
  if (g->draining && !g->reconfiguring && running(g) == 0 && !g->busy && !g->pbusy &&
      g_queue_is_empty(&g->waiting) && !receiver_lagging(&g->rx)) {
    g->reconfiguring = TRUE;
    push_external(s, s->now + s->p->plan_reconfigure, EV_RECONF, g->id);
  }
}

/* The decode steps just run: the step count moves on and the requests due finish. */
static void decode_done(Sim *s, Eng *g)
{
  g->step_count += g->steps;
  g->ctx_sum += g->n_dec * g->tps * g->steps;
  Event done;
  while (g->done_at.heap->len && g_array_index(g->done_at.heap, Event, 0).time <= g->step_count &&
         event_queue_pop(&g->done_at, &done))
    finish_decode(s, g, done.who);
}

/* The prompt chunks just run: finished prompts yield their first token and start decoding, or
 * leave for a decode engine. */
static void prefill_done(Sim *s, Eng *g)
{
  for (guint k = 0; k < g->pre->len; k++) {
    int i = g_array_index(g->pre, int, k);
    Req *r = req(s, i);
    r->prefilled += g_array_index(g->pre_tok, int, k);
    if (r->prefilled < r->isl)
      continue;
    stop_prefilling(g, i);
    g->rank_ctx[r->rank]--;
    if (g->role == ROLE_PREFILL) { /* the KV cache leaves for a decode engine, after the handoff */
      g->kv_used -= r->reserved;
      keep_cached(s, g, r, 0); /* a copy of the prompt's stays: the answer is the decode engine's */
      r->source = g->id;
      push_external(s, s->now + s->handoff, EV_HANDOFF, i);
      continue;
    }
    r->first = s->now; /* the prompt's last chunk yields the first token */
    r->generated = 1;
    if (r->osl > 1) {
      start_decode(s, g, i);
    } else {
      g->kv_used -= r->reserved;
      keep_cached(s, g, r, 1);
      complete(s, i);
    }
  }
  g_array_set_size(g->pre, 0), g_array_set_size(g->pre_tok, 0);
}

static void step_done(Sim *s, Eng *g, gboolean prefill_stream)
{
  gboolean had_prefill = g->pre->len > 0;
  if (prefill_stream) {
    g->pbusy = FALSE;
    prefill_done(s, g);
  } else {
    g->busy = FALSE;
    heap_remove(s->stepping, g);
    decode_done(s, g);
    if (g->green == 0)
      prefill_done(s, g);
  }
  receiver_after_step(&g->rx, had_prefill, prefill_stream ? 0 : g->steps, g->n_dec == 0 && g->prefilling->len == 0,
                      &g->waiting);
  try_admit(s, g);
  start_step(s, g);
  check_drained(s, g);
  check_parked(s, g);
  check_serviced(s, g);
  /* a slot may have opened: only here or on this engine's return to service (requests are held
   * only while no engine has room) */
  if (!g_queue_is_empty(&s->held) && g->role != ROLE_DECODE)
    dispatch_held(s);
}

/* A handed-over request joins its decode engine. The prefill engine's first token reaches the user
 * through the decode engine (Dynamo streams from the decode worker), once that engine takes the
 * request: a full decode pool delays it. */
static void join_decode(Sim *s, int i)
{
  Req *r = req(s, i);
  Eng *g = s->engs->pdata[r->target];
  if ((g->down || g->servicing) && !(g = least_loaded(s, ROLE_DECODE))) { /* it failed or went to
                                                                           * maintenance meanwhile:
                                                                           * another, or none */
    drop(s, i);
    return;
  }
  g_queue_push_tail(&g->waiting, GINT_TO_POINTER(i));
  try_admit(s, g);
  start_step(s, g);
}

/* A prompt's KV cache reached its decode engine: a decoding engine's scheduler takes the request
 * in after the stack's handoff_steps of its steps (profile.h), an idle one at once. */
static void kv_arrived(Sim *s, int i)
{
  Req *r = req(s, i);
  r->generated = 1;
  if (r->osl <= 1) {
    r->first = s->now;
    complete(s, i);
    return;
  }
  const Eng *g = s->engs->pdata[r->target];
  double wait = g->n_dec > 0 ? g->e->prof->stack[g->e->stack].handoff_steps * g->decode_step : 0;
  if (wait > 0)
    push_external(s, s->now + wait, EV_JOIN, i);
  else
    join_decode(s, i);
}

/* Failures (SimConfig.failures): an engine fails when any of its GPUs or nodes does, at the sum of
 * their rates (exponential times), from its own random stream. */
static double time_to_failure(Sim *s, const Eng *g)
{
  double rate = g->e->gpus / s->p->gpu_mtbf + g->nodes / s->p->node_mtbf;
  return -log(1.0 - g_rand_double(s->fail_rand)) / rate;
}

/* Whether the run's domains have NVLink switch trays that fail (rack-scale domains, failures on). */
static gboolean trays_fail(const Sim *s)
{
  return s->p->failures && s->own[0].sys->switch_trays_per_domain > 0 && s->p->tray_mtbf > 0;
}

/* The time to a domain's next switch-tray failure: any of its trays, each at 1 / tray_mtbf. */
static double time_to_tray_failure(Sim *s)
{
  return -log(1.0 - g_rand_double(s->fail_rand)) * s->p->tray_mtbf / s->own[0].sys->switch_trays_per_domain;
}

/* Domain D lost (CHANGE 1) or got back (-1) a switch tray: its engines' NVLink bandwidth is the
 * trays' left over all of them (a GPU's links spread evenly over the trays), from their next step. */
static void tray_change(Sim *s, int d, int change)
{
  int trays = s->own[0].sys->switch_trays_per_domain;
  if (change > 0 && s->trays_down[d] >= trays - 1) /* the last tray: the domain's links are gone with it,
                                                     * which the engines' own failures stand for */
    return;
  s->trays_down[d] += change;
  double share = (double)(trays - s->trays_down[d]) / trays;
  int degraded = (int)s->degraded.value;
  for (guint k = 0; k < s->engs->len; k++) {
    Eng *g = s->engs->pdata[k];
    if (g->domain != d)
      continue;
    gboolean was = g->own.nvlink_share > 0 && g->own.nvlink_share < 1;
    g->own.nvlink_share = s->trays_down[d] > 0 ? share : 0;
    degraded += (s->trays_down[d] > 0) - was;
  }
  held_set(&s->degraded, s->now, degraded);
  if (change > 0) {
    s->tray_failures++;
    push_external(s, s->now + s->p->repair_time, EV_TRAY_FIX, d);
  }
}

/* Request I was on an engine that failed: sent again through the front end (a client's retry; its
 * latency counts from its first arrival, its cached context is gone), or lost. */
static void retry_or_lose(Sim *s, int i)
{
  Req *r = req(s, i);
  if (!s->p->retry) {
    drop(s, i);
    return;
  }
  s->retried++;
  r->prefilled = r->generated = 0, r->first = NAN, r->reserved = 0, r->cached = 0, r->ready_at = 0;
  r->pinned = FALSE;
  memset(r->reloaded, 0, sizeof r->reloaded);
  push_external(s, s->now + engine_front_end(s->front, r->isl), EV_ENTER, i);
}

/* G fails: its step stops, what it held (queued, prefilling, decoding; its KV cache and prefix
 * cache) is gone, its requests are sent again or lost, and it is out of service until repaired. A
 * KV cache leaving it for a decode engine is taken to have left (the handoff is under way). */
static void fail(Sim *s, Eng *g)
{
  if (g->draining || g->reconfiguring || g->away || g->down) { /* out of service already (the planner's,
                                                               * another deployment's GPUs, maintenance):
                                                               * later */
    push_external(s, s->now + time_to_failure(s, g), EV_FAIL, g->id);
    return;
  }
  g_autoptr(GArray) gone = g_array_new(FALSE, FALSE, sizeof(int));
  GQueue *queues[] = { &g->waiting, &g->rx.inbox, &g->rx.fresh, &g->rx.deferred };
  for (gsize q = 0; q < G_N_ELEMENTS(queues); q++)
    while (!g_queue_is_empty(queues[q])) {
      int i = GPOINTER_TO_INT(g_queue_pop_head(queues[q]));
      g_array_append_val(gone, i);
    }
  g_array_append_vals(gone, g->prefilling->data, g->prefilling->len);
  for (guint k = 0; k < g->done_at.heap->len; k++)
    g_array_append_val(gone, g_array_index(g->done_at.heap, Event, k).who);
  g_array_set_size(g->prefilling, 0);
  g_array_set_size(g->pre, 0), g_array_set_size(g->pre_tok, 0);
  event_queue_clear(&g->done_at);
  event_queue_init(&g->done_at);
  if (g->busy)
    heap_remove(s->stepping, g);
  g->busy = g->pbusy = FALSE;
  g->n_dec = 0, g->ctx_sum = 0, g->kv_used = 0, g->routed = 0;
  eng_configure(g, g->role, g->e, s->p, s->prefixes); /* empty ranks, a fresh prefix cache */
  g->down = TRUE;
  s->failures++;
  held_set(&s->down, s->now, s->down.value + 1);
  push_external(s, s->now + s->p->repair_time, EV_REPAIR, g->id);
  for (guint k = 0; k < gone->len; k++)
    retry_or_lose(s, g_array_index(gone, int, k));
}

static void repair(Sim *s, Eng *g)
{
  g->down = FALSE;
  held_set(&s->down, s->now, s->down.value - 1);
  push_external(s, s->now + time_to_failure(s, g), EV_FAIL, g->id);
  if (g->role != ROLE_DECODE)
    dispatch_held(s);
}

/* The engines the requests in the system need at the target share of their batch slots (at least
 * autoscale_min, at most the engines not failed nor away, *TOTAL), and of those engines the ones
 * serving and waking. */
static int engines_needed(const Sim *s, int *total, int *serving, int *waking)
{
  const SimConfig *p = s->p;
  guint load = s->held.length;
  int slots = 0;
  *total = *serving = *waking = 0;
  for (guint k = 0; k < s->engs->len; k++) {
    const Eng *g = s->engs->pdata[k];
    if (g->role != ROLE_AGG || g->down || g->away)
      continue;
    (*total)++;
    load += eng_load(g);
    slots = MAX(slots, g->max_running);
    *serving += in_service(g);
    *waking += g->parked && g->waking;
  }
  double want = ceil(load / (p->autoscale_target * MAX(slots, 1)));
  return (int)MAX(want, p->autoscale_min);
}

/* The autoscaler (SimConfig.autoscale; aggregated engines): the engines the requests in the system
 * need at the target share of their batch slots serve (at least autoscale_min); beyond them, the
 * least loaded are parked once they empty, at most a tenth of the serving ones a look (a dip does
 * not empty the floor); short of them, engines being parked serve on at once and parked ones wake
 * after autoscale_start (their weights loaded). Failed engines are neither. */
static void autoscale(Sim *s)
{
  const SimConfig *p = s->p;
  int total, serving, waking;
  int need = MIN(engines_needed(s, &total, &serving, &waking), total);
  int have = serving + waking;
  for (guint k = 0; k < s->engs->len && have < need; k++) { /* engines being parked first: warm */
    Eng *g = s->engs->pdata[k];
    if (g->role == ROLE_AGG && !g->down && g->parking)
      g->parking = FALSE, have++;
  }
  for (guint k = 0; k < s->engs->len && have < need; k++) {
    Eng *g = s->engs->pdata[k];
    if (g->role == ROLE_AGG && !g->down && g->parked && !g->waking && !g->away) {
      g->waking = TRUE, have++;
      push_external(s, s->now + p->autoscale_start, EV_WAKE, g->id);
    }
  }
  for (int left = MAX(1, serving / 10); have > need && left > 0; left--, have--) {
    Eng *g = least_loaded(s, ROLE_AGG);
    if (!g)
      break;
    g->parking = TRUE;
    check_parked(s, g);
  }
  if (!s->stop)
    push_external(s, s->now + p->autoscale_interval, EV_SCALE, 0);
}

/* A parked engine is awake: it serves again. */
static void wake(Sim *s, Eng *g)
{
  if (!g->parked)
    return;
  g->parked = g->waking = FALSE;
  held_set(&s->parked, s->now, s->parked.value - 1);
  dispatch_held(s);
}

/* The GPUs of the run. */
static double sim_gpus(const Sim *s)
{
  double gpus = 0;
  for (guint k = 0; k < s->engs->len; k++)
    gpus += ((const Eng *)s->engs->pdata[k])->away ? 0 : ((const Eng *)s->engs->pdata[k])->e->gpus;
  return gpus;
}

/* Engine-seconds of the run so far with the engines here (not away). */
static double present_time(Sim *s)
{
  return s->now * s->engs->len - held_area(&s->away, s->now);
}

/* The power envelope's controller (SimConfig.power_policy): from the activity the GPUs drew since it
 * last looked, the facility's draw per GPU, smoothed over a few periods (an exponential average of
 * weight 0.3: one period's steps are a noisy sample); above the envelope the dynamic part of the
 * GPUs' power (above idle) is scaled down to what the envelope leaves, by a lower cap or by turning
 * that share of the requests away; below 98% of it, back up by at most 10% a period. */
static void power_control(Sim *s)
{
  const SimConfig *p = s->p;
  const SystemSpec *sys = s->own[0].sys;
  double idle = sys->idle_power, tdp = sys->tdp;
  double act = s->power_act / (MAX(s->now - s->power_t, 1e-9) * sim_gpus(s));
  double now_w = p->power_fixed + p->power_slope * power_gpu(sys, act, 1);
  s->drawn = s->drawn > 0 ? 0.7 * s->drawn + 0.3 * now_w : now_w;
  double facility = s->drawn, gpu_w = (facility - p->power_fixed) / p->power_slope;
  double target = (p->envelope_per_gpu - p->power_fixed) / p->power_slope; /* GPU W the envelope allows */
  double ratio = gpu_w > idle ? (target - idle) / (gpu_w - idle) : 1.1;
  gboolean over = facility > p->envelope_per_gpu, under = facility < 0.98 * p->envelope_per_gpu;
  s->power_act = 0, s->power_t = s->now;
  if (p->power_policy == POWER_POLICY_CAP && (over || (under && s->cap > 0))) {
    double cap = s->cap > 0 ? s->cap : tdp;
    cap = idle + (cap - idle) * CLAMP(ratio, 0, 1.1);
    cap = MAX(cap, idle + 0.05 * (tdp - idle)); /* a board runs at its lowest clock, not below */
    s->cap = cap >= tdp ? 0 : cap;
    for (guint k = 0; k < s->engs->len; k++) { /* each engine under the cap, or its role's own limit */
      Eng *g = s->engs->pdata[k];
      double given = s->own[g->role == ROLE_DECODE].power_limit;
      g->own.power_limit = s->cap > 0 ? MIN(given > 0 ? given : tdp, s->cap) : given;
    }
  } else if (p->power_policy == POWER_POLICY_SHED && (over || (under && s->shed_p > 0))) {
    double keep = (1 - s->shed_p) * CLAMP(ratio, 0, 1.1);
    s->shed_p = 1 - CLAMP(keep, 0.01, 1);
  }
  held_set(&s->cap_w, s->now, s->cap > 0 ? s->cap : tdp);
  /* while anything is left to do: a run whose requests are done ends */
  if (!s->stop && (s->created > s->completed || s->q.heap->len > 0 || s->stepping->len > 0))
    push_external(s, s->now + p->power_period, EV_POWER, 0);
}

/* Whether the envelope turns the arriving request away (SimConfig.power_policy shed). */
static gboolean shed(Sim *s)
{
  if (s->shed_p <= 0 || g_rand_double(s->power_rand) >= s->shed_p)
    return FALSE;
  s->shed++, s->series_shed++, s->series_arrivals++; /* offered all the same */
  return TRUE;
}

static void reconfigured(Sim *s, Eng *g)
{
  Role to = g->role == ROLE_PREFILL ? ROLE_DECODE : ROLE_PREFILL;
  eng_configure(g, to, to == ROLE_PREFILL ? s->pre_e : s->dec_e, s->p, s->prefixes);
  g->draining = g->reconfiguring = FALSE;
  s->moving = FALSE;
  s->moves++;
  if (to == ROLE_PREFILL)
    dispatch_held(s);
}

/* Requests queued per engine in service of ROLE, and the engines. */
static double queued(Sim *s, Role role, int *engines)
{
  guint q = 0;
  *engines = 0;
  for (guint k = 0; k < s->engs->len; k++) {
    Eng *g = s->engs->pdata[k];
    if (g->role != role || !in_service(g))
      continue;
    (*engines)++;
    q += g_queue_get_length(&g->waiting) + (role == ROLE_PREFILL ? g->prefilling->len : 0);
  }
  if (role == ROLE_PREFILL) /* the queue router's are the prefill pool's too */
    q += g_queue_get_length(&s->held);
  return *engines ? (double)q / *engines : 0;
}

/* The planner (Dynamo-style): when one pool's queue passes the threshold while the other's is
 * short, the other pool's least busy engine drains and moves, out of service meanwhile. */
static void plan(Sim *s)
{
  if (!s->moving) {
    int np, nd;
    double qp = queued(s, ROLE_PREFILL, &np), qd = queued(s, ROLE_DECODE, &nd);
    Role from = qp > s->p->plan_threshold && qd < 1 && nd > 1   ? ROLE_DECODE
                : qd > s->p->plan_threshold && qp < 1 && np > 1 ? ROLE_PREFILL
                                                                : ROLE_AGG;
    Eng *g = from == ROLE_AGG ? NULL : least_loaded(s, from);
    if (g) {
      g->draining = TRUE;
      s->moving = TRUE;
      while (!g_queue_is_empty(&g->waiting)) { /* its queue goes to the engines that stay */
        int i = GPOINTER_TO_INT(g_queue_pop_head(&g->waiting));
        Eng *other = least_loaded(s, from);
        g_queue_push_tail(&other->waiting, GINT_TO_POINTER(i));
        try_admit(s, other);
        start_step(s, other);
      }
      check_drained(s, g);
    }
  }
  if (!s->stop)
    push_external(s, s->now + s->p->plan_interval, EV_PLAN, 0);
}

/* R is of class CLS of the mix (-1: none): its class's figures count it. */
static void classify(Sim *s, Req *r, int cls)
{
  r->cls = cls;
  if (cls >= 0)
    metrics_arrived(s->cm[cls], s->now);
}

static void arrival(Sim *s, int who)
{
  const SimConfig *p = s->p;
  if (p->arrival == ARRIVAL_TRACE || p->trace) {
    const TraceRow *t = workload_trace_next(&s->w);
    Req *r = t && !shed(s) ? new_request(s, -1, t->isl, t->osl) : NULL;
    if (r && s->contexts) { /* what the trace says the prompt shares: its prefix, its session's last turn */
      r->group = t->group, r->session = t->session, r->shared = t->prefix;
      double last = t->session >= 0 ? GPOINTER_TO_SIZE(g_hash_table_lookup(s->contexts, GINT_TO_POINTER(t->session + 1)))
                                    : 0;
      r->history = MIN(last, MAX(0, r->isl - r->shared));
    }
    const TraceRow *next = s->w.trace && s->w.trace_next < s->w.trace->len
                             ? &g_array_index(s->w.trace, TraceRow, s->w.trace_next) : NULL;
    if (next)
      push_external(s, next->arrival, EV_ARRIVAL, -1);
    return;
  }
  s->w.now = s->now;
  int cls = workload_class(&s->w);
  int isl = workload_input(&s->w, cls), osl = workload_output(&s->w, cls);
  if (p->arrival == ARRIVAL_CLOSED && shed(s)) { /* turned away: the user tries again later */
    push_external(s, s->now + p->power_period, EV_ARRIVAL, who);
    return;
  }
  if (p->arrival == ARRIVAL_CLOSED) {
    if (!s->prefixes) {
      classify(s, new_request(s, who, isl, osl), cls);
      return;
    }
    /* the user's session: a new one after its last turn, or when the next turn would not fit in
     * the model's context (an agent starts over), else the next turn resending the rest */
    User *u = &s->users[who];
    const Eng *front = s->engs->pdata[0];
    double window = front->e->model->max_context;
    if (u->session < 0 || u->turn >= p->turns || p->shared_prefix + u->history + isl + osl > window) {
      u->session = p->turns > 1 ? s->next_session++ : -1, u->turn = 0, u->history = 0;
      u->group = p->prefix_groups > 1 ? g_rand_int_range(s->w.rand, 0, p->prefix_groups) : 0;
    }
    double prompt = MIN(p->shared_prefix + u->history + isl, (double)G_MAXINT / 2);
    Req *r = new_request(s, who, (int)prompt, osl);
    classify(s, r, cls);
    r->group = p->shared_prefix > 0 ? u->group : -1;
    r->session = u->session;
    r->shared = p->shared_prefix, r->history = u->history;
    return;
  }
  Req *r = shed(s) ? NULL : new_request(s, -1, isl, osl); /* open loop: the next arrival follows its own clock */
  if (r)
    classify(s, r, cls);
  if (r && s->prefixes && p->shared_prefix > 0) { /* sessions need a closed loop: a shared prefix does not */
    r->group = p->prefix_groups > 1 ? g_rand_int_range(s->w.rand, 0, p->prefix_groups) : 0;
    r->shared = p->shared_prefix;
    r->isl = (int)MIN(r->isl + p->shared_prefix, (double)G_MAXINT / 2);
  }
  if (s->created < s->target)
    push_external(s, s->now + workload_gap(&s->w), EV_ARRIVAL, -1);
}

/* The window's figures (metrics.h) and the engines' (activity, batch). */
static void measure(Sim *s, SimResult *out)
{
  MetricsSummary ms;
  metrics_summary(s->m, s->now, &ms);
  out->window = ms.window;
  out->measured = ms.measured;
  out->out_tok_s = ms.out_tok_s, out->req_s = ms.req_s, out->goodput = ms.goodput;
  out->mean_e2e = ms.mean_e2e, out->mean_in_flight = ms.mean_in_flight;
  memcpy(out->ttft, ms.ttft, sizeof ms.ttft);
  memcpy(out->tpot, ms.tpot, sizeof ms.tpot);
  memcpy(out->e2e, ms.e2e, sizeof ms.e2e);
  out->arrivals = ms.arrivals, out->backlog_growth = ms.backlog_growth;
  out->backlog_judged = s->p->arrival != ARRIVAL_CLOSED && ms.backlog_judged;
  out->unstable = out->backlog_judged && ms.backlog_grew;
  double act = 0, batch = 0, steps = 0, gpus = 0;
  for (guint k = 0; k < s->engs->len; k++) {
    const Eng *g = s->engs->pdata[k];
    act += g->busy_activity * g->e->gpus;
    gpus += g->e->gpus;
    batch += g->batch_sum;
    steps += g->decode_steps;
  }
  /* engines lent to another deployment of the floor for part of the run: the GPUs here on average */
  gpus -= s->now > 0 ? held_area(&s->away_gpus, s->now) / s->now : 0;
  out->gpus = gpus;
  out->gpu_activity = out->window > 0 ? MIN(act / (out->window * gpus), 1) : NAN;
  out->mean_batch = steps ? batch / steps : NAN;
  out->steps = s->steps;
  out->events = s->events, out->requests = s->created;
  out->moves = s->moves;
  gboolean cached = s->prompt_tokens > 0 && s->prefixes && s->p->prefix_cache;
  out->cache_hit_rate = cached ? s->hit_tokens / s->prompt_tokens : NAN;
  out->cache_host_rate = cached && s->p->cache_host > 0 ? s->reload_tokens[CACHE_HOST] / s->prompt_tokens : NAN;
  out->cache_storage_rate = cached && s->p->cache_storage > 0 ? s->reload_tokens[CACHE_STORAGE] / s->prompt_tokens : NAN;
  out->cache_remote_rate = cached && s->p->cache_remote > 0 ? s->reload_tokens[CACHE_REMOTE] / s->prompt_tokens : NAN;
  out->failures = out->lost = out->retried = out->availability = out->maintenance = out->lost_share = NAN;
  if (s->p->failures) /* over the whole run; the lost share over the window */
    out->failures = s->failures, out->lost = s->lost, out->retried = s->retried,
    out->lost_share = ms.measured + ms.lost > 0 ? (double)ms.lost / (ms.measured + ms.lost) : 0;
  if (s->p->failures || s->p->maint_interval > 0) { /* failed or under maintenance: out */
    double down = held_area(&s->down, s->now);
    out->availability = s->now > 0 ? 1 - down / present_time(s) : 1;
  }
  if (s->p->maint_interval > 0) {
    double serviced = held_area(&s->serviced, s->now);
    out->maintenance = s->now > 0 ? serviced / present_time(s) : 0;
    out->maintenances = s->maintenances;
  }
  out->parked = NAN;
  if (s->p->autoscale && !s->dec_e) {
    double parked = held_area(&s->parked, s->now);
    out->parked = s->now > 0 ? parked / present_time(s) : 0;
  }
  out->tray_failures = out->degraded = NAN;
  if (trays_fail(s)) {
    double degraded = held_area(&s->degraded, s->now);
    out->tray_failures = s->tray_failures;
    out->degraded = s->now > 0 ? degraded / present_time(s) : 0;
  }
  out->n_classes = s->w.mix ? s->w.mix->len : 0;
  for (guint k = 0; k < out->n_classes; k++) {
    MetricsSummary cs;
    metrics_summary(s->cm[k], s->now, &cs);
    out->classes[k].measured = cs.measured;
    memcpy(out->classes[k].ttft, cs.ttft, sizeof cs.ttft);
    memcpy(out->classes[k].tpot, cs.tpot, sizeof cs.tpot);
    out->classes[k].goodput = cs.goodput;
  }
  out->shed = out->mean_cap_w = NAN;
  if (s->p->power_policy != POWER_POLICY_NONE) { /* over the whole run */
    double cap_area = held_area(&s->cap_w, s->now);
    out->shed = s->created + s->shed > 0 ? s->shed / (s->created + s->shed) : 0;
    out->mean_cap_w = s->now > 0 ? cap_area / s->now : s->own[0].sys->tdp;
  }
}

static char *check(const Engine *e, double ctx)
{
  MemoryPlan m;
  char *why = engine_check(e);
  return why ? why : memory_plan(e, ctx, &m);
}

/* A closed loop's steady window, where the run gives none (no warm-up, no trace): its users start
 * spread over one request's estimated duration, so their first requests run in a batch still
 * filling (faster steps, fewer completions a second than the steady state's). The window opens
 * once as many requests are done as there are users (about that first cycle) and the run lasts at
 * least CLOSED_LOOP_CYCLES requests a user: a 4,096-user engine measured over a tenth to all of
 * 1,000 requests saw its first quarter-cycle only (tok/s per user 19% high, tok/s per GPU 20%
 * low against the same run at 16,000: docs/model.md, "Workloads"). */
#define CLOSED_LOOP_CYCLES 3

static void closed_loop_window(Sim *s, MetricsConfig *mc)
{
  const SimConfig *p = s->p;
  if (p->arrival != ARRIVAL_CLOSED || s->w.trace || p->window != WINDOW_STEADY || p->warmup > 0 || p->users <= 0)
    return;
  guint users = (guint)p->users;
  s->target = MAX(s->target, CLOSED_LOOP_CYCLES * users);
  mc->target = s->target;
  mc->open_after = MAX((s->target + 9) / 10, users);
}

/* Whether an engine of either kind could also serve as the other (memory allowing). */
static gboolean check_both(const Engine *e, const Engine *d, double ctx)
{
  g_autofree char *a = check(e, ctx), *b = check(d, ctx);
  return !a && !b;
}

Sim *sim_new(const SimConfig *p, const Engine *e, int engines, const Engine *d, int dec, gboolean same_domain,
             char **why_out)
{
  /* the steady state's rule (memory_context): both methods agree on what fits */
  double isl = p->input.mean, osl = p->output.mean;
  char *why = check(e, memory_context(e, isl, osl, d != NULL));
  if (!why && d)
    why = check(d, memory_context(d, isl, osl, FALSE));
  if (!why && d && p->planner && (e->gpus != d->gpus || !check_both(e, d, memory_context(d, isl, osl, FALSE))))
    why = g_strdup("the planner moves engines between the pools: prefill and decode engines need the same "
                   "GPUs, each able to hold either role");
  if (!why && p->failures && p->green_prefill_sms > 0)
    why = g_strdup("failures with Green Contexts are not simulated");
  if (why) {
    *why_out = why;
    return NULL;
  }
  Sim *sp = g_new0(Sim, 1);
  *sp = (Sim){ .p = p, .fabric = -1, .net_at = INFINITY, .target = (guint)p->requests,
               .front = e };
  g_autoptr(GError) err = NULL;
  if (!workload_init(&sp->w, p, &err)) {
    g_free(sp);
    *why_out = g_strdup(err->message);
    return NULL;
  }
  event_queue_init(&sp->q);
  g_queue_init(&sp->held);
  sp->stepping = g_ptr_array_new();
  sp->reqs = g_array_new(FALSE, FALSE, sizeof(Req));
  sp->free_reqs = g_array_new(FALSE, FALSE, sizeof(int));
  if (p->series && p->series_interval > 0) {
    sp->series_ttft = g_array_new(FALSE, FALSE, sizeof(double));
    sp->series_tpot = g_array_new(FALSE, FALSE, sizeof(double));
    sp->series_end = p->series_interval;
  }
  sp->prefixes = !p->trace && p->arrival != ARRIVAL_TRACE && (p->turns > 1 || p->shared_prefix > 0);
  for (guint k = 0; sp->w.trace && k < sp->w.trace->len && !sp->prefixes; k++) { /* a trace's sessions, prefixes */
    const TraceRow *t = &g_array_index(sp->w.trace, TraceRow, k);
    sp->prefixes = t->session >= 0 || t->prefix > 0;
  }
  if (sp->prefixes && sp->w.trace)
    sp->contexts = g_hash_table_new(g_direct_hash, g_direct_equal);
  if (sp->prefixes && p->arrival == ARRIVAL_CLOSED) {
    sp->users = g_new(User, p->users);
    for (int u = 0; u < p->users; u++)
      sp->users[u] = (User){ .session = -1 };
  }
  sp->own[0] = *e, sp->own[1] = d ? *d : *e;
  sp->cap_w.value = e->sys->tdp; /* uncapped until the envelope's controller says otherwise */
  e = &sp->own[0], d = d ? &sp->own[1] : NULL;
  sp->engs = g_ptr_array_new_with_free_func(eng_free);
  for (int k = 0; k < engines; k++)
    g_ptr_array_add(sp->engs, eng_new(d ? ROLE_PREFILL : ROLE_AGG, e, p, sp->prefixes));
  sp->pre_e = d ? e : NULL, sp->dec_e = d;
  for (int k = 0; d && k < dec; k++)
    g_ptr_array_add(sp->engs, eng_new(ROLE_DECODE, d, p, sp->prefixes));
  for (guint k = 0; k < sp->engs->len; k++) {
    Eng *g = sp->engs->pdata[k];
    g->id = (int)k;
    g->nodes = (int)ceil((double)g->e->gpus / MAX(g->e->sys->gpus_per_node, 1));
  }
  /* the engines fill NVLink domains in turn, one after the other (an engine wider than a domain
   * counts as its first) */
  double placed = 0, per_domain = MAX(e->sys->nvlink_domain_gpus, 1);
  for (guint k = 0; k < sp->engs->len; k++) {
    Eng *g = sp->engs->pdata[k];
    g->domain = (int)(placed / per_domain);
    placed += g->e->gpus;
  }
  sp->n_domains = (int)ceil(placed / per_domain);
  sp->trays_down = g_new0(int, MAX(sp->n_domains, 1));
  if (p->failures) { /* a stream of its own: turning failures on leaves the workload's draws alone */
    sp->fail_rand = g_rand_new_with_seed((guint32)p->seed ^ 0x5eed1e55u);
    for (guint k = 0; k < sp->engs->len; k++)
      push_external(sp, time_to_failure(sp, sp->engs->pdata[k]), EV_FAIL, (int)k);
    for (int k = 0; k < sp->n_domains && trays_fail(sp); k++)
      push_external(sp, time_to_tray_failure(sp), EV_TRAY, k);
  }
  network_init(&sp->net);
  if (d) { /* each engine's NVLink and NIC ports, one link each way, its GPUs' bandwidth together */
    CommLinks l;
    comm_links(e->sys, &e->prof->arch[e->sys->arch], &e->prof->on[e->sys->arch], 1.0, &l);
    sp->same_domain = same_domain;
    sp->link_latency = l.latency;
    sp->handoff = e->prof->stack[e->stack].handoff_overhead;
    sp->kv_bytes_per_token = memory_kv_bytes_per_token_layer(e->model, d->kv_precision) * e->model->layers;
    double nics = 0;
    for (guint k = 0; k < sp->engs->len; k++) {
      Eng *g = sp->engs->pdata[k];
      g->nvl_up = network_add_link(&sp->net, g->e->gpus * l.nvlink_bw);
      g->nvl_down = network_add_link(&sp->net, g->e->gpus * l.nvlink_bw);
      g->nic_up = network_add_link(&sp->net, g->e->gpus * l.nic_bw);
      g->nic_down = network_add_link(&sp->net, g->e->gpus * l.nic_bw);
      nics += g->e->gpus * l.nic_bw;
    }
    /* a non-blocking fabric is no constraint (no link); an oversubscribed one carries, between
     * racks, the NICs' bandwidth over the oversubscription */
    sp->fabric = p->oversubscription > 1 ? network_add_link(&sp->net, nics / p->oversubscription) : -1;
  }
  if (sp->w.trace) {
    sp->target = MIN(sp->target, sp->w.trace->len);
    if (sp->w.trace->len)
      push_external(sp, g_array_index(sp->w.trace, TraceRow, 0).arrival, EV_ARRIVAL, -1);
  } else if (p->arrival == ARRIVAL_CLOSED) {
    /* users start spread over one request's estimated duration: started together, fixed-length
     * requests would stay in lock-step forever, a transient no steady state has. A benchmark
     * client (start: together) does start them together, and its figures carry that transient. */
    const Engine *de = d ? d : e;
    double cycle = p->output.mean * step_time_decode(de, MAX(1.0, (double)p->users / (d ? dec : engines)),
                                                     p->input.mean + p->output.mean / 2);
    for (int u = 0; u < p->users; u++) {
      double t = cycle * g_rand_double(sp->w.rand); /* drawn either way: the seed's stream stays */
      push_external(sp, p->start == START_TOGETHER ? 0 : t, EV_ARRIVAL, u);
    }
  } else {
    push_external(sp, 0, EV_ARRIVAL, -1);
  }
  if (p->planner && d)
    push_external(sp, p->plan_interval, EV_PLAN, 0);
  if (p->autoscale && !d)
    push_external(sp, p->autoscale_interval, EV_SCALE, 0);
  for (guint k = 0; p->maint_interval > 0 && k < sp->engs->len; k++) /* turns spread over the interval */
    push_external(sp, p->maint_interval * (k + 0.5) / sp->engs->len, EV_MAINT, (int)k);
  if (p->power_policy != POWER_POLICY_NONE && p->envelope_per_gpu > 0 && p->power_slope > 0) {
    sp->power_rand = g_rand_new_with_seed((guint32)p->seed ^ 0x90e1e5u);
    push_external(sp, p->power_period, EV_POWER, 0);
  }
  /* WINDOW_ALL counts every request from t = 0, as a benchmark client does */
  MetricsConfig mc = { .start = p->window == WINDOW_ALL ? 0 : p->warmup > 0 ? p->warmup : -1, .target = sp->target,
                       .warmup = p->warmup, .max_ttft = p->max_ttft, .min_tok_s_per_user = p->min_tok_s_per_user };
  closed_loop_window(sp, &mc);
  sp->m = metrics_new(&mc);
  for (guint k = 0; sp->w.mix && k < sp->w.mix->len; k++) { /* each class: its share of the requests, its limit */
    const MixClass *c = &g_array_index(sp->w.mix, MixClass, k);
    MetricsConfig cc = mc;
    cc.target = (guint)MAX(1.0, ceil(mc.target * c->share));
    cc.open_after = (guint)ceil(mc.open_after * c->share);
    if (c->max_ttft > 0)
      cc.max_ttft = c->max_ttft;
    sp->cm[k] = metrics_new(&cc);
  }
  return sp;
}

/* The next event: the queue's first, the network's next flow end or an engine's step end, whichever
 * is earliest (ties in the order they were scheduled). Gives the engine, or NULL with *NET set for
 * the network, or neither for the queue's event; *T is INFINITY when none is left. */
static Eng *next_event(const Sim *s, double *t, gboolean *net)
{
  const Event *top = s->q.heap->len ? &g_array_index(s->q.heap, Event, 0) : NULL;
  Eng *best = NULL;
  *t = top ? top->time : INFINITY;
  guint64 seq = top ? top->seq : G_MAXUINT64;
  *net = s->net_at < *t || (s->net_at == *t && isfinite(*t) && s->net_seq < seq);
  if (*net)
    *t = s->net_at, seq = s->net_seq;
  Eng *g = s->stepping->len ? s->stepping->pdata[0] : NULL; /* the engine whose step ends first */
  if (g && (g->step_at < *t || (g->step_at == *t && g->step_seq < seq)))
    best = g, *t = g->step_at, *net = FALSE;
  return best;
}

/* Whether an event at T still belongs to the run (one is left, within the scenario's duration). */
static gboolean in_run(const Sim *s, double t)
{
  return isfinite(t) && !(s->p->duration > 0 && t > s->p->duration);
}

gboolean sim_next_time(Sim *s, double *t)
{
  gboolean net;
  if (s->stop)
    return FALSE;
  next_event(s, t, &net);
  return in_run(s, *t);
}

/* The time series' interval ending at END: a row from what it saw, then a fresh one. */
static void series_row(Sim *s, double end, double length)
{
  double gpus = sim_gpus(s);
  SeriesRow row = { .t = end, .offered = s->series_arrivals / length, .served = s->series_done / length,
                    .out_tok_s = s->series_tokens / length, .in_flight = (double)s->created - s->completed,
                    .gpu_activity = MIN(s->series_act / (length * gpus), 1), .facility_w = NAN,
                    .engines_down = s->down.value,
                    .power_cap_w = s->p->power_policy == POWER_POLICY_CAP ? (s->cap > 0 ? s->cap : s->own[0].sys->tdp) : NAN,
                    .shed = s->series_arrivals > 0 ? s->series_shed / s->series_arrivals : 0, .gpus = gpus };
  double q[2];
  static const double at[2] = { 0.5, 0.9 };
  row.ttft_p50 = row.ttft_p90 = row.tpot_p50 = row.tpot_p90 = NAN;
  if (s->series_ttft->len) {
    stats_quantiles(s->series_ttft, at, 2, q);
    row.ttft_p50 = q[0], row.ttft_p90 = q[1];
  }
  if (s->series_tpot->len) {
    stats_quantiles(s->series_tpot, at, 2, q);
    row.tpot_p50 = q[0], row.tpot_p90 = q[1];
  }
  row.queued = s->held.length;
  for (guint k = 0; k < s->engs->len; k++) {
    const Eng *g = s->engs->pdata[k];
    row.queued += g->waiting.length + g->rx.inbox.length;
    gboolean serving = in_service(g);
    row.serving_engines += serving;
    row.prefill_engines += serving && g->role == ROLE_PREFILL;
  }
  g_array_append_val(s->p->series, row);
  s->series_arrivals = s->series_done = s->series_tokens = s->series_act = s->series_shed = 0;
  g_array_set_size(s->series_ttft, 0);
  g_array_set_size(s->series_tpot, 0);
}

/* Rows for every interval that ended before T (the next event's time). */
static void series_until(Sim *s, double t)
{
  while (s->series_ttft && t >= s->series_end) {
    series_row(s, s->series_end, s->p->series_interval);
    s->series_end += s->p->series_interval;
  }
}

gboolean sim_step(Sim *s)
{
  double t;
  gboolean net;
  if (s->stop)
    return FALSE;
  Eng *g = next_event(s, &t, &net);
  if (!in_run(s, t))
    return FALSE;
  if (t > SIM_HORIZON) {
    s->past_horizon = s->stop = TRUE;
    return FALSE;
  }
  series_until(s, t);
  s->now = t;
  s->events++;
  if (g) {
    step_done(s, g, FALSE);
    return TRUE;
  }
  if (net) {
    s->net_at = INFINITY;
    network_event(s);
    return TRUE;
  }
  Event ev;
  event_queue_pop(&s->q, &ev);
  if (ev.kind == EV_ARRIVAL)
    arrival(s, ev.who);
  else if (ev.kind == EV_ENTER)
    enter(s, ev.who);
  else if (ev.kind == EV_PSTEP)
    step_done(s, s->engs->pdata[ev.who], TRUE);
  else if (ev.kind == EV_PLAN)
    plan(s);
  else if (ev.kind == EV_RECONF)
    reconfigured(s, s->engs->pdata[ev.who]);
  else if (ev.kind == EV_HANDOFF)
    start_transfer(s, s->engs->pdata[req(s, ev.who)->source], ev.who);
  else if (ev.kind == EV_READY) /* a reloaded prompt is ready for the engine's next step */
    start_step(s, s->engs->pdata[ev.who]);
  else if (ev.kind == EV_FAIL)
    fail(s, s->engs->pdata[ev.who]);
  else if (ev.kind == EV_REPAIR)
    repair(s, s->engs->pdata[ev.who]);
  else if (ev.kind == EV_POWER)
    power_control(s);
  else if (ev.kind == EV_TRAY) { /* a tray fails; the domain's next failure is drawn */
    tray_change(s, ev.who, 1);
    push_external(s, s->now + time_to_tray_failure(s), EV_TRAY, ev.who);
  } else if (ev.kind == EV_TRAY_FIX)
    tray_change(s, ev.who, -1);
  else if (ev.kind == EV_SCALE)
    autoscale(s);
  else if (ev.kind == EV_WAKE)
    wake(s, s->engs->pdata[ev.who]);
  else if (ev.kind == EV_MAINT)
    maintain(s, s->engs->pdata[ev.who]);
  else if (ev.kind == EV_MAINT_DONE)
    maintained(s, s->engs->pdata[ev.who]);
  else if (ev.kind == EV_JOIN)
    join_decode(s, ev.who);
  else
    kv_arrived(s, ev.who);
  return TRUE;
}

void sim_set_transfer(Sim *s, SimTransferFunc f, gpointer user)
{
  s->transfer = f;
  s->transfer_user = user;
}

void sim_transfer_done(Sim *s, int req, double t)
{
  push_external(s, t + s->link_latency, EV_KV, req);
}

const Network *sim_network(const Sim *s, int engine, int links[4], int *fabric, gboolean *same_domain)
{
  const Eng *g = s->engs->pdata[engine];
  links[0] = g->nvl_up, links[1] = g->nvl_down, links[2] = g->nic_up, links[3] = g->nic_down;
  *fabric = s->fabric;
  *same_domain = s->same_domain;
  return &s->net;
}

int sim_engines(const Sim *s, int *front)
{
  *front = 0;
  for (guint k = 0; k < s->engs->len; k++)
    *front += ((Eng *)s->engs->pdata[k])->role != ROLE_DECODE;
  return (int)s->engs->len;
}

/* G leaves for another deployment (AWAY TRUE) or comes back from one, at the run's time. */
static void set_away(Sim *s, Eng *g, gboolean away)
{
  g->away = away;
  held_set(&s->away, s->now, s->away.value + (away ? 1 : -1));
  held_set(&s->away_gpus, s->now, s->away_gpus.value + (away ? g->e->gpus : -g->e->gpus));
  held_set(&s->parked, s->now, s->parked.value + (away ? -1 : 1));
}

void sim_start_away(Sim *s, int engines)
{
  for (int k = (int)s->engs->len - 1; k >= 0 && engines > 0; k--, engines--) {
    Eng *g = s->engs->pdata[k];
    g->parked = TRUE;
    held_set(&s->parked, 0, s->parked.value + 1);
    set_away(s, g, TRUE);
  }
}

int sim_floor_look(Sim *s, double t, int *held, int *idle)
{
  series_until(s, t);
  s->now = MAX(s->now, t);
  int total, serving, waking;
  int need = engines_needed(s, &total, &serving, &waking);
  *held = *idle = 0;
  for (guint k = 0; k < s->engs->len; k++) {
    const Eng *g = s->engs->pdata[k];
    *held += !g->away;
    *idle += g->parked && !g->waking && !g->away && !g->down;
  }
  return need;
}

void sim_reclaim(Sim *s, int n)
{
  for (guint k = 0; k < s->engs->len; k++) /* those being parked already count */
    n -= ((const Eng *)s->engs->pdata[k])->parking && !((const Eng *)s->engs->pdata[k])->away;
  for (; n > 0; n--) {
    Eng *g = least_loaded(s, ROLE_AGG);
    if (!g)
      break;
    g->parking = TRUE;
    check_parked(s, g);
  }
}

int sim_release(Sim *s, int n)
{
  int done = 0;
  for (int k = (int)s->engs->len - 1; k >= 0 && done < n; k--) {
    Eng *g = s->engs->pdata[k];
    if (g->parked && !g->waking && !g->away && !g->down)
      set_away(s, g, TRUE), done++;
  }
  return done;
}

int sim_grant(Sim *s, int n)
{
  int done = 0;
  for (guint k = 0; k < s->engs->len && done < n; k++) {
    Eng *g = s->engs->pdata[k];
    if (!g->away)
      continue;
    set_away(s, g, FALSE); /* parked, its weights loading */
    g->waking = TRUE, done++;
    push_external(s, s->now + s->p->autoscale_start, EV_WAKE, g->id);
  }
  return done;
}

char *sim_finish(Sim *s, SimResult *out)
{
  *out = (SimResult){ .outcome = OUTCOME_INFEASIBLE };
  if (s->past_horizon)
    return g_strdup_printf("the simulated clock passed %.0e s (%.0f years): steps or transfers that long are not "
                           "a serving deployment (check the profile's and the catalog's figures)", SIM_HORIZON,
                           SIM_HORIZON / 31557600.0);
  measure(s, out);
  if (s->series_ttft && s->now > s->series_end - s->p->series_interval) /* the last, part interval */
    series_row(s, s->now, s->now - (s->series_end - s->p->series_interval));
  out->outcome = out->measured ? OUTCOME_OK : OUTCOME_UNSUPPORTED;
  return out->measured ? NULL : g_strdup("no request completed inside the measurement window (more requests?)");
}

void sim_free(Sim *s)
{
  if (!s)
    return;
  event_queue_clear(&s->q);
  g_queue_clear(&s->held);
  if (s->fail_rand)
    g_rand_free(s->fail_rand);
  g_free(s->trays_down);
  if (s->power_rand)
    g_rand_free(s->power_rand);
  network_clear(&s->net);
  workload_clear(&s->w);
  g_array_unref(s->reqs);
  g_array_unref(s->free_reqs);
  if (s->series_ttft)
    g_array_unref(s->series_ttft), g_array_unref(s->series_tpot);
  metrics_free(s->m);
  for (int k = 0; k < MIX_MAX_CLASSES; k++)
    if (s->cm[k])
      metrics_free(s->cm[k]);
  g_ptr_array_unref(s->stepping);
  g_ptr_array_unref(s->engs);
  g_free(s->users);
  if (s->contexts)
    g_hash_table_unref(s->contexts);
  g_free(s);
}

char *serving_simulate(const SimConfig *p, const Engine *e, int engines, const Engine *d, int dec,
                       gboolean same_domain, SimResult *out)
{
  char *why = NULL;
  *out = (SimResult){ .outcome = OUTCOME_INFEASIBLE };
  Sim *s = sim_new(p, e, engines, d, dec, same_domain, &why);
  if (!s)
    return why;
  while (sim_step(s))
    ;
  why = sim_finish(s, out);
  sim_free(s);
  return why;
}
