/* evaluate.c — point -> result row (see evaluate.h). */
#include "evaluate.h"

#include <math.h>
#include <string.h>
#include "power.h"
#include "precision.h"
#include "label.h"
#include "predict.h"
#include "serving_sim.h"
#include "floor_sim.h"
#include "slo.h"
#include "workload.h"

char *point_family_label(const Point *pt)
{
  const ServingParams *sv = &pt->p.serving;
  const EngineSpec *e = sv->mode == MODE_DISAGGREGATED ? &sv->decode : &sv->agg;
  const char *cls = e->attention_dp ? (e->ep > 1 ? "attention-DP + EP" : "attention-DP")
                    : e->ep > 1     ? "TP + EP"
                    : e->pp > 1     ? "TP + PP"
                                    : "TP";
  return g_strdup_printf("%s: %s", mode_names[sv->mode], cls);
}

void evaluate_engine(const Point *pt, const Profile *prof, const EngineSpec *es, Engine *out)
{
  const ScenarioParams *p = &pt->p;
  Stack stack = framework_stack(p->serving.framework);
  *out = (Engine){
    .sys = &pt->system, .model = &pt->model, .prof = prof, .precision = p->serving.precision,
    .kv_precision = kv_precision_for(p->serving.kv_precision, p->serving.precision, prof, stack),
    .stack = stack, .dynamo_front = framework_dynamo(p->serving.framework),
    .gpus = es->tp * es->pp, .pp = es->pp, .ep = es->ep,
    .dp_attention = es->attention_dp, .native_only = !p->serving.weight_only,
    .draft_tokens = p->serving.spec_method == SPEC_MTP ? p->serving.spec_tokens : 0,
    .acceptance = p->serving.spec_acceptance,
    /* EPLB slots where the engine's experts are spread over more than one GPU */
    .expert_slots = es->ep > 1 ? p->serving.expert_slots : 0, .eager = !p->serving.cuda_graphs,
  };
  /* TensorRT-LLM's MoE backend as launched (launch.c writes the same; where it matters:
   * engine_trtllm_gen_moe) */
  out->trtllm_gen_moe = moe_backend_trtllm_gen(p->serving.moe_backend, engine_moe_tp(out));
  /* the CUDA graphs `aifsim launch` captures for it (launch.c writes the same list) */
  if (p->serving.cuda_graphs)
    engine_stack_graphs(stack, out->draft_tokens, es->max_batch, &out->graphs);
}

double evaluate_gpu_cap(const FactoryParams *f, const SystemSpec *s)
{
  double cap = f->gpu_power_cap;
  if (f->rack_power_cap > 0) {
    double from_rack = power_gpu_for_it(s, f->rack_power_cap / s->gpus_per_rack);
    cap = cap > 0 ? MIN(cap, from_rack) : from_rack;
  }
  return cap;
}

void evaluate_factory_spec(const FactoryParams *f, const SystemSpec *s, FactorySpec *out)
{
  *out = (FactorySpec){
    .budget = f->power_budget, .gpus = f->factory_gpus, .pue = f->pue, .other_it_fraction = f->other_it_fraction,
    .provisioning = f->provisioning, .gpu_power_cap = evaluate_gpu_cap(f, s), .energy_price = f->energy_price, .amortisation = f->amortisation,
    .fabric = { .radix = f->switch_radix, .tiers = f->fabric_tiers, .optics = f->optics,
                .copper_first_tier = f->copper_first_tier, .transceiver_power = f->transceiver_power,
                .transceiver_cost = f->transceiver_cost, .cpo_port_power = f->cpo_port_power,
                .switch_port_power = f->switch_port_power },
  };
}

/* The factory a budget (or GPU count) of such GPUs makes, at the outcome's power and throughput;
 * FALSE (the point infeasible, with the numbers) when the fat tree asked for cannot hold its GPUs. */
static gboolean evaluate_factory(const Point *pt, const Outcome *o, ResultRow *row)
{
  FactorySpec fs;
  FactoryPlan fp;
  evaluate_factory_spec(&pt->p.factory, &pt->system, &fs);
  const FactoryParams *f = &pt->p.factory;
  if (f->rack_power_cap > 0 && fs.gpu_power_cap <= pt->system.idle_power) {
    g_free(row->reason);
    row->status = OUTCOME_INFEASIBLE;
    row->reason = g_strdup_printf("factory.rack_power_cap: %.0f W per rack leaves %.0f W per GPU after the rest of the "
                                  "rack, not above its %.0f W idle",
                                  f->rack_power_cap, fs.gpu_power_cap, pt->system.idle_power);
    return FALSE;
  }
  factory_plan(&pt->system, &fs, o->gpu_power_w, o->out_tok_s_per_gpu, &fp);
  if (fp.racks < 1) { /* the budget holds no rack: no factory, nothing to score */
    g_free(row->reason);
    row->status = OUTCOME_INFEASIBLE;
    row->reason = g_strdup_printf("factory.power_budget: %.4g MW holds no %s rack, which needs at least %.4g MW at the "
                                  "facility (%d GPUs at %.0f W of IT each, the IT beside them and PUE %.3g)",
                                  fs.budget / 1e6, pt->system.id, fp.rack_w / 1e6, pt->system.gpus_per_rack,
                                  fp.peak_it_per_gpu, fp.pue);
    return FALSE;
  }
  if (!fp.fabric.fits) {
    int need = fabric_tiers_for(fp.gpus, fs.fabric.radix);
    g_free(row->reason);
    row->status = OUTCOME_INFEASIBLE;
    row->reason = fabric_capacity(need, fs.fabric.radix) >= fp.gpus
                    ? g_strdup_printf("factory.fabric.tiers: %d tiers of radix-%d switches hold %.0f GPUs, the factory "
                                      "has %.0f: ask for %d tiers, larger switches, or tiers 0 (sized by aifsim)",
                                      fp.fabric.tiers, fs.fabric.radix, fp.fabric.capacity, fp.gpus, need)
                    : g_strdup_printf("no fat tree of up to 4 tiers of radix-%d switches holds the factory's %.0f GPUs: "
                                      "larger switches", fs.fabric.radix, fp.gpus);
    return FALSE;
  }
  row->gpu_power_w = o->gpu_power_w;
  row->it_w_per_gpu = o->it_w_per_gpu;
  row->facility_mw = fp.facility_w / 1e6;
  row->it_mw = fp.it_w / 1e6;
  row->racks = fp.racks;
  row->gpus = fp.gpus;
  row->fabric_tiers = fp.fabric.tiers;
  row->optics_w_per_gpu = fp.fabric.optics_w_per_gpu;
  row->tok_s_per_mw = fp.tok_s_per_mw;
  row->tok_s_per_mw_it = fp.tok_s_per_mw_it;
  row->tok_s_per_mw_drawn = fp.tok_s_per_mw_drawn;
  row->joules_per_token = fp.joules_per_token;
  row->usd_per_mtok = fp.usd_per_mtok;
  return TRUE;
}

