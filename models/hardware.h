/* hardware.h — one system of the hardware catalog: a GPU, the node and rack it sits in, its NVLink
 * domain and scale-out NIC, and the power of each part.
 *
 * Entries live in models/hardware/<id>.yaml (users add their own with --catalog DIR). Every figure is
 * SI inside; every figure in the YAML carries a source (a key into models/hardware/sources.yaml or
 * plain text), so `aifsim catalog show ID` can say where each number comes from. */
#ifndef AIF_HARDWARE_H
#define AIF_HARDWARE_H

#include "precision.h"
#include "sources.h"

/* The YAML binding of the type below (keytable.h); declared here without pulling libyaml into
 * the physics that only reads the struct. */
typedef struct KtTable KtTable;

typedef enum { ARCH_HOPPER, ARCH_BLACKWELL, ARCH_BLACKWELL_ULTRA, ARCH_RUBIN, ARCH_RUBIN_ULTRA } GpuArch;
typedef enum { STATUS_SHIPPING, STATUS_ROADMAP } SystemStatus;
typedef enum { COOLING_AIR, COOLING_LIQUID } Cooling;

typedef struct {
  char *id, *name, *source /* entry-wide source for figures that name none */, *gpu_name;
  GpuArch arch;
  SystemStatus status; /* roadmap figures are pre-production */
  /* GPU (one package; a Blackwell or Rubin package holds several dies) */
  int dies_per_gpu;
  int sms;                          /* streaming multiprocessors per GPU (0 = not published) */
  double flops_bf16, flops_fp8, flops_fp4; /* dense tensor FLOP/s; 0 = the precision is not supported */
  /* exponentials/s the special-function units compute (MUFU.EX2: softmax's exp in fused attention,
   * step_time.c); 0 = not published, attention then bound by its tensor-core math alone */
  double exp_rate;
  double hbm_capacity;              /* B usable */
  double hbm_bandwidth;             /* B/s */
  double nvlink_bandwidth;          /* B/s per GPU, both directions summed (NVIDIA's convention) */
  double tdp, idle_power;           /* W */
  double memory_bound_power;        /* fraction of (TDP - idle) drawn when HBM-bound (decode) */
  double comm_power;                /* fraction of (TDP - idle) drawn while waiting on collectives */
  /* fraction of (TDP - idle) compute-bound work would draw at the full clock: above 1 where the
   * power limit, not the clock, bounds sustained GEMMs (an H200: ~1.6, calibration/README.md) */
  double compute_power;
  /* node: the unit that holds GPUs and CPUs (HGX server, or NVL72 compute tray) */
  int gpus_per_node, cpus_per_node;
  char *cpu_name;
  double cpu_power;                 /* W per CPU at load */
  double node_other_power;          /* W per node: memory, fans or pumps, storage, management */
  double psu_efficiency;            /* AC to DC */
  double host_memory;               /* B of CPU memory per node: the KV offload's host tier */
  double host_bandwidth;            /* B/s from host memory to one GPU, one direction (C2C or PCIe) */
  double storage;                   /* B of local NVMe per node: the KV offload's storage tier */
  double storage_bandwidth;         /* B/s read from that NVMe, per node */
  /* NVLink domain and rack */
  int nvlink_domain_gpus;
  int gpus_per_rack;
  int switch_trays_per_domain;      /* NVLink switch trays (0 when the switches sit on the baseboard) */
  double switch_tray_power;         /* W per tray (or per baseboard switch complex when trays = 0) */
  /* scale-out */
  char *nic_name;
  double nic_bandwidth;             /* B/s per GPU, one direction */
  double nic_power;                 /* W per NIC at load */
  Cooling cooling;
  double pue;                       /* default facility PUE for this cooling */
  double system_power;              /* W nameplate of the natural unit (server or rack) */
  int system_power_gpus;            /* GPUs that nameplate covers (resolved at catalog load) */
  double all_in_power_per_gpu;      /* W: SemiAnalysis all-in IT power per GPU (for comparison) */
  double gpu_capex;                 /* USD per GPU, all-in system share (for $/Mtok) */
  FigureSources sources;            /* where each figure comes from */
} SystemSpec;

extern const KtTable hardware_table;
extern const char *const gpu_arch_names[];

/* Peak dense FLOP/s at a precision name ("bf16", "fp8", "fp4"); 0 when unsupported. */
double system_peak_flops(const SystemSpec *s, Precision precision);
/* Precision the GEMMs on weights STORED in that format compute in: the format itself where the GPU
 * has tensor cores for it, else BF16 (weight-only quantization: the weights stay in their format in
 * memory and are widened inside the kernel, as the W4A16 MXFP4 kernels do that vLLM, SGLang and
 * TensorRT-LLM run gpt-oss with on Hopper). */
Precision system_compute_precision(const SystemSpec *s, Precision stored);
/* The GPUs a system's nameplate covers when its entry does not say: the rack's when the rack is
 * one NVLink domain (a rack-scale system), else the server's. */
int system_power_unit(const SystemSpec *s);

void system_spec_clear(SystemSpec *s);
void system_spec_copy(SystemSpec *dst, const SystemSpec *src);

#endif
