/* factory.c — facility arithmetic (see factory.h). */
#include "factory.h"
#include "power.h"

#include <math.h>

/* Provisioned facility W per GPU, with the fabric share FAB. */
static double facility_per_gpu(const FactoryPlan *p, double other, double fab)
{
  return (p->peak_it_per_gpu + fab) * (1 + other) * p->pue;
}

void factory_plan(const SystemSpec *s, const FactorySpec *f, double gpu_avg_w, double out_per_gpu,
                  FactoryPlan *out)
{
  *out = (FactoryPlan){ .pue = f->pue > 0 ? f->pue : s->pue };
  PowerShare peak, avg;
  /* a capped GPU is provisioned for its cap: the nameplate less what it no longer draws at the wall */
  double gpu_peak = power_limit_w(s, f->gpu_power_cap);
  power_share(s, gpu_peak, &peak);
  power_share(s, gpu_avg_w, &avg);
  double nameplate = power_nameplate_per_gpu(s);
  if (nameplate > 0)
    nameplate -= (s->tdp - gpu_peak) / s->psu_efficiency;
  out->peak_it_per_gpu = f->provisioning == PROVISION_DRAWN                     ? avg.it
                         : f->provisioning == PROVISION_NAMEPLATE && nameplate > 0 ? nameplate
                                                                                 : peak.it;
  out->avg_it_per_gpu = avg.it;
  double rack = s->gpus_per_rack, other = f->other_it_fraction;
  out->rack_w = facility_per_gpu(out, other, 0) * rack;
  if (f->gpus > 0) {
    out->racks = ceil(f->gpus / rack);
    out->gpus = out->racks * rack;
    fabric_plan(&f->fabric, out->gpus, &out->fabric);
  } else {
    /* the fabric's share depends on its size, which depends on how many GPUs fit: iterate */
    double fab = 0;
    for (int i = 0; i < 4; i++) {
      out->racks = floor(f->budget / (facility_per_gpu(out, other, fab) * rack));
      out->gpus = out->racks * rack;
      fabric_plan(&f->fabric, out->gpus, &out->fabric);
      fab = out->fabric.w_per_gpu;
    }
  }
  out->fabric_w_per_gpu = out->fabric.w_per_gpu;
  double fab = out->fabric_w_per_gpu;
  out->it_w = out->gpus * (out->peak_it_per_gpu + fab) * (1 + other);
  out->facility_w = out->it_w * out->pue;
  out->avg_facility_w = out->gpus * (out->avg_it_per_gpu + fab) * (1 + other) * out->pue;
  out->optics_mw = out->fabric.optics_w / 1e6;
  if (out_per_gpu > 0 && out->gpus > 0) {
    out->tok_s = out_per_gpu * out->gpus;
    out->tok_s_per_mw = out->tok_s / (out->facility_w / 1e6);
    out->tok_s_per_mw_it = out->tok_s / (out->it_w / 1e6);
    out->tok_s_per_mw_drawn = out->tok_s / (out->avg_facility_w / 1e6);
    out->joules_per_token = out->avg_facility_w / out->tok_s;
    double capex_per_s = out->gpus * s->gpu_capex / f->amortisation + out->fabric.optics_usd / f->amortisation;
    out->usd_per_mtok = (capex_per_s + out->avg_facility_w * f->energy_price) / out->tok_s * 1e6;
  } else {
    out->tok_s = out->tok_s_per_mw = out->tok_s_per_mw_it = out->tok_s_per_mw_drawn = out->joules_per_token =
      out->usd_per_mtok = NAN;
  }
}
