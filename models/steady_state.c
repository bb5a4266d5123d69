/* steady_state.c — closed-loop, offline and SLO steady states (see steady_state.h). */
#include "steady_state.h"
#include "comm.h"
#include "memory.h"
#include "step_time.h"

#include <math.h>

#define ITERATIONS 80
#define MAX_SHARE 0.97 /* a queue is never allowed to saturate inside the fixed point */
#define SLO_BISECTIONS 16 /* steps from a grid interval (15%) to 2e-6 of the load */

typedef struct {
  double x;      /* requests/s of one engine */
  double tpot, ttft, step, bd, share;
  double ttft_p99; /* s, the 99th percentile of TTFT when prompts arrive as a Poisson stream */
} Solution;

/* Engine time K prompts of ISL tokens add to decode steps of BD sequences, per prompt, when the
 * steps' prefill budget takes CHUNK tokens of each (attention data-parallel engines run one on each
 * of up to K ranks at once): the full chunks, then the remainder, which costs what its own tokens
 * cost (a 9,400-token prompt under an 8,192 budget is 8,192 + 1,208 tokens, not two full chunks).
 * Every chunk's tokens attend to ISL / 2 on average, so the chunks' attention sums to the prompt's;
 * ISL is what the prompt computes, behind CACHED tokens a prefix cache held. */
static double prefill_cost(const Engine *e, double bd, double ctx, double isl, double cached, double chunk, double k)
{
  /* a prefix cache's tokens are not computed, but the new ones attend to them */
  StepBatch batch = { .decode_seqs = bd, .decode_ctx = ctx, .prefill_seqs = k, .prefill_ctx = cached + isl / 2 };
  StepTime t_with, t_without, t_rest;
  batch.with_prompts = TRUE; /* against the same step without their tokens, never a padded graph */
  step_time(e, &batch, &t_without);
  batch.prefill_tokens = k * chunk;
  step_time(e, &batch, &t_with);
  double full = floor(isl / chunk), rest = isl - full * chunk;
  double cost = full * (t_with.total - t_without.total);
  if (rest > 0) {
    batch.prefill_tokens = k * rest;
    step_time(e, &batch, &t_rest);
    cost += t_rest.total - t_without.total;
  }
  return cost / k;
}

/* TensorRT-LLM's attention-DP balancing (profile.h) when PROMPTS_PER_STEP arrive: the ranks fill
 * like coupons, ADP x H(ADP) prompts until every rank has one, or the timeout ends the gathering
 * first. Gives the steps of one gathering (0: no balancing) and, in *HOLD, the steps a prompt waits
 * on average: half the gathering, plus the batching wait when every rank got one. */
static double balance_window(const Engine *e, double prompts_per_step, double *hold)
{
  const StackProfile *sp = &e->prof->stack[e->stack];
  int adp = engine_attn_dp(e);
  *hold = 0;
  if (adp <= 1 || sp->adp_balance_timeout <= 0)
    return 0;
  double h = 0;
  for (int k = 1; k <= adp; k++)
    h += 1.0 / k;
  double collect = prompts_per_step > 0 ? adp * h / prompts_per_step : INFINITY;
  if (collect < sp->adp_balance_timeout) {
    *hold = 0.5 * collect + sp->adp_batching_wait;
    return collect;
  }
  *hold = 0.5 * sp->adp_balance_timeout;
  return sp->adp_balance_timeout;
}

/* TensorRT-LLM's batch waiting (profile.h) on an engine without attention-DP, when
 * PROMPTS_PER_STEP prompts of ISL tokens arrive and DECODE_TOKENS ride every step: the first
 * prompt is held until enough others arrive to fill the wanted share of the step's BUDGET, or
 * for the timeout. Gives the steps of one gathering (0: no waiting) and, in *HOLD, the steps a
 * prompt waits on average (half the gathering). */
