/* validate.c — measured rows -> deployments -> predictions and errors (see validate.h). */
#include "validate.h"
#include "aif_error.h"
#include "csv.h"
#include "label.h"
#include "predict.h"
#include "recipes.h"
#include "stats.h"
#include "params.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

const char *const metric_names[] = { "out_tok_s_per_gpu", "tok_s_per_user", "ttft_ms", "gpu_power_w", "server_power_w" };

/* A median TPOT sits below the p99 an MLPerf limit applies to (a request's TPOT averages the steps
 * it rides, which some prompts' prefill stretches): this fraction of the limit is what the median
 * may reach. TTFT's p99 comes from the steady state's queue (steady_state.c), held to the limit. */
#define SLO_TPOT_FRACTION 0.7

static const char *const required[] = {
  "id", "source_kind", "system", "gpus", "model", "precision", "isl", "osl", "concurrency", "scenario", "mode",
  "tp", "ep", "dp_attention", "prefill_workers", "prefill_ep", "prefill_dp_attention", "decode_workers",
  "decode_ep", "decode_dp_attention", "prefill_gpus", "decode_gpus", "spec_decode", "framework",
  "out_tok_s_per_gpu", "tok_s_per_user", "ttft_ms", NULL,
};

typedef struct {
  const CsvFile *csv;
  guint r;
} Cell;

static const char *text(const Cell *c, const char *name) { return csv_field(c->csv, c->r, csv_column(c->csv, name)); }

static double num(const Cell *c, const char *name)
{
  const char *s = text(c, name);
  char *end;
  double v = g_ascii_strtod(s, &end);
  return *s && !*end ? v : NAN;
}

static int precision_of(const char *s)
{
  for (int i = 0; precision_names[i]; i++)
    if (strcmp(s, precision_names[i]) == 0)
      return i;
  return -1;
}

/* Sets R->unsupported (printf-style) and returns FALSE. */
static gboolean unsupported(ValRow *r, const char *fmt, ...) G_GNUC_PRINTF(2, 3);
static gboolean unsupported(ValRow *r, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  r->unsupported = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  return FALSE;
}

static gboolean engine_from(ValRow *r, const Cell *c, Engine *e, const char *pool, Precision p, Stack st)
{
  g_autofree char *workers_col = g_strconcat(pool, "_workers", NULL), *gpus_col = g_strconcat(pool, "_gpus", NULL);
  g_autofree char *ep_col = g_strconcat(pool, "_ep", NULL), *dp_col = g_strconcat(pool, "_dp_attention", NULL);
  double workers = num(c, workers_col), gpus = num(c, gpus_col), ep = num(c, ep_col), dp = num(c, dp_col);
  if (!(workers >= 1) || !(gpus >= workers) || fmod(gpus, workers) != 0)
    return unsupported(r, "%s pool: %s workers on %s GPUs do not make whole engines", pool, text(c, workers_col),
                       text(c, gpus_col));
  *e = (Engine){ .sys = r->sys, .model = r->model, .precision = p,
                 .stack = st, .dynamo_front = framework_dynamo(r->fw), .gpus = (int)(gpus / workers), .pp = 1,
                 .ep = isnan(ep) ? 1 : (int)ep,
                 .dp_attention = dp == 1 };
  if (strcmp(pool, "prefill") == 0)
    r->pre_workers = (int)workers;
  else
    r->dec_workers = (int)workers;
  return TRUE;
}

/* recipes.h, ep: engine: an attention-DP engine recorded at EP 1 spreads its experts over its GPUs. */
static void ep_over_engine(Engine *e)
{
  if (e->dp_attention && e->ep == 1)
    e->ep = e->gpus;
}

/* trtllm-bench's engine settings for the row's engine (recipes.h, BenchEngine): the weights at
 * its quantization's bytes a parameter (FP8 1, NVFP4 0.5, else 2, as tuning.py counts them), the
 * KV cache at the launch's precision or, unset, FP8 where the checkpoint is quantized (the FP8 and
 * NVFP4 checkpoints' kv_cache_quant_algo), 2 bytes else. MLA models are sized another way there:
 * FALSE for them, and where the weights do not fit. */
static gboolean bench_limits(const ValRow *r, double kv_fraction, double *max_batch, double *max_tokens)
{
  const Engine *e = &r->decode;
  const LlmSpec *m = r->model;
  if (m->kv_lora_rank > 0 || m->kv_heads <= 0)
    return FALSE;
  Precision kv = r->kv_asked != KVP_AUTO ? (Precision)(r->kv_asked - 1)
                 : e->precision == PREC_BF16 ? PREC_BF16 : PREC_FP8;
  double w_bytes = e->precision == PREC_FP4 ? 0.5 : e->precision == PREC_FP8 ? 1 : 2;
  double tp = (double)e->gpus / e->pp;
  BenchEngine b = { .gpus = e->gpus, .pp = e->pp, .gpu_memory = r->sys->hbm_capacity,
                    .weights = m->params_total * w_bytes,
                    .kv_token = 2.0 * m->layers * MAX(tp, m->kv_heads) * m->head_dim * precision_bytes(kv),
                    .isl = r->load.isl, .osl = r->load.osl, .kv_fraction = kv_fraction };
  return recipes_trtllm_bench_limits(&b, max_batch, max_tokens);
}

