/* results.c — results columns and writers (see results.h). */
#include "results.h"
#include "aif_error.h"
#include "csv.h"
#include "input_file.h"
#include "output_dir.h"

#include <math.h>
#include <stddef.h>
#include <string.h>

#define O(f) offsetof(ResultRow, f)
const ResultColumn result_columns[] = {
  { "point", RC_INDEX, O(point), "index of the point in the scenario's sweep" },
  { "system", RC_STR, O(system), "hardware catalog id" },
  { "model", RC_STR, O(model), "LLM catalog id" },
  { "config", RC_STR, O(config), "serving configuration: pools (workers x TP, PP, EP, attention-DP), precision, framework, MTP drafts, closed-loop users" },
  { "family", RC_STR, O(family), "configuration family: mode and parallelism class (TP, TP + PP, TP + EP, attention-DP, attention-DP + EP; the decode pool of a disaggregated point): the chart's colours" },
  { "mode", RC_STR, O(mode), "aggregated or disaggregated" },
  { "framework", RC_STR, O(framework), "serving framework (scenario's serving.framework)" },
  { "precision", RC_STR, O(precision), "weight and GEMM precision" },
  { "arrival", RC_STR, O(arrival), "closed (users), poisson, gamma or trace" },
  { "users", RC_NUM, O(users), "closed loop: concurrent users" },
  { "rate_req_s", RC_NUM, O(rate_req_s), "open loop: offered requests/s (poisson, gamma)" },
  { "isl", RC_NUM, O(isl), "mean input (prompt) tokens per request" },
  { "osl", RC_NUM, O(osl), "mean output tokens per request" },
  { "workers", RC_NUM, O(workers), "engines: aggregated, or of the decode pool" },
  { "tp", RC_NUM, O(tp), "tensor-parallel GPUs per engine (aggregated, or decode pool)" },
  { "pp", RC_NUM, O(pp), "pipeline stages per engine (aggregated, or decode pool)" },
  { "ep", RC_NUM, O(ep), "expert-parallel GPUs per engine (aggregated, or decode pool)" },
  { "attention_dp", RC_NUM, O(attention_dp), "1: attention data-parallel (aggregated, or decode pool)" },
  { "prefill_workers", RC_NUM, O(prefill_workers), "disaggregated: prefill engines" },
  { "prefill_tp", RC_NUM, O(prefill_tp), "disaggregated: tensor-parallel GPUs per prefill engine" },
  { "prefill_pp", RC_NUM, O(prefill_pp), "disaggregated: pipeline stages per prefill engine" },
  { "prefill_ep", RC_NUM, O(prefill_ep), "disaggregated: expert-parallel GPUs per prefill engine" },
  { "prefill_attention_dp", RC_NUM, O(prefill_attention_dp), "disaggregated: 1 with attention data-parallel prefill engines" },
  { "max_batch", RC_NUM, O(max_batch), "batch cap: most sequences in one engine step, per attention rank with attention-DP (aggregated, or decode pool)" },
  { "mtp_tokens", RC_NUM, O(mtp_tokens), "MTP draft tokens per step (0: no speculation)" },
  { "router", RC_STR, O(router), "how a request picks an engine (disaggregated, or more than one aggregated engine)" },
  { "oversubscription", RC_NUM, O(oversubscription), "scale-out fabric oversubscription" },
  { "budget_mw", RC_NUM, O(budget_mw), "facility power budget the factory is sized by, MW (factory.power_budget; empty where factory.gpus sets its size)" },
  { "factory_gpus", RC_NUM, O(factory_gpus), "GPUs the factory is sized to (factory.gpus; empty where the power budget sizes it)" },
  { "swept", RC_STR, O(swept), "the point's value of every other swept key, 'key=value; ...'" },
  { "status", RC_OUTCOME, O(status), "ok (meets the SLO), slo-violated (which limit: see reason), queue-bound (closed loop: users beyond what the deployment runs at once wait), unstable (open loop: more offered than served), infeasible (does not fit: see reason) or unsupported" },
  { "reason", RC_STR, O(reason), "why the point is not ok, with the numbers" },
  { "deployment_gpus", RC_NUM, O(deployment_gpus), "GPUs of the simulated deployment (engines x GPUs per engine)" },
  { "batch", RC_NUM, O(batch), "mean sequences per decode step per engine" },
  { "tok_s_per_user", RC_NUM, O(tok_s_per_user), "output tokens/s seen by one user (1 / TPOT)" },
  { "out_tok_s_per_gpu", RC_NUM, O(out_tok_s_per_gpu), "output tokens/s of the deployment per GPU" },
  { "tok_s_per_mw", RC_NUM, O(tok_s_per_mw), "output tokens/s per MW of provisioned facility power" },
  { "tok_s_per_mw_it", RC_NUM, O(tok_s_per_mw_it), "output tokens/s per MW of provisioned IT power" },
  { "tok_s_per_mw_drawn", RC_NUM, O(tok_s_per_mw_drawn), "output tokens/s per MW of facility power drawn at the simulated load (the racks run below their provisioned power)" },
  { "engine", RC_STR, O(engine), "how the point was computed: steady (steady-state model), des (event simulation) or simgrid (event simulation, SimGrid network)" },
  { "ttft_p50_ms", RC_NUM, O(ttft_p50_ms), "median time to first token, ms" },
  { "tpot_p50_ms", RC_NUM, O(tpot_p50_ms), "median time per output token, ms" },
  { "ttft_p90_ms", RC_NUM, O(ttft_p90_ms), "90th percentile TTFT, ms (des)" },
  { "ttft_p99_ms", RC_NUM, O(ttft_p99_ms), "99th percentile TTFT, ms (des)" },
  { "tpot_p90_ms", RC_NUM, O(tpot_p90_ms), "90th percentile TPOT, ms (des)" },
  { "tpot_p99_ms", RC_NUM, O(tpot_p99_ms), "99th percentile TPOT, ms (des)" },
  { "e2e_p50_ms", RC_NUM, O(e2e_p50_ms), "median end-to-end latency, ms (des)" },
  { "e2e_p99_ms", RC_NUM, O(e2e_p99_ms), "99th percentile end-to-end latency, ms (des)" },
  { "goodput_req_s", RC_NUM, O(goodput_req_s), "requests/s meeting the plan's TTFT and tok/s-per-user SLO (des)" },
  { "slo_attainment", RC_NUM, O(slo_attainment), "share of the window's requests that met the plan's SLO, each class and deployment at its own limits (goodput over the requests/s answered or lost with a failed engine; des)" },
  { "planner_moves", RC_NUM, O(planner_moves), "engines the planner moved between the prefill and decode pools (des)" },
  { "floor_engines", RC_NUM, O(floor_engines), "factory.floor.simulate: engines on the floor (copies of the point's deployment filling the factory)" },
  { "simulated_engines", RC_NUM, O(simulated_engines), "factory.floor.simulate: of the floor's engines, those simulated in full (the fast path's sample; the rest serve alike)" },
  { "failures", RC_NUM, O(failures), "factory.failures: engine failures over the run (of the whole floor when it is simulated)" },
  { "requests_lost", RC_NUM, O(requests_lost), "factory.failures: requests lost with a failed engine (retry off, or no engine left to take them)" },
  { "lost_share", RC_NUM, O(lost_share), "factory.failures: share of the window's requests lost with a failed engine (never answered: the TTFT and E2E percentiles, goodput and slo_attainment count them as misses, and a plan limit fails where more are lost than its percentile lets miss)" },
  { "requests_retried", RC_NUM, O(requests_retried), "factory.failures: requests sent again after their engine failed (their latency counts from the first arrival)" },
  { "availability", RC_NUM, O(availability), "factory.failures, factory.maintenance: the engines' share of the run in service (not failed, not out for maintenance)" },
  { "switch_tray_failures", RC_NUM, O(switch_tray_failures), "factory.failures: NVLink switch trays failed over the run (rack-scale domains; of the whole floor when it is simulated)" },
  { "degraded_share", RC_NUM, O(degraded_share), "factory.failures: the engines' share of the run in an NVLink domain with a switch tray down (running on the trays left)" },
  { "parked_share", RC_NUM, O(parked_share), "factory.autoscale: the engines' share of the run parked at idle power (the load did not need them)" },
  { "maintenance_share", RC_NUM, O(maintenance_share), "factory.maintenance: the engines' share of the run out of service for planned maintenance (in availability too)" },
  { "shed_rate", RC_NUM, O(shed_rate), "factory.envelope: share of the offered requests turned away to hold the facility's power envelope (policy shed)" },
  { "classes", RC_STR, O(classes), "workload.mix: each class, 'NAME SHARE: pNN TTFT (<= or > its limit), tok/s per user; ...' (des)" },
  { "deployments", RC_STR, O(deployments), "deployments: each deployment on the floor, 'MODEL (SHARE of the GPUs, GPUs held on average): req/s served (the share lost with failed engines), pNN TTFT (<= or > its limit; none where it falls among the lost), tok/s per user, engines moved in and out; ...' (des)" },
  { "sim_events", RC_NUM, O(sim_events), "events the event simulation ran (engine steps or runs of them, arrivals, KV transfers, ...): its cost (des)" },
  { "sim_requests", RC_NUM, O(sim_requests), "requests the event simulation created (a floor's sample: its share of the floor's; des)" },
  { "mean_power_cap_w", RC_NUM, O(mean_power_cap_w), "factory.envelope: the GPUs' power cap averaged over the run, W (the TDP while uncapped)" },
  { "step_ms", RC_NUM, O(step_ms), "time of one decode step, ms" },
  { "cache_hit_rate", RC_NUM, O(cache_hit_rate), "share of prompt tokens found in the engines' prefix caches (sessions, shared prefixes): measured by the event simulation, the given or the workload's reuse in the steady state; empty without shared context" },
  { "cache_host_rate", RC_NUM, O(cache_host_rate), "share of prompt tokens reloaded from the host-memory tier of the KV offload (in cache_hit_rate too; des, with serving.prefix_cache.host)" },
  { "cache_storage_rate", RC_NUM, O(cache_storage_rate), "share of prompt tokens reloaded from the local-NVMe tier (in cache_hit_rate too; des, with serving.prefix_cache.storage)" },
  { "cache_remote_rate", RC_NUM, O(cache_remote_rate), "share of prompt tokens reloaded from a remote KV store over the NICs (in cache_hit_rate too; des, with serving.prefix_cache.remote)" },
  { "weights_gb_per_gpu", RC_NUM, O(weights_gb_per_gpu), "weights held by one GPU, GB (1e9 B)" },
  { "kv_gb_per_gpu", RC_NUM, O(kv_gb_per_gpu), "HBM left for the KV cache per GPU, GB" },
  { "max_seqs", RC_NUM, O(max_seqs), "sequences whose KV cache fits in one engine" },
  { "gpu_power_w", RC_NUM, O(gpu_power_w), "average GPU board power at the simulated load, W" },
  { "it_w_per_gpu", RC_NUM, O(it_w_per_gpu), "average IT power per GPU at the wall (GPU racks), W" },
  { "joules_per_token", RC_NUM, O(joules_per_token), "facility energy per output token at the simulated load, J" },
  { "usd_per_mtok", RC_NUM, O(usd_per_mtok), "capex amortised + energy per million output tokens, USD" },
  { "facility_mw", RC_NUM, O(facility_mw), "provisioned facility power of the factory, MW" },
  { "it_mw", RC_NUM, O(it_mw), "provisioned IT power of the factory, MW" },
  { "racks", RC_NUM, O(racks), "racks in the factory" },
  { "gpus", RC_NUM, O(gpus), "GPUs in the factory" },
  { "fabric_tiers", RC_NUM, O(fabric_tiers), "switch tiers of the scale-out fabric" },
  { "optics_w_per_gpu", RC_NUM, O(optics_w_per_gpu), "scale-out optics power per GPU, W" },
  { "slots", RC_NUM, O(slots), "sequences the deployment runs at once (decode engines x batch cap or KV room)" },
  { "capacity_req_s", RC_NUM, O(capacity_req_s), "requests/s the deployment serves saturated (steady state)" },
  { "on_frontier", RC_FLAG, O(on_frontier), "1 when the point is on the Pareto frontier" },
};
#undef O
const gsize n_result_columns = G_N_ELEMENTS(result_columns);