static double batch_wait_window(const Engine *e, double isl, double budget, double decode_tokens,
                                double prompts_per_step, double *hold)
{
  const StackProfile *sp = &e->prof->stack[e->stack];
  *hold = 0;
  if (engine_attn_dp(e) > 1 || sp->batch_wait_timeout <= 0 || decode_tokens <= 0 || !(budget > 0))
    return 0;
  double want = (sp->batch_wait_tokens * budget - decode_tokens) / isl; /* prompts that end the wait */
  if (want <= 1)
    return 0;
  double collect = prompts_per_step > 0 ? (want - 1) / prompts_per_step : INFINITY;
  double window = MIN(collect, sp->batch_wait_timeout);
  *hold = 0.5 * window;
  return window;
}

/* Prompts that share a prefill step when PROMPTS_PER_STEP arrive and balancing gathers them for
 * WINDOW steps: one unless the engine's attention-DP ranks each take their own, up to one per rank. */
static double prompts_per_prefill_step(const Engine *e, double prompts_per_step, double window)
{
  return CLAMP(prompts_per_step * MAX(1, window), 1, engine_attn_dp(e));
}

double steady_prompt_wait_p99(double rate, double service)
{
  double rho = MIN(rate * service, MAX_SHARE);
  return rho > 0.01 ? service / (2 * (1 - rho)) * log(100 * rho) : 0;
}

/* A decode step of BD sequences: its time as a decode-only step (*PADDED, in a captured graph that
 * may pad it, engine.h) and as the decode part of a step that carries prompt chunks (*BESIDE: the
 * batch as it is); the same without a capture list. */
static void decode_steps(const Engine *e, double bd, double ctx, double *padded, double *beside)
{
  *padded = step_time_decode(e, bd, ctx);
  *beside = e->graphs.n > 0 ? step_time_decode_beside_prompts(e, bd, ctx) : *padded;
}

/* The mean decode step when a share MIXED of the steps carries prompt chunks. */
static double mean_step(double padded, double beside, double mixed)
{
  return mixed * beside + (1 - mixed) * padded;
}

/* One aggregated engine with USERS closed-loop users and room for CAP sequences. Each second the
 * engine spends X t_prefill on prompts and the rest on decode steps; the step interval stretches to
 * t_decode / (1 - X t_prefill). Demand sets X = users / (TTFT + decode time + think time) unless the
 * engine is saturated: then X is what its time allows with CAP sequences decoding,
 * 1 / (t_prefill + OSL/a x t_decode / batch), and the extra users wait for admission. */
