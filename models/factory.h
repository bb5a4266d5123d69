/* factory.h — from one GPU's throughput and power to the facility: racks, GPUs, megawatts,
 * tokens/s per MW, joules per token and dollars per million tokens.
 *
 * A facility is provisioned for peak power: each GPU's share of IT power at full load (the
 * system's nameplate, or the component model at TDP; a power cap lowers both by what the GPU no
 * longer draws; or, oversubscribed, the power the operating point draws), its share of the
 * scale-out fabric, a share
 * for what sits outside the GPU racks (storage, front-end network, management), all times the PUE.
 * A power budget then sets how many whole racks fit; or a GPU count sets the budget. Energy per
 * token uses the average power the simulated load draws, not the provisioned peak. */
#ifndef AIF_FACTORY_H
#define AIF_FACTORY_H

#include "fabric.h"
#include "hardware.h"

/* How much power a GPU's rack share is provisioned for: the system's nameplate, the component model
 * at the GPU's limit (its TDP, or the power cap), or what the operating point draws (power
 * oversubscription: racks provisioned for their load, not their peak, so more fit). */
typedef enum { PROVISION_NAMEPLATE, PROVISION_COMPONENT, PROVISION_DRAWN } Provisioning;

typedef struct {
  double budget;             /* W of facility power (used when gpus is 0) */
  double gpus;               /* GPUs wanted (0: as many as the budget allows) */
  double pue;                /* 0: the system's default */
  double other_it_fraction;  /* IT outside the GPU racks, as a fraction of theirs */
  Provisioning provisioning;
  double gpu_power_cap;      /* W each GPU is held to (0: its TDP): provisioned for, as it is run */
  double energy_price;       /* USD/J */
  double amortisation;       /* s over which capex is spread */
  FabricSpec fabric;
} FactorySpec;

typedef struct {
  double racks, gpus;
  double pue;
  double peak_it_per_gpu;    /* W provisioned per GPU, GPU racks only (nameplate or component) */
  double rack_w;             /* facility W one rack is provisioned for, before the fabric's share
                              * (with the IT outside the GPU racks and the PUE): what a budget must
                              * hold at least for one rack */
  double avg_it_per_gpu;     /* W drawn per GPU at the simulated load, GPU racks only */
  double fabric_w_per_gpu;   /* W of scale-out switches and optics per GPU */
  double it_w, facility_w;   /* provisioned, whole facility */
  double avg_facility_w;     /* drawn at the simulated load */
  FabricPlan fabric;
  double tok_s;              /* output tokens/s of the whole factory */
  double tok_s_per_mw;       /* per MW of provisioned facility power */
  double tok_s_per_mw_it;    /* per MW of provisioned IT power */
  double tok_s_per_mw_drawn; /* per MW of facility power drawn at the simulated load */
  double joules_per_token;   /* facility energy per output token at the simulated load */
  double usd_per_mtok;       /* capex amortised + energy, per million output tokens */
  double optics_mw;          /* IT MW spent on optics */
} FactoryPlan;

/* Plans the factory for system S whose GPUs draw GPU_AVG_W on average and each produce
 * OUT_TOK_S_PER_GPU output tokens/s. */
void factory_plan(const SystemSpec *s, const FactorySpec *f, double gpu_avg_w, double out_tok_s_per_gpu,
                  FactoryPlan *out);

#endif
