/* fit.c — coordinate-descent fit of a profile (see fit.h). */
#include "fit.h"
#include "keytable.h"
#include "aif_error.h"
#include "hardware.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

/* Every figure's loss turns linear (median-like) past 5%, yet stays smooth near the optimum, where
 * coordinate descent would stall on an absolute value's kink. The headline is a median error, and
 * a quadratic loss on the log ratio (the width of 0.5 this replaced) weighs a row 30% off 36 times
 * one 5% off, so a few rows the model does not describe (start-up waves, a stack version the rows
 * do not record) bent the fit away from the bulk: held out, pooled 7.97% -> 7.70% and TTFT 16.77%
 * -> 15.95% with this width (0.1: 7.62% / 16.65%; 0.02: 9.3% pooled on the first half alone;
 * docs/validation.md) */
#define HUBER 0.05
#define INFEASIBLE_PENALTY 1.0
/* Throughput per GPU, per user and TTFT count alike: they are the three figures a prediction is
 * judged on, and TTFT's heavy tail is tamed by the narrow Huber width, not by a smaller weight (a
 * quarter weight left the prefill rates to the throughput rows, whose steps prefill little). Power
 * is not fitted here: its few measured rows check the power model instead. */
static const double metric_weight[N_METRICS] = { 1.0, 1.0, 1.0, 0, 0 };
/* A disaggregated row's TTFT is fitted both ways only while the model has both pools under half
 * their ceilings. There TTFT is the request overhead, one prefill batch, the handoff and the
 * transfer: it identifies those constants. Near a ceiling the measured Dynamo runs often queue far
 * more than the model does (their recipes' decode caps and admission, which the rows do not give:
 * TTFT 0.3-0.5x predicted above 1,024 users), and fitting that drags the handoff, a per-request
 * constant, to 300-600 ms as a proxy for load, which then over-predicts every lightly loaded row
 * 2-4x. The other way is physics, not admission: where the model's TTFT is longer than the
 * measured one, its pools queue where the measured ones kept up, i.e. its prefill is slower than
 * the hardware that served the load; that error counts at any load (without it the fit slowed
 * Blackwell's prefill until the loaded rows' pools saturated, docs/validation.md). Throughput and
 * per-user speed are fitted on every row. */
#define FIT_TTFT_MAX_POOL_LOAD 0.5

typedef struct {
  double *value;
  double lo, hi;
} Param;

static double huber(double x, double delta)
{
  x = fabs(x);
  return x <= delta ? 0.5 * x * x : delta * (x - 0.5 * delta);
}

typedef void (*Predictor)(ValRow *row, const Profile *prof, Prediction *out);

static double loss_by(GPtrArray *rows, const Profile *prof, Predictor predict)
{
  double sum = 0;
  guint n = 0;
  for (guint i = 0; i < rows->len; i++) {
    ValRow *r = rows->pdata[i];
    if (r->unsupported)
      continue;
    Prediction p;
    predict(r, prof, &p);
    for (int m = 0; m < N_METRICS; m++) {
      if (!isfinite(r->measured[m]) || r->measured[m] <= 0 || metric_weight[m] == 0)
        continue;
      if (m == MET_TTFT && p.pool_load > FIT_TTFT_MAX_POOL_LOAD &&
          !(p.status == OUTCOME_OK && p.predicted[m] > r->measured[m]))
        continue;
      if (p.status != OUTCOME_OK)
        sum += metric_weight[m] * INFEASIBLE_PENALTY;
      else /* nearly absolute: the errors are heavy-tailed (start-up bursts, JIT warm-up) */
        sum += metric_weight[m] * huber(log(p.predicted[m] / r->measured[m]), HUBER);
      n++;
    }
    prediction_clear(&p);
  }
  return n ? sum / n : 0;
}

double fit_loss(GPtrArray *rows, const Profile *prof)
{
  return loss_by(rows, prof, validate_predict);
}

double fit_loss_des(GPtrArray *rows, const Profile *prof)
{
  return loss_by(rows, prof, validate_predict_des);
}

/* Which architectures, stacks and features the rows exercise: a parameter no row depends on is
 * not fitted. */
typedef struct {
  gboolean arch[N_ARCH], fp4[N_ARCH], moe[N_ARCH], fp8_block[N_ARCH];
  gboolean fp8_block_flashinfer[N_ARCH]; /* rows whose engines run FlashInfer's FP8 (engine_flashinfer_fp8) */
  gboolean stack[N_STACK], disaggregated[N_STACK]; /* rows of the stack; disaggregated rows of it */
  gboolean alltoall[N_STACK]; /* rows of the stack with an attention-DP engine of more than one GPU */
  gboolean mtp;
  gboolean dynamo; /* rows served through Dynamo's front end */
} Used;

