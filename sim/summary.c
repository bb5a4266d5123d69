/* summary.c — the best configurations per system and mode, at the SLO (see summary.h). */
#include "summary.h"
#include "csv.h"
#include "frontier.h"
#include "slo.h"

#include <math.h>
#include <string.h>

const char *const summary_format_names[] = { "table", "csv", "json", NULL };

static const char *const modes[] = { "aggregated", "disaggregated" };

/* Result columns that tell a system's points apart but that the configuration label does not name
 * (label.h): where one of them takes more than one value among a system's points, the points'
 * settings (summary_settings) say its value, so no two listed points read alike. */
static const char *const unlabelled[] = { "model", "arrival", "rate_req_s", "isl", "osl", "router", "max_batch",
                                          "oversubscription" };
#define N_UNLABELLED G_N_ELEMENTS(unlabelled)

/* The keys that size a factory: where either is swept, the heading of each system's points says
 * their value, not their settings. */
static const char *const size_keys[] = { "factory.power_budget=", "factory.gpus=" };

/* One system (at one factory size, where the size is swept): its pick, and the best points of
 * each mode. */
typedef struct {
  char *name;                 /* the system */
  double budget_mw;           /* the budget its points share where sizes are swept, else NAN */
  double factory_gpus;        /* or the GPU count they share, else NAN */
  char *first[N_UNLABELLED];  /* each unlabelled column's value at the system's first point ("" empty) */
  gboolean varies[N_UNLABELLED]; /* whether another of its points had another */
  gboolean seen;
  ResultRow *pick;            /* owned copy, or NULL */
  ResultRow *headroom;        /* the pick with the held-out error as headroom (summary.h): owned copy, or NULL */
  GPtrArray *top[2];          /* ResultRow * (owned copies), best first, at most Summary.top */
  gboolean swept[2];          /* whether any point of the mode was in the sweep */
} SystemSummary;

struct Summary {
  guint top;
  SummaryOptions opt;
  GPtrArray *systems;         /* SystemSummary *, in order of first appearance */
  guint counts[OUTCOME_COUNT_];
  guint points;
};

static void row_free(gpointer p)
{
  if (p) {
    result_row_clear(p);
    g_free(p);
  }
}

static ResultRow *row_copy(const ResultRow *r)
{
  ResultRow *c = g_new(ResultRow, 1);
  result_row_copy(r, c);
  return c;
}

static void system_free(gpointer p)
{
  SystemSummary *s = p;
  g_free(s->name);
  for (gsize i = 0; i < N_UNLABELLED; i++)
    g_free(s->first[i]);
  row_free(s->pick);
  row_free(s->headroom);
  for (int m = 0; m < 2; m++)
    g_ptr_array_unref(s->top[m]);
  g_free(s);
}

Summary *summary_new(guint top, const SummaryOptions *opt)
{
  Summary *s = g_new0(Summary, 1);
  s->top = MAX(top, 1);
  s->opt = *opt;
  s->systems = g_ptr_array_new_with_free_func(system_free);
  return s;
}

void summary_free(Summary *s)
{
  if (!s)
    return;
  g_ptr_array_unref(s->systems);
  g_free(s);
}

/* Whether A and B are the same size (NAN: none). */
static gboolean same_size(double a, double b)
{
  return a == b || (isnan(a) && isnan(b));
}

/* R's group: its system, and its factory's size (budget or GPU count) where the scenario sweeps
 * it (a planner given one budget wants the pick for it, not the best over budgets). */
static SystemSummary *system_of(Summary *s, const ResultRow *r)
{
  double budget = s->opt.per_size ? r->budget_mw : NAN, gpus = s->opt.per_size ? r->factory_gpus : NAN;
  for (guint k = 0; k < s->systems->len; k++) {
    SystemSummary *ss = s->systems->pdata[k];
    if (g_strcmp0(ss->name, r->system) == 0 && same_size(ss->budget_mw, budget) && same_size(ss->factory_gpus, gpus))
      return ss;
  }
  SystemSummary *ss = g_new0(SystemSummary, 1);
  ss->name = g_strdup(r->system ? r->system : "");
  ss->budget_mw = budget, ss->factory_gpus = gpus;
  for (int m = 0; m < 2; m++)
    ss->top[m] = g_ptr_array_new_with_free_func(row_free);
  g_ptr_array_add(s->systems, ss);
  return ss;
}

static gint by_tok_s_per_mw(gconstpointer a, gconstpointer b);
static gboolean clears_with_headroom(const SummaryOptions *opt, const ResultRow *r);

