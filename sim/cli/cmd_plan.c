/* cmd_plan.c — `aifsim plan SCENARIO.yaml`: for a power budget and an SLO, the best configuration
 * per system (per system and factory size where the scenario sweeps the size) and the factory it
 * implies (racks, GPUs, tokens/s, tokens/s per MW, MW on optics, dollars per million tokens), with
 * the top points of each mode beside it (summary.h). The points come from the same sweep as
 * `run`'s (sweep.h), and the pick is the point the chart annotates
 * (frontier_best): DIR/results.csv is what `run` writes, frontier included, so the two commands
 * share a folder without spoiling each other's files. Writes DIR/plan.csv; DIR/refine.csv, each
 * closed-loop pick's engine (and the pick with headroom's) at the most users between the sweep's
 * counts that still meet its limits, or up to twice the sweep's most users for a pick at them
 * (refine.h; not with --no-refine); with --size, the floor each
 * point's demand needs (sizing.h) in DIR/sizing.csv. */
#include "commands.h"
#include "csv.h"
#include "output_dir.h"
#include "refine.h"
#include "report.h"
#include "sizing.h"
#include "slo.h"
#include "summary.h"
#include "sweep.h"
#include "units.h"

#include <math.h>
#include <stdio.h>
#include <unistd.h>

/* ",\"S\"": a text field, always quoted as plan.csv has always written its configurations. */
static void quoted(GString *out, const char *s)
{
  g_string_append_c(out, ',');
  csv_append_quoted(out, s);
}

/* One row per system (per system and factory size where the size is swept): its pick, and beside
 * it the pick with the model's held-out error as headroom on the SLO's limits (summary.h; empty
 * where there is none). */
static char *plan_csv(const Summary *sum)
{
  GString *out = g_string_new("system,budget_mw,factory_gpus,config,settings,tok_s_per_user,ttft_p50_ms,racks,gpus,"
                              "facility_mw,it_mw,factory_tok_s,tok_s_per_mw,optics_mw,usd_per_mtok,joules_per_token,point,"
                              "headroom_config,headroom_settings,headroom_tok_s_per_user,headroom_tok_s_per_mw,"
                              "headroom_racks,headroom_point\n");
  for (guint i = 0; i < summary_n_systems(sum); i++) {
    const ResultRow *r = summary_pick(sum, i), *h = summary_headroom_pick(sum, i);
    g_string_append(out, summary_system(sum, i));
    double budget = r ? r->budget_mw : summary_budget_mw(sum, i);
    double gpus = r ? r->factory_gpus : summary_factory_gpus(sum, i);
    g_string_append_printf(out, isfinite(budget) ? ",%.6g" : ",", budget);
    g_string_append_printf(out, isfinite(gpus) ? ",%.0f" : ",", gpus);
    if (!r) {
      g_string_append(out, ",,,,,,,,,,,,,,,,,,,,\n");
      continue;
    }
    g_autofree char *set = summary_settings(sum, i, r), *hset = summary_settings(sum, i, h);
    quoted(out, r->config);
    quoted(out, set);
    g_string_append_printf(out, ",%.6g,%.6g,%.0f,%.0f,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%" G_GSIZE_FORMAT,
                           r->tok_s_per_user, r->ttft_p50_ms, r->racks, r->gpus, r->facility_mw,
                           r->it_mw, r->out_tok_s_per_gpu * r->gpus, r->tok_s_per_mw,
                           r->optics_w_per_gpu * r->gpus / 1e6, r->usd_per_mtok, r->joules_per_token, r->point);
    if (h) {
      quoted(out, h->config);
      quoted(out, hset);
      g_string_append_printf(out, ",%.6g,%.6g,%.0f,%" G_GSIZE_FORMAT "\n", h->tok_s_per_user, h->tok_s_per_mw,
                             h->racks, h->point);
    } else {
      g_string_append(out, ",,,,,,\n");
    }
  }
  return g_string_free(out, FALSE);
}

/* ",V" on CSV, V as %.6g, or an empty cell for a figure the floor did not give (availability
 * without failures). */
static void csv_figure(GString *csv, double v)
{
  if (isfinite(v))
    g_string_append_printf(csv, ",%.6g", v);
  else
    g_string_append_c(csv, ',');
}

/* --size: the floor each floor point's demand needs (sizing.h), written to PATH and, with a table
 * summary, printed (a CSV or JSON summary on stdout stays one document). */
