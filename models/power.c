/* power.c — GPU and system power per GPU (see power.h). */
#include "power.h"

#include <math.h>

double power_gpu(const SystemSpec *s, double activity, double clock)
{
  double c = clock > 0 ? clock : 1;
  return s->idle_power + (s->tdp - s->idle_power) * CLAMP(activity, 0, 1) * pow(c, POWER_CLOCK_EXPONENT);
}

double power_limit_w(const SystemSpec *s, double limit)
{
  return limit > 0 ? MIN(limit, s->tdp) : s->tdp;
}

double power_allowed_activity(const SystemSpec *s, double limit)
{
  double range = s->tdp - s->idle_power;
  return range > 0 ? MAX(power_limit_w(s, limit) - s->idle_power, 0) / range : 1;
}

double power_limited_clock(const SystemSpec *s, double activity, double limit)
{
  double allowed = power_allowed_activity(s, limit);
  if (activity <= allowed || activity <= 0)
    return 1;
  return CLAMP(pow(allowed / activity, 1 / POWER_CLOCK_EXPONENT), POWER_MIN_CLOCK, 1);
}

void power_share(const SystemSpec *s, double gpu_w, PowerShare *out)
{
  double per_node = 1.0 / s->gpus_per_node;
  out->gpu = gpu_w;
  out->cpu = s->cpus_per_node * s->cpu_power * per_node;
  out->node_other = s->node_other_power * per_node;
  out->nic = s->nic_power;
  /* trays serve a whole domain; baseboard switches (trays = 0) are one complex per domain */
  out->nvswitch = (s->switch_trays_per_domain > 0 ? s->switch_trays_per_domain : 1) * s->switch_tray_power /
                  s->nvlink_domain_gpus;
  double dc = out->gpu + out->cpu + out->node_other + out->nic + out->nvswitch;
  out->it = dc / s->psu_efficiency;
  out->psu_loss = out->it - dc;
}

double power_gpu_for_it(const SystemSpec *s, double it_w)
{
  PowerShare none;
  power_share(s, 0, &none); /* everything around the GPU, at the wall */
  double gpu = (it_w - none.it) * s->psu_efficiency;
  return CLAMP(gpu, 0, s->tdp);
}

double power_nameplate_per_gpu(const SystemSpec *s)
{
  if (s->system_power <= 0)
    return 0;
  return s->system_power / (s->system_power_gpus > 0 ? s->system_power_gpus : system_power_unit(s));
}