/* The scenario point as a deployment: the one adapter from the scenario side (validate.c has the
 * other, from a measured row). */
static void point_deployment(const Point *pt, const Profile *prof, SimConfig *sim, Deployment *d)
{
  const ScenarioParams *p = &pt->p;
  sim_config_from_scenario(p, sim);
  const WorkloadParams *w = &p->workload;
  *d = (Deployment){ .disaggregated = p->serving.mode == MODE_DISAGGREGATED, .framework = p->serving.framework,
                     .sim = sim,
                     .load = { .isl = workload_mean_prompt(sim), .osl = sim->output.mean, .users = w->users,
                               .think_time = w->think_time } };
  /* the steady state's prefix-cache hits: the scenario's rate, or what the workload reuses */
  double hit = !p->serving.prefix_cache ? 0 : p->serving.cache_hit_rate > 0 ? p->serving.cache_hit_rate
                                                                          : workload_reuse(sim, d->disaggregated);
  d->load.cached = hit * d->load.isl;
  if (!d->disaggregated) {
    evaluate_engine(pt, prof, &p->serving.agg, &d->decode);
    d->dec_workers = p->serving.agg.workers;
    d->load.max_batch = sim->agg.max_batch, d->load.chunk = p->serving.agg.chunked_prefill; /* per engine */
  } else {
    evaluate_engine(pt, prof, &p->serving.prefill, &d->prefill);
    evaluate_engine(pt, prof, &p->serving.decode, &d->decode);
    d->pre_workers = p->serving.prefill.workers, d->dec_workers = p->serving.decode.workers;
    d->load.max_batch = sim->decode.max_batch, d->load.chunk = p->serving.prefill.chunked_prefill;
    double total = (double)d->pre_workers * d->prefill.gpus + (double)d->dec_workers * d->decode.gpus;
    d->same_domain = total <= pt->system.nvlink_domain_gpus;
  }
  d->prefill.power_limit = d->decode.power_limit = evaluate_gpu_cap(&p->factory, &pt->system);
}

void evaluate_deployment(const Point *pt, const Profile *prof, SimConfig *sim, Deployment *d)
{
  point_deployment(pt, prof, sim, d);
}

/* Every point by the event simulation, on the native network or SimGrid; the steady-state model
 * when asked for (a fast screen), and for a closed loop with more users than D runs at once: such a
 * point is queue-bound whatever either method finds (predict_judge_load), never on the frontier,
 * and the steady state gives its figures for a fraction of the event simulation's time. */
static PredictMethod point_method(const ScenarioParams *p, const Deployment *d, const Ceilings *c)
{
  if (p->serving.engine == SIM_SIMGRID)
    return METHOD_SIMGRID;
  gboolean steady_can = p->serving.green_prefill_sms <= 0 && p->workload.arrival == ARRIVAL_CLOSED && !p->workload.trace;
  if (!steady_can)
    return METHOD_DES;
  if (p->serving.engine == SIM_STEADY)
    return METHOD_STEADY;
  if (p->workload.think_time <= 0 && !p->serving.planner && c->known && d->load.users > c->slots + 0.5)
    return METHOD_STEADY;
  return METHOD_DES;
}

/* What the point is, in the results' own columns. */
static void describe(const Point *pt, ResultRow *row)
{
  const ScenarioParams *p = &pt->p;
  const WorkloadParams *w = &p->workload;
  gboolean disagg = p->serving.mode == MODE_DISAGGREGATED;
  const EngineSpec *e = disagg ? &p->serving.decode : &p->serving.agg;
  row->mode = g_strdup(mode_names[p->serving.mode]);
  row->framework = g_strdup(framework_names[p->serving.framework]);
  row->precision = g_strdup(precision_names[p->serving.precision]);
  row->arrival = g_strdup(arrival_names[w->trace ? ARRIVAL_TRACE : w->arrival]);
  row->users = w->arrival == ARRIVAL_CLOSED && !w->trace ? w->users : NAN;
  SimConfig sim;
  sim_config_from_scenario(p, &sim);
  /* open loop: the rate offered on average (a curve's mean share of its base rate) */
  row->rate_req_s = (w->arrival == ARRIVAL_POISSON || w->arrival == ARRIVAL_GAMMA) && !w->trace
                      ? w->rate * workload_curve_share(&sim) : NAN;
  row->isl = workload_mean_prompt(&sim), row->osl = sim.output.mean;
  row->workers = e->workers, row->tp = e->tp, row->pp = e->pp, row->ep = e->ep, row->attention_dp = e->attention_dp;
  row->max_batch = e->max_batch;
  if (disagg) {
    const EngineSpec *f = &p->serving.prefill;
    row->prefill_workers = f->workers, row->prefill_tp = f->tp, row->prefill_pp = f->pp, row->prefill_ep = f->ep;
    row->prefill_attention_dp = f->attention_dp;
  }
  if (disagg || p->serving.agg.workers > 1 || p->factory.floor)
    row->router = g_strdup(router_names[p->serving.router]);
  row->mtp_tokens = p->serving.spec_method == SPEC_MTP ? p->serving.spec_tokens : 0;
  row->oversubscription = p->factory.oversubscription;
  row->budget_mw = p->factory.factory_gpus > 0 ? NAN : p->factory.power_budget / 1e6;
  row->factory_gpus = p->factory.factory_gpus > 0 ? p->factory.factory_gpus : NAN;
  row->swept = g_strdup(pt->swept ? pt->swept : "");
}

