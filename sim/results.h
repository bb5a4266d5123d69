/* results.h — the results table: one row per simulated point, written as CSV and JSON lines.
 *
 * Columns are declared once in result_columns (name with its unit, type, meaning); docs/results.md
 * and the writers read the same table. A value not computed (yet) stays empty: aifsim never prints a
 * number it did not compute. Files are written whole to a temporary name and renamed into place. */
#ifndef AIF_RESULTS_H
#define AIF_RESULTS_H

#include <glib.h>

#include "outcome.h"

typedef struct {
  gsize point;
  char *system, *model, *config;
  char *family;  /* configuration family: mode and parallelism, without load or stack (chart colours) */
  /* what the point is: every swept key and every parallelism field */
  char *mode, *framework, *precision, *arrival, *router;
  double users, rate_req_s, isl, osl;
  double workers, tp, pp, ep, attention_dp;       /* the aggregated engines, or the decode pool */
  double prefill_workers, prefill_tp, prefill_pp, prefill_ep, prefill_attention_dp; /* disaggregated */
  double max_batch, mtp_tokens, oversubscription;
  double budget_mw;  /* the facility power budget that sizes the factory, MW (NAN: factory.gpus sizes it) */
  double factory_gpus; /* the GPU count that sizes it (factory.gpus; NAN: the budget sizes it) */
  char *swept;   /* the other swept keys, "key=value; ..." */
  OutcomeKind status;
  char *reason;  /* why not ok, with the numbers */
  double deployment_gpus;    /* GPUs of the simulated deployment */
  double batch;               /* mean sequences per decode step, per engine */
  double tok_s_per_user;      /* 1 / TPOT */
  double out_tok_s_per_gpu;
  double tok_s_per_mw;
  char *engine;               /* steady or des */
  double ttft_p50_ms, tpot_p50_ms;
  double ttft_p90_ms, ttft_p99_ms, tpot_p90_ms, tpot_p99_ms, e2e_p50_ms, e2e_p99_ms;
  double goodput_req_s;       /* requests/s meeting the plan's SLO (des) */
  double slo_attainment;      /* share of the requests served that met it (des) */
  double planner_moves;       /* engines the planner moved between pools (des) */
  double floor_engines, simulated_engines; /* factory.floor.simulate: the floor's engines, and those simulated */
  double failures, requests_lost, requests_retried, availability; /* factory.failures, over the run */
  double lost_share;          /* factory.failures: the window's requests lost (never answered) */
  double switch_tray_failures, degraded_share; /* NVLink switch trays failed, engines' share degraded */
  double shed_rate, mean_power_cap_w; /* factory.envelope, over the run */
  double parked_share;        /* factory.autoscale: engines' share of the run parked */
  double maintenance_share;   /* factory.maintenance: engines' share of the run out for it */
  double sim_events, sim_requests; /* what the event simulation ran: its cost */
  char *classes;              /* workload.mix: each class's share, TTFT at the plan's percentile
                               * against its limit, tok/s per user */
  char *deployments;          /* deployments: each one's share of the floor, what it served, its TTFT
                               * against its limit, the engines moved */
  double step_ms;             /* one decode step */
  double cache_hit_rate;      /* share of prompt tokens found in the prefix caches */
  double cache_host_rate, cache_storage_rate, cache_remote_rate; /* of prompt tokens, reloaded from the offload tiers */
  double weights_gb_per_gpu;  /* weight bytes per GPU, GB */
  double kv_gb_per_gpu;       /* KV-cache room per GPU, GB */
  double max_seqs;            /* sequences that fit per engine */
  double gpu_power_w;         /* average per GPU */
  double it_w_per_gpu;        /* average IT power per GPU at the wall, GPU racks only */
  double facility_mw, it_mw;  /* provisioned */
  double racks, gpus;         /* the factory */
  double fabric_tiers, optics_w_per_gpu;
  double tok_s_per_mw_it, tok_s_per_mw_drawn, joules_per_token, usd_per_mtok;
  double slots, capacity_req_s; /* sequences the deployment runs at once; requests/s it serves saturated */
  int on_frontier;            /* -1 unknown, 0, 1 */
} ResultRow;

typedef enum { RC_STR, RC_NUM, RC_INDEX, RC_FLAG, RC_OUTCOME } ResultColType;

typedef struct {
  const char *name;
  ResultColType type;
  gsize offset;
  const char *help;
} ResultColumn;

extern const ResultColumn result_columns[];
extern const gsize n_result_columns;

/* A row with every number unknown (NAN), the given identity and status unsupported until a
 * prediction fills it; free with result_row_clear. */
void result_row_init(ResultRow *r, gsize point);
void result_row_clear(ResultRow *r);
/* DST as a copy of SRC with its own strings (clear it with result_row_clear). */
void result_row_copy(const ResultRow *src, ResultRow *dst);

/* The column called NAME, or NULL; the numeric value of a column in a row (NAN when unknown or
 * not numeric). */
const ResultColumn *results_column(const char *name);
/* Whether C holds a number (a value, an index or a flag), not text or an outcome. */
gboolean results_column_numeric(const ResultColumn *c);
double result_value(const ResultRow *r, const ResultColumn *c);

/* One row as a CSV line (with its newline), and back. The header is results_csv_header(). */
char *results_csv_header(void);
char *results_csv_line(const ResultRow *r);
/* The text of column C in R as results.csv writes it, newly allocated; NULL when empty. */
char *results_cell(const ResultRow *r, const ResultColumn *c);
/* Finite V appended to OUT as results.csv writes numbers: whole ones whole (GPUs, racks,
 * requests), others to 6 significant digits. */
void results_append_number(GString *out, double v);
/* ROW as one JSON object on a line (results.jsonl's form), newly allocated. */
char *results_json_line(const ResultRow *r);
/* S as a JSON string (quotes, backslashes and control characters escaped), appended to OUT. */
void results_json_string(GString *out, const char *s);
/* The whole table as CSV text (header and rows). */
char *results_csv_text(GPtrArray *rows);
/* Reads a results CSV (any column order; unknown columns ignored) into new ResultRow *. */
GPtrArray *results_read(const char *path, GError **error);
/* The same from TEXT (LEN bytes); PATH names it in messages. */
GPtrArray *results_parse(const char *path, const char *text, gsize len, GError **error);

/* Writes ROWS (ResultRow *) to DIR/results.csv and DIR/results.jsonl. */
gboolean results_write(const char *dir, GPtrArray *rows, GError **error);

/* The same one row at a time, for tables of any size: rows stream to temporary files renamed into
 * place on commit (abort removes them). */
typedef struct ResultsWriter ResultsWriter;
ResultsWriter *results_writer_open(const char *dir, GError **error);
void results_writer_add(ResultsWriter *w, const ResultRow *row);
gboolean results_writer_commit(ResultsWriter *w, GError **error); /* frees W */
void results_writer_abort(ResultsWriter *w);

/* A results CSV read one row at a time (memory bounded by one row, whatever the file's size);
 * leading '#' lines (a journal's digest) are skipped. */
typedef struct ResultsReader ResultsReader;
ResultsReader *results_reader_open(const char *path, GError **error);
ResultsReader *results_reader_new(const char *path, const char *text, gsize len, GError **error);
/* Fills ROW (initialised here: clear it with result_row_clear) with the next row; FALSE at the end,
 * or with *ERROR set on a bad row. */
gboolean results_reader_next(ResultsReader *r, ResultRow *row, GError **error);
void results_reader_free(ResultsReader *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(ResultsReader, results_reader_free)

#endif