/* The launch settings the row's benchmark gave its engines (recipes.h), put into the row. */
static void launch_as_recipes_say(ValRow *r, const Cell *c, const Recipes *rec, gboolean mtp)
{
  double ranks = r->dec_workers * engine_attn_dp(&r->decode);
  RecipeRow row = { .source_kind = r->source_kind, .model = r->model->id, .framework = r->framework,
                    .mode = r->mode, .scenario = text(c, "scenario"), .system = r->system,
                    .arch = gpu_arch_names[r->sys->arch], .precision = text(c, "precision"), .mtp = mtp,
                    .attention_dp = r->decode.dp_attention, .engine_gpus = r->decode.gpus,
                    .isl = num(c, "isl"), .osl = num(c, "osl"), .concurrency = r->load.users,
                    .decode_rank_users = ranks > 0 ? r->load.users / ranks : 0 };
  RecipeSettings s;
  recipes_apply(rec, &row, &s);
  r->draft_tokens = !mtp ? 0 : s.draft_tokens >= 0 ? s.draft_tokens : -1; /* -1: from the profile */
  r->launch = s.launched;
  r->adp_balance_timeout = s.adp_balance_timeout, r->adp_batching_wait = s.adp_batching_wait;
  r->batch_wait_timeout = s.batch_wait_timeout, r->batch_wait_tokens = s.batch_wait_tokens;
  r->recv_interval = s.recv_interval, r->overlap = s.overlap;
  if (!isnan(s.max_batch))
    r->load.max_batch = s.max_batch;
  if (!isnan(s.chunk))
    r->load.chunk = s.chunk;
  if (s.kv_cache >= 0)
    r->kv_asked = (KvPrecision)(s.kv_cache + 1); /* KvPrecision is Precision after KVP_AUTO */
  if (s.attention_dp >= 0) /* before EP, which an attention-DP engine may spread over its GPUs */
    r->decode.dp_attention = r->prefill.dp_attention = s.attention_dp == 1;
  if (s.ep_engine) { /* before the slots, which want EP > 1 */
    ep_over_engine(&r->decode);
    if (r->disaggregated)
      ep_over_engine(&r->prefill);
  }
  if (s.expert_slots >= 0 && r->decode.ep > 1)
    r->decode.expert_slots = s.expert_slots;
  if (s.deepep >= 0)
    r->decode.deepep = r->prefill.deepep = s.deepep == 1;
  if (s.sliced_trtllm_gen == 1) { /* after EP, which decides whose experts are sliced */
    r->decode.trtllm_gen_moe = moe_backend_trtllm_gen(MOE_BACKEND_AUTO, engine_moe_tp(&r->decode));
    if (r->disaggregated)
      r->prefill.trtllm_gen_moe = moe_backend_trtllm_gen(MOE_BACKEND_AUTO, engine_moe_tp(&r->prefill));
  }
  if (!isnan(s.kv_memory_fraction))
    r->decode.kv_fraction = r->prefill.kv_fraction = s.kv_memory_fraction;
  if (!isnan(s.decode_rank_batch) && r->disaggregated) /* per decode engine from here on */
    r->load.max_batch = MAX(1, s.decode_rank_batch) * engine_attn_dp(&r->decode);
  /* trtllm-bench sizes them at the KV fraction it runs with (its own default, 0.90, unless set) */
  double bench_batch, bench_tokens;
  if ((s.bench_max_batch || s.bench_chunk) && !r->disaggregated &&
      bench_limits(r, isnan(s.kv_memory_fraction) ? 0.90 : s.kv_memory_fraction, &bench_batch, &bench_tokens)) {
    if (s.bench_max_batch)
      r->load.max_batch = bench_batch;
    if (s.bench_chunk)
      r->load.chunk = bench_tokens;
  }
  if (s.graphs.n > 0) { /* TensorRT-LLM keeps the graphs its batch and token limits can fill */
    double cap = r->load.max_batch < ENGINE_BATCH_UNSET ? r->load.max_batch : INFINITY;
    double tokens = r->load.chunk > 0 ? r->load.chunk : INFINITY;
    if (r->decode.stack == STACK_TRTLLM)
      recipes_trtllm_graphs(&s.graphs, cap, tokens, MAX(r->draft_tokens, 0), &r->graphs);
    else
      r->graphs = s.graphs;
  }
}

