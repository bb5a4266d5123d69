/* stats.c — quantiles without sorting (see stats.h). */
#include "stats.h"

#include <math.h>

/* Reorders V[FROM..N) so that V[K] is the value a sort would put there, smaller or equal values
 * before it and larger or equal after (quickselect, median-of-three pivots). */
static void select_kth(double *v, guint from, guint n, guint k)
{
  guint lo = from, hi = n - 1;
  while (lo < hi) {
    guint mid = lo + (hi - lo) / 2;
    double a = v[lo], b = v[mid], c = v[hi];
    double pivot = a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b));
    guint i = lo, j = hi;
    while (i <= j) {
      while (v[i] < pivot)
        i++;
      while (v[j] > pivot)
        j--;
      if (i <= j) {
        double t = v[i];
        v[i] = v[j], v[j] = t;
        i++;
        if (j == 0)
          break;
        j--;
      }
    }
    if (k <= j)
      hi = j;
    else if (k >= i)
      lo = i;
    else
      return; /* between the two parts: equal to the pivot */
  }
}

void stats_quantiles(GArray *v, const double *q, int n, double *out)
{
  double *x = (double *)v->data;
  guint from = 0;
  for (int k = 0; k < n; k++) {
    if (v->len == 0) {
      out[k] = NAN;
      continue;
    }
    double pos = q[k] * (v->len - 1);
    guint lo = (guint)floor(pos), hi = MIN(lo + 1, v->len - 1);
    select_kth(x, from, v->len, lo);
    double a = x[lo], b = a;
    for (guint m = lo + 1; m < v->len && hi > lo; m++) /* the next order statistic: the least above */
      b = m == lo + 1 || x[m] < b ? x[m] : b;
    out[k] = a + (b - a) * (pos - lo);
    from = lo; /* the quantiles ascend: later ones lie at or after this one */
  }
}