static void solve_aggregated(const Engine *e, const Load *ld, double users, double cap, Solution *s)
{
  double a = engine_tokens_per_step(e), ctx = ld->isl + ld->osl / 2;
  /* a prompt computes what it did not find cached */
  double fresh = MAX(1, ld->isl - ld->cached), off = ld->isl - fresh;
  double chunk = ld->chunk > 0 ? MIN(ld->chunk, fresh) : fresh, n_chunks = ceil(fresh / chunk);
  /* each attention-DP rank takes prompts of its own, within a prefill budget of its own */
  double adp = engine_attn_dp(e), budget = (ld->chunk > 0 ? ld->chunk : fresh) * adp;
  double k_fit = MAX(1, floor(budget / fresh)); /* whole prompts one step's budget holds */
  double overhead = ld->users > 0 ? engine_front_end(e, ld->isl) : 0;
  /* a saturated attention-DP engine prefills a prompt on every rank at once */
  double tp_cap = prefill_cost(e, cap, ctx, fresh, off, chunk, adp), td_cap, td_cap_beside;
  decode_steps(e, cap, ctx, &td_cap, &td_cap_beside);
  double recv = engine_recv_interval(e);
  gboolean overlaps = engine_overlaps(e);
  s->x = s->step = 0;
  s->bd = MIN(users, cap);
  for (int it = 0; it < ITERATIONS; it++) {
    /* the steps that carry a prompt's chunk decode their batch as it is; the others, decode only,
     * in a captured graph that may pad it (engine.h): a share MIXED of the steps carries chunks */
    double mixed = CLAMP(s->x * s->step * n_chunks, 0, 1), td_padded, td_beside;
    decode_steps(e, s->bd, ctx, &td_padded, &td_beside);
    double td = mean_step(td_padded, td_beside, mixed);
    /* the most requests/s the engine's time allows: every slot decoding (decode steps amortise
     * best over the largest batch) */
    double x_max = 1 / (tp_cap + (ld->osl - 1) / a * mean_step(td_cap, td_cap_beside, mixed) / cap);
    double hold, window = balance_window(e, s->x * s->step, &hold);
    double k = prompts_per_prefill_step(e, s->x * s->step, window);
    double held, wait = batch_wait_window(e, fresh, budget, s->bd * a, s->x * s->step, &held);
    if (wait > 0) { /* the prompts gathered meanwhile share the released step, as far as it holds them */
      k = CLAMP(1 + s->x * s->step * wait, 1, k_fit);
      hold = held;
    }
    double busy = MIN(1, s->bd * (users - 1) / users); /* a prompt meets other users' steps */
    if (recv > 1) { /* a busy scheduler's next look is half an interval away on average (an idle one
                     * looks at once); the prompts that arrived meanwhile share the step after it */
      hold += 0.5 * recv * busy;
      k = MAX(k, CLAMP(s->x * s->step * recv, 1, k_fit));
    }
    if (overlaps) /* a busy host formed the next batch already */
      hold += busy;
    double tp = prefill_cost(e, s->bd, ctx, fresh, off, chunk, k);
    s->share = MIN(s->x * tp, MAX_SHARE);
    s->step = td / (1 - s->share);
    s->tpot = s->step / a;
    /* a prompt waits out the step under way, then rides N_CHUNKS steps that each carry one of its
     * chunks (a decode step plus the chunk's work), and waits behind other prompts as often as
     * the steps' prefill budget is taken (prompt tokens arriving per step against the budget) */
    double chunk_load = MIN(s->x * s->step * fresh / budget, MAX_SHARE);
    double queued = n_chunks * s->step * chunk_load / (1 - chunk_load);
    double ttft_engine = 0.5 * s->step + n_chunks * (td + k * tp / n_chunks) + queued + overhead +
                         hold * s->step;
    /* under Poisson arrivals the queue's tail (steady_state.h), not its mean, meets a p99 limit: a
     * prompt holds the prefill budget for its own prefill plus its share of the steps carrying it */
    double service = tp + td * fresh / budget;
    s->ttft_p99 = ttft_engine - queued + MAX(queued, steady_prompt_wait_p99(s->x, service));
    double decode = (ld->osl - 1) * s->tpot;
    /* the ceiling itself, not a share of it: where more sequences barely add throughput (a
     * compute-bound engine) a cap below it would hold users in an admission queue that the engine,
     * with slots free, does not have */
    double x_new = MIN(users / (ttft_engine + decode + ld->think_time), x_max);
    s->x = it == 0 ? x_new : 0.5 * s->x + 0.5 * x_new;
    s->bd = CLAMP(s->x * decode, 1e-9, cap);
    s->ttft = ttft_engine + MAX(0, users / s->x - ttft_engine - decode - ld->think_time);
  }
}

static void fill(SteadyState *o, const Solution *s, double engines, double osl, double gpus)
{
  o->out_tok_s = s->x * engines * osl;
  o->gpus = gpus;
  o->out_tok_s_per_gpu = o->out_tok_s / gpus;
  o->tpot = s->tpot;
  o->tok_s_per_user = 1 / s->tpot;
  o->ttft = s->ttft;
  o->ttft_p99 = s->ttft_p99;
  o->batch = s->bd;
  o->step = s->step;
  o->prefill_share = s->share;
}

/* PROMPT_ONLY: a prefill engine, which holds prompts until they leave for a decode engine. */
static char *plan(const Engine *e, const Load *ld, gboolean prompt_only, MemoryPlan *m)
{
  *m = (MemoryPlan){ NAN, NAN, NAN, NAN, NAN }; /* unknown until memory_plan runs */
  char *why = engine_check(e);
  return why ? why : memory_plan(e, memory_context(e, ld->isl, ld->osl, prompt_only), m);
}