static gboolean build(ValRow *r, const Cell *c, const Catalog *cat, const Recipes *rec)
{
  r->sys = catalog_system(cat, r->system);
  r->model = catalog_model(cat, text(c, "model"));
  if (!r->sys)
    return unsupported(r, "system '%s' is not in the catalog", r->system);
  if (!r->model)
    return unsupported(r, "model '%s' is not in the catalog", text(c, "model"));
  int p = precision_of(text(c, "precision"));
  Stack st;
  if (p < 0)
    return unsupported(r, "precision '%s' is not modelled", text(c, "precision"));
  Framework fw;
  if (!framework_parse(r->framework, &fw))
    return unsupported(r, "serving stack '%s' has no profile", r->framework);
  st = framework_stack(fw);
  r->fw = fw;
  double isl = num(c, "isl"), osl = num(c, "osl"), gpus = num(c, "gpus");
  const char *scenario = text(c, "scenario");
  const MlperfRules *ml = recipes_mlperf(rec, r->model->id);
  if (isnan(isl) && ml)
    isl = ml->dataset_isl;
  if (!(isl > 0) || !(osl > 0) || !(gpus >= 1))
    return unsupported(r, "input length, output length or GPU count missing");
  r->client = recipes_client(rec, r->source_kind);
  if (r->client) { /* the mean of lengths drawn from range x nominal to nominal */
    isl *= (1 + r->client->length_range) / 2;
    osl *= (1 + r->client->length_range) / 2;
  }
  r->gpus = (int)gpus;
  r->load = (Load){ .isl = isl, .osl = osl, .max_batch = 1e9, .chunk = 8192 };
  if (strcmp(scenario, "concurrency") == 0) {
    r->load.users = num(c, "concurrency");
    if (!(r->load.users >= 1))
      return unsupported(r, "concurrency missing");
  } else if (strcmp(scenario, "server") == 0 || strcmp(scenario, "interactive") == 0) {
    if (!ml)
      return unsupported(r, "no MLPerf latency limits known for %s", r->model->id);
    gboolean server = strcmp(scenario, "server") == 0;
    r->load.tpot_limit = (server ? ml->server_tpot : ml->interactive_tpot) * SLO_TPOT_FRACTION;
    r->load.ttft_p99_limit = server ? ml->server_ttft : ml->interactive_ttft;
  } else if (strcmp(scenario, "offline") == 0) {
    r->offline_requests = recipes_offline_requests(rec, r->source_kind, num(c, "isl"), num(c, "osl"));
  } else {
    return unsupported(r, "scenario '%s' is not modelled", scenario);
  }
  gboolean mtp = strcmp(text(c, "spec_decode"), "mtp") == 0;
  if (strcmp(r->mode, "disagg") == 0) {
    r->disaggregated = TRUE;
    if (!engine_from(r, c, &r->prefill, "prefill", p, st) || !engine_from(r, c, &r->decode, "decode", p, st))
      return FALSE;
    r->load.chunk = 16384; /* prompts batched per prefill step */
    r->same_domain = r->gpus <= r->sys->nvlink_domain_gpus;
  } else {
    double tp = num(c, "tp"), ep = num(c, "ep");
    r->search_tp = isnan(tp);
    if (r->search_tp && r->load.users > 0)
      return unsupported(r, "concurrency row without its parallelism");
    r->decode = (Engine){ .sys = r->sys, .model = r->model, .precision = p,
                          .stack = st, .dynamo_front = framework_dynamo(fw),
                          .gpus = r->search_tp ? 1 : (int)tp, .pp = 1, .ep = isnan(ep) ? 1 : (int)ep,
                          .dp_attention = num(c, "dp_attention") == 1 };
    if (!r->search_tp && r->gpus % r->decode.gpus)
      return unsupported(r, "%d GPUs do not split into TP %d engines", r->gpus, r->decode.gpus);
    r->dec_workers = r->gpus / r->decode.gpus;
  }
  launch_as_recipes_say(r, c, rec, mtp);
  return TRUE;
}

/* The numeric columns a row is built from, with what a deployment can hold. A value outside is not
 * a measurement of one (a TP of 0, 1e30 GPUs, a negative throughput): the file is bad input, said at
 * its line and column, and nothing is predicted from it. An empty cell is a figure not measured. */
static const struct {
  const char *column;
  double lo, hi;
  gboolean whole;
} numeric[] = {
  { "gpus", 1, 1e6, TRUE }, { "isl", 1, 1e7, FALSE }, { "osl", 1, 1e7, FALSE }, { "concurrency", 1, 1e6, TRUE },
  { "tp", 1, 65536, TRUE }, { "ep", 1, 65536, TRUE }, { "dp_attention", 0, 1, TRUE },
  { "prefill_workers", 1, 1e6, TRUE }, { "prefill_ep", 1, 65536, TRUE }, { "prefill_dp_attention", 0, 1, TRUE },
  { "decode_workers", 1, 1e6, TRUE }, { "decode_ep", 1, 65536, TRUE }, { "decode_dp_attention", 0, 1, TRUE },
  { "prefill_gpus", 1, 1e6, TRUE }, { "decode_gpus", 1, 1e6, TRUE },
  { "out_tok_s_per_gpu", 1e-9, 1e12, FALSE }, { "tok_s_per_user", 1e-9, 1e12, FALSE },
  { "ttft_ms", 1e-9, 1e12, FALSE }, { "gpu_power_w", 1e-9, 1e9, FALSE }, { "server_power_w", 1e-9, 1e12, FALSE },
};