void result_row_init(ResultRow *r, gsize point)
{
  memset(r, 0, sizeof *r);
  r->point = point;
  for (gsize i = 0; i < n_result_columns; i++)
    if (result_columns[i].type == RC_NUM)
      *(double *)((char *)r + result_columns[i].offset) = NAN;
  r->on_frontier = -1;
  r->status = OUTCOME_UNSUPPORTED;
}

void result_row_copy(const ResultRow *src, ResultRow *dst)
{
  *dst = *src;
  for (gsize i = 0; i < n_result_columns; i++)
    if (result_columns[i].type == RC_STR) {
      char **f = (char **)((char *)dst + result_columns[i].offset);
      *f = g_strdup(*f);
    }
}

void result_row_clear(ResultRow *r)
{
  for (gsize i = 0; i < n_result_columns; i++)
    if (result_columns[i].type == RC_STR)
      g_clear_pointer((char **)((char *)r + result_columns[i].offset), g_free);
}

/* %.6g keeps output byte-stable and readable; whole numbers (GPUs, racks, requests) are written
 * whole, as %.6g would round a factory of 1,000,008 GPUs to 1.00001e+06 and the summary, which
 * reads the rows back, would then say 1000010. */
void results_append_number(GString *out, double v)
{
  g_string_append_printf(out, v == floor(v) && fabs(v) < 1e15 ? "%.0f" : "%.6g", v);
}