static gboolean within_limits(const Solution *s, const Load *ld)
{
  return s->tpot <= ld->tpot_limit && s->ttft_p99 <= ld->ttft_p99_limit;
}

char *steady_aggregated(const Engine *e, int engines, const Load *ld, SteadyState *out)
{
  MemoryPlan m;
  char *why = plan(e, ld, FALSE, &m);
  *out = (SteadyState){ .weights = m.weights, .kv_free = m.kv_free, .max_seqs = m.max_seqs };
  if (why)
    return why;
  double cap = MIN(m.max_seqs, engine_launch_cap(e, ld->max_batch));
  Solution s;
  if (ld->users > 0) {
    solve_aggregated(e, ld, ld->users / engines, cap, &s);
  } else if (ld->tpot_limit > 0) { /* the largest batch that meets the limits */
    Solution best = { 0 };
    double b_pass = 0, b_fail = 0; /* the best load that meets them, and the next grid point, which does not */
    for (double b = 1; b <= cap * 1.0001; b = MIN(b * 1.15 + 1, b < cap ? cap : b * 2)) {
      solve_aggregated(e, ld, b, cap, &s);
      gboolean meets = within_limits(&s, ld);
      if (meets && s.x > best.x)
        best = s, b_pass = b, b_fail = 0;
      else if (!meets && b_pass > 0 && b_fail == 0)
        b_fail = b;
      if (b >= cap)
        break;
    }
    /* a limit binds between two grid points, 15% apart: bisect there, so that the answer moves
     * smoothly with the profile instead of jumping a grid step (TTFT 2x near saturation) when a
     * fitted figure moves in its sixth digit */
    for (int k = 0; k < SLO_BISECTIONS && b_fail > 0; k++) {
      double mid = 0.5 * (b_pass + b_fail);
      solve_aggregated(e, ld, mid, cap, &s);
      if (within_limits(&s, ld)) {
        b_pass = mid;
        if (s.x > best.x)
          best = s;
      } else {
        b_fail = mid;
      }
    }
    if (best.x <= 0)
      return g_strdup_printf("no batch meets TPOT %.0f ms and p99 TTFT %.0f ms", ld->tpot_limit * 1e3,
                             ld->ttft_p99_limit * 1e3);
    s = best;
  } else {
    solve_aggregated(e, ld, cap, cap, &s);
  }
  fill(out, &s, engines, ld->osl, (double)engines * e->gpus);
  double ctx = ld->isl + ld->osl / 2;
  out->gpu_activity = (1 - s.share) * step_activity_decode(e, s.bd, ctx) +
                      s.share * step_activity_prefill(e, 1, ld->isl);
  return NULL;
}

/* Seconds to move one prompt's KV cache from a prefill engine to a decode engine: as many
 * parallel links as the smaller engine has GPUs. */
static double kv_transfer(const Engine *p, const Engine *d, gboolean same_domain, double isl)
{
  const ArchProfile *a = &p->prof->arch[p->sys->arch];
  CommLinks l;
  comm_links(p->sys, a, &p->prof->on[p->sys->arch], 1.0, &l);
  double bytes = memory_kv_bytes_per_token_layer(p->model, d->kv_precision) * p->model->layers * isl;
  int lanes = MIN(p->gpus, d->gpus);
  return bytes / (lanes * (same_domain ? l.nvlink_bw : l.nic_bw)) + l.latency;
}