static gboolean size_floors(const RunSetup *rs, const SizingGoal *goal, const char *path, gboolean quiet, gboolean print,
                            GError **error)
{
  g_autoptr(GString) csv = g_string_new("point,system,config,outcome,racks,gpus,facility_mw,tok_s_per_user,ttft_p90_ms,"
                                        "availability,tok_s_per_mw,tries\n");
  g_autoptr(GString) out = g_string_new(NULL);
  g_string_append_printf(out, "\nSizing: the fewest racks whose floor meets the SLO%s through the demand\n",
          goal->min_availability > 0 ? " and the availability" : "");
  g_string_append(out, "   point  system              racks     GPUs  facility MW  tok/s/user  p90 TTFT s  availability  configuration\n");
  for (gsize i = 0; i < rs->scenario->n_points; i++) {
    Point pt;
    scenario_point(rs->scenario, rs->catalog, i, &pt);
    if (!pt.p.factory.floor) {
      point_clear(&pt);
      continue;
    }
    if (!quiet)
      fprintf(stderr, "aifsim plan: sizing point %" G_GSIZE_FORMAT "...\n", i);
    Sizing sz;
    sizing_search(&pt, &rs->profile, goal, &sz);
    const ResultRow *r = &sz.row;
    gboolean found = sz.outcome == SIZING_FOUND;
    g_autofree char *avail = isnan(r->availability) ? g_strdup("-") : g_strdup_printf("%.4f", r->availability);
    if (found)
      g_string_append_printf(out, "  %6" G_GSIZE_FORMAT "  %-18s %6.0f %8.0f %12.4g %11.1f %11.3g %13s  %s\n", i, pt.system.id, sz.racks,
             r->gpus, r->facility_mw, r->tok_s_per_user, r->ttft_p90_ms / 1e3, avail, r->config ? r->config : "");
    else if (sz.outcome == SIZING_OVER_BUDGET)
      g_string_append_printf(out, "  %6" G_GSIZE_FORMAT "  %-18s no size meets it within the power budget: at its %.0f racks, %s\n", i,
             pt.system.id, sz.racks, r->reason ? r->reason : outcome_names[r->status]);
    else
      g_string_append_printf(out, "  %6" G_GSIZE_FORMAT "  %-18s %s\n", i, pt.system.id, sizing_outcome_text(sz.outcome));
    g_string_append_printf(csv, "%" G_GSIZE_FORMAT ",%s,\"%s\",%s,", i, pt.system.id, r->config ? r->config : "",
                           found ? "found" : sz.outcome == SIZING_OVER_BUDGET ? "over-budget" : "not-a-floor");
    if (found) {
      g_string_append_printf(csv, "%.0f,%.0f", sz.racks, r->gpus);
      const double figures[] = { r->facility_mw, r->tok_s_per_user, r->ttft_p90_ms, r->availability, r->tok_s_per_mw };
      for (gsize k = 0; k < G_N_ELEMENTS(figures); k++)
        csv_figure(csv, figures[k]);
      g_string_append_printf(csv, ",%u\n", sz.tries);
    } else
      g_string_append_printf(csv, ",,,,,,,%u\n", sz.tries);
    result_row_clear(&sz.row);
    point_clear(&pt);
  }
  if (print)
    printf("%sSizing: %s\n", out->str, path);
  return atomic_file_write(path, csv->str, csv->len, error);
}

static gint cmp_int(gconstpointer a, gconstpointer b)
{
  int x = *(const int *)a, y = *(const int *)b;
  return (x > y) - (x < y);
}

/* The users the scenario's closed-loop points take, ascending and distinct (int). */
static GArray *swept_users(const RunSetup *rs)
{
  GArray *users = g_array_new(FALSE, FALSE, sizeof(int));
  g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);
  for (gsize i = 0; i < rs->scenario->n_points; i++) {
    Point pt;
    scenario_point(rs->scenario, rs->catalog, i, &pt);
    int u = pt.p.workload.users;
    if (pt.p.workload.arrival == ARRIVAL_CLOSED && u > 0 && g_hash_table_add(seen, GINT_TO_POINTER(u)))
      g_array_append_val(users, u);
    point_clear(&pt);
  }
  g_array_sort(users, cmp_int);
  return users;
}

/* The next count above USERS among the sweep's (SWEPT, ascending), or 0 where USERS is the most. */
static int next_users(const GArray *swept, double users)
{
  for (guint k = 0; k < swept->len; k++)
    if (g_array_index(swept, int, k) > users)
      return g_array_index(swept, int, k);
  return 0;
}