/* The value as text; NULL when unknown. */
char *results_cell(const ResultRow *r, const ResultColumn *c)
{
  const char *base = (const char *)r + c->offset;
  switch (c->type) {
  case RC_STR: return *(char *const *)base ? g_strdup(*(char *const *)base) : NULL;
  case RC_INDEX: return g_strdup_printf("%" G_GSIZE_FORMAT, *(const gsize *)base);
  case RC_FLAG: return *(const int *)base < 0 ? NULL : g_strdup_printf("%d", *(const int *)base);
  case RC_OUTCOME: return g_strdup(outcome_names[*(const OutcomeKind *)base]);
  case RC_NUM: {
    double v = *(const double *)base;
    if (!isfinite(v))
      return NULL;
    GString *text = g_string_new(NULL);
    results_append_number(text, v);
    return g_string_free(text, FALSE);
  }
  }
  return NULL;
}

void results_json_string(GString *out, const char *s)
{
  g_string_append_c(out, '"');
  for (; s && *s; s++) {
    if (*s == '"' || *s == '\\')
      g_string_append_printf(out, "\\%c", *s);
    else if ((unsigned char)*s < 0x20)
      g_string_append_printf(out, "\\u%04x", *s);
    else
      g_string_append_c(out, *s);
  }
  g_string_append_c(out, '"');
}

