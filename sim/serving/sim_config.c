/* sim_config.c — the event simulation's configuration from a scenario (see sim_config.h). */
#include "sim_config.h"

#include <string.h>

void sim_config_from_scenario(const ScenarioParams *p, SimConfig *out)
{
  *out = (SimConfig){
    .seed = p->seed, .input = p->input, .output = p->output, .trace = p->trace, .arrival = p->arrival,
    .users = p->users, .rate = p->rate, .burst_cv = p->burst_cv, .start = p->start, .think_time = p->think_time,
    .requests = p->requests, .duration = p->duration, .warmup = p->warmup, .window = p->window,
    .shift_at = p->shift_at, .shift_input = p->shift_input, .shift_output = p->shift_output,
    .agg = p->agg, .prefill = p->prefill, .decode = p->decode, .router = p->router, .planner = p->planner,
    .plan_interval = p->plan_interval, .plan_reconfigure = p->plan_reconfigure,
    .plan_threshold = p->plan_threshold, .green_prefill_sms = p->green_prefill_sms,
    .oversubscription = p->oversubscription, .min_tok_s_per_user = p->min_tok_s_per_user,
    .max_ttft = p->max_ttft,
  };
}

void sim_config_defaults(SimConfig *out)
{
  ScenarioParams p;
  memset(&p, 0, sizeof p);
  kt_defaults(&scenario_table, &p); /* the scenario table is where every default is declared */
  sim_config_from_scenario(&p, out);
  out->trace = NULL; /* no default trace; P's strings go with it */
  kt_clear(&scenario_table, &p);
}
