/* network.c — max-min fair sharing by progressive filling (see network.h). */
#include "network.h"

#include <math.h>

void network_init(Network *n)
{
  n->capacity = g_array_new(FALSE, FALSE, sizeof(double));
  n->flows = g_array_new(FALSE, FALSE, sizeof(Flow));
  n->now = 0;
}

void network_clear(Network *n)
{
  g_clear_pointer(&n->capacity, g_array_unref);
  g_clear_pointer(&n->flows, g_array_unref);
}

int network_add_link(Network *n, double capacity)
{
  g_array_append_val(n->capacity, capacity);
  return (int)n->capacity->len - 1;
}

void network_advance(Network *n, double t)
{
  double dt = t - n->now;
  if (dt > 0)
    for (guint i = 0; i < n->flows->len; i++) {
      Flow *f = &g_array_index(n->flows, Flow, i);
      if (f->active)
        f->remaining = MAX(0, f->remaining - f->rate * dt);
    }
  n->now = MAX(n->now, t);
}

void network_allocate(Network *n)
{
  guint nl = n->capacity->len;
  g_autofree double *left = g_new(double, nl);
  g_autofree int *crossing = g_new0(int, nl);
  for (guint l = 0; l < nl; l++)
    left[l] = g_array_index(n->capacity, double, l);
  GArray *fl = n->flows;
  g_autofree gboolean *fixed = g_new0(gboolean, fl->len);
  guint open = 0;
  for (guint i = 0; i < fl->len; i++) {
    Flow *f = &g_array_index(fl, Flow, i);
    if (!f->active) {
      fixed[i] = TRUE;
      continue;
    }
    open++;
    for (int k = 0; k < f->n_links; k++)
      crossing[f->links[k]]++;
  }
  while (open > 0) {
    /* the bottleneck: the link whose remaining capacity, shared equally, is the smallest */
    int bottleneck = -1;
    double share = INFINITY;
    for (guint l = 0; l < nl; l++)
      if (crossing[l] > 0 && left[l] / crossing[l] < share)
        share = left[l] / crossing[l], bottleneck = (int)l;
    if (bottleneck < 0)
      break;
    for (guint i = 0; i < fl->len; i++) {
      Flow *f = &g_array_index(fl, Flow, i);
      gboolean through = FALSE;
      for (int k = 0; k < f->n_links && !fixed[i]; k++)
        through |= f->links[k] == bottleneck;
      if (!through)
        continue;
      f->rate = share;
      fixed[i] = TRUE;
      open--;
      for (int k = 0; k < f->n_links; k++) {
        left[f->links[k]] -= share;
        crossing[f->links[k]]--;
      }
    }
  }
}

int network_start(Network *n, const int *links, int n_links, double bytes, int tag)
{
  Flow f = { .n_links = MIN(n_links, 4), .remaining = bytes, .tag = tag, .active = TRUE };
  for (int k = 0; k < f.n_links; k++)
    f.links[k] = links[k];
  int slot = -1; /* reuse a finished flow's slot: the array stays as small as the busiest moment */
  for (guint i = 0; i < n->flows->len && slot < 0; i++)
    if (!g_array_index(n->flows, Flow, i).active)
      slot = (int)i;
  if (slot < 0) {
    g_array_append_val(n->flows, f);
    slot = (int)n->flows->len - 1;
  } else {
    g_array_index(n->flows, Flow, slot) = f;
  }
  network_allocate(n);
  return slot;
}

double network_next_end(const Network *n, int *flow)
{
  double best = INFINITY;
  *flow = -1;
  for (guint i = 0; i < n->flows->len; i++) {
    const Flow *f = &g_array_index(n->flows, Flow, i);
    if (f->active && f->rate > 0 && n->now + f->remaining / f->rate < best)
      best = n->now + f->remaining / f->rate, *flow = (int)i;
  }
  return best;
}

void network_end(Network *n, int f)
{
  g_array_index(n->flows, Flow, f).active = FALSE;
  network_allocate(n);
}