static void used(GPtrArray *rows, Used *u)
{
  *u = (Used){ 0 };
  for (guint i = 0; i < rows->len; i++) {
    const ValRow *r = rows->pdata[i];
    if (r->unsupported)
      continue;
    u->arch[r->sys->arch] = TRUE;
    u->fp4[r->sys->arch] |= r->decode.precision == PREC_FP4;
    u->moe[r->sys->arch] |= r->model->experts > 0;
    u->fp8_block[r->sys->arch] |= r->decode.precision == PREC_FP8 && r->model->fp8_block > 0;
    u->fp8_block_flashinfer[r->sys->arch] |= engine_flashinfer_fp8(&r->decode);
    u->stack[r->decode.stack] = TRUE;
    u->disaggregated[r->decode.stack] |= r->disaggregated;
    u->alltoall[r->decode.stack] |= (r->decode.dp_attention && r->decode.gpus > 1) ||
                                    (r->disaggregated && r->prefill.dp_attention && r->prefill.gpus > 1);
    u->mtp |= r->draft_tokens != 0;
    u->dynamo |= r->decode.dynamo_front;
  }
}

/* Whether some row's engine spans more GPUs than its NVLink domain. */
static gboolean crosses_domain(GPtrArray *rows, GpuArch arch)
{
  for (guint i = 0; i < rows->len; i++) {
    const ValRow *r = rows->pdata[i];
    if (!r->unsupported && r->sys->arch == arch &&
        (r->decode.gpus > r->sys->nvlink_domain_gpus || (r->disaggregated && !r->same_domain) ||
         (r->disaggregated && r->prefill.gpus > r->sys->nvlink_domain_gpus)))
      return TRUE;
  }
  return FALSE;
}

/* The profile's number at PATH, or NULL: what a held key must name. */
static const KtKey *number_key(const char *path)
{
  const KtKey *key = kt_find(&profile_table, path);
  return key && key->type == KT_NUMBER ? key : NULL;
}

/* Whether the parameter at VALUE in P is one of HOLD's keys. */
static gboolean held(const Profile *p, const double *value, const char *const *hold)
{
  for (const char *const *k = hold; k && *k; k++) {
    const KtKey *key = number_key(*k);
    if (key && (const char *)p + key->offset == (const char *)value)
      return TRUE;
  }
  return FALSE;
}

gboolean fit_hold_check(const char *key, GError **error)
{
  if (number_key(key))
    return TRUE;
  g_autoptr(GPtrArray) names = g_ptr_array_new();
  for (size_t i = 0; i < profile_table.n_keys; i++)
    if (profile_table.keys[i].type == KT_NUMBER)
      g_ptr_array_add(names, (gpointer)profile_table.keys[i].path);
  g_ptr_array_add(names, NULL);
  const char *near = kt_closest(key, (const char *const *)names->pdata);
  if (near)
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "--hold: '%s' is not a number in the profile (did you mean '%s'?)",
                key, near);
  else
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "--hold: '%s' is not a number in the profile (keys look like "
                "hopper.gemm_efficiency)", key);
  return FALSE;
}

