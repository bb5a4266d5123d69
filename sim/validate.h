/* validate.h — predicting measured deployments, and how far the predictions are.
 *
 * Each row of a measured-results file (schema: calibration/measured/README.md) describes a
 * deployment: system, GPUs, model, precision, prompt and output lengths, concurrency or an MLPerf
 * scenario, aggregated or disaggregated pools with their parallelism, MTP, serving stack. It is
 * turned into engines and a load once (ValRow), then predicted with any profile, so `aifsim fit`
 * can re-predict the whole file cheaply. A row the model cannot describe is `unsupported` with a
 * reason; one that does not fit in memory is `infeasible`; nothing is dropped or guessed. */
#ifndef AIF_VALIDATE_H
#define AIF_VALIDATE_H

#include "catalog.h"
#include "engine.h"
#include "outcome.h"
#include "params.h"
#include "predict.h"
#include "recipes.h"
#include "steady_state.h"

typedef enum { MET_OUT_TOK_S_PER_GPU, MET_TOK_S_PER_USER, MET_TTFT, MET_GPU_POWER, MET_SERVER_POWER, N_METRICS } Metric;
extern const char *const metric_names[];

typedef struct {
  char *id, *system, *mode, *source_kind, *framework; /* for grouping the summary */
  char *model_name;        /* the row's model column, as written (grouping; the catalog's is .model) */
  char *unsupported;       /* why the row cannot be modelled, or NULL */
  const SystemSpec *sys;
  const LlmSpec *model;
  Engine prefill, decode;  /* aggregated rows use .decode only */
  int pre_workers, dec_workers;
  gboolean disaggregated, search_tp, same_domain;
  int gpus;
  Framework fw;            /* what launched the engines */
  const ClientRules *client; /* the benchmark's load generator (recipes.h), or NULL */
  Load load;
  GraphBatches graphs;     /* the CUDA graphs the recipe says the launch captured (n 0: the stack's
                            * own ladder, engine_stack_graphs); the engines take a copy */
  double offline_requests; /* offline rows: the requests the benchmark queued at once (0: the steady
                            * state of a saturated engine is the figure) */
  int draft_tokens;        /* MTP draft tokens the row ran: 0 none, -1 the profile's mtp_draft_tokens */
  /* The scheduler settings the row's launch script gave its stack (InferenceX's scripts), put over
   * the profile's stack defaults where not NAN. */
  gboolean launch;
  double adp_balance_timeout, adp_batching_wait, batch_wait_timeout, batch_wait_tokens, recv_interval;
  double overlap;          /* the overlap scheduler on (1) or off (0); NAN: the stack's */
  int kv_asked;            /* KvPrecision the launch set (KVP_AUTO: the stack's default) */
  Profile launched;        /* the profile of the last prediction with those settings put in (the
                            * engines point at it; its source string is the caller's) */
  double measured[N_METRICS]; /* NAN when not measured */
} ValRow;

typedef struct {
  OutcomeKind status;
  char *reason;
  char *config;            /* the configuration predicted (chosen when the row leaves it open) */
  double predicted[N_METRICS];
  double pool_load;        /* steady state, disaggregated: the busier pool's share of its ceiling (else NaN) */
  double batch;            /* the mean sequences a (decode) engine's step ran in the prediction (else NaN) */
} Prediction;

/* Reads FILE into rows, each launched as RECIPES say its benchmark launched it (recipes.h); a
 * missing column, a number no deployment has or an unreadable file is an input error. */
GPtrArray *validate_read(const char *file, const Catalog *c, const Recipes *recipes, GError **error);
void val_row_free(ValRow *r);
/* A new array of copies of ROWS, for predicting in another thread (a prediction writes into its
 * row); the copies share the catalog entries. */
GPtrArray *validate_rows_copy(GPtrArray *rows);
/* ROW as the Deployment its last prediction ran (its engines on that prediction's profile). */
void validate_deployment(const ValRow *row, Deployment *d);
/* Predicts ROW with PROF (the engines in ROW are re-pointed at PROF), by the steady-state model. */
void validate_predict(ValRow *row, const Profile *prof, Prediction *out);
/* The same by event simulation for closed-loop (concurrency) rows; other rows by the steady state. */
void validate_predict_des(ValRow *row, const Profile *prof, Prediction *out);
/* As validate_predict_des, with SimGrid moving the KV caches (the reference backend). */
void validate_predict_simgrid(ValRow *row, const Profile *prof, Prediction *out);
void prediction_clear(Prediction *p);
/* |predicted / measured - 1|, or NAN when either is missing. */
double validate_ape(const ValRow *r, const Prediction *p, Metric m);
/* The headline figure: the median APE of throughput per GPU and tokens/s per user pooled (each
 * row's two errors in one list); N (may be NULL) gets how many errors it is over. NAN when none. */
double validate_pooled_median(GPtrArray *rows, const Prediction *preds, guint *n);
/* The error table: per system, per mode, per source, per serving framework and overall, the median and p90 APE of each
 * metric and the counts of ok / infeasible / unsupported rows; then the pooled median. */
char *validate_summary(GPtrArray *rows, const Prediction *preds);
/* The same groups as CSV, one line each (field: all, system, mode, system+mode, source_kind or
 * framework; then, in the CSV only, system+arch (value SYSTEM/ARCH: the catalog's GPU architecture
 * of each system), system+mode+model and arch+mode+model (values joined by '/'), the groups the
 * held-out table quotes by model (held_out.h); value; rows, ok, infeasible; per metric the rows with both values and the median and
 * p90 of |predicted / measured - 1| as fractions, empty where none; last the pooled figures' count
 * and median, validate_pooled_median's over the group), newly allocated. */
char *validate_groups_csv(GPtrArray *rows, const Prediction *preds);
/* Little's law on a closed-loop row's own figures: its measured throughput per GPU over the one
 * its users, mean answer, TTFT and per-user speed imply (users x answer / (TTFT + answer / speed) /
 * GPUs). Near 1 (~0.97 with a ramp-up and a drain) where the figures belong to one run; NAN where
 * the row is no closed loop or lacks one of them. */
double validate_self_consistency(const ValRow *row);
/* PREDICTIONS.csv text, newly allocated: per row its outcome, reason, predicted figures and
 * configuration, and last its self-check (validate_self_consistency; empty where NAN). */
char *validate_predictions_csv(GPtrArray *rows, const Prediction *preds);

#endif
