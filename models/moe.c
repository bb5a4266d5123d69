/* moe.c — expected expert coverage (see moe.h). */
#include "moe.h"

#include <math.h>

double moe_expected_experts(int experts, int k, double tokens)
{
  if (experts <= 0 || k <= 0 || tokens <= 0)
    return 0;
  /* log1p keeps (1 - k/E)^T accurate when k/E is small */
  return experts * -expm1(tokens * log1p(-(double)k / experts));
}