const ResultColumn *results_column(const char *name)
{
  for (gsize i = 0; i < n_result_columns; i++)
    if (strcmp(result_columns[i].name, name) == 0)
      return &result_columns[i];
  return NULL;
}

gboolean results_column_numeric(const ResultColumn *c)
{
  return c && (c->type == RC_NUM || c->type == RC_INDEX || c->type == RC_FLAG);
}

double result_value(const ResultRow *r, const ResultColumn *c)
{
  const char *base = (const char *)r + c->offset;
  switch (c->type) {
  case RC_NUM: return *(const double *)base;
  case RC_INDEX: return (double)*(const gsize *)base;
  case RC_FLAG: return *(const int *)base < 0 ? NAN : *(const int *)base;
  case RC_STR:
  case RC_OUTCOME: break;
  }
  return NAN;
}

char *results_csv_header(void)
{
  GString *csv = g_string_new(NULL);
  for (gsize i = 0; i < n_result_columns; i++)
    g_string_append_printf(csv, "%s%s", i ? "," : "", result_columns[i].name);
  g_string_append_c(csv, '\n');
  return g_string_free(csv, FALSE);
}

char *results_csv_line(const ResultRow *row)
{
  GString *csv = g_string_new(NULL);
  for (gsize i = 0; i < n_result_columns; i++) {
    g_autofree char *v = results_cell(row, &result_columns[i]);
    if (i)
      g_string_append_c(csv, ',');
    csv_append_field(csv, v);
  }
  g_string_append_c(csv, '\n');
  return g_string_free(csv, FALSE);
}