static gboolean check_numbers(const CsvFile *csv, guint r, const char *file, GError **error)
{
  for (gsize i = 0; i < G_N_ELEMENTS(numeric); i++) {
    int col = csv_column(csv, numeric[i].column);
    const char *s = csv_field(csv, r, col);
    char *end = NULL;
    double v = g_ascii_strtod(s, &end);
    if (!*s || (!*end && v >= numeric[i].lo && v <= numeric[i].hi && (!numeric[i].whole || v == floor(v))))
      continue;
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: column '%s' expects %s from %g to %g, got '%s'", file,
                g_array_index(csv->lines, int, r), col + 1, numeric[i].column,
                numeric[i].whole ? "a whole number" : "a number", numeric[i].lo, numeric[i].hi, s);
    return FALSE;
  }
  return TRUE;
}

GPtrArray *validate_read(const char *file, const Catalog *cat, const Recipes *rec, GError **error)
{
  g_autoptr(CsvFile) csv = csv_read(file, error);
  if (!csv)
    return NULL;
  for (int i = 0; required[i]; i++)
    if (csv_column(csv, required[i]) < 0) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:1:1: missing column '%s' (schema: id, system, gpus, "
                  "model, precision, isl, osl, concurrency, scenario, mode, parallelism columns, ...)",
                  file, required[i]);
      return NULL;
    }
  GPtrArray *rows = g_ptr_array_new_with_free_func((GDestroyNotify)val_row_free);
  for (guint i = 0; i < csv->rows->len; i++)
    if (!check_numbers(csv, i, file, error))
      return NULL;
  for (guint i = 0; i < csv->rows->len; i++) {
    Cell c = { csv, i };
    ValRow *r = g_new0(ValRow, 1);
    r->id = g_strdup(text(&c, "id"));
    r->system = g_strdup(text(&c, "system"));
    r->mode = g_strdup(text(&c, "mode"));
    r->model_name = g_strdup(text(&c, "model"));
    r->source_kind = g_strdup(text(&c, "source_kind"));
    r->framework = g_strdup(text(&c, "framework"));
    r->overlap = NAN; /* the stack's, unless a launch script says */
    r->measured[MET_OUT_TOK_S_PER_GPU] = num(&c, "out_tok_s_per_gpu");
    r->measured[MET_TOK_S_PER_USER] = num(&c, "tok_s_per_user");
    r->measured[MET_TTFT] = num(&c, "ttft_ms");
    r->measured[MET_GPU_POWER] = num(&c, "gpu_power_w");       /* optional columns: NAN when absent */
    r->measured[MET_SERVER_POWER] = num(&c, "server_power_w");
    build(r, &c, cat, rec);
    g_ptr_array_add(rows, r);
  }
  return rows;
}

void val_row_free(ValRow *r)
{
  g_free(r->id);
  g_free(r->system);
  g_free(r->mode);
  g_free(r->model_name);
  g_free(r->source_kind);
  g_free(r->framework);
  g_free(r->unsupported);
  g_free(r);
}

GPtrArray *validate_rows_copy(GPtrArray *rows)
{
  GPtrArray *out = g_ptr_array_new_full(rows->len, (GDestroyNotify)val_row_free);
  for (guint i = 0; i < rows->len; i++) {
    ValRow *r = g_memdup2(rows->pdata[i], sizeof(ValRow));
    char **strings[] = { &r->id, &r->system, &r->mode, &r->model_name, &r->source_kind, &r->framework, &r->unsupported };
    for (gsize k = 0; k < G_N_ELEMENTS(strings); k++)
      *strings[k] = g_strdup(*strings[k]);
    g_ptr_array_add(out, r);
  }
  return out;
}

static void use_profile(const ValRow *r, Engine *e, const Profile *prof)
{
  e->prof = prof;
  e->kv_precision = kv_precision_for(r->kv_asked, e->precision, prof, e->stack);
  e->draft_tokens = r->draft_tokens < 0 ? prof->mtp_draft_tokens : r->draft_tokens;
  if (e->draft_tokens)
    e->acceptance = prof->stack[e->stack].mtp_acceptance;
  /* the graphs the recipe lists, or the stack's own ladder up to the batch the engine admits */
  if (r->graphs.n > 0)
    e->graphs = r->graphs;
  else
    engine_stack_graphs(e->stack, e->draft_tokens,
                        (int)ceil(engine_launch_cap(e, r->load.max_batch) / engine_attn_dp(e)), &e->graphs);
}

/* PROF, or the row's copy of it with its launch settings over its stack's defaults. */
static const Profile *row_profile(ValRow *r, const Profile *prof)
{
  if (!r->launch)
    return prof;
  r->launched = *prof; /* shares the source string: the copy is never cleared */
  StackProfile *sp = &r->launched.stack[r->decode.stack];
  const double *from[] = { &r->adp_balance_timeout, &r->adp_batching_wait, &r->batch_wait_timeout,
                           &r->batch_wait_tokens, &r->recv_interval };
  double *to[] = { &sp->adp_balance_timeout, &sp->adp_batching_wait, &sp->batch_wait_timeout,
                   &sp->batch_wait_tokens, &sp->recv_interval };
  for (gsize k = 0; k < G_N_ELEMENTS(from); k++)
    if (!isnan(*from[k]))
      *to[k] = *from[k];
  if (!isnan(r->overlap))
    sp->overlap_scheduler = r->overlap != 0;
  return &r->launched;
}

