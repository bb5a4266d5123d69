/* slo.c — a result row against the scenario's SLO (see slo.h). */
#include "slo.h"
#include "scenario.h"

#include <math.h>

double slo_at(Percentile p, double p50, double p90, double p99)
{
  double v = p == PCT_P99 ? p99 : p == PCT_P90 ? p90 : p50;
  return isnan(v) ? p50 : v;
}

double percentile_fraction(Percentile p)
{
  return p == PCT_P99 ? 0.99 : p == PCT_P90 ? 0.9 : 0.5;
}

static char *seconds(double ms)
{
  return ms >= 1000 ? g_strdup_printf("%.3g s", ms / 1e3) : g_strdup_printf("%.3g ms", ms);
}

/* Whether S limits TTFT, TPOT or tokens/s per user. */
static gboolean latency_limits(const PlanParams *s)
{
  return s->max_ttft > 0 || s->max_tpot > 0 || s->min_tok_s_per_user > 0;
}

SloBreach slo_check(const PlanParams *s, const ResultRow *r, char **why)
{
  const char *pct = percentile_names[s->percentile];
  double ttft = slo_at(s->percentile, r->ttft_p50_ms, r->ttft_p90_ms, r->ttft_p99_ms);
  double tpot = slo_at(s->percentile, r->tpot_p50_ms, r->tpot_p90_ms, r->tpot_p99_ms);
  double may_miss = 1 - percentile_fraction(s->percentile);
  /* a latency limit lets miss what its percentile does; the plan's own limit may be tighter */
  double limit = latency_limits(s) ? may_miss : INFINITY;
  gboolean own = s->max_lost_share > 0 && s->max_lost_share < limit;
  if (own)
    limit = s->max_lost_share;
  /* a percentile's own share is judged as the event simulation places its quantile among the lost
   * (metrics.c: none where q > the answered share): exactly 10% lost still lets a p90 pass, where
   * 0.1 > 1 - 0.9 (0.0999...98 in doubles) would not */
  if (own ? r->lost_share > limit : isfinite(limit) && percentile_fraction(s->percentile) > 1 - r->lost_share) {
    if (why && own)
      *why = g_strdup_printf("%.3g%% of the requests lost with failed engines, more than the plan's %.3g%%",
                             100 * r->lost_share, 100 * limit);
    else if (why)
      *why = g_strdup_printf("%.3g%% of the requests lost with failed engines, more than the %.3g%% a %s limit lets miss",
                             100 * r->lost_share, 100 * may_miss, pct);
    return SLO_LOST;
  }
  if (s->max_ttft > 0 && !(ttft <= s->max_ttft * 1e3)) {
    if (why) {
      g_autofree char *a = seconds(ttft), *b = seconds(s->max_ttft * 1e3);
      *why = g_strdup_printf("%s TTFT %s above the SLO's %s", pct, a, b);
    }
    return SLO_TTFT;
  }
  if (s->max_tpot > 0 && !(tpot <= s->max_tpot * 1e3)) {
    if (why) {
      g_autofree char *a = seconds(tpot), *b = seconds(s->max_tpot * 1e3);
      *why = g_strdup_printf("%s TPOT %s above the SLO's %s", pct, a, b);
    }
    return SLO_TPOT;
  }
  if (s->min_tok_s_per_user > 0 && !(r->tok_s_per_user >= s->min_tok_s_per_user)) {
    if (why)
      *why = g_strdup_printf("%.3g tok/s per user below the SLO's %.3g", r->tok_s_per_user, s->min_tok_s_per_user);
    return SLO_TOK_S_PER_USER;
  }
  return SLO_MET;
}

char *slo_describe(const PlanParams *s)
{
  return slo_describe_mix(s, NULL);
}

char *slo_describe_mix(const PlanParams *s, const char *mix)
{
  GString *out = g_string_new(NULL);
  const char *pct = percentile_names[s->percentile];
  g_autofree char *why = NULL;
  g_autoptr(GArray) classes = mix ? scenario_mix_parse(mix, &why) : NULL;
  if (classes) { /* TTFT judged class by class (evaluate.c), each at its own limit or the plan's */
    g_string_append_printf(out, "%s TTFT by class (", pct);
    for (guint k = 0; k < classes->len; k++) {
      const MixClass *c = &g_array_index(classes, MixClass, k);
      double limit = c->max_ttft > 0 ? c->max_ttft : s->max_ttft;
      g_autofree char *t = limit > 0 ? seconds(limit * 1e3) : g_strdup("any");
      g_string_append_printf(out, "%s%s <= %s", k ? ", " : "", c->name, t);
    }
    g_string_append_c(out, ')');
  } else if (s->max_ttft > 0) {
    g_autofree char *t = seconds(s->max_ttft * 1e3);
    g_string_append_printf(out, "%s TTFT <= %s", pct, t);
  }
  if (s->max_tpot > 0) {
    g_autofree char *t = seconds(s->max_tpot * 1e3);
    g_string_append_printf(out, "%s%s TPOT <= %s", out->len ? ", " : "", pct, t);
  }
  if (s->min_tok_s_per_user > 0)
    g_string_append_printf(out, "%s>= %.4g tok/s per user", out->len ? ", " : "", s->min_tok_s_per_user);
  if (s->max_lost_share > 0)
    g_string_append_printf(out, "%s<= %.3g%% of the requests lost", out->len ? ", " : "", 100 * s->max_lost_share);
  if (!out->len)
    g_string_append(out, "none");
  return g_string_free(out, FALSE);
}