/* Of a window's requests, the share answered: all but the lost (LOST_SHARE, NAN without failures). */
static double answered_share(double lost_share)
{
  return isfinite(lost_share) ? 1 - lost_share : 1;
}

/* ROW's point cannot run, for WHY (taken). */
static void refuse(ResultRow *row, char *why)
{
  row->status = OUTCOME_INFEASIBLE;
  g_free(row->reason);
  row->reason = why;
}

/* The floor (factory.floor.simulate): copies of the point's deployment the factory's GPUs hold, how
 * many of them the fast path simulates, and the engines of one. NULL, or why it cannot be sized. */
typedef struct {
  double copies, simulated, engines_per_copy, gpus_per_copy;
} Floor;

/* The GPUs of the floor (factory.gpus, or what the budget provisions) into *GPUS; NULL, or why it
 * has no size before it runs. */
static char *floor_gpus_of(const Point *pt, double *gpus)
{
  const ScenarioParams *p = &pt->p;
  if (p->factory.provisioning == PROVISION_DRAWN && p->factory.factory_gpus == 0)
    return g_strdup("factory.floor.simulate sizes the floor before it runs it: with factory.provisioning: drawn "
                    "(racks for what they draw), give factory.gpus");
  FactorySpec fs;
  FactoryPlan plan;
  evaluate_factory_spec(&p->factory, &pt->system, &fs);
  factory_plan(&pt->system, &fs, pt->system.tdp, 0, &plan);
  *gpus = plan.gpus;
  return NULL;
}

/* The copies of the point's deployment FLOOR_GPUS hold, and how many of them the fast path runs. */
static char *floor_copies(const Point *pt, double floor_gpus, Floor *f)
{
  const ScenarioParams *p = &pt->p;
  const ServingParams *sv = &p->serving;
  gboolean disagg = sv->mode == MODE_DISAGGREGATED;
  double gpus = disagg ? (double)sv->prefill.workers * sv->prefill.tp * sv->prefill.pp +
                           (double)sv->decode.workers * sv->decode.tp * sv->decode.pp
                       : (double)sv->agg.workers * sv->agg.tp * sv->agg.pp;
  f->engines_per_copy = disagg ? sv->prefill.workers + sv->decode.workers : sv->agg.workers;
  f->gpus_per_copy = gpus;
  f->copies = floor(floor_gpus / gpus);
  if (f->copies < 1)
    return g_strdup_printf("factory.floor.simulate: the factory's %.0f GPUs hold no copy of the %.0f-GPU deployment",
                           floor_gpus, gpus);
  /* whole copies, as many as the sample's engines allow (at least one) */
  double sample = p->factory.sample_engines > 0 ? MAX(1, floor(p->factory.sample_engines / f->engines_per_copy)) : f->copies;
  f->simulated = MIN(f->copies, sample);
  return NULL;
}

static char *floor_size(const Point *pt, Floor *f)
{
  double gpus;
  char *why = floor_gpus_of(pt, &gpus);
  return why ? why : floor_copies(pt, gpus, f);
}

/* The point as the floor's simulated part: SIMULATED copies of its deployment with their share of
 * the demand (a router spreading it evenly gives each copy 1/COPIES), the run as long as the
 * workload's duration (its figures after the first tenth of it, unless a warm-up is given), or its
 * share of the floor's requests. */
static void floor_share(const Floor *f, ScenarioParams *p)
{
  double share = f->simulated / f->copies;
  ServingParams *sv = &p->serving;
  if (sv->mode == MODE_DISAGGREGATED)
    sv->prefill.workers = (int)(sv->prefill.workers * f->simulated), sv->decode.workers = (int)(sv->decode.workers * f->simulated);
  else
    sv->agg.workers = (int)(sv->agg.workers * f->simulated);
  WorkloadParams *w = &p->workload;
  w->rate *= share;
  w->users = (int)MAX(1, round(w->users * share));
  if (w->duration > 0 && w->arrival != ARRIVAL_CLOSED) {
    /* the run lasts its duration: the requests are what arrives, and a steady window opens after
     * the first tenth of the time (as it would after the first tenth of the requests) */
    w->requests = G_MAXINT;
    if (w->window == WINDOW_STEADY && w->warmup <= 0)
      w->warmup = w->duration / 10;
  } else {
    w->requests = (int)MAX(1, ceil(w->requests * share));
  }
}

/* The facility power of each row's activity, over the floor's GPUs (FS's arithmetic). */
static void floor_series_power(const Point *pt, GArray *series, gsize from)
{
  FactorySpec fs;
  evaluate_factory_spec(&pt->p.factory, &pt->system, &fs);
  for (guint i = (guint)from; series && i < series->len; i++) {
    SeriesRow *r = &g_array_index(series, SeriesRow, i);
    FactoryPlan fp;
    factory_plan(&pt->system, &fs, power_gpu(&pt->system, r->gpu_activity, 1), 0, &fp);
    r->facility_w = fp.avg_facility_w;
  }
}

