/* stats.h — quantiles of a sample: the event simulation's latency percentiles and validate's error
 * table read the same definition (linear interpolation between order statistics, as a sort would
 * give), found by quickselect rather than a full sort. */
#ifndef AIF_STATS_H
#define AIF_STATS_H

#include <glib.h>

/* The Q[0..N) quantiles (each 0..1, ascending) of V (doubles, reordered here) into OUT; NAN each for
 * an empty V. */
void stats_quantiles(GArray *v, const double *q, int n, double *out);

#endif
