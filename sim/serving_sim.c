/* serving_sim.c — event-driven serving simulation (see serving_sim.h). */
#include "serving_sim.h"
#include "comm.h"
#include "event_queue.h"
#include "memory.h"
#include "network.h"
#include "step_time.h"
#include "workload.h"

#include <math.h>
#include <string.h>

typedef enum { ROLE_AGG, ROLE_PREFILL, ROLE_DECODE } Role;
enum { EV_ARRIVAL, EV_ENTER, EV_STEP, EV_KV, EV_NET };

typedef struct {
  double arrival, first, done;
  int isl, osl, prefilled, generated, user;
  double reserved; /* KV tokens held on its current engine */
  int target;      /* the decode engine its KV cache is moving to */
} Req;

typedef struct {
  int id;                 /* index in Sim.engs */
  Role role;
  const Engine *e;
  double kv_cap, kv_used; /* tokens */
  int max_running;
  GQueue waiting;         /* request indices (GINT_TO_POINTER) */
  GArray *running;        /* int request indices, in admission order */
  gboolean busy;
  GArray *dec, *pre, *pre_tok; /* the step in flight: decoding requests, prefilling ones and their tokens */
  int steps;              /* decode steps the event in flight stands for (1, or more: a run of steps) */
  int nvl_up, nvl_down, nic_up, nic_down; /* its links in the network (disaggregated) */
  double busy_activity;   /* activity-weighted seconds of steps inside the window */
  double batch_sum;       /* decode sequences summed over decode steps (for the mean batch) */
  guint64 decode_steps;
} Eng;

typedef struct {
  const ScenarioParams *p;
  Workload w;
  EventQueue q;
  EventQueue external;    /* the arrivals, entries and KV transfers of Q again: how far a decode-only
                           * engine may run ahead in one event (see start_step) */
  GArray *reqs;           /* Req */
  GPtrArray *engs;        /* Eng *: the first n_front take new requests (aggregated or prefill) */
  int n_front, rr;
  double now;
  Network net;            /* KV transfers between pools, max-min fair */
  int net_version;        /* stamps EV_NET events; older stamps are stale */
  gboolean same_domain;   /* both pools in one NVLink domain */
  double kv_bytes_per_token, link_latency;
  double front_end;       /* s before a new request reaches an engine (the stack's request overhead) */
  guint created, completed, target;
  gboolean stop;
  /* the measurement window and time-weighted in-flight count */
  double t_start, area, last_t;
  int in_flight;
  GArray *done_ids;       /* int: requests completed, in completion order */
  guint64 steps;
} Sim;

static Req *req(Sim *s, int i) { return &g_array_index(s->reqs, Req, i); }

/* Events from outside the engines go into both queues; they leave both in the same order. */
static void push_external(Sim *s, double t, int kind, int who)
{
  event_queue_push(&s->q, t, kind, who);
  event_queue_push(&s->external, t, kind, who);
}

static double next_external(const Sim *s)
{
  return s->external.heap->len ? g_array_index(s->external.heap, Event, 0).time : INFINITY;
}

static Eng *eng_new(Role role, const Engine *e, const ScenarioParams *p, const EngineSpec *es, double ctx)
{
  Eng *g = g_new0(Eng, 1);
  g->role = role;
  g->e = e;
  MemoryPlan m;
  memory_plan(e, ctx, &m);
  /* KV room in tokens: the bytes left over the bytes one token of context takes on a GPU */
  g->kv_cap = MAX(m.kv_free, 0) / memory_kv_bytes_per_seq_gpu(e, 1) * engine_attn_dp(e);
  g->max_running = (int)MIN(es->max_batch, engine_batch_cap(e));
  g_queue_init(&g->waiting);
  g->running = g_array_new(FALSE, FALSE, sizeof(int));
  g->dec = g_array_new(FALSE, FALSE, sizeof(int));
  g->pre = g_array_new(FALSE, FALSE, sizeof(int));
  g->pre_tok = g_array_new(FALSE, FALSE, sizeof(int));
  return g;
}

static void eng_free(gpointer p)
{
  Eng *g = p;
  g_queue_clear(&g->waiting);
  g_array_unref(g->running);
  g_array_unref(g->dec);
  g_array_unref(g->pre);
  g_array_unref(g->pre_tok);
  g_free(g);
}

static void account(Sim *s)
{
  double from = MAX(s->last_t, s->t_start);
  if (s->t_start >= 0 && s->now > from)
    s->area += s->in_flight * (s->now - from);
  s->last_t = s->now;
}