/* The simulated part's time series as the floor's: its load times the copies per simulated one, and
 * the facility power its activity draws (FS's arithmetic over the floor's GPUs). */
static void series_scale(double scale, GArray *series, gsize from)
{
  for (guint i = (guint)from; series && i < series->len; i++) {
    SeriesRow *r = &g_array_index(series, SeriesRow, i);
    r->offered *= scale, r->served *= scale, r->out_tok_s *= scale, r->in_flight *= scale, r->engines_down *= scale;
    r->queued *= scale, r->serving_engines *= scale, r->prefill_engines *= scale, r->gpus *= scale;
  }
}

static void floor_series(const Point *pt, double scale, GArray *series, gsize from)
{
  series_scale(scale, series, from);
  floor_series_power(pt, series, from);
}

/* The label of the whole floor, every copy of the deployment (not of its simulated part). */
static char *floor_label(const Point *pt, const Profile *prof, const Floor *fl)
{
  Floor all = *fl;
  all.simulated = all.copies;
  Point whole = *pt;
  floor_share(&all, &whole.p);
  SimConfig sim;
  Deployment d;
  point_deployment(&whole, prof, &sim, &d);
  return deployment_label(&d);
}

/* The power envelope's figures for the simulation (factory.envelope): the facility power a GPU
 * drawing W stands for is linear in W (its share of the node, the fabric, the rest of the IT and the
 * PUE: factory_plan at idle and at TDP), and the envelope's share per GPU of the factory. NULL, or
 * why the factory has no fixed size to share it over. */
static char *envelope(const Point *pt, SimConfig *sim)
{
  const FactoryParams *f = &pt->p.factory;
  if (f->power_policy == POWER_POLICY_NONE)
    return NULL;
  if (f->provisioning == PROVISION_DRAWN && f->factory_gpus == 0)
    return g_strdup("factory.envelope: with factory.provisioning: drawn the factory's size follows what it draws; "
                    "give factory.gpus to hold a fixed floor to the envelope");
  const SystemSpec *sys = &pt->system;
  FactorySpec fs;
  FactoryPlan lo, hi;
  evaluate_factory_spec(f, sys, &fs);
  factory_plan(sys, &fs, sys->idle_power, 0, &lo);
  factory_plan(sys, &fs, sys->tdp, 0, &hi);
  if (!(lo.gpus > 0) || !(sys->tdp > sys->idle_power))
    return g_strdup("factory.envelope: the factory holds no GPU to share the envelope over");
  double f_lo = lo.avg_facility_w / lo.gpus, f_hi = hi.avg_facility_w / hi.gpus;
  sim->power_slope = (f_hi - f_lo) / (sys->tdp - sys->idle_power);
  sim->power_fixed = f_lo - sim->power_slope * sys->idle_power;
  sim->envelope_per_gpu = f->power_budget / lo.gpus;
  return NULL;
}

/* "pNN TTFT T s" at the percentile PCT and, with a LIMIT (s, 0: none), "<= LIMIT s" or "> LIMIT s";
 * "pNN TTFT none (...)" where the event simulation has none: the percentile falls among requests
 * lost with failed engines (metrics.h), which no limit lets pass. */
static void ttft_words(GString *out, const char *pct, double ttft, double limit)
{
  if (isnan(ttft)) {
    g_string_append_printf(out, "%s TTFT none (more lost than it lets miss)", pct);
    return;
  }
  g_string_append_printf(out, "%s TTFT %.3g s", pct, ttft);
  if (limit > 0)
    g_string_append_printf(out, " %s %.3g s", ttft <= limit ? "<=" : ">", limit);
}

/* A mixed demand's classes (workload.mix) in words, each against its TTFT limit at the plan's
 * percentile (its own, or the plan's); a breach's reason into *WHY (the first), else NULL. */
static char *class_figures(const Point *pt, const Outcome *o, char **why)
{
  g_autofree char *err = NULL;
  g_autoptr(GArray) mix = pt->p.workload.mix ? scenario_mix_parse(pt->p.workload.mix, &err) : NULL;
  *why = NULL;
  if (!mix || o->n_classes != mix->len)
    return NULL;
  const PlanParams *plan = &pt->p.plan;
  const char *pct = percentile_names[plan->percentile];
  GString *out = g_string_new("");
  for (guint k = 0; k < mix->len; k++) {
    const MixClass *c = &g_array_index(mix, MixClass, k);
    const ClassFigures *f = &o->classes[k];
    double limit = c->max_ttft > 0 ? c->max_ttft : plan->max_ttft;
    /* the event simulation's own percentile: none where it falls among requests lost with failed
     * engines (metrics.h), which no limit lets pass */
    double ttft = f->ttft[plan->percentile];
    g_string_append_printf(out, "%s%s %.0f%%: ", k ? "; " : "", c->name, c->share * 100);
    if (!f->measured) {
      g_string_append(out, "none done");
      continue;
    }
    ttft_words(out, pct, ttft, limit);
    g_string_append_printf(out, ", %.3g tok/s per user", 1 / f->tpot[0]);
    if (limit > 0 && isnan(ttft) && !*why)
      *why = g_strdup_printf("class %s: more of its requests lost with failed engines than a %s limit lets miss",
                             c->name, pct);
    else if (limit > 0 && !(ttft <= limit) && !*why)
      *why = g_strdup_printf("class %s: %s TTFT %.3g s above its %.3g s", c->name, pct, ttft, limit);
  }
  return g_string_free(out, FALSE);
}

/* A floor of several deployments (deployments:): member K is the point's deployment (K 0) or one of
 * the others, its floor (copies, simulated part), its SimConfig and Deployment, the scale from its
 * simulated part to all of it, its ceilings. */
