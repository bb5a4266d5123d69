/* power.h — the power of one GPU and of its share of the system around it.
 *
 * A GPU draws its idle power plus a share of the range up to TDP set by its activity (from the
 * step model: tensor cores busy = 1, HBM-bound work = the catalog's memory_bound_power, waiting on
 * collectives = comm_power). A power cap lowers the tensor-core clock: dynamic power goes roughly
 * with clock^2.5 (voltage follows frequency), so the clock that fits the cap follows. Around the GPU:
 * its node's CPUs, memory and fans, its NIC, its NVLink switches, all behind the power supplies. */
#ifndef AIF_POWER_H
#define AIF_POWER_H

#include "hardware.h"

#define POWER_CLOCK_EXPONENT 2.5

typedef struct {
  double gpu;        /* W, the GPU board */
  double cpu;        /* W, its share of the node's CPUs */
  double node_other; /* W, its share of memory, fans or pumps, storage, management */
  double nic;        /* W, its scale-out NIC */
  double nvswitch;   /* W, its share of the NVLink switches */
  double psu_loss;   /* W lost in the power supplies */
  double it;         /* W at the wall: the sum */
} PowerShare;

/* GPU board power at ACTIVITY (0..1) with the tensor-core clock at CLOCK (fraction of full). */
double power_gpu(const SystemSpec *s, double activity, double clock);
/* The clock (fraction of full) at which a fully busy GPU stays under CAP watts; 1 without a cap. */
double power_clock_for_cap(const SystemSpec *s, double cap);
/* The per-GPU share of IT power when the GPU draws GPU_W. */
void power_share(const SystemSpec *s, double gpu_w, PowerShare *out);
/* Nameplate IT power per GPU (the natural unit's nameplate over its GPUs), 0 when not published. */
double power_nameplate_per_gpu(const SystemSpec *s);

#endif