/* One refinement (refine.h) of R, a pick of system I held to LIMITS (tok/s per user, TTFT in s at
 * the SLO's percentile; 0: no such limit) or, LIMITS NULL, to the scenario's own SLO: its line and
 * CSV row. PICK is the system's pick, whose tokens/s per MW the refined point's is a share of. */
static void refine_one(const RunSetup *rs, const Summary *sum, guint i, const ResultRow *r, const ResultRow *pick,
                       const char *kind, const double *limits, const GArray *swept, GString *out, GString *csv)
{
  int lo = (int)r->users, hi = next_users(swept, r->users);
  const char *system = summary_system(sum, i);
  Point pt;
  scenario_point(rs->scenario, rs->catalog, r->point, &pt);
  Percentile pct = pt.p.plan.percentile;
  double budget = summary_budget_mw(sum, i), gpus = summary_factory_gpus(sum, i);
  /* a system listed once per factory size swept: the size beside its name */
  g_autofree char *name = isfinite(budget) ? g_strdup_printf("%s, %.4g MW", system, budget)
                          : isfinite(gpus) ? g_strdup_printf("%s, %.0f GPUs", system, gpus)
                                           : g_strdup(system);
  if (limits && r->point == pick->point && limits[0] == pt.p.plan.min_tok_s_per_user && limits[1] == pt.p.plan.max_ttft) {
    point_clear(&pt); /* the headroom raises no limit (no held-out error on them): the pick's search */
    return;
  }
  g_string_append_printf(out, "  %-18s %-13s ", name, kind);
  if (pt.p.factory.floor) { /* a whole floor a try: sized by --size, not searched here */
    g_string_append(out, "a simulated floor (factory.floor.simulate): not searched\n");
    point_clear(&pt);
    return;
  }
  if (limits)
    pt.p.plan.min_tok_s_per_user = limits[0], pt.p.plan.max_ttft = limits[1];
  double min_user = pt.p.plan.min_tok_s_per_user, max_ttft = pt.p.plan.max_ttft;
  gboolean past = hi <= lo; /* the sweep's most users: nothing swept above them */
  Refine rf;
  if (past)
    refine_past_sweep(&pt, &rs->profile, lo, &rf);
  else
    refine_users(&pt, &rs->profile, lo, hi, &rf);
  const ResultRow *f = &rf.row;
  g_string_append_printf(csv, "%s,", system);
  g_string_append_printf(csv, isfinite(budget) ? "%.6g," : ",", budget);
  g_string_append_printf(csv, isfinite(gpus) ? "%.0f," : ",", gpus);
  g_string_append_printf(csv, "%s,%.6g,%.6g,%" G_GSIZE_FORMAT ",%d,%d,", kind, min_user, max_ttft, r->point, lo, rf.users);
  if (!past)
    g_string_append_printf(csv, "%d", hi);
  g_string_append_printf(csv, ",%d,%u", rf.top, rf.tries);
  if (past)
    g_string_append_printf(out, "at the sweep's most users (%d); past them, ", lo);
  if (rf.users > lo) {
    double ttft = slo_at(pct, f->ttft_p50_ms, f->ttft_p90_ms, f->ttft_p99_ms) / 1e3;
    g_string_append_printf(out, "%s: %.0f tok/s per MW (%.3g%% of the pick's; %.3g%% at the sweep's %d users), %.1f "
                                "tok/s per user, %s TTFT %.3g s",
                           f->config ? f->config : "", f->tok_s_per_mw, 100 * f->tok_s_per_mw / pick->tok_s_per_mw,
                           100 * r->tok_s_per_mw / pick->tok_s_per_mw, lo, f->tok_s_per_user, percentile_names[pct],
                           ttft);
    if (rf.users == rf.top) /* only past the sweep: the search's top met the limits */
      g_string_append_printf(out, " (%u simulation): the sweep's range, not the limits, stops this pick; widen "
                                  "workload.arrival.users\n", rf.tries);
    else
      g_string_append_printf(out, "; %d did not (%u simulations)\n", past ? rf.top : hi, rf.tries);
    quoted(csv, f->config ? f->config : "");
    g_string_append_printf(csv, ",%.6g,%.6g,%.6g,%.6g\n", f->tok_s_per_user, ttft * 1e3, f->tok_s_per_mw, f->racks);
  } else {
    if (past)
      g_string_append_printf(out, "no count up to %d users meets its limits (%u simulations)\n", rf.top, rf.tries);
    else
      g_string_append_printf(out, "no count between the sweep's %d and %d users meets its limits (%u simulations)\n",
                             lo, hi, rf.tries);
    g_string_append(csv, ",,,,,\n");
  }
  result_row_clear(&rf.row);
  point_clear(&pt);
}