typedef struct {
  const Point *pt;
  Point part;      /* its simulated part: numbers changed, nothing owned */
  Floor fl;
  double share;    /* of the floor's GPUs at the start */
  SimConfig sim;
  Deployment d;
  Ceilings c;
  GArray *series;  /* its rows, or NULL */
} Member;

/* The members' shares of FLOOR_GPUS: the given, and an equal part of what they leave for the rest;
 * their floors. NULL, or why the floor cannot hold them. */
static char *share_floor(Member *m, int n, double floor_gpus)
{
  double given = 0;
  int rest = 0;
  for (int k = 0; k < n; k++)
    given += m[k].pt->p.share, rest += m[k].pt->p.share <= 0;
  if (given > 1 + 1e-9)
    return g_strdup_printf("the deployments' shares add up to %.4g%% of the floor's GPUs, above 100%%", given * 100);
  if (rest && given >= 1 - 1e-9)
    return g_strdup("the deployments' shares leave nothing for those without one (share 0)");
  for (int k = 0; k < n; k++) {
    m[k].share = m[k].pt->p.share > 0 ? m[k].pt->p.share : (1 - given) / rest;
    g_autofree char *why = floor_copies(m[k].pt, m[k].share * floor_gpus, &m[k].fl);
    if (why)
      return g_strdup_printf("deployment %d (%s): its share, %.3g%% of the floor's %.0f GPUs, holds no copy of its "
                             "%.0f-GPU deployment", k + 1, m[k].pt->model.id, m[k].share * 100, floor_gpus,
                             m[k].fl.gpus_per_copy);
  }
  return NULL;
}

/* What a floor of several deployments cannot run yet; NULL when it can. */
static char *shared_floor_unsupported(const Point *pt)
{
  if (!pt->p.factory.floor)
    return g_strdup("deployments share a simulated floor: set factory.floor.simulate: true");
  if (pt->p.factory.power_policy != POWER_POLICY_NONE)
    return g_strdup("factory.envelope on a floor of several deployments is not simulated yet (each deployment's "
                    "drawn power is reported; hold the envelope with one deployment)");
  for (guint k = 0; k <= pt->n_others; k++) {
    const Point *p = k ? &pt->others[k - 1] : pt;
    if (p->p.serving.engine == SIM_SIMGRID || p->p.serving.engine == SIM_STEADY)
      return g_strdup("a floor of several deployments runs on the event simulation (serving.engine: des or auto)");
    if (p->p.workload.arrival == ARRIVAL_CLOSED && !p->p.workload.trace)
      return g_strdup_printf("deployment %u (%s): a floor's deployments serve open-loop demand (arrival: poisson, "
                             "gamma or trace)", k + 1, p->model.id);
  }
  return NULL;
}

/* Member M's figures in words: its share, the GPUs it held on average, what it served, its TTFT at
 * the plan's percentile against its limit, tok/s per user, the engines moved. */
static void member_words(const Member *m, int k, const Outcome *o, double gpus_held, double floor_gpus,
                         double granted, double released, GString *out)
{
  const PlanParams *plan = &m->pt->p.plan;
  const char *pct = percentile_names[plan->percentile];
  double scale = m->fl.copies / m->fl.simulated;
  g_string_append_printf(out, "%s%s (%.3g%% of the GPUs, %.3g%% held on average): ", k ? "; " : "", m->pt->model.id,
                         m->share * 100, gpus_held / floor_gpus * 100);
  if (!outcome_has_figures(o->kind)) {
    g_string_append_printf(out, "%s", outcome_names[o->kind]);
    return;
  }
  /* the event simulation's own percentile: none where it falls among lost requests (metrics.h) */
  const double at[] = { o->ttft, o->ttft_p90, o->ttft_p99 };
  double ttft = at[plan->percentile];
  g_string_append_printf(out, "%.4g req/s served", o->served * scale);
  if (isfinite(o->lost_share) && o->lost_share > 0)
    g_string_append_printf(out, " (%.3g%% lost)", o->lost_share * 100);
  g_string_append(out, ", ");
  ttft_words(out, pct, ttft, plan->max_ttft);
  g_string_append_printf(out, ", %.3g tok/s per user", o->tok_s_per_user);
  if (granted > 0 || released > 0)
    g_string_append_printf(out, ", engines in %.0f out %.0f", granted * scale, released * scale);
}

/* The members' simulated parts as deployments (their SimConfigs, series, ceilings) and as the floor
 * simulation's members: the floor GPUs one simulated engine stands for, and with MOVE the engines an
 * aggregated one may be given (what the others' least leaves, at most four times its own). */
static void shared_floor_members(const Point *pt, const Profile *prof, Member *m, FloorMember *fm, int n,
                                 double floor_gpus, double interval, gboolean with_series, gboolean move)
{
  double min_gpus = 0;
  for (int k = 0; k < n; k++) {
    Member *mk = &m[k];
    mk->part = *mk->pt;
    floor_share(&mk->fl, &mk->part.p);
    point_deployment(&mk->part, prof, &mk->sim, &mk->d);
    mk->d.same_domain = mk->d.same_domain && mk->fl.copies * mk->fl.gpus_per_copy <= pt->system.nvlink_domain_gpus;
    mk->series = with_series && interval > 0 ? g_array_new(FALSE, FALSE, sizeof(SeriesRow)) : NULL;
    mk->sim.series_interval = mk->series ? interval : 0, mk->sim.series = mk->series;
    predict_ceilings(&mk->d, &mk->c);
    double engine_gpus = mk->fl.gpus_per_copy / mk->fl.engines_per_copy;
    fm[k] = (FloorMember){ .d = &mk->d, .gpus_each = engine_gpus * mk->fl.copies / mk->fl.simulated };
    min_gpus += (mk->d.disaggregated ? mk->fl.simulated * mk->fl.engines_per_copy : pt->p.factory.autoscale_min) *
                fm[k].gpus_each;
  }
  for (int k = 0; k < n && move; k++) {
    if (m[k].d.disaggregated)
      continue;
    double own_min = pt->p.factory.autoscale_min * fm[k].gpus_each;
    double most = floor((floor_gpus - (min_gpus - own_min)) / fm[k].gpus_each + 1e-9);
    fm[k].spare = (int)MAX(0, MIN(most, 4.0 * m[k].d.dec_workers) - m[k].d.dec_workers);
  }
}