static gboolean set_cell(ResultRow *r, const ResultColumn *c, const char *text)
{
  char *base = (char *)r + c->offset, *end = NULL;
  if (c->type == RC_STR) {
    g_free(*(char **)base);
    *(char **)base = *text ? g_strdup(text) : NULL;
    return TRUE;
  }
  if (c->type == RC_OUTCOME) {
    for (int k = 0; outcome_names[k]; k++)
      if (strcmp(text, outcome_names[k]) == 0)
        return (*(OutcomeKind *)base = (OutcomeKind)k), TRUE;
    return FALSE;
  }
  if (!*text)
    return c->type != RC_INDEX;
  double v = g_ascii_strtod(text, &end);
  if (*end || !isfinite(v)) /* results hold finite numbers; an unknown one is empty */
    return FALSE;
  if (c->type == RC_NUM) {
    *(double *)base = v;
    return TRUE;
  }
  /* a point index or a flag is a whole number that fits its field, never a cast of anything else */
  if (v != floor(v) || v < (c->type == RC_INDEX ? 0 : -1) || v > (c->type == RC_INDEX ? 1e15 : 1))
    return FALSE;
  if (c->type == RC_INDEX)
    *(gsize *)base = (gsize)v;
  else
    *(int *)base = (int)v;
  return TRUE;
}

struct ResultsReader {
  CsvReader *csv;
  int col[G_N_ELEMENTS(result_columns)]; /* the file's column of each result column, or -1 */
  GPtrArray *fields;
};

static ResultsReader *reader_start(CsvReader *csv, GError **error)
{
  g_autoptr(CsvReader) owned = csv;
  g_autoptr(GPtrArray) header = g_ptr_array_new_with_free_func(g_free);
  int line;
  GError *e = NULL;
  if (!csv_reader_skip_comments(csv) || !csv_reader_next(csv, header, &line, &e)) {
    if (!e)
      g_set_error(&e, AIF_ERROR, AIF_ERROR_INPUT, "%s:1:1: empty file: expected a header line", csv_reader_path(csv));
    g_propagate_error(error, e);
    return NULL;
  }
  ResultsReader *r = g_new0(ResultsReader, 1);
  gboolean point = FALSE;
  for (gsize i = 0; i < n_result_columns; i++) {
    r->col[i] = -1;
    for (guint k = 0; k < header->len; k++)
      if (strcmp(header->pdata[k], result_columns[i].name) == 0)
        r->col[i] = (int)k;
    point |= r->col[i] >= 0 && result_columns[i].type == RC_INDEX;
  }
  if (!point) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: not a results file: no 'point' column",
                csv_reader_path(csv), line);
    g_free(r);
    return NULL;
  }
  r->csv = g_steal_pointer(&owned);
  r->fields = g_ptr_array_new_with_free_func(g_free);
  return r;
}

ResultsReader *results_reader_open(const char *path, GError **error)
{
  CsvReader *csv = csv_reader_open(path, error);
  return csv ? reader_start(csv, error) : NULL;
}

ResultsReader *results_reader_new(const char *path, const char *text, gsize len, GError **error)
{
  return reader_start(csv_reader_new(path, text, len), error);
}

void results_reader_free(ResultsReader *r)
{
  if (!r)
    return;
  csv_reader_free(r->csv);
  g_ptr_array_unref(r->fields);
  g_free(r);
}

static char *outcome_list(void)
{
  g_autofree char *names = g_strjoinv(", ", (char **)outcome_names);
  return g_strdup_printf("one of %s", names);
}

gboolean results_reader_next(ResultsReader *r, ResultRow *row, GError **error)
{
  int line;
  if (!csv_reader_next(r->csv, r->fields, &line, error))
    return FALSE;
  result_row_init(row, 0);
  for (gsize i = 0; i < n_result_columns; i++) {
    int col = r->col[i];
    const char *text = col >= 0 && (guint)col < r->fields->len ? r->fields->pdata[col] : "";
    if (col >= 0 && !set_cell(row, &result_columns[i], text)) {
      g_autofree char *outcomes = outcome_list();
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: column '%s' expects %s, got '%s'",
                  csv_reader_path(r->csv), line, col + 1, result_columns[i].name,
                  result_columns[i].type == RC_INDEX ? "a whole number >= 0"
                  : result_columns[i].type == RC_FLAG ? "0 or 1"
                  : result_columns[i].type == RC_OUTCOME ? outcomes : "a number",
                  text);
      result_row_clear(row);
      return FALSE;
    }
  }
  return TRUE;
}

