/* cmd_estimate.c — `aifsim estimate --system ID --model ID [--tp N ...]`: one configuration, no
 * scenario file. The options become a scenario made in memory (scenario_load_text) and scenario
 * keys (scenario_override), so the point is checked, predicted and reported exactly as `run` would
 * (evaluate_point): an estimate and a one-point scenario give the same row. */
#include "commands.h"
#include "aif_error.h"
#include "evaluate.h"
#include "explain.h"
#include "keytable.h"
#include "output_dir.h"
#include "power.h"
#include "results.h"
#include "serving_sim.h"
#include "series_files.h"
#include "summary.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* TEXT as a YAML single-quoted scalar: nothing in it can open a key or a second document. */
static gboolean yaml_quote(GString *out, const char *text)
{
  g_string_append_c(out, '\'');
  for (const char *c = text; *c; c++) {
    if ((unsigned char)*c < 0x20 || *c == 0x7f)
      return FALSE;
    if (*c == '\'')
      g_string_append_c(out, '\'');
    g_string_append_c(out, *c);
  }
  g_string_append_c(out, '\'');
  return TRUE;
}

/* Sets scenario key PATH (a group's shorthand child when PATH names a group) to VALUE. */
static gboolean set_key(Scenario *sc, const char *option, const char *path, const char *value, GError **error)
{
  const KtKey *k = kt_find(&scenario_table, path);
  g_autofree char *leaf = NULL;
  if (k && k->type == KT_GROUP && k->shorthand)
    k = kt_find(&scenario_table, leaf = g_strconcat(path, ".", k->shorthand, NULL));
  if (!k || k->type == KT_GROUP) {
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    for (gsize i = 0; i < scenario_table.n_keys; i++)
      if (scenario_table.keys[i].type != KT_GROUP)
        g_ptr_array_add(names, (gpointer)scenario_table.keys[i].path);
    g_ptr_array_add(names, NULL);
    const char *near = kt_closest(path, (const char *const *)names->pdata);
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: no scenario key '%s'%s%s%s (aifsim help keys)", option, path,
                near ? " (did you mean '" : "", near ? near : "", near ? "'?)" : "");
    return FALSE;
  }
  if (!scenario_override(sc, k->path, value, error)) {
    g_prefix_error(error, "%s: ", option);
    return FALSE;
  }
  return TRUE;
}

/* A column's meaning, to its first clause: the table stays one line a column (help columns has it all). */
static char *short_help(const char *help)
{
  const char *cut = NULL;
  for (const char *const *sep = (const char *const[]){ " (", "; ", ": ", ", ", NULL }; *sep; sep++) {
    const char *at = strstr(help, *sep);
    if (at && at - help >= 12 && (!cut || at < cut))
      cut = at;
  }
  return cut ? g_strndup(help, (gsize)(cut - help)) : g_strdup(help);
}

static void print_table(const ResultRow *r)
{
  printf("%s on %s: %s\n", r->model, r->system, r->config);
  for (gsize i = 0; i < n_result_columns; i++) {
    const ResultColumn *c = &result_columns[i];
    if (strcmp(c->name, "point") == 0 || strcmp(c->name, "config") == 0 || strcmp(c->name, "swept") == 0 ||
        strcmp(c->name, "on_frontier") == 0 || strcmp(c->name, "system") == 0 || strcmp(c->name, "model") == 0)
      continue;
    g_autofree char *v = results_cell(r, c);
    g_autofree char *help = c->type == RC_OUTCOME ? g_strdup("ok, slo-violated, queue-bound, unstable, infeasible or unsupported")
                                                  : short_help(c->help);
    if (v && *v)
      printf("  %-20s %-24s %s\n", c->name, v, help);
  }
}

/* --explain: the point's deployment taken apart (explain.h), at the batch its prediction ran. */
static void print_explained(const Point *pt, const Profile *prof, const ResultRow *row)
{
  if (row->status == OUTCOME_UNSUPPORTED) {
    printf("nothing to take apart: the point is unsupported\n");
    return;
  }
  SimConfig sim;
  Deployment d;
  evaluate_deployment(pt, prof, &sim, &d);
  g_autoptr(GString) out = g_string_new(NULL);
  if (row->status == OUTCOME_INFEASIBLE)
    g_string_append(out, "the point is infeasible: its steps timed as if its engines fitted\n");
  explain_steps(out, &d, row->batch);
  fputs(out->str, stdout);
}