void validate_deployment(const ValRow *r, Deployment *d)
{
  *d = (Deployment){ .disaggregated = r->disaggregated, .framework = r->fw, .prefill = r->prefill, .decode = r->decode,
                     .pre_workers = r->pre_workers, .dec_workers = r->dec_workers,
                     .same_domain = r->same_domain, .load = r->load };
}

/* The row as a deployment: the other adapter (evaluate.c has the scenario point's). The row's
 * engines take the profile, with the row's launch settings over its stack's. */
static void row_deployment(ValRow *r, const Profile *prof, Deployment *d)
{
  prof = row_profile(r, prof);
  use_profile(r, &r->decode, prof);
  use_profile(r, &r->prefill, prof);
  validate_deployment(r, d);
}

/* An empty prediction: unsupported until told otherwise, nothing predicted. */
static void prediction_init(Prediction *out)
{
  *out = (Prediction){ .status = OUTCOME_UNSUPPORTED, .pool_load = NAN, .batch = NAN };
  for (int m = 0; m < N_METRICS; m++)
    out->predicted[m] = NAN;
}

/* The row's metrics from an outcome (whose reason moves into OUT); the measured system is its
 * servers at the wall. */
static void prediction_fill(const ValRow *r, Outcome *o, Prediction *out)
{
  out->status = o->kind;
  out->reason = g_steal_pointer(&o->reason);
  if (o->kind != OUTCOME_OK)
    return;
  out->predicted[MET_OUT_TOK_S_PER_GPU] = o->out_tok_s_per_gpu;
  out->predicted[MET_TOK_S_PER_USER] = o->tok_s_per_user;
  out->predicted[MET_TTFT] = o->ttft * 1e3;
  out->pool_load = o->pool_load;
  out->batch = o->batch;
  out->predicted[MET_GPU_POWER] = o->gpu_power_w;
  out->predicted[MET_SERVER_POWER] = o->it_w_per_gpu * r->gpus;
}

/* MLPerf leaves the parallelism open: the TP (a power of two within the NVLink domain that divides
 * the GPUs) with the most tokens/s per GPU, left in the row; the last TP's outcome when none fits.
 * Returns the TP, or 0. */
static int predict_open_tp(ValRow *r, const Profile *prof, Outcome *out)
{
  int best_tp = 0;
  Outcome last = { 0 };
  for (int tp = 1; tp <= MIN(r->gpus, r->sys->nvlink_domain_gpus); tp *= 2) {
    if (r->gpus % tp)
      continue;
    r->decode.gpus = tp;
    Deployment d;
    Outcome o;
    row_deployment(r, prof, &d);
    d.dec_workers = r->gpus / tp;
    predict(&d, METHOD_STEADY, &o);
    if (o.kind == OUTCOME_OK && o.out_tok_s_per_gpu > (best_tp ? out->out_tok_s_per_gpu : 0)) {
      if (best_tp)
        outcome_clear(out);
      *out = o, best_tp = tp;
    } else {
      outcome_clear(&last);
      last = o;
    }
  }
  if (best_tp) {
    outcome_clear(&last);
    r->decode.gpus = best_tp;
    r->dec_workers = r->gpus / best_tp;
  } else {
    *out = last;
    r->decode.gpus = 1, r->dec_workers = r->gpus; /* named as the row's GPUs, none chosen */
  }
  return best_tp;
}

/* An offline run of N requests queued at once, all of the same lengths, measured over the whole
 * run (recipes.h, OfflineRun): each engine of deployment D takes its share n of them and runs them
 * in waves of the B sequences it holds at once (its slots), every wave admitted together and so
 * finishing together (FULL: the saturated engine, X(B)). The last wave's R = n - floor(n / B) x B
 * sequences run on their own, at R's throughput X(R): for R x OSL / X(R), where a full wave takes
 * B x OSL / X(B). The run's throughput is then X(B) x n / (floor(n / B) x B + R x X(B) / X(R));
 * returns that factor on X(B) (1 when the waves come out whole or the last one cannot be
 * predicted). */
static double offline_waves(const Deployment *d, const Outcome *full, double requests)
{
  double engines = MAX(1, d->dec_workers), n = requests / engines;
  double b = floor(predict_engine_slots(d, full->max_seqs));
  if (!(n > 0) || !(b >= 1) || !(full->out_tok_s_per_gpu > 0))
    return 1;
  double waves = floor(n / b), rest = n - waves * b;
  if (rest < 0.5)
    return 1;
  Deployment last = *d;
  last.load.max_batch = floor(rest + 0.5);
  Outcome o;
  predict(&last, METHOD_STEADY, &o);
  double x_rest = o.kind == OUTCOME_OK ? o.out_tok_s_per_gpu : 0;
  outcome_clear(&o);
  if (!(x_rest > 0))
    return 1;
  return n / (waves * b + rest * full->out_tok_s_per_gpu / x_rest);
}