/* R's value of column C as results.csv writes it ("" when empty), newly allocated. */
static char *cell_text(const ResultRow *r, const char *column)
{
  char *v = results_cell(r, results_column(column));
  return v ? v : g_strdup("");
}

/* Which unlabelled columns vary among SS's points, R one more of them. */
static void note_unlabelled(SystemSummary *ss, const ResultRow *r)
{
  for (gsize i = 0; i < N_UNLABELLED; i++) {
    g_autofree char *v = cell_text(r, unlabelled[i]);
    if (!ss->seen)
      ss->first[i] = g_steal_pointer(&v);
    else if (strcmp(v, ss->first[i]) != 0)
      ss->varies[i] = TRUE;
  }
  ss->seen = TRUE;
}

/* R's settings in SS: "column=value" for each unlabelled column that varies among SS's points, then
 * R's other swept keys (results' swept, but for the size SS is headed by), "; " between; NULL when
 * none. */
static char *settings_of(const SystemSummary *ss, const ResultRow *r)
{
  GString *t = g_string_new(NULL);
  for (gsize i = 0; i < N_UNLABELLED; i++)
    if (ss->varies[i]) {
      g_autofree char *v = cell_text(r, unlabelled[i]);
      if (*v) /* a setting this point does not have (an aggregated engine's router): not named */
        g_string_append_printf(t, "%s%s=%s", t->len ? "; " : "", unlabelled[i], v);
    }
  if (r->swept && *r->swept) {
    gboolean headed = isfinite(ss->budget_mw) || isfinite(ss->factory_gpus); /* per size: the heading says it */
    g_auto(GStrv) keys = g_strsplit(r->swept, "; ", -1);
    for (char **k = keys; *k; k++)
      if (!(headed && (g_str_has_prefix(*k, size_keys[0]) || g_str_has_prefix(*k, size_keys[1]))))
        g_string_append_printf(t, "%s%s", t->len ? "; " : "", *k);
  }
  return t->len ? g_string_free(t, FALSE) : (g_string_free(t, TRUE), NULL);
}

char *summary_settings(const Summary *s, guint i, const ResultRow *r)
{
  return r ? settings_of(s->systems->pdata[i], r) : NULL;
}

/* R's configuration as the table prints it: its label, and its settings in brackets. */
static char *config_text(const SystemSummary *ss, const ResultRow *r)
{
  g_autofree char *set = settings_of(ss, r);
  return set ? g_strdup_printf("%s [%s]", r->config, set) : g_strdup(r->config);
}

void summary_add(Summary *s, const ResultRow *r)
{
  s->points++;
  s->counts[r->status]++;
  SystemSummary *ss = system_of(s, r);
  int m = g_strcmp0(r->mode, modes[1]) == 0;
  ss->swept[m] = TRUE;
  note_unlabelled(ss, r);
  FrontierAxis x, y;
  frontier_default_axes(&x, &y);
  if (frontier_better(r, ss->pick, &y)) {
    row_free(ss->pick);
    ss->pick = row_copy(r);
  }
  if (frontier_better(r, ss->headroom, &y) && clears_with_headroom(&s->opt, r)) {
    row_free(ss->headroom);
    ss->headroom = row_copy(r);
  }
  if (r->status != OUTCOME_OK || !isfinite(r->tok_s_per_mw))
    return;
  GPtrArray *top = ss->top[m];
  const ResultRow *last = top->len ? top->pdata[top->len - 1] : NULL;
  if (top->len >= s->top && by_tok_s_per_mw(&r, &last) >= 0)
    return;
  g_ptr_array_add(top, row_copy(r));
  g_ptr_array_sort(top, by_tok_s_per_mw);
  if (top->len > s->top)
    g_ptr_array_remove_index(top, top->len - 1);
}

guint summary_n_systems(const Summary *s) { return s->systems->len; }
const char *summary_system(const Summary *s, guint i) { return ((SystemSummary *)s->systems->pdata[i])->name; }
double summary_budget_mw(const Summary *s, guint i) { return ((SystemSummary *)s->systems->pdata[i])->budget_mw; }
double summary_factory_gpus(const Summary *s, guint i) { return ((SystemSummary *)s->systems->pdata[i])->factory_gpus; }
gboolean summary_per_size(const Summary *s) { return s->opt.per_size; }
const ResultRow *summary_pick(const Summary *s, guint i) { return ((SystemSummary *)s->systems->pdata[i])->pick; }
const ResultRow *summary_headroom_pick(const Summary *s, guint i)
{
  return ((SystemSummary *)s->systems->pdata[i])->headroom;
}