/* KV tokens a request must hold on an engine of this role. */
static double need(const Eng *g, const Req *r) { return g->role == ROLE_PREFILL ? r->isl : r->isl + r->osl; }

static void try_admit(Sim *s, Eng *g)
{
  while (!g_queue_is_empty(&g->waiting) && (int)g->running->len < g->max_running) {
    int i = GPOINTER_TO_INT(g_queue_peek_head(&g->waiting));
    Req *r = req(s, i);
    double n = need(g, r);
    if (g->kv_used + n > g->kv_cap && g->running->len > 0)
      break; /* wait for room; an empty engine takes it anyway rather than stall forever */
    g_queue_pop_head(&g->waiting);
    r->reserved = n;
    g->kv_used += n;
    g_array_append_val(g->running, i);
  }
}

static void start_step(Sim *s, Eng *g)
{
  if (g->busy || s->stop)
    return;
  g_array_set_size(g->dec, 0), g_array_set_size(g->pre, 0), g_array_set_size(g->pre_tok, 0);
  double budget = g->role == ROLE_DECODE ? 0 : s->p->agg.chunked_prefill > 0 ? s->p->agg.chunked_prefill : 1e18;
  if (g->role == ROLE_PREFILL)
    budget = s->p->prefill.chunked_prefill > 0 ? s->p->prefill.chunked_prefill : 1e18;
  double ctx = 0, span = 0, tokens = 0;
  for (guint k = 0; k < g->running->len; k++) {
    int i = g_array_index(g->running, int, k);
    Req *r = req(s, i);
    if (r->prefilled >= r->isl) {
      g_array_append_val(g->dec, i);
      ctx += r->isl + r->generated;
    } else if (budget > 0) {
      int take = (int)MIN(r->isl - r->prefilled, budget);
      budget -= take;
      g_array_append_val(g->pre, i);
      g_array_append_val(g->pre_tok, take);
      tokens += take;
      span += take * (r->prefilled + take / 2.0);
    }
  }
  if (g->dec->len == 0 && g->pre->len == 0)
    return;
  StepBatch b = { .decode_seqs = g->dec->len, .decode_ctx = g->dec->len ? ctx / g->dec->len : 0,
                  .prefill_tokens = tokens, .prefill_seqs = g->pre->len, .prefill_ctx = tokens ? span / tokens : 0 };
  StepTime t;
  step_time(g->e, &b, &t);
  g->steps = 1;
  /* A decode-only engine whose batch cannot change before its next completion or the next request
   * from outside runs those steps as one event, timed at their mean context. */
  if (g->pre->len == 0 && (g_queue_is_empty(&g->waiting) || (int)g->running->len >= g->max_running)) {
    int per_step = 1 + g->e->draft_tokens, left = G_MAXINT;
    for (guint k = 0; k < g->dec->len; k++) {
      const Req *r = req(s, g_array_index(g->dec, int, k));
      left = MIN(left, r->osl - r->generated);
    }
    double room = (next_external(s) - s->now) / t.total;
    int n = (int)MIN(MIN(left / per_step, room), 1 << 16);
    if (n >= 2) {
      b.decode_ctx += (n - 1) * engine_tokens_per_step(g->e) / 2;
      step_time(g->e, &b, &t);
      g->steps = n;
    }
  }
  g->busy = TRUE;
  s->steps += (guint64)g->steps;
  if (s->t_start >= 0 && s->now >= s->t_start) {
    g->busy_activity += g->steps * t.total * t.activity;
    if (g->dec->len) {
      g->batch_sum += (double)g->dec->len * g->steps;
      g->decode_steps += (guint64)g->steps;
    }
  }
  event_queue_push(&s->q, s->now + g->steps * t.total, EV_STEP, g->id);
}

static Eng *least_loaded(Sim *s, int from, int to)
{
  Eng *best = NULL;
  guint best_load = G_MAXUINT;
  for (int k = from; k < to; k++) {
    Eng *g = s->engs->pdata[k];
    guint load = g->running->len + g_queue_get_length(&g->waiting);
    if (load < best_load)
      best = g, best_load = load;
  }
  return best;
}

/* The engine a new request goes to, by the scenario's router. */
static Eng *route(Sim *s)
{
  if (s->p->router == ROUTER_ROUND_ROBIN)
    return s->engs->pdata[s->rr++ % s->n_front];
  if (s->p->router == ROUTER_KV_AWARE) { /* the most free KV cache */
    Eng *best = s->engs->pdata[0];
    for (int k = 1; k < s->n_front; k++) {
      Eng *g = s->engs->pdata[k];
      if (g->kv_cap - g->kv_used > best->kv_cap - best->kv_used)
        best = g;
    }
    return best;
  }
  return least_loaded(s, 0, s->n_front);
}

