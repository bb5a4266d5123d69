/* fabric.c — fat-tree sizing and optics (see fabric.h). */
#include "fabric.h"

#include <math.h>

int fabric_tiers_for(double n, int k)
{
  double cap = k;
  for (int t = 1; t < 4; t++) {
    if (n <= cap)
      return t;
    cap *= k / 2.0;
  }
  return 4;
}

double fabric_capacity(int t, int k)
{
  return k * pow(k / 2.0, t - 1);
}

void fabric_plan(const FabricSpec *f, double n, FabricPlan *out)
{
  *out = (FabricPlan){ .endpoints = n, .fits = 1 };
  if (n <= 0)
    return;
  int t = f->tiers > 0 ? f->tiers : fabric_tiers_for(n, f->radix);
  out->tiers = t;
  out->capacity = fabric_capacity(t, f->radix);
  out->fits = n <= out->capacity; /* asked tiers too few; or beyond 4 tiers of a small radix */
  out->switches = ceil((2.0 * t - 1) * n / f->radix);
  out->links = t * n;
  for (int tier = 1; tier <= t; tier++) {
    if (tier == 1 && f->copper_first_tier)
      continue;
    if (f->optics == OPTICS_CPO) { /* switch ends in the package; NIC ends stay pluggable */
      out->cpo_ports += tier == 1 ? n : 2 * n;
      out->transceivers += tier == 1 ? n : 0;
    } else {
      out->transceivers += 2 * n;
    }
  }
  out->optics_w = out->transceivers * f->transceiver_power + out->cpo_ports * f->cpo_port_power;
  out->switch_w = out->switches * f->radix * f->switch_port_power;
  out->optics_usd = out->transceivers * f->transceiver_cost;
  out->optics_w_per_gpu = out->optics_w / n;
  out->w_per_gpu = (out->optics_w + out->switch_w) / n;
}