static gint by_tok_s_per_mw(gconstpointer a, gconstpointer b)
{
  const ResultRow *p = *(const ResultRow *const *)a, *q = *(const ResultRow *const *)b;
  if (p->tok_s_per_mw != q->tok_s_per_mw)
    return p->tok_s_per_mw > q->tok_s_per_mw ? -1 : 1;
  return p->point < q->point ? -1 : p->point > q->point;
}

static char *counts_text(const Summary *sum)
{
  const guint *n = sum->counts;
  static const OutcomeKind order[] = { OUTCOME_OK, OUTCOME_SLO_VIOLATED, OUTCOME_QUEUE_BOUND, OUTCOME_UNSTABLE,
                                       OUTCOME_INFEASIBLE, OUTCOME_UNSUPPORTED };
  GString *s = g_string_new(NULL);
  g_string_append_printf(s, "%u points:", sum->points);
  for (gsize k = 0; k < G_N_ELEMENTS(order); k++)
    g_string_append_printf(s, "%s %u %s", k ? "," : "", n[order[k]], outcome_names[order[k]]);
  return g_string_free(s, FALSE);
}

static double factory_tok_s(const ResultRow *r) { return r->out_tok_s_per_gpu * r->gpus; }

/* A factory's tokens/s for a reader: "340 M tok/s", "3.4 G tok/s" (%.3g of millions would print a
 * 1M-GPU factory's 3,400 M as 3.4e+03). */
static void tok_s_text(GString *s, double tok_s)
{
  if (tok_s >= 1e9)
    g_string_append_printf(s, "%.3g G tok/s", tok_s / 1e9);
  else
    g_string_append_printf(s, "%.3g M tok/s", tok_s / 1e6);
}

/* TTFT at the SLO's percentile, ms (slo_at). */
static double ttft_at(const ResultRow *r, Percentile p)
{
  return slo_at(p, r->ttft_p50_ms, r->ttft_p90_ms, r->ttft_p99_ms);
}

static void table_row(GString *s, const SystemSummary *ss, guint rank, const ResultRow *r, Percentile pct)
{
  g_autofree char *config = config_text(ss, r);
  g_string_append_printf(s, "  %2u  %10.0f %9.1f %10.1f %9.3f %7.0f %8.3f  %s\n", rank, r->tok_s_per_mw,
                         r->out_tok_s_per_gpu, r->tok_s_per_user, ttft_at(r, pct) / 1e3, r->racks, r->usd_per_mtok,
                         config);
}

/* A simulated floor's pick over its run: what it served within the SLO, what it drew, what failures
 * and the autoscaler left in service, and each deployment of a shared floor. */
static void floor_text(GString *s, const ResultRow *p)
{
  if (!isfinite(p->floor_engines))
    return;
  g_string_append_printf(s, "  over the run: %.0f of %.0f engines simulated", p->simulated_engines, p->floor_engines);
  if (isfinite(p->slo_attainment))
    g_string_append_printf(s, ", SLO met by %.4g%% of the requests", p->slo_attainment * 100);
  if (p->lost_share > 0)
    g_string_append_printf(s, " (%.3g%% lost with failed engines)", p->lost_share * 100);
  if (isfinite(p->tok_s_per_mw_drawn))
    g_string_append_printf(s, ", %.0f tok/s per MW drawn", p->tok_s_per_mw_drawn);
  if (isfinite(p->availability))
    g_string_append_printf(s, ", availability %.4g%%", p->availability * 100);
  if (isfinite(p->parked_share))
    g_string_append_printf(s, ", %.3g%% of engine time parked", p->parked_share * 100);
  g_string_append_c(s, '\n');
  if (p->deployments)
    g_string_append_printf(s, "  deployments: %s\n", p->deployments);
}

/* " 9.4% FIGURE" (the median error of FIGURE held out), or nothing where the rows have none. */
static void held_out_figure(GString *s, const char **sep, double err, const char *figure)
{
  if (!isfinite(err))
    return;
  g_string_append_printf(s, "%s%.2g%% %s", *sep, 100 * err, figure);
  *sep = ", ";
}

/* The held-out entry quoting R's figures (held_out_find: its model's rows on its system, else on its
 * GPU architecture, else its system's of any model), with *SCOPE (may be NULL) saying which; NULL
 * where there is no table, R has no mode, or no row of its system and mode was measured. */