static void new_request(Sim *s, int user, int isl, int osl)
{
  Req r = { .arrival = s->now, .first = NAN, .done = NAN, .isl = isl, .osl = osl, .user = user };
  int i = (int)s->reqs->len;
  g_array_append_val(s->reqs, r);
  s->created++;
  account(s);
  s->in_flight++;
  /* the stack's front end (HTTP, tokenizer) delays the request before an engine sees it */
  push_external(s, s->now + s->front_end, EV_ENTER, i);
}

static void enter(Sim *s, int i)
{
  Eng *g = route(s);
  g_queue_push_tail(&g->waiting, GINT_TO_POINTER(i));
  try_admit(s, g);
  start_step(s, g);
}

static void leave(Eng *g, int i, double reserved)
{
  for (guint k = 0; k < g->running->len; k++)
    if (g_array_index(g->running, int, k) == i) {
      g_array_remove_index(g->running, k);
      break;
    }
  g->kv_used -= reserved;
}

static void finish(Sim *s, Eng *g, int i)
{
  Req *r = req(s, i);
  r->done = s->now;
  leave(g, i, r->reserved);
  account(s);
  s->in_flight--;
  s->completed++;
  g_array_append_val(s->done_ids, i);
  if (s->t_start < 0 && s->completed >= (s->target + 9) / 10)
    s->t_start = s->now; /* no warm-up given: the window opens once a tenth of the requests are done */
  if (s->completed >= s->target)
    s->stop = TRUE;
  else if (r->user >= 0 && s->p->arrival == ARRIVAL_CLOSED)
    push_external(s, s->now + s->p->think_time, EV_ARRIVAL, r->user);
}

/* Tokens a decode step yields for one sequence: 1, plus MTP drafts accepted in a row. */
static int accepted(Sim *s, const Engine *e)
{
  int n = 1;
  for (int k = 0; k < e->draft_tokens && g_rand_double(s->w.rand) < e->acceptance; k++)
    n++;
  return n;
}

/* The next end among the network's flows, as an event stamped with the network's version. */
static void schedule_network(Sim *s)
{
  int f;
  double t = network_next_end(&s->net, &f);
  if (isfinite(t))
    push_external(s, t, EV_NET, ++s->net_version);
}

/* A finished prompt's KV cache starts for the least-loaded decode engine: over NVLink when both
 * pools share a domain, over the NICs otherwise, sharing links with the transfers in flight. */
static void start_transfer(Sim *s, Eng *from, int i)
{
  Req *r = req(s, i);
  Eng *to = least_loaded(s, s->n_front, (int)s->engs->len);
  r->target = to->id;
  int route[2] = { s->same_domain ? from->nvl_up : from->nic_up, s->same_domain ? to->nvl_down : to->nic_down };
  network_advance(&s->net, s->now);
  network_start(&s->net, route, 2, r->isl * s->kv_bytes_per_token, i);
  schedule_network(s);
}