int cmd_estimate(int argc, char **argv)
{
  g_autofree char *system = NULL, *model = NULL, *framework = NULL, *precision = NULL, *mode = NULL, *users = NULL,
                  *rate = NULL, *isl = NULL, *osl = NULL, *format = NULL, *profile_path = NULL, *engine = NULL,
                  *series_path = NULL, *interval_text = NULL, *chart_path = NULL;
  g_auto(GStrv) sets = NULL, dirs = NULL;
  gint tp = 0, ep = 0, pp = 0, workers = 0, max_batch = 0, mtp = -1;
  gboolean adp = FALSE, explain = FALSE;
  gint64 seed = G_MININT64;
  GOptionEntry entries[] = {
    { "system", 0, 0, G_OPTION_ARG_STRING, &system, "hardware catalog id (aifsim catalog systems)", "ID" },
    { "model", 0, 0, G_OPTION_ARG_STRING, &model, "model catalog id (aifsim catalog models)", "ID" },
    { "framework", 0, 0, G_OPTION_ARG_STRING, &framework, "serving stack: trtllm (default), sglang, vllm, dynamo-trt, dynamo-sglang, dynamo-vllm", "NAME" },
    { "precision", 0, 0, G_OPTION_ARG_STRING, &precision, "bf16, fp8 (default) or fp4", "P" },
    { "mode", 0, 0, G_OPTION_ARG_STRING, &mode, "aggregated (default) or disaggregated: then --tp, --ep, --pp, --attention-dp, --workers and --max-batch are the decode pool's; set the prefill pool with --set", "MODE" },
    { "tp", 0, 0, G_OPTION_ARG_INT, &tp, "tensor-parallel GPUs per engine (default 1)", "N" },
    { "ep", 0, 0, G_OPTION_ARG_INT, &ep, "expert-parallel GPUs per engine (default 1)", "N" },
    { "pp", 0, 0, G_OPTION_ARG_INT, &pp, "pipeline stages per engine (default 1)", "N" },
    { "attention-dp", 0, 0, G_OPTION_ARG_NONE, &adp, "attention data-parallel across the engine's GPUs", NULL },
    { "workers", 0, 0, G_OPTION_ARG_INT, &workers, "engines (default 1)", "N" },
    { "max-batch", 0, 0, G_OPTION_ARG_INT, &max_batch, "most sequences in one step (per attention rank with --attention-dp; default 256)", "N" },
    { "mtp", 0, 0, G_OPTION_ARG_INT, &mtp, "multi-token prediction with N draft tokens (0: none)", "N" },
    { "isl", 0, 0, G_OPTION_ARG_STRING, &isl, "input tokens per request (default 1024)", "TOKENS" },
    { "osl", 0, 0, G_OPTION_ARG_STRING, &osl, "output tokens per request (default 1024)", "TOKENS" },
    { "users", 0, 0, G_OPTION_ARG_STRING, &users, "closed loop: concurrent users (default 64)", "N" },
    { "rate", 0, 0, G_OPTION_ARG_STRING, &rate, "open loop instead: Poisson arrivals at this rate, e.g. '20 req/s'", "RATE" },
    { "set", 0, 0, G_OPTION_ARG_STRING_ARRAY, &sets, "any scenario key (aifsim help keys), e.g. --set plan.max_ttft='2 s' (repeatable)", "KEY=VALUE" },
    { "engine", 'e', 0, G_OPTION_ARG_STRING, &engine, "des (default: event-simulated) or steady (the steady-state model)", "ENGINE" },
    { "seed", 's', 0, G_OPTION_ARG_INT64, &seed, "random seed (default 1)", "N" },
    { "profile", 'p', 0, G_OPTION_ARG_FILENAME, &profile_path, "efficiency profile (default: the shipped one)", "PROFILE.yaml" },
    { "catalog", 'c', 0, G_OPTION_ARG_FILENAME_ARRAY, &dirs, "add catalog folder DIR (hardware/, llm/)", "DIR" },
    { "format", 'f', 0, G_OPTION_ARG_STRING, &format, "table (default), csv or json (one results row)", "FORMAT" },
    { "explain", 0, 0, G_OPTION_ARG_NONE, &explain, "after the table, where a step's time goes: each part of a decode step at the point's batch and of a prefill, beside the datasheet floors (bytes over the HBM's rate, FLOPs over the dense peak)", NULL },
    { "series", 0, 0, G_OPTION_ARG_FILENAME, &series_path, "write the run over time to FILE (CSV: per interval, offered and served requests/s, output tok/s, requests in flight and queued, TTFT and TPOT p50 and p90, GPU activity and power, engines in service; event simulation)", "FILE" },
    { "interval", 0, 0, G_OPTION_ARG_STRING, &interval_text, "the series' interval (default 60 s)", "TIME" },
    { "series-chart", 0, 0, G_OPTION_ARG_FILENAME, &chart_path, "draw the series (load, power, latency over time) to FILE (.png, .svg or .pdf), with its gnuplot script FILE.gp", "FILE" },
    { NULL, 0, 0, 0, NULL, NULL, NULL },
  };
  g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
  g_option_context_set_summary(ctx, "Predict one configuration without a scenario file: throughput per GPU and per MW,\n"
                                    "tokens/s per user, TTFT and TPOT percentiles, power, memory and the factory it\n"
                                    "implies, as `aifsim run` computes a point. For example:\n"
                                    "  aifsim estimate --system gb200-nvl72 --model deepseek-r1 --precision fp4 \\\n"
                                    "                  --tp 8 --ep 8 --attention-dp --isl 1024 --osl 2048 --users 256");
  g_option_context_add_main_entries(ctx, entries, NULL);
  if (!cli_parse(ctx, "estimate", &argc, &argv))
    return 2;
  int fmt = cli_choice("estimate", "--format", format ? format : "table", summary_format_names);
  if (fmt < 0)
    return 2;
  if (explain && fmt != SUMMARY_TABLE) {
    fprintf(stderr, "aifsim estimate: --explain prints text after the table; it does not go with --format %s\n", format);
    return 2;
  }
  if (argc != 1 || !system || !model || (users && rate)) {
    fprintf(stderr, "aifsim estimate: %s\nRun 'aifsim estimate --help' for usage.\n",
            argc != 1 ? "takes options only" : users && rate ? "give --users or --rate, not both"
                                                          : "expected --system ID and --model ID");
    return 2;
  }
  g_autoptr(GError) err = NULL;
  g_autoptr(Catalog) cat = cli_catalog(dirs, &err);
  if (!cat)
    return cli_fail("estimate", err);
  for (int which = 0; which < 2; which++) { /* said with the option's name, not a made-up file's */
    const char *id = which ? model : system;
    if (which ? catalog_model(cat, id) != NULL : catalog_system(cat, id) != NULL)
      continue;
    g_autoptr(GPtrArray) ids = which ? catalog_model_ids(cat) : catalog_system_ids(cat);
    g_autofree char *known = g_strjoinv(", ", (char **)ids->pdata);
    fprintf(stderr, "aifsim estimate: --%s: unknown %s '%s' (known: %s)\n", which ? "model" : "system",
            which ? "model" : "system", id, known);
    return 2;
  }
  g_autoptr(GString) text = g_string_new("name: estimate\nsystem: ");
  gboolean clean = yaml_quote(text, system);
  g_string_append(text, "\nmodel: ");
  clean = clean && yaml_quote(text, model);
  if (!clean) {
    fprintf(stderr, "aifsim estimate: --system and --model take catalog ids (no control characters)\n");
    return 2;
  }
  g_string_append_c(text, '\n');
  g_autoptr(Scenario) sc = scenario_load_text("estimate", text->str, cat, &err);
  if (!sc)
    return cli_fail("estimate", err);
  gboolean disagg = mode && strcmp(mode, "disaggregated") == 0;
  const char *pool = disagg ? "serving.disaggregated.decode" : "serving.aggregated";
  /* the options as scenario keys: the engine's figures go to its pool (the decode pool's when
   * disaggregated), counts as written */
  const struct { const char *option, *key; int value; } counts[] = {
    { "--tp", ".tp", tp }, { "--ep", ".ep", ep }, { "--pp", ".pp", pp }, { "--workers", ".workers", workers },
    { "--max-batch", ".max_batch", max_batch },
  };
  for (gsize i = 0; i < G_N_ELEMENTS(counts); i++) {
    g_autofree char *key = g_strconcat(pool, counts[i].key, NULL), *text = g_strdup_printf("%d", counts[i].value);
    if (counts[i].value && !set_key(sc, counts[i].option, key, text, &err))
      return cli_fail("estimate", err);
  }
  g_autofree char *adp_key = g_strconcat(pool, ".attention_dp", NULL);
  g_autofree char *mtp_s = mtp > 0 ? g_strdup_printf("%d", mtp) : NULL;
  g_autofree char *seed_s = seed != G_MININT64 ? g_strdup_printf("%" G_GINT64_FORMAT, seed) : NULL;
  const struct { const char *option, *key, *value; } texts[] = {
    { "--framework", "serving.framework", framework }, { "--precision", "serving.precision", precision },
    { "--mode", "serving.mode", mode }, { "--attention-dp", adp_key, adp ? "true" : NULL },
    { "--mtp", "serving.speculative.method", mtp > 0 ? "mtp" : mtp == 0 ? "none" : NULL },
    { "--mtp", "serving.speculative.draft_tokens", mtp_s }, { "--isl", "workload.input.mean", isl },
    { "--osl", "workload.output.mean", osl }, { "--users", "workload.arrival.users", users },
    { "--rate", "workload.arrival.kind", rate ? "poisson" : NULL }, { "--rate", "workload.arrival.rate", rate },
    { "--engine", "serving.engine", engine }, { "--seed", "seed", seed_s },
  };
  for (gsize i = 0; i < G_N_ELEMENTS(texts); i++)
    if (texts[i].value && !set_key(sc, texts[i].option, texts[i].key, texts[i].value, &err))
      return cli_fail("estimate", err);
  for (char **s = sets; s && *s; s++) {
    const char *eq = strchr(*s, '=');
    g_autofree char *key = eq ? g_strstrip(g_strndup(*s, (gsize)(eq - *s))) : NULL;
    if (!eq || !*key) {
      fprintf(stderr, "aifsim estimate: --set expects KEY=VALUE, got '%s'\n", *s);
      return 2;
    }
    if (!set_key(sc, "--set", key, eq + 1, &err))
      return cli_fail("estimate", err);
  }
  Point pt;
  scenario_point(sc, cat, 0, &pt);
  Profile prof;
  if (!cli_profile(profile_path ? profile_path : pt.p.serving.profile, &prof, &err)) {
    point_clear(&pt);
    return cli_fail("estimate", err);
  }
  double interval = 60;
  const char *why = NULL;
  if (interval_text && (!units_parse(interval_text, DIM_TIME, &interval, &why) || !(interval > 0))) {
    fprintf(stderr, "aifsim estimate: --interval: expected a time above 0, e.g. '10 min'%s%s\n", why ? ": " : "",
            why ? why : "");
    point_clear(&pt);
    profile_clear(&prof);
    return 2;
  }
  g_autoptr(GArray) series = series_path || chart_path ? g_array_new(FALSE, FALSE, sizeof(SeriesRow)) : NULL;
  ResultRow row;
  result_row_init(&row, 0);
  evaluate_point_series(&pt, &prof, &row, interval, series);
  g_autofree char *title = g_strdup_printf("%s on %s: %s", row.model, row.system, row.config ? row.config : "");
  if ((series_path && !series_files_csv(series_path, series, &pt.system, &err)) ||
      (chart_path && !series_files_chart(chart_path, series, &pt.system, title, NAN, "", &err))) {
    result_row_clear(&row);
    point_clear(&pt);
    profile_clear(&prof);
    return cli_fail("estimate", err);
  }
  if (fmt == SUMMARY_JSON) {
    g_autofree char *json = results_json_line(&row);
    fputs(json, stdout);
  } else if (fmt == SUMMARY_CSV) {
    g_autofree char *header = results_csv_header(), *line = results_csv_line(&row);
    fputs(header, stdout);
    fputs(line, stdout);
  } else {
    print_table(&row);
    if (explain)
      print_explained(&pt, &prof, &row);
  }
  result_row_clear(&row);
  point_clear(&pt);
  profile_clear(&prof);
  return 0;
}