static const HeldOutError *error_scope(const HeldOut *h, const char *system, const ResultRow *r, HeldOutScope *scope)
{
  return h && r->mode ? held_out_find(h, system, r->mode, r->model, scope) : NULL;
}

/* What stands behind the pick's figures: the median error of the profile on the nearest measured
 * rows it was not fitted on (error_scope), what those rows are, or that no measured row of its
 * system and mode exists. */
static void held_out_text(GString *s, const HeldOut *h, const char *system, const ResultRow *p)
{
  if (!h || !p->mode) /* a row without its mode (a results file of another make) matches no entry */
    return;
  HeldOutScope scope;
  const HeldOutError *e = error_scope(h, system, p, &scope);
  if (!e) {
    g_string_append_printf(s, "  measured: no %s %s row to check the model against; these figures are its extrapolation\n",
                           system, p->mode);
    return;
  }
  const char *model = p->model && *p->model ? p->model : NULL;
  switch (scope) {
  case HELD_OUT_SYSTEM_MODEL:
    g_string_append_printf(s, "  measured: %u %s %s %s rows", e->rows, system, p->mode, model);
    break;
  case HELD_OUT_ARCH_MODEL:
    g_string_append_printf(s, "  measured: fewer than %u %s %s %s rows; %u %s %s rows on %s GPUs", HELD_OUT_MIN_ROWS,
                           system, p->mode, model, e->rows, p->mode, model, e->arch);
    break;
  case HELD_OUT_SYSTEM:
    if (model)
      g_string_append_printf(s, "  measured: fewer than %u %s %s rows on %s or its GPU architecture; %u %s %s rows "
                                "of any model", HELD_OUT_MIN_ROWS, p->mode, model, system, e->rows, system, p->mode);
    else
      g_string_append_printf(s, "  measured: %u %s %s rows", e->rows, system, p->mode);
    break;
  }
  g_string_append(s, ", predicted by fits that did not see them: median error ");
  const char *sep = "";
  held_out_figure(s, &sep, e->throughput, "tok/s per GPU");
  held_out_figure(s, &sep, e->per_user, "tok/s per user");
  held_out_figure(s, &sep, e->ttft, "TTFT");
  g_string_append(s, scope == HELD_OUT_SYSTEM ? " (any model; docs/validation.md)\n" : " (docs/validation.md)\n");
}

/* How far a pick clears one SLO limit (a fraction: over the tok/s-per-user floor, under the TTFT
 * limit; NAN where the SLO sets none), and the limit that would leave the model's held-out error
 * on that figure as headroom, where the pick clears it by less than that error (else NAN): the
 * measured figure of such a pick could as well lie on the other side. */
typedef struct {
  double margin, limit;
} Headroom;

/* The held-out error quoted for R (error_scope), or NULL where the summary has no table or no row of
 * its system and mode was measured. */
static const HeldOutError *error_of(const SummaryOptions *opt, const ResultRow *r)
{
  return error_scope(opt->held_out, r->system, r, NULL);
}

/* The SLO's limits moved by a held-out error ERR: the tokens/s-per-user floor raised by it, the
 * TTFT limit (s, at the SLO's percentile) lowered by it. */
static double per_user_floor(const SummaryOptions *opt, double err) { return opt->min_tok_s_per_user * (1 + err); }
static double ttft_limit(const SummaryOptions *opt, double err) { return opt->max_ttft / (1 + err); }

/* Both for pick P with held-out errors E: tokens/s per user, and TTFT in s at the SLO's percentile. */
static void headroom(const SummaryOptions *opt, const HeldOutError *e, const ResultRow *p, Headroom *per_user,
                     Headroom *ttft)
{
  per_user->margin = opt->min_tok_s_per_user > 0 ? p->tok_s_per_user / opt->min_tok_s_per_user - 1 : NAN;
  per_user->limit = isfinite(per_user->margin) && isfinite(e->per_user) && per_user->margin < e->per_user
                      ? per_user_floor(opt, e->per_user)
                      : NAN;
  double t = ttft_at(p, opt->percentile) / 1e3;
  ttft->margin = opt->max_ttft > 0 && t > 0 ? opt->max_ttft / t - 1 : NAN;
  ttft->limit = isfinite(ttft->margin) && isfinite(e->ttft) && ttft->margin < e->ttft ? ttft_limit(opt, e->ttft) : NAN;
}

/* The SLO's limits with the held-out error quoted for R as headroom (summary.h): the tokens/s per
 * user floor raised by its error, the TTFT limit (s, at the SLO's percentile) lowered by it; a
 * figure without an error keeps the SLO's limit, a limit the SLO does not set stays 0. FALSE where
 * no measured row of R's system and mode exists. */
