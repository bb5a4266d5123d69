/* cmd_plan.c — `aifsim plan SCENARIO.yaml`: for a power budget and an SLO, the best configuration
 * per system and the factory it implies (racks, GPUs, tokens/s, tokens/s per MW, MW on optics,
 * dollars per million tokens). The points come from the same sweep as `run`'s (sweep.h: workers on
 * every core, the journal, rows read back as results.csv has them). A table on stdout and
 * DIR/plan.csv; DIR/results.csv has every point. */
#include "commands.h"
#include "evaluate.h"
#include "output_dir.h"
#include "results.h"
#include "sweep.h"

#include <math.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

typedef struct {
  const char *system;
  const ResultRow *best;   /* the most tokens/s per MW that meets the SLO, or NULL */
  double fastest_user;     /* the best tokens/s per user any ok point reached */
} Choice;

static gboolean meets(const ResultRow *r, const ScenarioParams *slo)
{
  return r->status == OUTCOME_OK && r->tok_s_per_user >= slo->plan.min_tok_s_per_user &&
         (slo->plan.max_ttft <= 0 || r->ttft_p50_ms <= slo->plan.max_ttft * 1e3) && isfinite(r->tok_s_per_mw);
}

static GArray *choose(GPtrArray *rows, const ScenarioParams *slo)
{
  GArray *choices = g_array_new(FALSE, TRUE, sizeof(Choice));
  for (guint i = 0; i < rows->len; i++) {
    const ResultRow *r = rows->pdata[i];
    Choice *c = NULL;
    for (guint j = 0; j < choices->len && !c; j++)
      if (strcmp(g_array_index(choices, Choice, j).system, r->system) == 0)
        c = &g_array_index(choices, Choice, j);
    if (!c) {
      g_array_append_val(choices, ((Choice){ .system = r->system }));
      c = &g_array_index(choices, Choice, choices->len - 1);
    }
    if (r->status == OUTCOME_OK)
      c->fastest_user = MAX(c->fastest_user, r->tok_s_per_user);
    if (meets(r, slo) && (!c->best || r->tok_s_per_mw > c->best->tok_s_per_mw))
      c->best = r;
  }
  return choices;
}

static char *plan_csv(GArray *choices)
{
  GString *out = g_string_new("system,config,tok_s_per_user,ttft_p50_ms,racks,gpus,facility_mw,it_mw,"
                              "factory_tok_s,tok_s_per_mw,optics_mw,usd_per_mtok,joules_per_token,point\n");
  for (guint i = 0; i < choices->len; i++) {
    const Choice *c = &g_array_index(choices, Choice, i);
    const ResultRow *r = c->best;
    if (!r) {
      g_string_append_printf(out, "%s,,,,,,,,,,,,,\n", c->system);
      continue;
    }
    g_string_append_printf(out, "%s,\"%s\",%.6g,%.6g,%.0f,%.0f,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%" G_GSIZE_FORMAT "\n",
                           r->system, r->config, r->tok_s_per_user, r->ttft_p50_ms, r->racks, r->gpus, r->facility_mw,
                           r->it_mw, r->out_tok_s_per_gpu * r->gpus, r->tok_s_per_mw,
                           r->optics_w_per_gpu * r->gpus / 1e6, r->usd_per_mtok, r->joules_per_token, r->point);
  }
  return g_string_free(out, FALSE);
}