/* The floor's figures: every member's simulated part times its scale, summed (shares of the run
 * weighted by the GPUs each held); the members in words; the first not ok and why. */
typedef struct {
  double tokens, power, held, goodput, served, asked, slots, capacity, events, requests;
  double fails, lost, retried, trays, avail, degraded, maint, parked;
  OutcomeKind worst;
  char *first_bad;
  GString *words;
} FloorSums;

static void shared_floor_sum(const Member *m, FloorMember *fm, int n, double floor_gpus, FloorSums *s)
{
  *s = (FloorSums){ .worst = OUTCOME_OK, .words = g_string_new(NULL) };
  for (int k = 0; k < n; k++) {
    Outcome *o = &fm[k].out;
    double scale = m[k].fl.copies / m[k].fl.simulated;
    predict_judge_load(&m[k].d, &m[k].c, o);
    s->slots += o->slots * scale, s->capacity += o->capacity_req_s * scale;
    double gpus = outcome_has_figures(o->kind) ? o->gpus * scale : 0;
    member_words(&m[k], k, o, gpus, floor_gpus, fm[k].granted, fm[k].released, s->words);
    if (o->kind != OUTCOME_OK && s->worst == OUTCOME_OK) {
      s->worst = o->kind;
      s->first_bad = g_strdup_printf("deployment %d (%s): %s", k + 1, m[k].pt->model.id, o->reason ? o->reason : "");
    }
    if (!outcome_has_figures(o->kind))
      continue;
    s->tokens += o->out_tok_s_per_gpu * o->gpus * scale;
    s->power += o->gpu_power_w * gpus, s->held += gpus;
    s->goodput += o->goodput * scale, s->served += o->served * scale;
    s->asked += o->served / answered_share(o->lost_share) * scale; /* answered or lost */
    s->events += o->events, s->requests += o->requests;
    if (isfinite(o->failures))
      s->fails += o->failures * scale, s->lost += o->lost * scale, s->retried += o->retried * scale;
    s->trays += isfinite(o->tray_failures) ? o->tray_failures * scale : 0;
    s->degraded += isfinite(o->degraded) ? o->degraded * gpus : 0;
    s->avail += isfinite(o->availability) ? o->availability * gpus : 0;
    s->maint += isfinite(o->maintenance) ? o->maintenance * gpus : 0;
    s->parked += isfinite(o->parked) ? o->parked * gpus : 0;
  }
}

/* The floor's series rows (every member's, scaled and summed) into SERIES, then each member's own
 * (SeriesRow.part K). */
static void shared_floor_series(const Point *pt, const Member *m, int n, GArray *series)
{
  if (!series || !m[0].series)
    return;
  g_autofree GArray **parts = g_new0(GArray *, n);
  g_autofree double *scales = g_new0(double, n);
  for (int k = 0; k < n; k++)
    parts[k] = m[k].series, scales[k] = m[k].fl.copies / m[k].fl.simulated;
  gsize from = series->len;
  floor_series_merge(series, parts, scales, n);
  floor_series_power(pt, series, from);
  for (int k = 0; k < n; k++) {
    gsize first = series->len;
    g_array_append_vals(series, m[k].series->data, m[k].series->len);
    series_scale(scales[k], series, first);
    for (guint i = (guint)first; i < series->len; i++)
      g_array_index(series, SeriesRow, i).part = k + 1;
  }
}

/* The floor's row from its sums S: the latency columns the point's deployment's (FIRST), the rest
 * the floor's; its power per GPU the GPUs held at their members' draw and those no member holds
 * (freed by one, not needed by another) at idle. FALSE when the factory cannot hold it. */
static gboolean shared_floor_row(const Point *pt, const Outcome *first, const FloorSums *s, double floor_gpus,
                                 ResultRow *row)
{
  const FactoryParams *f = &pt->p.factory;
  row->weights_gb_per_gpu = first->weights / 1e9, row->kv_gb_per_gpu = first->kv_free / 1e9;
  row->max_seqs = first->max_seqs, row->batch = first->batch, row->tok_s_per_user = first->tok_s_per_user;
  row->ttft_p50_ms = first->ttft * 1e3, row->ttft_p90_ms = first->ttft_p90 * 1e3, row->ttft_p99_ms = first->ttft_p99 * 1e3;
  row->tpot_p50_ms = first->tpot * 1e3, row->tpot_p90_ms = first->tpot_p90 * 1e3, row->tpot_p99_ms = first->tpot_p99 * 1e3;
  row->e2e_p50_ms = first->e2e_p50 * 1e3, row->e2e_p99_ms = first->e2e_p99 * 1e3;
  row->deployment_gpus = floor_gpus;
  row->out_tok_s_per_gpu = s->tokens / floor_gpus;
  row->goodput_req_s = s->goodput;
  row->slo_attainment = s->asked > 0 ? s->goodput / s->asked : NAN;
  row->sim_events = s->events, row->sim_requests = s->requests;
  row->parked_share = f->autoscale ? s->parked / s->held : NAN;
  if (f->failures)
    row->failures = s->fails, row->requests_lost = s->lost, row->requests_retried = s->retried,
    row->lost_share = s->asked > 0 ? 1 - s->served / s->asked : 0,
    row->switch_tray_failures = s->trays, row->degraded_share = s->degraded / s->held;
  if (f->failures || f->maint_interval > 0)
    row->availability = s->avail / s->held;
  if (f->maint_interval > 0)
    row->maintenance_share = s->maint / s->held;
  Outcome floor_o = *first;
  floor_o.reason = NULL;
  floor_o.gpu_power_w = (s->power + pt->system.idle_power * MAX(floor_gpus - s->held, 0)) / floor_gpus;
  PowerShare share;
  power_share(&pt->system, floor_o.gpu_power_w, &share);
  floor_o.it_w_per_gpu = share.it;
  floor_o.out_tok_s_per_gpu = row->out_tok_s_per_gpu;
  return evaluate_factory(pt, &floor_o, row);
}