static gboolean headroom_limits(const SummaryOptions *opt, const ResultRow *r, double *min_user, double *max_ttft)
{
  const HeldOutError *e = error_of(opt, r);
  if (!e)
    return FALSE;
  double per_user = isfinite(e->per_user) ? e->per_user : 0, ttft = isfinite(e->ttft) ? e->ttft : 0;
  *min_user = opt->min_tok_s_per_user > 0 ? per_user_floor(opt, per_user) : 0;
  *max_ttft = opt->max_ttft > 0 ? ttft_limit(opt, ttft) : 0;
  return TRUE;
}

/* Whether R clears the SLO's limits with that headroom: tokens/s per user by its error over the
 * floor, TTFT at the SLO's percentile by its error under the limit. */
static gboolean clears_with_headroom(const SummaryOptions *opt, const ResultRow *r)
{
  double min_user, max_ttft;
  if (!headroom_limits(opt, r, &min_user, &max_ttft))
    return FALSE;
  if (min_user > 0 && !(r->tok_s_per_user >= min_user))
    return FALSE;
  return !(max_ttft > 0) || ttft_at(r, opt->percentile) / 1e3 <= max_ttft;
}

gboolean summary_headroom_limits(const Summary *s, const ResultRow *r, double *min_tok_s_per_user, double *max_ttft)
{
  return headroom_limits(&s->opt, r, min_tok_s_per_user, max_ttft);
}

/* "  margin: ..." for each limit the pick clears by less than the model's error (headroom()). */
static gboolean margin_text(GString *s, const SummaryOptions *opt, const ResultRow *p)
{
  const HeldOutError *e = error_of(opt, p);
  if (!e)
    return FALSE;
  Headroom per_user, ttft;
  headroom(opt, e, p, &per_user, &ttft);
  if (isfinite(per_user.limit))
    g_string_append_printf(s, "  margin: %.2g%% over the SLO's %.4g tok/s per user, within the model's held-out error "
                              "on it (%.2g%%); with it as headroom: plan.min_tok_s_per_user %.3g (aifsim plan "
                              "--min-tok-s-per-user %.3g)\n",
                           100 * per_user.margin, opt->min_tok_s_per_user, 100 * e->per_user, per_user.limit,
                           per_user.limit);
  if (isfinite(ttft.limit))
    g_string_append_printf(s, "  margin: %s TTFT %.2g%% under the SLO's %.4g s, within the model's held-out error on "
                              "it (%.2g%%); with it as headroom: plan.max_ttft %.3g s (aifsim plan --max-ttft '%.3g s')\n",
                           percentile_names[opt->percentile], 100 * ttft.margin, opt->max_ttft, 100 * e->ttft,
                           ttft.limit, ttft.limit);
  return isfinite(per_user.limit) || isfinite(ttft.limit);
}

/* The pick with the margins above as headroom (H, NULL: none), after the pick P's margin lines. */
static void headroom_pick_text(GString *s, const SummaryOptions *opt, const SystemSummary *ss, const ResultRow *p,
                               const ResultRow *h)
{
  if (!h) {
    g_string_append(s, "  with that headroom: no point meets the SLO\n");
    return;
  }
  g_autofree char *config = config_text(ss, h);
  g_string_append_printf(s, "  with that headroom: %s\n  %.0f racks: %.0f tok/s per MW (%.3g%% of the pick's), %.1f tok/s "
                            "per user, %s TTFT %.3g s\n",
                         config, h->racks, h->tok_s_per_mw, 100 * h->tok_s_per_mw / p->tok_s_per_mw,
                         h->tok_s_per_user, percentile_names[opt->percentile], ttft_at(h, opt->percentile) / 1e3);
}

/* ONE (a printf format for A) or, where B is above A, MANY (for A and B). */
static void range_text(GString *s, double a, double b, const char *one, const char *many)
{
  if (b > a)
    g_string_append_printf(s, many, a, b);
  else
    g_string_append_printf(s, one, a);
}

/* The header's first line: the SLO, and the budget, GPU count or swept sizes that size the
 * factories. */