void validate_predict(ValRow *r, const Profile *prof, Prediction *out)
{
  prediction_init(out);
  if (r->unsupported) {
    out->reason = g_strdup(r->unsupported);
    return;
  }
  Deployment d;
  Outcome o;
  if (r->search_tp) {
    predict_open_tp(r, prof, &o); /* leaves the chosen TP in the row */
    row_deployment(r, prof, &d);
  } else {
    row_deployment(r, prof, &d);
    predict(&d, METHOD_STEADY, &o);
    if (r->offline_requests > 0 && o.kind == OUTCOME_OK)
      o.out_tok_s_per_gpu *= offline_waves(&d, &o, r->offline_requests);
  }
  out->config = deployment_label(&d);
  prediction_fill(r, &o, out);
}

/* The measured run as a closed-loop workload, on the scenario's defaults for the rest. Rows of a
 * benchmark whose load generator the recipes describe replay it; others get a steady window over
 * enough requests to see each user several times. */
static void sim_config_of(const ValRow *r, SimConfig *p)
{
  sim_config_defaults(p);
  p->arrival = ARRIVAL_CLOSED;
  p->users = (int)r->load.users;
  if (r->client) {
    double mean = (1 + r->client->length_range) / 2, in = r->load.isl / mean, out = r->load.osl / mean;
    double lo = r->client->length_range;
    p->input = (LengthSpec){ .dist = DIST_UNIFORM, .mean = r->load.isl, .min = lo * in, .max = in };
    p->output = (LengthSpec){ .dist = DIST_UNIFORM, .mean = r->load.osl, .min = lo * out, .max = out };
    p->requests = (int)(r->client->prompts_per_user * p->users);
    p->start = START_TOGETHER;
    p->window = WINDOW_ALL;
  } else {
    p->input = (LengthSpec){ .dist = DIST_FIXED, .mean = r->load.isl, .min = 1, .max = r->load.isl };
    p->output = (LengthSpec){ .dist = DIST_FIXED, .mean = r->load.osl, .min = 1, .max = r->load.osl };
    p->requests = (int)CLAMP(5 * r->load.users, 500, 50000);
  }
  p->agg.max_batch = p->decode.max_batch = p->prefill.max_batch = (int)MIN(r->load.max_batch, ENGINE_BATCH_UNSET);
  if (r->disaggregated) /* the cap is the decode engines'; prefill batches by its token budget */
    p->prefill.max_batch = (int)ENGINE_BATCH_UNSET;
  p->agg.chunked_prefill = (int)r->load.chunk;
  p->prefill.chunked_prefill = (int)r->load.chunk;
}

/* The event simulation of ROW, its KV caches moved by the native network or by SimGrid. */
static void predict_sim(ValRow *r, const Profile *prof, Prediction *out, gboolean simgrid)
{
  if (r->unsupported || r->search_tp || r->load.users <= 0) {
    validate_predict(r, prof, out);
    return;
  }
  prediction_init(out);
  Deployment d;
  Outcome o;
  SimConfig p;
  row_deployment(r, prof, &d);
  sim_config_of(r, &p);
  d.sim = &p;
  predict(&d, simgrid ? METHOD_SIMGRID : METHOD_DES, &o);
  g_autofree char *label = deployment_label(&d);
  out->config = g_strdup_printf("%s (%s)", label, method_names[o.method]);
  prediction_fill(r, &o, out);
}

void validate_predict_des(ValRow *r, const Profile *prof, Prediction *out)
{
  predict_sim(r, prof, out, FALSE);
}

void validate_predict_simgrid(ValRow *r, const Profile *prof, Prediction *out)
{
  predict_sim(r, prof, out, TRUE);
}

void prediction_clear(Prediction *p)
{
  g_clear_pointer(&p->reason, g_free);
  g_clear_pointer(&p->config, g_free);
}

double validate_ape(const ValRow *r, const Prediction *p, Metric m)
{
  double meas = r->measured[m], pred = p->predicted[m];
  if (!isfinite(meas) || !isfinite(pred) || meas <= 0)
    return NAN;
  return fabs(pred / meas - 1);
}

/* The GPU architecture of a row's system, as the catalog names it ("unknown": not in the catalog). */
static const char *row_arch(const ValRow *r)
{
  return r->sys ? gpu_arch_names[r->sys->arch] : "unknown";
}

/* The value of a grouping field for a row ("system", "mode", "system+mode", "framework",
 * "source_kind", and the CSV's "system+arch", "system+mode+model" and "arch+mode+model"). */
static char *group_value(const ValRow *r, const char *field)
{
  if (strcmp(field, "system") == 0)
    return g_strdup(r->system);
  if (strcmp(field, "mode") == 0)
    return g_strdup(r->mode);
  if (strcmp(field, "system+mode") == 0)
    return g_strdup_printf("%s/%s", r->system, r->mode);
  if (strcmp(field, "system+arch") == 0)
    return g_strdup_printf("%s/%s", r->system, row_arch(r));
  if (strcmp(field, "system+mode+model") == 0)
    return g_strdup_printf("%s/%s/%s", r->system, r->mode, r->model_name);
  if (strcmp(field, "arch+mode+model") == 0)
    return g_strdup_printf("%s/%s/%s", row_arch(r), r->mode, r->model_name);
  if (strcmp(field, "framework") == 0)
    return g_strdup(r->framework);
  return g_strdup(r->source_kind);
}