/* Each system's closed-loop pick, and its pick with headroom, at the most users between the sweep's
 * counts that still meet their limits, or past the sweep's most users where it is at them
 * (refine.h): written to PATH and, with a table summary, printed (a CSV or JSON summary on stdout
 * stays one document). */
static gboolean refine_picks(const RunSetup *rs, const Summary *sum, const char *path, gboolean quiet, gboolean print,
                             GError **error)
{
  g_autoptr(GString) csv = g_string_new("system,budget_mw,factory_gpus,limits,min_tok_s_per_user,max_ttft_s,point,"
                                        "swept_users,users,next_swept_users,search_top,tries,config,tok_s_per_user,ttft_ms,"
                                        "tok_s_per_mw,racks\n");
  g_autoptr(GString) out = g_string_new("\nBetween the sweep's users: each pick's engine at the most users that still "
                                        "meet its limits\n");
  g_autoptr(GArray) swept = NULL;
  guint tried = 0;
  for (guint i = 0; i < summary_n_systems(sum); i++) {
    const ResultRow *p = summary_pick(sum, i), *h = summary_headroom_pick(sum, i);
    if (!p || !p->arrival || strcmp(p->arrival, "closed") != 0)
      continue;
    if (!swept)
      swept = swept_users(rs);
    if (!quiet)
      fprintf(stderr, "aifsim plan: refining the users of %s's pick...\n", summary_system(sum, i));
    refine_one(rs, sum, i, p, p, "pick", NULL, swept, out, csv);
    tried++;
    double limits[2];
    if (h && h->arrival && strcmp(h->arrival, "closed") == 0 && summary_headroom_limits(sum, h, &limits[0], &limits[1]))
      refine_one(rs, sum, i, h, p, "with headroom", limits, swept, out, csv);
  }
  if (print && tried)
    printf("%sRefined: %s\n", out->str, path);
  return atomic_file_write(path, csv->str, csv->len, error);
}

/* The SLO options, over the scenario's plan keys. */
static gboolean slo_overrides(Scenario *sc, char *const *values, GError **error)
{
  static const char *const keys[] = { "plan.min_tok_s_per_user", "plan.max_ttft", "plan.max_tpot", "plan.percentile",
                                      "plan.max_lost_share" };
  for (gsize k = 0; k < G_N_ELEMENTS(keys); k++)
    if (values[k] && !scenario_override(sc, keys[k], values[k], error))
      return FALSE;
  return TRUE;
}