/* Each member against its own SLO (a mix's class by class): the first breach makes ROW slo-violated. */
static void shared_floor_judge(const Member *m, const FloorMember *fm, int n, ResultRow *row)
{
  for (int k = 0; k < n && row->status == OUTCOME_OK; k++) {
    const Outcome *o = &fm[k].out;
    ResultRow r = { .tok_s_per_user = o->tok_s_per_user, .ttft_p50_ms = o->ttft * 1e3, .ttft_p90_ms = o->ttft_p90 * 1e3,
                    .ttft_p99_ms = o->ttft_p99 * 1e3, .tpot_p50_ms = o->tpot * 1e3, .tpot_p90_ms = o->tpot_p90 * 1e3,
                    .tpot_p99_ms = o->tpot_p99 * 1e3, .lost_share = o->lost_share };
    PlanParams plan = m[k].pt->p.plan;
    g_autofree char *cls_breach = NULL;
    g_autofree char *cls = class_figures(m[k].pt, o, &cls_breach);
    if (cls)
      plan.max_ttft = 0;
    g_autofree char *breach = NULL;
    if (slo_check(&plan, &r, &breach) != SLO_MET || cls_breach) {
      row->status = OUTCOME_SLO_VIOLATED;
      row->reason = g_strdup_printf("deployment %d (%s): %s", k + 1, m[k].pt->model.id, breach ? breach : cls_breach);
    }
  }
}

/* The row of a floor of several deployments: the point's own (member 0) in the latency columns, the
 * floor's tokens, GPUs and power in the rest, each member in the deployments column; the row is as
 * good as its worst member (the first not ok says why). */
static void evaluate_shared_floor(const Point *pt, const Profile *prof, ResultRow *row, double interval, GArray *series)
{
  char *why = shared_floor_unsupported(pt);
  double floor_gpus = 0;
  if (!why)
    why = floor_gpus_of(pt, &floor_gpus);
  int n = (int)pt->n_others + 1;
  g_autofree Member *m = g_new0(Member, n);
  for (int k = 0; k < n; k++)
    m[k].pt = k ? &pt->others[k - 1] : pt;
  if (!why)
    why = share_floor(m, n, floor_gpus);
  if (why) {
    refuse(row, why);
    return;
  }
  gboolean move = pt->p.factory.autoscale;
  g_autofree FloorMember *fm = g_new0(FloorMember, n);
  shared_floor_members(pt, prof, m, fm, n, floor_gpus, interval, series != NULL, move);
  predict_floor(fm, n, floor_gpus, pt->p.factory.autoscale_interval, move);
  FloorSums sums;
  shared_floor_sum(m, fm, n, floor_gpus, &sums);
  row->deployments = g_string_free(sums.words, FALSE);
  row->floor_engines = row->simulated_engines = 0;
  g_autoptr(GString) labels = g_string_new(NULL);
  for (int k = 0; k < n; k++) {
    row->floor_engines += m[k].fl.copies * m[k].fl.engines_per_copy;
    row->simulated_engines += m[k].fl.simulated * m[k].fl.engines_per_copy;
    g_autofree char *label = floor_label(m[k].pt, prof, &m[k].fl);
    g_string_append_printf(labels, "%s%s: %s", k ? " | " : "", m[k].pt->model.id, label);
  }
  g_free(row->config);
  row->config = g_strdup(labels->str);
  shared_floor_series(pt, m, n, series);
  for (int k = 0; k < n; k++)
    if (m[k].series)
      g_array_unref(m[k].series);
  row->engine = g_strdup(method_names[METHOD_DES]);
  row->slots = sums.slots, row->capacity_req_s = sums.capacity;
  g_free(row->reason);
  row->status = sums.worst;
  row->reason = sums.first_bad;
  if (outcome_has_figures(fm[0].out.kind) && sums.held > 0) {
    g_autofree char *class_breach = NULL; /* judged with the member's own SLO below */
    row->classes = class_figures(pt, &fm[0].out, &class_breach);
    if (shared_floor_row(pt, &fm[0].out, &sums, floor_gpus, row))
      shared_floor_judge(m, fm, n, row);
  } else if (row->status == OUTCOME_OK) {
    row->status = OUTCOME_UNSUPPORTED;
  }
  for (int k = 0; k < n; k++)
    outcome_clear(&fm[k].out);
}

void evaluate_point(const Point *pt, const Profile *prof, ResultRow *row)
{
  evaluate_point_series(pt, prof, row, 0, NULL);
}