/* One group's counts, the median and p90 of each metric's |predicted / measured - 1|, and the
 * median of throughput per GPU's and tokens/s per user's together (the headline's pooled figure). */
typedef struct {
  guint n, ok, inf;
  guint m_n[N_METRICS];
  double median[N_METRICS], p90[N_METRICS];
  guint pooled_n;
  double pooled;
} GroupStats;

static void group_stats(GPtrArray *rows, const Prediction *preds, const char *field, const char *value, GroupStats *out)
{
  *out = (GroupStats){ 0 };
  GArray *ape[N_METRICS];
  for (int m = 0; m < N_METRICS; m++)
    ape[m] = g_array_new(FALSE, FALSE, sizeof(double));
  for (guint i = 0; i < rows->len; i++) {
    const ValRow *r = rows->pdata[i];
    g_autofree char *v = field ? group_value(r, field) : NULL;
    if (field && strcmp(v, value) != 0)
      continue;
    out->n++;
    out->ok += preds[i].status == OUTCOME_OK;
    out->inf += preds[i].status == OUTCOME_INFEASIBLE;
    for (int m = 0; m < N_METRICS; m++) {
      double e = validate_ape(r, &preds[i], m);
      if (isfinite(e))
        g_array_append_val(ape[m], e);
    }
  }
  g_autoptr(GArray) pooled = g_array_new(FALSE, FALSE, sizeof(double));
  g_array_append_vals(pooled, ape[MET_OUT_TOK_S_PER_GPU]->data, ape[MET_OUT_TOK_S_PER_GPU]->len);
  g_array_append_vals(pooled, ape[MET_TOK_S_PER_USER]->data, ape[MET_TOK_S_PER_USER]->len);
  static const double half = 0.5;
  out->pooled_n = pooled->len, out->pooled = NAN;
  if (pooled->len)
    stats_quantiles(pooled, &half, 1, &out->pooled);
  for (int m = 0; m < N_METRICS; m++) {
    static const double q[2] = { 0.5, 0.9 };
    double at[2] = { NAN, NAN };
    if (ape[m]->len)
      stats_quantiles(ape[m], q, 2, at);
    out->m_n[m] = ape[m]->len, out->median[m] = at[0], out->p90[m] = at[1];
    g_array_unref(ape[m]);
  }
}

/* A group's line of the table, or of the CSV (validate_groups_csv) when CSV. */
static void summary_line(GString *out, const char *group, GPtrArray *rows, const Prediction *preds,
                         const char *field, const char *value, gboolean csv)
{
  GroupStats g;
  group_stats(rows, preds, field, value, &g);
  if (csv) {
    csv_append_field(out, field ? field : "all");
    g_string_append_c(out, ',');
    csv_append_field(out, value ? value : "");
    g_string_append_printf(out, ",%u,%u,%u", g.n, g.ok, g.inf);
    for (int m = 0; m < N_METRICS; m++) {
      g_string_append_printf(out, ",%u", g.m_n[m]);
      g_string_append_printf(out, isfinite(g.median[m]) ? ",%.6g" : ",", g.median[m]);
      g_string_append_printf(out, isfinite(g.p90[m]) ? ",%.6g" : ",", g.p90[m]);
    }
    g_string_append_printf(out, ",%u", g.pooled_n);
    g_string_append_printf(out, isfinite(g.pooled) ? ",%.6g\n" : ",\n", g.pooled);
    return;
  }
  g_string_append_printf(out, "%-30s %5u %5u %5u %5u", group, g.n, g.ok, g.inf, g.n - g.ok - g.inf);
  for (int m = 0; m < N_METRICS; m++) {
    if (g.m_n[m])
      g_string_append_printf(out, "  %5u %6.1f%% %6.1f%%", g.m_n[m], 100 * g.median[m], 100 * g.p90[m]);
    else
      g_string_append_printf(out, "  %5u %7s %7s", 0u, "-", "-");
  }
  g_string_append_c(out, '\n');
}