static void header_text(GString *s, const SummaryOptions *opt)
{
  g_string_append_printf(s, "SLO: %s; ", opt->slo);
  if (opt->per_size) {
    g_string_append(s, "a pick for each factory size swept (");
    if (opt->budget_w > 0)
      range_text(s, opt->budget_w / 1e6, opt->budget_max_w / 1e6, "a facility budget of %.4g MW",
                 "facility budgets of %.4g to %.4g MW");
    if (opt->budget_w > 0 && opt->factory_gpus > 0)
      g_string_append(s, "; ");
    if (opt->factory_gpus > 0)
      range_text(s, opt->factory_gpus, opt->factory_gpus_max, "factories of %.0f GPUs", "factories of %.0f to %.0f GPUs");
    g_string_append(s, ")\n");
  } else if (opt->factory_gpus > 0) {
    g_string_append(s, "factories of factory.gpus GPUs (each pick's racks and MW below), not sized by the power budget\n");
  } else {
    g_string_append_printf(s, "facility budget %.4g MW\n", opt->budget_w / 1e6);
  }
}

/* The system's heading: its name, and its factory's size where sizes are swept. */
static void heading_text(GString *s, const SystemSummary *ss)
{
  if (isfinite(ss->budget_mw))
    g_string_append_printf(s, "\n%s, facility budget %.4g MW\n", ss->name, ss->budget_mw);
  else if (isfinite(ss->factory_gpus))
    g_string_append_printf(s, "\n%s, factory of %.0f GPUs\n", ss->name, ss->factory_gpus);
  else
    g_string_append_printf(s, "\n%s\n", ss->name);
}

static char *table(const Summary *sum)
{
  const SummaryOptions *opt = &sum->opt;
  GString *s = g_string_new(NULL);
  g_autofree char *counts = counts_text(sum);
  header_text(s, opt);
  g_string_append_printf(s, "%s\n", counts);
  for (guint k = 0; k < sum->systems->len; k++) {
    const SystemSummary *ss = sum->systems->pdata[k];
    const ResultRow *p = ss->pick;
    heading_text(s, ss);
    if (!p) {
      g_string_append(s, "  no configuration meets the SLO\n");
      continue;
    }
    g_autofree char *config = config_text(ss, p);
    g_string_append_printf(s, "  pick: %s\n  %.0f racks, %.0f GPUs, %.4g MW facility: ", config, p->racks, p->gpus,
                           p->facility_mw);
    tok_s_text(s, factory_tok_s(p));
    g_string_append_printf(s, ", %.0f tok/s per MW, $%.3f per M tokens, %.1f tok/s per user, %s TTFT %.3g s\n",
                           p->tok_s_per_mw, p->usd_per_mtok, p->tok_s_per_user, percentile_names[opt->percentile],
                           ttft_at(p, opt->percentile) / 1e3);
    floor_text(s, p);
    held_out_text(s, opt->held_out, ss->name, p);
    if (margin_text(s, opt, p))
      headroom_pick_text(s, opt, ss, p, ss->headroom);
    for (gsize m = 0; m < G_N_ELEMENTS(modes); m++) {
      GPtrArray *top = ss->top[m];
      if (!top->len) {
        g_string_append_printf(s, "  %s: %s\n", modes[m], ss->swept[m] ? "no point meets the SLO" : "not swept");
        continue;
      }
      g_autofree char *ttft = g_strdup_printf("%s TTFT s", percentile_names[opt->percentile]);
      g_string_append_printf(s, "  %s\n  %2s  %10s %9s %10s %9s %7s %8s  %s\n", modes[m], "#", "tok/s/MW", "tok/s/GPU",
                             "tok/s/user", ttft, "racks", "$/Mtok", "configuration");
      for (guint i = 0; i < top->len; i++)
        table_row(s, ss, i + 1, top->pdata[i], opt->percentile);
    }
  }
  return g_string_free(s, FALSE);
}

/* The figures every format gives a listed point, in order. */
static const char *const figure_names[] = { "out_tok_s_per_gpu", "tok_s_per_user", "ttft_p50_ms", "tok_s_per_mw",
                                            "racks", "gpus", "usd_per_mtok" };

static void figures(const ResultRow *r, double *v)
{
  double f[] = { r->out_tok_s_per_gpu, r->tok_s_per_user, r->ttft_p50_ms, r->tok_s_per_mw, r->racks, r->gpus,
                 r->usd_per_mtok };
  memcpy(v, f, sizeof f);
}

/* Each listed point: system, mode, rank (0: the system's pick), point, configuration, figures. */
typedef void (*EmitFunc)(GString *s, const SystemSummary *ss, const char *mode, guint rank, const ResultRow *r);