static GArray *parameters(GPtrArray *rows, Profile *p, const char *const *hold)
{
  Used u;
  used(rows, &u);
  GArray *ps = g_array_new(FALSE, FALSE, sizeof(Param));
#define ADD(field, a, b)                                                                                   \
  do {                                                                                                     \
    if (!held(p, &(field), hold))                                                                          \
      g_array_append_val(ps, ((Param){ &(field), a, b }));                                                 \
  } while (0)
  /* the stack layer only: the hardware layer (p->arch) is measured or published, and held */
  for (int a = 0; a < N_ARCH; a++) {
    if (!u.arch[a])
      continue;
    ArchStackProfile *on = &p->on[a];
    ADD(on->gemm, 0.2, 1.0);
    if (u.fp4[a])
      ADD(on->fp4, 0.2, 1.0);
    if (u.fp8_block[a])
      ADD(on->fp8_block, 0.2, 1.0);
    if (u.fp8_block_flashinfer[a])
      ADD(on->fp8_block_flashinfer, 0.2, 1.0);
    ADD(on->attention, 0.1, 1.0);
    ADD(on->memory, 0.3, 1.0);
    if (crosses_domain(rows, a)) {
      ADD(on->nic_latency, 1e-6, 300e-6);
      ADD(on->nic_alltoall_latency, 1e-6, 500e-6);
    }
    if (a != ARCH_HOPPER) /* Hopper is the reference the stacks' overheads are fitted for */
      ADD(on->overhead_scale, 0.3, 3.0);
    if (u.moe[a]) {
      ADD(on->moe, 0.1, 1.0);
      ADD(on->gemm_half_n, 4, 2048);
    }
  }
  for (int s = 0; s < N_STACK; s++) {
    if (!u.stack[s])
      continue;
    StackProfile *sp = &p->stack[s];
    ADD(sp->step_overhead, 1e-5, 20e-3);
    ADD(sp->host_overhead, 1e-5, 20e-3);
    ADD(sp->layer_overhead, 1e-6, 300e-6);
    ADD(sp->eager_layer_overhead, 1e-7, 300e-6);
    ADD(sp->moe_layer_overhead, 1e-6, 300e-6);
    if (u.alltoall[s])
      ADD(sp->alltoall_overhead, 1e-6, 1e-3);
    if (s != STACK_TRTLLM) /* the reference the architectures' shares are fitted for */
      ADD(sp->kernel_efficiency, 0.5, 1.0);
    ADD(sp->request_overhead, 1e-3, 0.5);
    /* from 0 its first trial is the floor: 10 ns a token (0.1 ms for a 10k-token prompt) */
    ADD(sp->request_token_overhead, 1e-8, 20e-6);
    if (u.disaggregated[s]) {
      ADD(sp->handoff_overhead, 1e-3, 1.0);
      ADD(sp->handoff_steps, 0.05, 4); /* from 0 its first trial is the floor */
    }
    ADD(sp->max_seqs_per_rank, 16, 2048);
    if (u.mtp) {
      ADD(sp->mtp_acceptance, 0.2, 0.95);
      /* from 0 (no cost) its first trial is the floor, 1 us: far enough to be seen where a large
       * batch of drafts makes it count, and left at 0 where it is not */
      ADD(sp->mtp_host_overhead, 1e-6, 500e-6);
    }
  }
  /* from 0 its first trial is the floor, as the stacks' own */
  if (u.dynamo)
    ADD(p->dynamo_token_overhead, 1e-8, 20e-6);
#undef ADD
  return ps;
}

/* Architectures without rows take the newest fitted architecture's stack layer (their hardware
 * layer is their own). A stack without
 * rows (vLLM in measured-dev.csv) takes the geometric mean of the fitted stacks' kernel efficiency,
 * overheads and MTP acceptance: the data's stacks differ by ~1.2x on the same configuration, and
 * the middle of them is a better prior for an unmeasured one than the built-in defaults, which
 * have no overheads to speak of. Its scheduler's behaviour (batch cap, KV reservation, overlap,
 * balancing) is its own, documented, and stays. */
static void carry_forward(GPtrArray *rows, Profile *p)
{
  Used u;
  used(rows, &u);
  int last = -1;
  for (int a = 0; a < N_ARCH; a++) {
    if (u.arch[a])
      last = a;
    else if (last >= 0)
      p->on[a] = p->on[last];
  }
  static const size_t carried[] = {
    offsetof(StackProfile, kernel_efficiency), offsetof(StackProfile, step_overhead),
    offsetof(StackProfile, layer_overhead),    offsetof(StackProfile, moe_layer_overhead),
    offsetof(StackProfile, alltoall_overhead),
    offsetof(StackProfile, host_overhead),     offsetof(StackProfile, eager_layer_overhead),
    offsetof(StackProfile, mtp_host_overhead),
    offsetof(StackProfile, request_overhead),  offsetof(StackProfile, request_token_overhead),
    offsetof(StackProfile, handoff_overhead),
    offsetof(StackProfile, handoff_steps),
    offsetof(StackProfile, mtp_acceptance),
  };
#define FIELD(sp, off) (*(double *)((char *)(sp) + (off)))
  for (gsize k = 0; k < G_N_ELEMENTS(carried); k++) {
    double sum = 0;
    int n = 0;
    for (int s = 0; s < N_STACK; s++)
      if (u.stack[s])
        sum += log(FIELD(&p->stack[s], carried[k])), n++;
    for (int s = 0; s < N_STACK && n > 0; s++)
      if (!u.stack[s])
        FIELD(&p->stack[s], carried[k]) = exp(sum / n);
  }
#undef FIELD
}

/* Puts HOLD's keys back as BEFORE has them: carrying the fitted figures forward must not overwrite
 * a held one (a measured architecture, or stack, that no row exercises). */