int cmd_plan(int argc, char **argv)
{
  g_auto(RunArgs) a = { .seed = G_MININT64 };
  g_autofree char *min_user = NULL, *max_ttft = NULL, *max_tpot = NULL, *percentile = NULL, *max_lost = NULL;
  g_autofree char *format = NULL;
  g_autofree char *provisioning = NULL, *availability = NULL;
  gboolean size = FALSE, no_refine = FALSE;
  gint jobs = (gint)g_get_num_processors(), top = 3;
  GOptionEntry entries[] = {
    RUN_ARGS_ENTRIES(a),
    { "jobs", 'j', 0, G_OPTION_ARG_INT, &jobs, "worker processes (default: all cores)", "N" },
    { "min-tok-s-per-user", 'u', 0, G_OPTION_ARG_STRING, &min_user, "slowest acceptable tokens/s per user (plan.min_tok_s_per_user)", "X" },
    { "max-ttft", 0, 0, G_OPTION_ARG_STRING, &max_ttft, "longest acceptable TTFT, e.g. '2 s' (plan.max_ttft)", "TIME" },
    { "max-tpot", 0, 0, G_OPTION_ARG_STRING, &max_tpot, "longest acceptable TPOT, e.g. '40 ms' (plan.max_tpot)", "TIME" },
    { "percentile", 0, 0, G_OPTION_ARG_STRING, &percentile, "p50, p90 or p99: where the TTFT and TPOT limits hold (plan.percentile)", "P" },
    { "max-lost-share", 0, 0, G_OPTION_ARG_STRING, &max_lost, "largest acceptable share of requests lost with failed engines, e.g. 0.1% (plan.max_lost_share)", "SHARE" },
    { "provisioning", 0, 0, G_OPTION_ARG_STRING, &provisioning, "size the factory by nameplate, component or drawn power (factory.provisioning; drawn: racks provisioned for the operating point's draw)", "HOW" },
    { "size", 0, 0, G_OPTION_ARG_NONE, &size, "size each floor point (factory.floor.simulate) for its demand: the fewest racks whose floor meets the SLO, by simulating floors of that size (writes sizing.csv)", NULL },
    { "availability", 0, 0, G_OPTION_ARG_STRING, &availability, "with --size: the engines' share of the run in service the floor must also keep, e.g. 99.9% (factory.failures)", "SHARE" },
    { "no-refine", 0, 0, G_OPTION_ARG_NONE, &no_refine, "do not search the users between the sweep's counts, or past its most, for each closed-loop pick (refine.csv)", NULL },
    { "top", 'n', 0, G_OPTION_ARG_INT, &top, "points per system and mode (default 3)", "N" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "table (default), csv or json", "FORMAT" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new("[SCENARIO.yaml]");
  g_option_context_set_summary(ctx, "For the scenario's power budget and SLO, the best configuration per system, the\n"
                                    "factory it implies and the best points of each mode; per system and factory size\n"
                                    "where the scenario sweeps factory.power_budget or factory.gpus. Writes plan.csv,\n"
                                    "the chart, results.csv and scenario.resolved.yaml (what aifsim launch reads) into\n"
                                    "DIR.");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "plan", &argc, &argv))
    return 2;
  int fmt = cli_choice("plan", "--format", format ? format : "table", summary_format_names);
  if (jobs < 1 || top < 1 || fmt < 0) {
    if (fmt >= 0)
      fprintf(stderr, "aifsim plan: --jobs and --top expect at least 1\n");
    return 2;
  }
  jobs = MIN(jobs, 4 * (int)g_get_num_processors());
  SizingGoal goal = { 0 };
  if (availability) {
    const char *why = NULL;
    if (!size || !units_parse(availability, DIM_FRACTION, &goal.min_availability, &why) || goal.min_availability > 1) {
      fprintf(stderr, "aifsim plan: --availability expects a share (e.g. 99.9%% or 0.999) with --size\n");
      return 2;
    }
  }
  g_autoptr(GError) err = NULL;
  g_auto(RunSetup) rs = { 0 };
  int rc = run_setup("plan", argc, argv, &a, &rs, &err);
  if (rc)
    return rc;
  char *const slo[] = { min_user, max_ttft, max_tpot, percentile, max_lost };
  if (!slo_overrides(rs.scenario, slo, &err) ||
      (provisioning && !scenario_override(rs.scenario, "factory.provisioning", provisioning, &err)))
    return cli_fail("plan", err);
  SweepOptions so = { .jobs = jobs, .progress = progress_style(a.quiet, a.progress) };
  so.series = report_series, so.series_user = rs.outdir;
  if (!so.resume)
    report_series_clear(rs.outdir);
  if (!sweep_run(rs.scenario, rs.catalog, &rs.profile, rs.outdir, &so, &err))
    return cli_fail("plan", err);
  /* the results and the chart as run writes them (frontier marked, the picks ringed) */
  ReportOptions ro = { .top = (guint)top, .chart = TRUE };
  g_auto(Report) rep = { 0 };
  g_autofree char *csv_path = g_build_filename(rs.outdir, "plan.csv", NULL);
  if (!report_sweep(&rs, &ro, &rep, &err))
    return cli_fail("plan", err);
  g_autofree char *csv = plan_csv(rep.summary);
  if (!atomic_file_write(csv_path, csv, -1, &err) || !report_write_resolved(&rs, &rep, &err))
    return cli_fail("plan", err);
  sweep_finish(rs.outdir);
  g_autofree char *footer = g_strdup_printf("Plan: %s; every point: %s/results.csv", csv_path, rs.outdir);
  report_print_summary(&rep, (SummaryFormat)fmt, footer);
  if (!no_refine) {
    g_autofree char *refine_path = g_build_filename(rs.outdir, "refine.csv", NULL);
    if (!refine_picks(&rs, rep.summary, refine_path, a.quiet, fmt == SUMMARY_TABLE, &err))
      return cli_fail("plan", err);
  }
  if (size) {
    g_autofree char *sizing_path = g_build_filename(rs.outdir, "sizing.csv", NULL);
    if (!size_floors(&rs, &goal, sizing_path, a.quiet, fmt == SUMMARY_TABLE, &err))
      return cli_fail("plan", err);
  }
  return 0;
}
