/* moe.c — expected expert coverage (see moe.h). */
#include "moe.h"

#include <math.h>

double moe_expected_experts(int experts, int k, double tokens, double cv)
{
  if (experts <= 0 || k <= 0 || tokens <= 0)
    return 0;
  /* log1p keeps (1 - k/E)^T accurate when k/E is small */
  double lambda = -tokens * log1p(-(double)k / experts); /* (1 - k/E)^T = exp(-lambda) */
  if (cv <= 0)
    return experts * -expm1(-lambda);
  /* popularity x ~ Gamma(1/cv^2, cv^2), mean 1: an expert is missed with probability
   * E[exp(-lambda x)] = (1 + lambda cv^2)^(-1/cv^2); one token still picks K distinct experts */
  double v = cv * cv, missed = exp(-log1p(lambda * v) / v);
  return fmax(experts * (1 - missed), k * fmin(tokens, 1.0));
}

/* Expected maximum of M independent standard normals, at M = 1, 2, 4, ... 1024 (numerical
 * integration of x M phi(x) Phi(x)^(M-1)); between them linear in log2 M, within 0.01. */
static double expected_max_normal(int m)
{
  static const double at_pow2[] = { 0, 0.5642, 1.0294, 1.4236, 1.7660, 2.0697, 2.3437, 2.5946, 2.8269, 3.0439, 3.2482 };
  const int last = (int)(sizeof at_pow2 / sizeof at_pow2[0]) - 1;
  if (m <= 1)
    return 0;
  double l = log2((double)m);
  int i = (int)l;
  if (i >= last)
    return at_pow2[last];
  return at_pow2[i] + (at_pow2[i + 1] - at_pow2[i]) * (l - i);
}

double moe_busiest_group_experts(int experts, double touched, int groups)
{
  if (groups <= 1 || touched <= 0 || experts <= 0)
    return touched;
  double n = ceil((double)experts / groups), p = touched / experts;
  return fmin(n * p + expected_max_normal(groups) * sqrt(n * p * (1 - p)), n);
}

/* The relative spread of a group's load from the experts' popularity (moe.h). */
static double popularity_spread(const MoePlacement *p)
{
  if (p->load_cv <= 0 || p->groups <= 1 || p->experts <= 0)
    return 0;
  double n = (double)p->experts / p->groups;
  if (!p->eplb)
    return p->load_cv / sqrt(n);
  double slots = (double)p->experts + MAX(p->redundant, 0), m = slots / p->groups;
  return p->load_cv * p->experts / slots / m;
}

double moe_busiest_group_load(const MoePlacement *p, double tokens)
{
  double pairs = tokens * p->k;
  int g = p->groups;
  if (g <= 1 || pairs <= 0)
    return 1;
  double sampling = (g - 1.0) / pairs; /* binomial: var / mean^2 of a group's share of PAIRS */
  double skew = popularity_spread(p);
  return fmin(1 + expected_max_normal(g) * sqrt(sampling + skew * skew), (double)g);
}

double moe_token_groups(int experts, int k, int groups)
{
  if (experts <= 0 || k <= 0)
    return 0;
  if (groups <= 1)
    return 1;
  /* a group of n experts is missed by all K picks with probability C(E - n, K) / C(E, K) */
  double n = (double)experts / groups, miss = 1;
  for (int i = 0; i < k; i++)
    miss *= fmax(experts - n - i, 0) / (experts - i);
  return groups * (1 - miss);
}

double moe_trtllm_gen_tile(double tokens_per_expert)
{
  double per = floor(MAX(tokens_per_expert, 0)), tile = 8;
  while (tile < per && tile < 128)
    tile *= 2;
  return tile;
}

gboolean moe_backend_trtllm_gen(MoeBackend backend, int moe_tp)
{
  return backend == MOE_BACKEND_TRTLLM || (backend == MOE_BACKEND_AUTO && moe_tp > 1);
}

double moe_tile_rows(double rows, double tile)
{
  if (tile <= 0)
    return rows;
  return rows + tile - tile / 2 * MIN(rows / tile, 1.0);
}