void evaluate_point_series(const Point *pt, const Profile *prof, ResultRow *row, double interval, GArray *series)
{
  row->system = g_strdup(pt->system.id);
  row->model = g_strdup(pt->model.id);
  row->family = point_family_label(pt);
  describe(pt, row);
  const WorkloadParams *w = &pt->p.workload;
  if (w->turns > 1 && (w->arrival != ARRIVAL_CLOSED || w->trace)) { /* users hold the sessions */
    row->status = OUTCOME_UNSUPPORTED;
    g_free(row->reason);
    row->reason = g_strdup("workload.sessions needs a closed loop (arrival: closed, no trace): its users hold the sessions");
    return;
  }
  if (pt->n_others > 0) {
    evaluate_shared_floor(pt, prof, row, interval, series);
    return;
  }
  Floor fl = { 0 };
  Point share = *pt; /* the floor's simulated part: numbers changed, nothing owned */
  if (pt->p.factory.floor) {
    char *why = floor_size(pt, &fl);
    if (why) {
      refuse(row, why);
      return;
    }
    floor_share(&fl, &share.p);
    row->floor_engines = fl.copies * fl.engines_per_copy, row->simulated_engines = fl.simulated * fl.engines_per_copy;
  }
  gsize series_from = series ? series->len : 0;
  SimConfig sim;
  Deployment d;
  Outcome o;
  point_deployment(&share, prof, &sim, &d);
  if (pt->p.factory.floor) /* the floor's pools are global: its KV caches move inside one NVLink
                            * domain only when the whole floor is one */
    d.same_domain = d.same_domain && fl.copies * fl.gpus_per_copy <= pt->system.nvlink_domain_gpus;
  char *no_envelope = envelope(pt, &sim);
  if (no_envelope) {
    refuse(row, no_envelope);
    return;
  }
  sim.series_interval = interval, sim.series = series;
  row->config = pt->p.factory.floor ? floor_label(pt, prof, &fl) : deployment_label(&d);
  Ceilings c;
  predict_ceilings(&d, &c);
  predict(&d, point_method(&pt->p, &d, &c), &o);
  predict_judge_load(&d, &c, &o);
  row->engine = g_strdup(method_names[o.method]);
  row->weights_gb_per_gpu = o.weights / 1e9;
  row->kv_gb_per_gpu = o.kv_free / 1e9;
  row->max_seqs = o.max_seqs;
  g_free(row->reason);
  row->status = o.kind;
  row->reason = g_steal_pointer(&o.reason);
  /* a floor's simulated part stands for all of it: its deployment-wide figures are the floor's */
  double scale = pt->p.factory.floor ? fl.copies / fl.simulated : 1;
  row->slots = o.slots * scale, row->capacity_req_s = o.capacity_req_s * scale;
  if (!outcome_has_figures(o.kind))
    return;
  row->deployment_gpus = o.gpus;
  row->batch = o.batch;
  row->out_tok_s_per_gpu = o.out_tok_s_per_gpu;
  row->tok_s_per_user = o.tok_s_per_user;
  row->ttft_p50_ms = o.ttft * 1e3, row->ttft_p90_ms = o.ttft_p90 * 1e3, row->ttft_p99_ms = o.ttft_p99 * 1e3;
  row->tpot_p50_ms = o.tpot * 1e3, row->tpot_p90_ms = o.tpot_p90 * 1e3, row->tpot_p99_ms = o.tpot_p99 * 1e3;
  row->e2e_p50_ms = o.e2e_p50 * 1e3, row->e2e_p99_ms = o.e2e_p99 * 1e3;
  row->step_ms = o.step * 1e3;
  row->goodput_req_s = o.goodput;
  row->cache_hit_rate = o.cache_hit_rate;
  row->cache_host_rate = o.cache_host_rate, row->cache_storage_rate = o.cache_storage_rate;
  row->cache_remote_rate = o.cache_remote_rate;
  row->planner_moves = pt->p.serving.planner ? o.moves : NAN;
  row->failures = o.failures, row->requests_lost = o.lost, row->requests_retried = o.retried;
  row->lost_share = o.lost_share;
  row->availability = o.availability;
  row->switch_tray_failures = o.tray_failures, row->degraded_share = o.degraded;
  row->shed_rate = o.shed, row->mean_power_cap_w = o.mean_cap_w, row->parked_share = o.parked;
  row->maintenance_share = o.maintenance;
  row->sim_events = o.events, row->sim_requests = o.requests;
  g_autofree char *class_breach = NULL;
  row->classes = class_figures(pt, &o, &class_breach);
  if (row->classes) { /* each class's goodput against its own limit */
    row->goodput_req_s = 0;
    for (guint k = 0; k < o.n_classes; k++)
      row->goodput_req_s += o.classes[k].goodput;
  }
  /* both of the simulated part; the lost requests missed it too */
  row->slo_attainment = o.served > 0 ? row->goodput_req_s / o.served * answered_share(o.lost_share) : NAN;
  if (pt->p.factory.floor) { /* the sample's counts stand for the floor's */
    row->failures *= scale, row->requests_lost *= scale, row->requests_retried *= scale;
    row->switch_tray_failures *= scale;
    row->goodput_req_s *= scale, row->deployment_gpus *= scale; /* the deployment is the floor */
    floor_series(pt, scale, series, series_from);
  }
  if (!evaluate_factory(pt, &o, row))
    return;
  /* a mixed demand's TTFT is judged class by class, each at its own limit */
  PlanParams plan = pt->p.plan;
  if (row->classes)
    plan.max_ttft = 0;
  if (row->status == OUTCOME_OK && slo_check(&plan, row, &row->reason) != SLO_MET) {
    row->status = OUTCOME_SLO_VIOLATED;
  } else if (row->status == OUTCOME_OK && class_breach) {
    row->status = OUTCOME_SLO_VIOLATED;
    g_free(row->reason);
    row->reason = g_steal_pointer(&class_breach);
  }
}

void evaluate_rows_free(GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++) {
    result_row_clear(rows->pdata[i]);
    g_free(rows->pdata[i]);
  }
  g_ptr_array_unref(rows);
}