/* Every row of R, or NULL with *ERROR set. */
static GPtrArray *read_all(ResultsReader *r, GError **error)
{
  GPtrArray *rows = g_ptr_array_new();
  for (;;) {
    ResultRow *row = g_new(ResultRow, 1);
    GError *e = NULL;
    if (!results_reader_next(r, row, &e)) {
      g_free(row);
      if (!e)
        return rows;
      g_propagate_error(error, e);
      for (guint k = 0; k < rows->len; k++) {
        result_row_clear(rows->pdata[k]);
        g_free(rows->pdata[k]);
      }
      g_ptr_array_unref(rows);
      return NULL;
    }
    g_ptr_array_add(rows, row);
  }
}

GPtrArray *results_read(const char *path, GError **error)
{
  /* a results file a user gives is input: read whole within the input limits (input_file.h) */
  g_autofree char *text = NULL;
  gsize len;
  if (!input_file_read(path, &text, &len, error))
    return NULL;
  return results_parse(path, text, len, error);
}

GPtrArray *results_parse(const char *path, const char *text, gsize len, GError **error)
{
  g_autoptr(ResultsReader) r = results_reader_new(path, text, len, error);
  return r ? read_all(r, error) : NULL;
}

char *results_csv_text(GPtrArray *rows)
{
  GString *csv = g_string_new(NULL);
  g_autofree char *header = results_csv_header();
  g_string_append(csv, header);
  for (guint r = 0; r < rows->len; r++) {
    g_autofree char *line = results_csv_line(rows->pdata[r]);
    g_string_append(csv, line);
  }
  return g_string_free(csv, FALSE);
}

struct ResultsWriter {
  AtomicFile *csv, *jsonl;
};

ResultsWriter *results_writer_open(const char *dir, GError **error)
{
  g_autofree char *csv_path = g_build_filename(dir, "results.csv", NULL);
  g_autofree char *jsonl_path = g_build_filename(dir, "results.jsonl", NULL);
  ResultsWriter *w = g_new0(ResultsWriter, 1);
  if (!(w->csv = atomic_file_open(csv_path, error)) || !(w->jsonl = atomic_file_open(jsonl_path, error))) {
    results_writer_abort(w);
    return NULL;
  }
  g_autofree char *header = results_csv_header();
  fputs(header, atomic_file_stream(w->csv));
  return w;
}

char *results_json_line(const ResultRow *row)
{
  GString *jsonl = g_string_new("{");
  for (gsize i = 0; i < n_result_columns; i++) {
    const ResultColumn *c = &result_columns[i];
    g_autofree char *v = results_cell(row, c);
    g_string_append_printf(jsonl, "%s\"%s\":", i ? "," : "", c->name);
    if (!v)
      g_string_append(jsonl, "null");
    else if (c->type == RC_STR || c->type == RC_OUTCOME)
      results_json_string(jsonl, v);
    else
      g_string_append(jsonl, v);
  }
  g_string_append(jsonl, "}\n");
  return g_string_free(jsonl, FALSE);
}

void results_writer_add(ResultsWriter *w, const ResultRow *row)
{
  g_autofree char *line = results_csv_line(row);
  fputs(line, atomic_file_stream(w->csv));
  g_autofree char *json = results_json_line(row);
  fputs(json, atomic_file_stream(w->jsonl));
}

gboolean results_writer_commit(ResultsWriter *w, GError **error)
{
  gboolean ok = atomic_file_commit(g_steal_pointer(&w->csv), error) &&
                atomic_file_commit(g_steal_pointer(&w->jsonl), error);
  results_writer_abort(w);
  return ok;
}

void results_writer_abort(ResultsWriter *w)
{
  if (!w)
    return;
  atomic_file_abort(w->csv);
  atomic_file_abort(w->jsonl);
  g_free(w);
}

gboolean results_write(const char *dir, GPtrArray *rows, GError **error)
{
  ResultsWriter *w = results_writer_open(dir, error);
  if (!w)
    return FALSE;
  for (guint r = 0; r < rows->len; r++)
    results_writer_add(w, rows->pdata[r]);
  return results_writer_commit(w, error);
}
