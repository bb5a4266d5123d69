/* hardware.c — the hardware catalog's key table and helpers (see hardware.h). */
#include "hardware.h"
#include "keytable.h"
#include "precision.h"

const char *const precision_names[] = { "bf16", "fp8", "fp4", NULL };

double precision_bytes(Precision p)
{
  switch (p) {
  case PREC_BF16: return 2.0;
  case PREC_FP8: return 1.0;
  case PREC_FP4: return 0.5 + 1.0 / 16.0;
  default: return 2.0;
  }
}

const char *const gpu_arch_names[] = { "hopper", "blackwell", "blackwell-ultra", "rubin", "rubin-ultra", NULL };
static const char *const status_names[] = { "shipping", "roadmap", NULL };
static const char *const cooling_names[] = { "air", "liquid", NULL };

#define O(f) offsetof(SystemSpec, f)
#define REQ KT_REQUIRED
static const KtKey keys[] = {
  { "id", KT_STRING, 0, NULL, "catalog id", O(id), NULL, REQ, NULL, NULL, 0, 0 },
  { "name", KT_STRING, 0, NULL, "full name", O(name), NULL, REQ, NULL, NULL, 0, 0 },
  { "source", KT_STRING, 0, NULL, "source of the figures that name none", O(source), NULL, 0, NULL, NULL, 0, 0 },
  { "arch", KT_ENUM, 0, NULL, "GPU architecture", O(arch), gpu_arch_names, REQ, NULL, NULL, 0, 0 },
  { "status", KT_ENUM, 0, "shipping", "shipping, or roadmap (pre-production figures)", O(status), status_names, 0, NULL, NULL, 0, 0 },
  { "gpu", KT_GROUP, 0, NULL, "one GPU package", 0, NULL, 0, NULL, NULL, 0, 0 },
  { "gpu.name", KT_STRING, 0, NULL, "GPU name", O(gpu_name), NULL, REQ, NULL, NULL, 0, 0 },
  { "gpu.dies", KT_INT, 0, "1", "reticle dies per package", O(dies_per_gpu), NULL, KT_POSITIVE, NULL, NULL, 0, 0 },
  { "gpu.sms", KT_INT, 0, "0", "streaming multiprocessors (0 = not published)", O(sms), NULL, KT_NONNEG, NULL, NULL, 0, 0 },
  { "gpu.bf16_dense", KT_NUMBER, DIM_FLOPS, NULL, "dense BF16 tensor FLOP/s (null = not published)", O(flops_bf16), NULL, REQ | KT_NULLABLE | KT_NONNEG, NULL, NULL, 0, 0 },
  { "gpu.fp8_dense", KT_NUMBER, DIM_FLOPS, NULL, "dense FP8 tensor FLOP/s", O(flops_fp8), NULL, REQ | KT_NULLABLE | KT_NONNEG, NULL, NULL, 0, 0 },
  { "gpu.fp4_dense", KT_NUMBER, DIM_FLOPS, NULL, "dense FP4 tensor FLOP/s (null = no FP4 tensor cores)", O(flops_fp4), NULL, REQ | KT_NULLABLE | KT_NONNEG, NULL, NULL, 0, 0 },
  { "gpu.exp_rate", KT_NUMBER, DIM_RATE, "0 /s", "exponentials per second of the special-function units (softmax in fused attention; 0 = not published)", O(exp_rate), NULL, KT_NONNEG, NULL, NULL, 0, 0 },
  { "gpu.hbm_capacity", KT_NUMBER, DIM_BYTES, NULL, "usable HBM per GPU", O(hbm_capacity), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "gpu.hbm_bandwidth", KT_NUMBER, DIM_BANDWIDTH, NULL, "HBM bandwidth per GPU", O(hbm_bandwidth), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "gpu.nvlink_bandwidth", KT_NUMBER, DIM_BANDWIDTH, NULL, "NVLink bandwidth per GPU, both directions summed", O(nvlink_bandwidth), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "gpu.tdp", KT_NUMBER, DIM_POWER, NULL, "GPU board power limit", O(tdp), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "gpu.idle_power", KT_NUMBER, DIM_POWER, NULL, "GPU board power when idle", O(idle_power), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "gpu.memory_bound_power", KT_NUMBER, DIM_FRACTION, NULL, "share of the TDP-idle range drawn when HBM-bound (decode)", O(memory_bound_power), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "gpu.compute_power", KT_NUMBER, DIM_NONE, "1", "share of the TDP-idle range compute-bound work would draw at the full clock (above 1: the power limit lowers the clock of compute-heavy steps)", O(compute_power), NULL, KT_POSITIVE, NULL, NULL, 100, 0 },
  { "gpu.comm_power", KT_NUMBER, DIM_FRACTION, NULL, "share of the TDP-idle range drawn while waiting on collectives", O(comm_power), NULL, REQ | KT_NONNEG, NULL, NULL, 0, 0 },
  { "node", KT_GROUP, 0, NULL, "the unit holding GPUs and CPUs (server or compute tray)", 0, NULL, 0, NULL, NULL, 0, 0 },
  { "node.gpus", KT_INT, 0, NULL, "GPUs per node", O(gpus_per_node), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "node.cpus", KT_INT, 0, NULL, "CPUs per node", O(cpus_per_node), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "node.cpu_name", KT_STRING, 0, NULL, "CPU model", O(cpu_name), NULL, REQ, NULL, NULL, 0, 0 },
  { "node.cpu_power", KT_NUMBER, DIM_POWER, NULL, "power per CPU under load", O(cpu_power), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "node.other_power", KT_NUMBER, DIM_POWER, NULL, "memory, fans or pumps, storage, management per node", O(node_other_power), NULL, REQ | KT_NONNEG, NULL, NULL, 0, 0 },
  { "node.psu_efficiency", KT_NUMBER, DIM_FRACTION, "0.94", "power-supply efficiency, AC to DC", O(psu_efficiency), NULL, KT_POSITIVE, NULL, NULL, 0, 0 },
  { "node.host_memory", KT_NUMBER, DIM_BYTES, "0 B", "CPU memory per node (the KV offload's host tier)", O(host_memory), NULL, KT_NONNEG, NULL, NULL, 0, 0 },
  { "node.host_bandwidth", KT_NUMBER, DIM_BANDWIDTH, "0 B/s", "host memory to one GPU, one direction (NVLink-C2C on Grace and Vera, PCIe on x86 hosts)", O(host_bandwidth), NULL, KT_NONNEG, NULL, NULL, 0, 0 },
  { "node.storage", KT_NUMBER, DIM_BYTES, "0 B", "local NVMe per node for caches (the KV offload's storage tier)", O(storage), NULL, KT_NONNEG, NULL, NULL, 0, 0 },
  { "node.storage_bandwidth", KT_NUMBER, DIM_BANDWIDTH, "0 B/s", "read bandwidth of that NVMe, per node", O(storage_bandwidth), NULL, KT_NONNEG, NULL, NULL, 0, 0 },
  { "nvlink", KT_GROUP, 0, NULL, "the NVLink (scale-up) domain", 0, NULL, 0, NULL, NULL, 0, 0 },
  { "nvlink.domain_gpus", KT_INT, 0, NULL, "GPUs in one NVLink domain", O(nvlink_domain_gpus), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "nvlink.switch_trays", KT_INT, 0, NULL, "NVLink switch trays per domain (0: switches on the baseboard)", O(switch_trays_per_domain), NULL, REQ | KT_NONNEG, NULL, NULL, 0, 0 },
  { "nvlink.switch_power", KT_NUMBER, DIM_POWER, NULL, "power per switch tray, or of the baseboard switches per domain", O(switch_tray_power), NULL, REQ | KT_NONNEG, NULL, NULL, 0, 0 },
  { "rack", KT_GROUP, 0, NULL, "the rack", 0, NULL, 0, NULL, NULL, 0, 0 },
  { "rack.gpus", KT_INT, 0, NULL, "GPUs per rack", O(gpus_per_rack), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "rack.cooling", KT_ENUM, 0, NULL, "air or liquid", O(cooling), cooling_names, REQ, NULL, NULL, 0, 0 },
  { "rack.pue", KT_NUMBER, DIM_NONE, NULL, "default facility PUE for this cooling", O(pue), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "rack.system_power", KT_NUMBER, DIM_POWER, NULL, "nameplate power of the natural unit (server or rack); null = not published", O(system_power), NULL, REQ | KT_NULLABLE | KT_NONNEG, NULL, NULL, 0, 0 },
  { "rack.system_power_gpus", KT_INT, 0, "0", "GPUs rack.system_power covers: the server's or the rack's (0: the rack's when the rack is one NVLink domain, else the server's, decided when the catalog loads)", O(system_power_gpus), NULL, KT_NONNEG, NULL, NULL, 0, 0 },
  { "rack.all_in_power_per_gpu", KT_NUMBER, DIM_POWER, "0 W", "SemiAnalysis all-in IT power per GPU (comparison figure)", O(all_in_power_per_gpu), NULL, KT_NULLABLE | KT_NONNEG, NULL, NULL, 0, 0 },
  { "rack.gpu_capex", KT_NUMBER, DIM_MONEY, "0 USD", "capital cost per GPU including its share of the system", O(gpu_capex), NULL, KT_NULLABLE | KT_NONNEG, NULL, NULL, 0, 0 },
  { "nic", KT_GROUP, 0, NULL, "scale-out NIC, one per GPU", 0, NULL, 0, NULL, NULL, 0, 0 },
  { "nic.name", KT_STRING, 0, NULL, "NIC model", O(nic_name), NULL, REQ, NULL, NULL, 0, 0 },
  { "nic.bandwidth", KT_NUMBER, DIM_BANDWIDTH, NULL, "line rate per GPU, one direction", O(nic_bandwidth), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
  { "nic.power", KT_NUMBER, DIM_POWER, NULL, "NIC power under load", O(nic_power), NULL, REQ | KT_POSITIVE, NULL, NULL, 0, 0 },
};
#undef O
#undef REQ

const KtTable hardware_table = { "hardware", keys, G_N_ELEMENTS(keys) };

double system_peak_flops(const SystemSpec *s, Precision precision)
{
  switch (precision) {
  case PREC_BF16: return s->flops_bf16;
  case PREC_FP8: return s->flops_fp8;
  case PREC_FP4: return s->flops_fp4;
  default: return 0;
  }
}

Precision system_compute_precision(const SystemSpec *s, Precision stored)
{
  return system_peak_flops(s, stored) > 0 ? stored : PREC_BF16;
}

void system_spec_clear(SystemSpec *s)
{
  kt_clear(&hardware_table, s);
  figure_sources_clear(&s->sources);
}

void system_spec_copy(SystemSpec *dst, const SystemSpec *src)
{
  *dst = *src;
  kt_copy(&hardware_table, dst, src);
  figure_sources_copy(&dst->sources, &src->sources);
}

int system_power_unit(const SystemSpec *s)
{
  return s->nvlink_domain_gpus == s->gpus_per_rack ? s->gpus_per_rack : s->gpus_per_node;
}
