/* power.h — the power of one GPU and of its share of the system around it.
 *
 * A GPU draws its idle power plus a share of the range up to TDP set by its activity (from the
 * step model: tensor cores busy = 1, HBM-bound work = the catalog's memory_bound_power, waiting on
 * collectives = comm_power; compute-bound work = compute_power x clock^2.5). Work that would draw
 * more than the board's limit (its TDP, or a power cap) runs at a lower tensor-core clock: dynamic
 * power goes roughly with clock^2.5 (voltage follows frequency), so the clock that meets the limit
 * follows (step_time.c applies it per step). Around the GPU:
 * its node's CPUs, memory and fans, its NIC, its NVLink switches, all behind the power supplies. */
#ifndef AIF_POWER_H
#define AIF_POWER_H

#include "hardware.h"

#define POWER_CLOCK_EXPONENT 2.5
#define POWER_MIN_CLOCK 0.2 /* the lowest clock a limit may bring the GPU to */

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
/* The W a board may draw under a cap of LIMIT W (0: none): the cap, at most the TDP. */
double power_limit_w(const SystemSpec *s, double limit);
/* The activity (as power_gpu reads it) a board may reach under LIMIT watts (0: its TDP): 1 at
 * the TDP. */
double power_allowed_activity(const SystemSpec *s, double limit);
/* The clock (fraction of full) at which work of ACTIVITY at the full clock stays under LIMIT watts
 * (0: the TDP): 1 where it already does. */
double power_limited_clock(const SystemSpec *s, double activity, double limit);
/* The per-GPU share of IT power when the GPU draws GPU_W. */
void power_share(const SystemSpec *s, double gpu_w, PowerShare *out);
/* The GPU board power that keeps a GPU's whole share of IT power (its node's CPUs and the rest,
 * its NIC, its switches, the power supplies' loss) at IT_W: how a rack's power cap becomes a cap per
 * GPU. At most the TDP; 0 when even an idle-free GPU would not fit. */
double power_gpu_for_it(const SystemSpec *s, double it_w);
/* Nameplate IT power per GPU (the natural unit's nameplate over its GPUs), 0 when not published. */
double power_nameplate_per_gpu(const SystemSpec *s);

#endif