static void restore_held(Profile *p, const Profile *before, const char *const *hold)
{
  for (const char *const *k = hold; k && *k; k++) {
    const KtKey *key = number_key(*k);
    if (key)
      *(double *)((char *)p + key->offset) = *(const double *)((const char *)before + key->offset);
  }
}

/* One coordinate descent from P, in place; START numbers it for the progress reports. */
static double descend(GPtrArray *rows, Profile *p, const FitOptions *opt, int start)
{
  const Profile before = *p; /* shares P's strings; read only */
  g_autoptr(GArray) ps = parameters(rows, p, opt->hold);
  double loss = fit_loss(rows, p), step = 0.25;
  for (int round = 0; round < opt->rounds; round++) {
    for (guint i = 0; i < ps->len; i++) {
      Param *q = &g_array_index(ps, Param, i);
      double start_value = *q->value;
      for (int dir = -1; dir <= 1; dir += 2) {
        /* walk in one direction while it helps */
        for (;;) {
          double trial = CLAMP(*q->value * exp(dir * step), q->lo, q->hi);
          if (trial == *q->value)
            break;
          double keep = *q->value;
          *q->value = trial;
          double l = fit_loss(rows, p);
          if (l < loss - 1e-9) {
            loss = l;
          } else {
            *q->value = keep;
            break;
          }
        }
        if (*q->value != start_value)
          break; /* it moved: no need to try the other way */
      }
    }
    if (opt->progress)
      opt->progress(start, round, loss, opt->user);
    step *= 0.6;
  }
  carry_forward(rows, p);
  restore_held(p, &before, opt->hold);
  return loss;
}

/* Start K > 0 moves every fitted parameter by a factor drawn log-uniformly from
 * [1/START_SPREAD, START_SPREAD] (a generator seeded with K), inside its bounds: far enough to
 * land in a neighbouring basin, near enough to converge in the same rounds. */
#define START_SPREAD 1.6

static void perturb(GPtrArray *rows, Profile *p, const char *const *hold, int k)
{
  g_autoptr(GArray) ps = parameters(rows, p, hold);
  GRand *g = g_rand_new_with_seed((guint32)k);
  for (guint i = 0; i < ps->len; i++) {
    Param *q = &g_array_index(ps, Param, i);
    double f = exp(g_rand_double_range(g, -log(START_SPREAD), log(START_SPREAD)));
    *q->value = CLAMP(*q->value * f, q->lo, q->hi);
  }
  g_rand_free(g);
}

/* One start of a multi-start fit: its own rows (a prediction writes into its row) and profile. */
typedef struct {
  GPtrArray *rows;
  Profile prof;
  int index;
  double loss, loss_des; /* the optimum's steady-state loss, and (select_des) its event simulation's */
  const FitOptions *opt;
} Start;

static void run_start(gpointer data, gpointer user)
{
  Start *s = data;
  s->loss = descend(s->rows, &s->prof, s->opt, s->index);
  if (s->opt->select_des) {
    s->loss_des = fit_loss_des(s->rows, &s->prof);
    if (s->opt->scored)
      s->opt->scored(s->index, s->loss_des, s->opt->user);
  }
}

double fit_profile(GPtrArray *rows, Profile *p, const FitOptions *opt)
{
  int n = MAX(opt->starts, 1);
  if (n == 1)
    return descend(rows, p, opt, 0);
  Start *s = g_new0(Start, n);
  /* every copy is made before any start runs: start 0 writes into ROWS as it predicts */
  for (int k = 0; k < n; k++) {
    s[k] = (Start){ .rows = k == 0 ? g_ptr_array_ref(rows) : validate_rows_copy(rows), .prof = *p, .index = k,
                    .opt = opt };
    if (k > 0)
      perturb(s[k].rows, &s[k].prof, opt->hold, k);
  }
  GThreadPool *pool = g_thread_pool_new(run_start, NULL, CLAMP(opt->threads, 1, n), TRUE, NULL);
  for (int k = 0; k < n; k++)
    g_thread_pool_push(pool, &s[k], NULL);
  g_thread_pool_free(pool, FALSE, TRUE); /* waits for every start */
  int best = 0;
  for (int k = 1; k < n; k++)
    if (opt->select_des ? s[k].loss_des < s[best].loss_des : s[k].loss < s[best].loss)
      best = k; /* ties keep the lower start: the result does not depend on the threads */
  *p = s[best].prof; /* the copies share P's source string; none of them is cleared */
  double loss = s[best].loss;
  for (int k = 0; k < n; k++)
    g_ptr_array_unref(s[k].rows);
  g_free(s);
  return loss;
}