static gint cmp_strp(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

static void group_lines(GString *out, GPtrArray *rows, const Prediction *preds, const char *field, gboolean csv)
{
  g_autoptr(GPtrArray) seen = g_ptr_array_new_with_free_func(g_free);
  for (guint i = 0; i < rows->len; i++) {
    const ValRow *r = rows->pdata[i];
    char *v = group_value(r, field);
    gboolean dup = FALSE;
    for (guint j = 0; j < seen->len && !dup; j++)
      dup = strcmp(seen->pdata[j], v) == 0;
    if (!dup)
      g_ptr_array_add(seen, v);
    else
      g_free(v);
  }
  g_ptr_array_sort(seen, cmp_strp);
  for (guint j = 0; j < seen->len; j++) {
    g_autofree char *name = g_strdup_printf("%s=%s", field, (char *)seen->pdata[j]);
    summary_line(out, name, rows, preds, field, seen->pdata[j], csv);
  }
}

/* Every group: all rows, then by each grouping field; the CSV adds the groups by model that the
 * held-out table quotes (validate.h), which would only lengthen the printed table. */
static void groups(GString *out, GPtrArray *rows, const Prediction *preds, gboolean csv)
{
  static const char *const fields[] = { "system", "mode", "system+mode", "source_kind", "framework" };
  static const char *const by_model[] = { "system+arch", "system+mode+model", "arch+mode+model" };
  summary_line(out, "all", rows, preds, NULL, NULL, csv);
  for (gsize f = 0; f < G_N_ELEMENTS(fields); f++)
    group_lines(out, rows, preds, fields[f], csv);
  for (gsize f = 0; csv && f < G_N_ELEMENTS(by_model); f++)
    group_lines(out, rows, preds, by_model[f], csv);
}

char *validate_groups_csv(GPtrArray *rows, const Prediction *preds)
{
  GString *out = g_string_new("field,value,rows,ok,infeasible");
  for (int m = 0; m < N_METRICS; m++)
    g_string_append_printf(out, ",%s_n,%s_median,%s_p90", metric_names[m], metric_names[m], metric_names[m]);
  g_string_append(out, ",pooled_n,pooled_median\n");
  groups(out, rows, preds, TRUE);
  return g_string_free(out, FALSE);
}

double validate_pooled_median(GPtrArray *rows, const Prediction *preds, guint *n)
{
  GroupStats g;
  group_stats(rows, preds, NULL, NULL, &g);
  if (n)
    *n = g.pooled_n;
  return g.pooled;
}

double validate_self_consistency(const ValRow *r)
{
  double thr = r->measured[MET_OUT_TOK_S_PER_GPU], speed = r->measured[MET_TOK_S_PER_USER];
  double ttft = r->measured[MET_TTFT] / 1e3, answer = r->load.osl;
  if (r->unsupported || !(r->load.users > 0) || r->gpus <= 0 || !(thr > 0) || !(speed > 0) || !(ttft >= 0) ||
      !(answer > 0))
    return NAN;
  return thr / (r->load.users * answer / (ttft + answer / speed) / r->gpus);
}

/* Rows whose own figures cannot all hold (validate_self_consistency outside SELF_LO..SELF_HI): the
 * model cannot serve both their throughput and their per-user speed (docs/validation.md). */
#define SELF_LO 0.8
#define SELF_HI 1.25

static void self_check(GString *out, GPtrArray *rows)
{
  guint n = 0, off = 0;
  for (guint i = 0; i < rows->len; i++) {
    double c = validate_self_consistency(rows->pdata[i]);
    if (isnan(c))
      continue;
    n++;
    off += c < SELF_LO || c > SELF_HI;
  }
  if (off)
    g_string_append_printf(out,
                           "self-check: %u of %u closed-loop rows measure a throughput per GPU outside %.2g-%.3gx what their "
                           "own users, answers, TTFT and per-user speed imply (Little's law): no run makes both figures "
                           "(PREDICTIONS.csv's self_check column names them)\n",
                           off, n, SELF_LO, SELF_HI);
}

char *validate_summary(GPtrArray *rows, const Prediction *preds)
{
  GString *out = g_string_new(NULL);
  g_string_append_printf(out, "%-30s %5s %5s %5s %5s", "group", "rows", "ok", "infs", "unsup");
  for (int m = 0; m < N_METRICS; m++)
    g_string_append_printf(out, "  %21s", metric_names[m]);
  g_string_append_printf(out, "\n%-30s %23s", "", "");
  for (int m = 0; m < N_METRICS; m++)
    g_string_append_printf(out, "  %5s %7s %7s", "n", "median", "p90");
  g_string_append_c(out, '\n');
  groups(out, rows, preds, FALSE);
  g_string_append(out, "(median and p90 of |predicted / measured - 1|; n = rows with both values)\n");
  guint n;
  double pooled = validate_pooled_median(rows, preds, &n);
  if (n)
    g_string_append_printf(out, "pooled: throughput per GPU and tokens/s per user, median %.1f%% over %u figures\n",
                           100 * pooled, n);
  self_check(out, rows);
  return g_string_free(out, FALSE);
}

char *validate_predictions_csv(GPtrArray *rows, const Prediction *preds)
{
  GString *out = g_string_new("id,status,reason,predicted_out_tok_s_per_gpu,predicted_tok_s_per_user,"
                              "predicted_ttft_ms,predicted_gpu_power_w,predicted_server_power_w,predicted_config,"
                              "self_check\n");
  for (guint i = 0; i < rows->len; i++) {
    const ValRow *r = rows->pdata[i];
    double self = validate_self_consistency(r);
    csv_append_field(out, r->id);
    g_string_append_printf(out, ",%s,", outcome_names[preds[i].status]);
    csv_append_field(out, preds[i].reason);
    for (int m = 0; m < N_METRICS; m++)
      if (isfinite(preds[i].predicted[m]))
        g_string_append_printf(out, ",%.6g", preds[i].predicted[m]);
      else
        g_string_append_c(out, ',');
    g_string_append_c(out, ',');
    csv_append_field(out, preds[i].config);
    if (isfinite(self)) /* names the rows the summary's self-check counts */
      g_string_append_printf(out, ",%.4f", self);
    else
      g_string_append_c(out, ',');
    g_string_append_c(out, '\n');
  }
  return g_string_free(out, FALSE);
}