static void print_plan(GArray *choices, const ScenarioParams *slo)
{
  printf("SLO: >= %.4g tok/s per user", slo->plan.min_tok_s_per_user);
  if (slo->plan.max_ttft > 0)
    printf(", median TTFT <= %.0f ms", slo->plan.max_ttft * 1e3);
  printf("; facility budget %.4g MW\n\n", slo->factory.power_budget / 1e6);
  printf("%-20s %-38s %8s %8s %6s %8s %9s %12s %9s %8s %8s\n", "system", "best configuration", "tok/s/u", "ttft_ms",
         "racks", "GPUs", "tok/s", "tok/s/MW", "optics", "$/Mtok", "J/tok");
  printf("%-20s %-38s %8s %8s %6s %8s %9s %12s %9s %8s %8s\n", "", "", "", "", "", "", "(M)", "(facility)", "MW", "", "");
  for (guint i = 0; i < choices->len; i++) {
    const Choice *c = &g_array_index(choices, Choice, i);
    const ResultRow *r = c->best;
    if (!r) {
      printf("%-20s no configuration meets the SLO (fastest: %.1f tok/s per user)\n", c->system, c->fastest_user);
      continue;
    }
    printf("%-20s %-38.38s %8.1f %8.0f %6.0f %8.0f %9.2f %12.0f %9.2f %8.3f %8.3f\n", r->system, r->config,
           r->tok_s_per_user, r->ttft_p50_ms, r->racks, r->gpus, r->out_tok_s_per_gpu * r->gpus / 1e6,
           r->tok_s_per_mw, r->optics_w_per_gpu * r->gpus / 1e6, r->usd_per_mtok, r->joules_per_token);
  }
}

int cmd_plan(int argc, char **argv)
{
  g_auto(RunArgs) a = { .seed = G_MININT64 };
  g_autofree char *min_user = NULL, *max_ttft = NULL;
  gint jobs = (gint)g_get_num_processors();
  GOptionEntry entries[] = {
    RUN_ARGS_ENTRIES(a),
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "worker processes (default: all cores)", "N" },
    { "min-tok-s-per-user", 'u', 0, G_OPTION_ARG_STRING, &min_user, "slowest acceptable tokens/s per user (plan.min_tok_s_per_user)", "X" },
    { "max-ttft", 't', 0, G_OPTION_ARG_STRING, &max_ttft, "longest acceptable median TTFT, e.g. '2 s' (plan.max_ttft)", "TIME" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("[SCENARIO.yaml]");
  g_option_context_set_summary(ctx, "For the scenario's power budget and SLO, the best configuration per system and\n"
                                    "the factory it implies. Writes plan.csv and results.csv into DIR.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "plan", &argc, &argv))
    return 2;
  if (jobs < 1) {
    fprintf(stderr, "aifsim plan: --jobs expects at least 1\n");
    return 2;
  }
  jobs = MIN(jobs, 4 * (int)g_get_num_processors());
  g_autoptr(GError) err = NULL;
  g_auto(RunSetup) rs = { 0 };
  int rc = run_setup("plan", argc, argv, &a, &rs, &err);
  if (rc)
    return rc;
  if ((min_user && !scenario_override(rs.scenario, "plan.min_tok_s_per_user", min_user, &err)) ||
      (max_ttft && !scenario_override(rs.scenario, "plan.max_ttft", max_ttft, &err)))
    return cli_fail("plan", err);
  Point first;
  scenario_point(rs.scenario, rs.catalog, 0, &first);
  /* the same sweep as run's: its workers, journal and the rows it reads back */
  SweepOptions so = { .jobs = jobs, .progress = isatty(STDERR_FILENO) };
  GPtrArray *rows = sweep_run(rs.scenario, rs.catalog, &rs.profile, rs.outdir, &so, &err);
  if (!rows) {
    point_clear(&first);
    return cli_fail("plan", err);
  }
  g_autoptr(GArray) choices = choose(rows, &first.p);
  g_autofree char *csv = plan_csv(choices);
  g_autofree char *csv_path = g_build_filename(rs.outdir, "plan.csv", NULL);
  gboolean ok = results_write(rs.outdir, rows, &err) && atomic_file_write(csv_path, csv, -1, &err);
  if (ok) {
    sweep_finish(rs.outdir);
    print_plan(choices, &first.p);
    printf("\n%u points evaluated. Plan: %s; every point: %s/results.csv\n", rows->len, csv_path, rs.outdir);
  }
  point_clear(&first);
  evaluate_rows_free(rows);
  return ok ? 0 : cli_fail("plan", err);
}