char *steady_disaggregated(const Engine *p, int pre, const Engine *d, int dec, gboolean same_domain,
                           const Load *ld, SteadyState *out)
{
  MemoryPlan mp, md;
  char *why = plan(p, ld, TRUE, &mp);
  if (!why)
    why = plan(d, ld, FALSE, &md);
  *out = (SteadyState){ 0 };
  if (why)
    return why;
  out->weights = md.weights, out->kv_free = md.kv_free, out->max_seqs = md.max_seqs;
  double a = engine_tokens_per_step(d), ctx = ld->isl + ld->osl / 2;
  /* a prompt computes what it did not find cached; its whole KV cache moves */
  double fresh = MAX(1, ld->isl - ld->cached), off = ld->isl - fresh;
  /* a prefill batch holds the prompts its budget fits on each attention rank */
  double k_max = MAX(1, floor((ld->chunk > 0 ? ld->chunk : fresh) / fresh)) * engine_attn_dp(p);
  double cap = MIN(md.max_seqs, engine_launch_cap(d, ld->max_batch));
  double users = ld->users > 0 ? ld->users : cap * dec;
  /* the prefill pool's ceiling, every engine running full batches back to back: beyond it prompts
   * queue (the users who wait show in TTFT below), as beyond the decode pool's */
  double tb_max = step_time_prefill_after(p, k_max, fresh, off);
  double x_pre = MAX_SHARE * pre * k_max / tb_max;
  /* the handoff (second hop, worker handshake) precedes the transfer */
  double t_kv = p->prof->stack[p->stack].handoff_overhead + kv_transfer(p, d, same_domain, ld->isl);
  double overhead = ld->users > 0 ? engine_front_end(d, ld->isl) : 0;
  Solution s = { .bd = MIN(users / dec, cap) };
  double k = 1, rho = 0;
  for (int it = 0; it < ITERATIONS; it++) {
    double tb = step_time_prefill_after(p, k, fresh, off);
    rho = MIN(s.x * tb / (k * pre), MAX_SHARE);
    /* a prompt waits for the batch under way (busy a share rho of the time, half of it left on
     * average), and behind whole batches only as the pool nears its ceiling: a server of K_MAX
     * prompts per full batch, M/D/1 in batches. With one prompt a batch the two are the same
     * M/D/1 wait; with many, the prompts that arrive during a batch all ride the next one (K
     * follows the arrivals), so rho near 1 is a busy pool, not an endless queue. */
    double load = MIN(s.x * tb_max / (k_max * pre), MAX_SHARE);
    double wait = MAX(rho * tb / 2, tb_max * load / (2 * k_max * (1 - load)));
    double td = step_time_decode(d, s.bd, ctx);
    /* a decode engine busy with other users' sequences takes the transferred request in after the
     * stack's handoff_steps of its steps (its scheduler's looks at the transfers); an idle one at
     * once, as the event simulation does */
    double per = users / dec, busy = per > 1 ? MIN(1, s.bd * (per - 1) / per) : 0;
    double ttft = tb + wait + t_kv + d->prof->stack[d->stack].handoff_steps * td * busy + overhead;
    s.step = td;
    s.tpot = td / a;
    double decode = (ld->osl - 1) * s.tpot;
    double x_dec = dec * cap / decode; /* the decode pool's ceiling */
    double x_new = MIN(users / (ttft + decode + ld->think_time), MIN(x_dec, x_pre));
    s.x = it == 0 ? x_new : 0.5 * s.x + 0.5 * x_new;
    s.bd = MAX(MIN(s.x * decode / dec, cap), 1e-9);
    k = MIN(k_max, MAX(1, s.x * tb / pre)); /* prompts that arrive during one prefill batch */
    s.ttft = ttft + MAX(0, users / s.x - ttft - decode - ld->think_time);
  }
  fill(out, &s, 1, ld->osl, (double)pre * p->gpus + (double)dec * d->gpus);
  out->ttft_p99 = NAN; /* not modelled for the pools */
  double decode = (ld->osl - 1) * s.tpot;
  out->pool_load = MAX(s.x * tb_max / (k_max * pre), s.x * decode / (dec * cap));
  /* prefill GPUs are busy for the share rho of the time, decode GPUs always */
  double gp = (double)pre * p->gpus, gd = (double)dec * d->gpus;
  out->gpu_activity = (gp * rho * step_activity_prefill(p, k, ld->isl) + gd * step_activity_decode(d, s.bd, ctx)) /
                      (gp + gd);
  return NULL;
}