static void emit_all(const Summary *sum, GString *s, EmitFunc emit)
{
  for (guint k = 0; k < sum->systems->len; k++) {
    const SystemSummary *ss = sum->systems->pdata[k];
    if (ss->pick)
      emit(s, ss, ss->pick->mode, 0, ss->pick);
    for (gsize m = 0; m < G_N_ELEMENTS(modes); m++)
      for (guint i = 0; i < ss->top[m]->len; i++)
        emit(s, ss, modes[m], i + 1, ss->top[m]->pdata[i]);
  }
}

/* ",V" as results.csv writes numbers (whole ones whole), or an empty cell where V is unknown. */
static void csv_number(GString *s, double v)
{
  g_string_append_c(s, ',');
  if (isfinite(v))
    results_append_number(s, v);
}

/* ", \"NAME\": V" as results.csv writes numbers, or null where V is unknown. */
static void json_number(GString *s, const char *name, double v)
{
  g_string_append_printf(s, ", \"%s\": ", name);
  if (isfinite(v))
    results_append_number(s, v);
  else
    g_string_append(s, "null");
}

static void emit_csv(GString *s, const SystemSummary *ss, const char *mode, guint rank, const ResultRow *r)
{
  csv_append_field(s, ss->name);
  g_string_append_printf(s, isfinite(r->budget_mw) ? ",%.6g" : ",", r->budget_mw);
  g_string_append_printf(s, isfinite(r->factory_gpus) ? ",%.0f" : ",", r->factory_gpus);
  g_string_append_printf(s, ",%s,%u,%" G_GSIZE_FORMAT ",", mode, rank, r->point);
  csv_append_field(s, r->config);
  g_autofree char *set = settings_of(ss, r);
  g_string_append_c(s, ',');
  csv_append_field(s, set ? set : "");
  double v[G_N_ELEMENTS(figure_names)];
  figures(r, v);
  for (gsize i = 0; i < G_N_ELEMENTS(v); i++)
    csv_number(s, v[i]);
  csv_number(s, factory_tok_s(r));
  g_string_append_c(s, '\n');
}

/* R's configuration label as a JSON string, then ", \"settings\": " and its settings (null: none). */
static void json_config(GString *s, const SystemSummary *ss, const ResultRow *r)
{
  results_json_string(s, r->config);
  g_autofree char *set = settings_of(ss, r);
  g_string_append(s, ", \"settings\": ");
  if (set)
    results_json_string(s, set);
  else
    g_string_append(s, "null");
}

/* ", \"budget_mw\": B, \"factory_gpus\": G": what sized R's factory (null: the other did). */
static void json_size(GString *s, const ResultRow *r)
{
  g_string_append_printf(s, isfinite(r->budget_mw) ? ", \"budget_mw\": %.6g" : ", \"budget_mw\": null", r->budget_mw);
  g_string_append_printf(s, isfinite(r->factory_gpus) ? ", \"factory_gpus\": %.0f" : ", \"factory_gpus\": null",
                         r->factory_gpus);
}

static void emit_json(GString *s, const SystemSummary *ss, const char *mode, guint rank, const ResultRow *r)
{
  g_string_append(s, s->str[s->len - 1] == '[' ? "\n    {\"system\": " : ",\n    {\"system\": ");
  results_json_string(s, ss->name);
  json_size(s, r);
  g_string_append_printf(s, ", \"mode\": \"%s\", \"rank\": %u, \"point\": %" G_GSIZE_FORMAT ", \"config\": ", mode,
                         rank, r->point);
  json_config(s, ss, r);
  double v[G_N_ELEMENTS(figure_names)];
  figures(r, v);
  for (gsize i = 0; i < G_N_ELEMENTS(v); i++)
    json_number(s, figure_names[i], v[i]);
  json_number(s, "factory_tok_s", factory_tok_s(r));
  g_string_append_c(s, '}');
}

/* Each pick's held-out error (held_out_text), as JSON: rows and the median errors as fractions
 * (null where the rows have none), or rows 0 where no measured row exists; the limits that leave
 * the error as headroom, and the pick they make (summary.h; null: none). */