static void network_event(Sim *s, int version)
{
  if (version != s->net_version)
    return; /* the rates changed after this event was scheduled */
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

static void step_done(Sim *s, Eng *g)
{
  g->busy = FALSE;
  for (guint k = 0; k < g->dec->len; k++) {
    int i = g_array_index(g->dec, int, k);
    Req *r = req(s, i);
    for (int n = 0; n < g->steps; n++)
      r->generated = MIN(r->osl, r->generated + accepted(s, g->e));
    if (r->generated >= r->osl)
      finish(s, g, i);
  }
  for (guint k = 0; k < g->pre->len; k++) {
    int i = g_array_index(g->pre, int, k);
    Req *r = req(s, i);
    r->prefilled += g_array_index(g->pre_tok, int, k);
    if (r->prefilled < r->isl)
      continue;
    if (g->role == ROLE_PREFILL) { /* the KV cache leaves for a decode engine */
      leave(g, i, r->reserved);
      start_transfer(s, g, i);
      continue;
    }
    r->first = s->now; /* the prompt's last chunk yields the first token */
    r->generated = 1;
    if (r->osl <= 1)
      finish(s, g, i);
  }
  try_admit(s, g);
  start_step(s, g);
}

static void kv_arrived(Sim *s, int i)
{
  Req *r = req(s, i);
  r->first = s->now;
  r->generated = 1;
  if (r->osl <= 1) {
    r->done = s->now;
    account(s);
    s->in_flight--;
    s->completed++;
    g_array_append_val(s->done_ids, i);
    if (s->completed >= s->target)
      s->stop = TRUE;
    return;
  }
  Eng *g = s->engs->pdata[r->target];
  g_queue_push_tail(&g->waiting, GINT_TO_POINTER(i));
  try_admit(s, g);
  start_step(s, g);
}

static void arrival(Sim *s, int who)
{
  const ScenarioParams *p = s->p;
  if (p->arrival == ARRIVAL_TRACE || p->trace) {
    const TraceRow *t = workload_trace_next(&s->w);
    if (t)
      new_request(s, -1, t->isl, t->osl);
    const TraceRow *next = s->w.trace && s->w.trace_next < s->w.trace->len
                             ? &g_array_index(s->w.trace, TraceRow, s->w.trace_next) : NULL;
    if (next)
      push_external(s, next->arrival, EV_ARRIVAL, -1);
    return;
  }
  int isl = workload_input(&s->w), osl = workload_output(&s->w);
  if (p->arrival == ARRIVAL_CLOSED) {
    new_request(s, who, isl, osl);
    return;
  }
  new_request(s, -1, isl, osl); /* open loop: the next arrival follows its own clock */
  if (s->created < s->target)
    push_external(s, s->now + workload_gap(&s->w), EV_ARRIVAL, -1);
}

static gint cmp_double(gconstpointer a, gconstpointer b)
{
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* p50, p90, p99 of V (sorted here), by linear interpolation. */
static void percentiles(GArray *v, double out[3])
{
  static const double q[3] = { 0.5, 0.9, 0.99 };
  g_array_sort(v, cmp_double);
  for (int k = 0; k < 3; k++) {
    if (v->len == 0) {
      out[k] = NAN;
      continue;
    }
    double pos = q[k] * (v->len - 1);
    guint lo = (guint)floor(pos), hi = MIN(lo + 1, v->len - 1);
    double a = g_array_index(v, double, lo), b = g_array_index(v, double, hi);
    out[k] = a + (b - a) * (pos - lo);
  }
}

static void measure(Sim *s, SimResult *out)
{
  const ScenarioParams *p = s->p;
  double t0 = s->t_start >= 0 ? s->t_start : 0, t1 = s->now;
  out->window = t1 - t0;
  g_autoptr(GArray) ttft = g_array_new(FALSE, FALSE, sizeof(double)), tpot = g_array_new(FALSE, FALSE, sizeof(double));
  g_autoptr(GArray) e2e = g_array_new(FALSE, FALSE, sizeof(double));
  double tokens = 0, e2e_sum = 0, good = 0;
  for (guint k = 0; k < s->done_ids->len; k++) {
    const Req *r = req(s, g_array_index(s->done_ids, int, k));
    if (r->done <= t0 || r->arrival < p->warmup)
      continue;
    double a = r->first - r->arrival, b = r->done - r->arrival;
    g_array_append_val(ttft, a);
    g_array_append_val(e2e, b);
    e2e_sum += b;
    tokens += r->osl;
    double c = r->osl > 1 ? (r->done - r->first) / (r->osl - 1) : NAN;
    if (isfinite(c))
      g_array_append_val(tpot, c);
    gboolean ok = (p->max_ttft <= 0 || a <= p->max_ttft) && (p->min_tok_s_per_user <= 0 || (isfinite(c) && c > 0 && 1 / c >= p->min_tok_s_per_user));
    good += ok;
  }
  out->measured = e2e->len;
  out->out_tok_s = out->window > 0 ? tokens / out->window : NAN;
  out->req_s = out->window > 0 ? e2e->len / out->window : NAN;
  out->goodput = out->window > 0 ? good / out->window : NAN;
  out->mean_e2e = e2e->len ? e2e_sum / e2e->len : NAN;
  out->mean_in_flight = out->window > 0 ? s->area / out->window : NAN;
  percentiles(ttft, out->ttft);
  percentiles(tpot, out->tpot);
  percentiles(e2e, out->e2e);
  double act = 0, batch = 0, steps = 0, gpus = 0;
  for (guint k = 0; k < s->engs->len; k++) {
    const Eng *g = s->engs->pdata[k];
    act += g->busy_activity * g->e->gpus;
    gpus += g->e->gpus;
    batch += g->batch_sum;
    steps += g->decode_steps;
  }
  out->gpus = gpus;
  out->gpu_activity = out->window > 0 ? MIN(act / (out->window * gpus), 1) : NAN;
  out->mean_batch = steps ? batch / steps : NAN;
  out->steps = s->steps;
}

static char *check(const Engine *e, double ctx)
{
  MemoryPlan m;
  char *why = engine_check(e);
  return why ? why : memory_plan(e, ctx, &m);
}

char *serving_simulate(const ScenarioParams *p, const Engine *e, int engines, const Engine *d, int dec,
                       gboolean same_domain, SimResult *out)
{
  *out = (SimResult){ 0 };
  double ctx = p->input.mean + p->output.mean;
  char *why = check(e, d ? p->input.mean : ctx);
  if (!why && d)
    why = check(d, ctx);
  if (why)
    return why;
  Sim s = { .p = p, .t_start = p->warmup > 0 ? p->warmup : -1, .target = (guint)p->requests, .front_end = e->prof->stack[e->stack].request_overhead };
  g_autoptr(GError) err = NULL;
  if (!workload_init(&s.w, p, &err))
    return g_strdup(err->message);
  event_queue_init(&s.q);
  event_queue_init(&s.external);
  s.reqs = g_array_new(FALSE, FALSE, sizeof(Req));
  s.done_ids = g_array_new(FALSE, FALSE, sizeof(int));
  s.engs = g_ptr_array_new_with_free_func(eng_free);
  for (int k = 0; k < engines; k++)
    g_ptr_array_add(s.engs, eng_new(d ? ROLE_PREFILL : ROLE_AGG, e, p, d ? &p->prefill : &p->agg, d ? p->input.mean : ctx));
  s.n_front = engines;
  for (int k = 0; d && k < dec; k++)
    g_ptr_array_add(s.engs, eng_new(ROLE_DECODE, d, p, &p->decode, ctx));
  for (guint k = 0; k < s.engs->len; k++)
    ((Eng *)s.engs->pdata[k])->id = (int)k;
  network_init(&s.net);
  if (d) { /* each engine's NVLink and NIC ports, one link each way, its GPUs' bandwidth together */
    CommLinks l;
    comm_links(e->sys, &e->prof->arch[e->sys->arch], 1.0, &l);
    s.same_domain = same_domain;
    s.link_latency = l.latency;
    s.kv_bytes_per_token = memory_kv_bytes_per_token_layer(e->model, d->kv_precision) * e->model->layers;
    for (guint k = 0; k < s.engs->len; k++) {
      Eng *g = s.engs->pdata[k];
      g->nvl_up = network_add_link(&s.net, g->e->gpus * l.nvlink_bw);
      g->nvl_down = network_add_link(&s.net, g->e->gpus * l.nvlink_bw);
      g->nic_up = network_add_link(&s.net, g->e->gpus * l.nic_bw);
      g->nic_down = network_add_link(&s.net, g->e->gpus * l.nic_bw);
    }
  }
  if (s.w.trace) {
    s.target = MIN(s.target, s.w.trace->len);
    if (s.w.trace->len)
      push_external(&s, g_array_index(s.w.trace, TraceRow, 0).arrival, EV_ARRIVAL, -1);
  } else if (p->arrival == ARRIVAL_CLOSED) {
    /* users start spread over one request's estimated duration: started together, fixed-length
     * requests would stay in lock-step forever, a transient no steady state has */
    const Engine *de = d ? d : e;
    double cycle = p->output.mean * step_time_decode(de, MAX(1.0, (double)p->users / (d ? dec : engines)),
                                                     p->input.mean + p->output.mean / 2);
    for (int u = 0; u < p->users; u++)
      push_external(&s, cycle * g_rand_double(s.w.rand), EV_ARRIVAL, u);
  } else {
    push_external(&s, 0, EV_ARRIVAL, -1);
  }
  Event ev;
  while (!s.stop && event_queue_pop(&s.q, &ev)) {
    if (p->duration > 0 && ev.time > p->duration)
      break;
    s.now = ev.time;
    if (ev.kind != EV_STEP) {
      Event twin;
      event_queue_pop(&s.external, &twin);
    }
    if (ev.kind == EV_ARRIVAL)
      arrival(&s, ev.who);
    else if (ev.kind == EV_ENTER)
      enter(&s, ev.who);
    else if (ev.kind == EV_STEP)
      step_done(&s, s.engs->pdata[ev.who]);
    else if (ev.kind == EV_NET)
      network_event(&s, ev.who);
    else
      kv_arrived(&s, ev.who);
  }
  account(&s);
  measure(&s, out);
  event_queue_clear(&s.q);
  event_queue_clear(&s.external);
  network_clear(&s.net);
  workload_clear(&s.w);
  g_array_unref(s.reqs);
  g_array_unref(s.done_ids);
  g_ptr_array_unref(s.engs);
  return out->measured ? NULL : g_strdup("no request completed inside the measurement window (more requests?)");
}