static void held_out_json(const Summary *sum, GString *s)
{
  const SummaryOptions *opt = &sum->opt;
  const HeldOut *h = opt->held_out;
  g_string_append(s, ",\n  \"held_out\": [");
  guint listed = 0;
  for (guint k = 0; k < sum->systems->len; k++) {
    const SystemSummary *ss = sum->systems->pdata[k];
    if (!ss->pick || !ss->pick->mode) /* as held_out_text: a row without its mode matches nothing */
      continue;
    HeldOutScope scope;
    const HeldOutError *e = error_scope(h, ss->name, ss->pick, &scope);
    g_string_append(s, listed++ ? ",\n    {\"system\": " : "\n    {\"system\": ");
    results_json_string(s, ss->name);
    json_size(s, ss->pick);
    g_string_append(s, ", \"mode\": ");
    results_json_string(s, ss->pick->mode);
    /* which rows: the pick's model on its system or on its GPU architecture, or any model on its
     * system (null: none) */
    static const char *const scopes[] = { "system_model", "architecture_model", "system" };
    g_string_append(s, ", \"scope\": ");
    if (e)
      results_json_string(s, scopes[scope]);
    else
      g_string_append(s, "null");
    g_string_append_printf(s, ", \"rows\": %u", e ? e->rows : 0);
    static const char *const names[] = { "out_tok_s_per_gpu_error", "tok_s_per_user_error", "ttft_error" };
    const double v[] = { e ? e->throughput : NAN, e ? e->per_user : NAN, e ? e->ttft : NAN };
    for (gsize i = 0; i < G_N_ELEMENTS(v); i++)
      g_string_append_printf(s, isfinite(v[i]) ? ", \"%s\": %.4g" : ", \"%s\": null", names[i], v[i]);
    /* the limits that leave the error as headroom where the pick is within it of the SLO's */
    Headroom per_user = { NAN, NAN }, ttft = { NAN, NAN };
    if (e)
      headroom(opt, e, ss->pick, &per_user, &ttft);
    const double limits[] = { per_user.limit, ttft.limit };
    static const char *const limit_names[] = { "headroom_min_tok_s_per_user", "headroom_max_ttft_s" };
    for (gsize i = 0; i < G_N_ELEMENTS(limits); i++)
      g_string_append_printf(s, isfinite(limits[i]) ? ", \"%s\": %.4g" : ", \"%s\": null", limit_names[i], limits[i]);
    const ResultRow *hp = ss->headroom;
    if (hp) {
      g_string_append_printf(s, ", \"headroom_pick\": {\"point\": %" G_GSIZE_FORMAT ", \"mode\": ", hp->point);
      results_json_string(s, hp->mode);
      g_string_append(s, ", \"config\": ");
      json_config(s, ss, hp);
      static const char *const pick_names[] = { "tok_s_per_mw", "tok_s_per_user", "ttft_s", "racks" };
      const double pv[] = { hp->tok_s_per_mw, hp->tok_s_per_user, ttft_at(hp, opt->percentile) / 1e3, hp->racks };
      for (gsize i = 0; i < G_N_ELEMENTS(pv); i++)
        json_number(s, pick_names[i], pv[i]);
      g_string_append_c(s, '}');
    } else {
      g_string_append(s, ", \"headroom_pick\": null");
    }
    g_string_append_c(s, '}');
  }
  g_string_append(s, listed ? "\n  ]" : "]");
}

char *summary_text(const Summary *sum, SummaryFormat format)
{
  const SummaryOptions *opt = &sum->opt;
  if (format == SUMMARY_TABLE)
    return table(sum);
  GString *s = g_string_new(NULL);
  if (format == SUMMARY_CSV) {
    g_string_append(s, "system,budget_mw,factory_gpus,mode,rank,point,config,settings");
    for (gsize i = 0; i < G_N_ELEMENTS(figure_names); i++)
      g_string_append_printf(s, ",%s", figure_names[i]);
    g_string_append(s, ",factory_tok_s\n");
    emit_all(sum, s, emit_csv);
    return g_string_free(s, FALSE);
  }
  const guint *n = sum->counts;
  g_string_append(s, "{\n  \"slo\": ");
  results_json_string(s, opt->slo);
  if (opt->factory_gpus > 0 || opt->per_size) /* each point's factory is its own: its racks and gpus say it */
    g_string_append(s, ",\n  \"budget_mw\": null");
  else
    g_string_append_printf(s, ",\n  \"budget_mw\": %.6g", opt->budget_w / 1e6);
  g_string_append_printf(s, ",\n  \"points\": %u,\n  \"outcomes\": {", sum->points);
  for (int k = 0; k < OUTCOME_COUNT_; k++)
    g_string_append_printf(s, "%s\"%s\": %u", k ? ", " : "", outcome_names[k], n[k]);
  g_string_append(s, "},\n  \"best\": [");
  emit_all(sum, s, emit_json);
  g_string_append(s, "\n  ]");
  if (opt->held_out)
    held_out_json(sum, s);
  g_string_append(s, "\n}\n");
  return g_string_free(s, FALSE);
}
