/* fabric.h — the scale-out network: a non-blocking folded-Clos (fat tree) over one NIC port per
 * GPU, its switches, and its optics.
 *
 * With switches of radix k, t tiers serve up to k (t = 1), k^2/2 (2), k^3/4 (3) or k^4/8 (4)
 * endpoints; a tree of t tiers for N endpoints has (2t - 1) N / k switches and N links per tier.
 * Optics: a pluggable transceiver at both ends of every link (copper may replace the first tier
 * inside a rack), so 2 per GPU per tier: 6 per GPU in 3 tiers, 180 W per GPU at 30 W each (GTC 2025
 * keynote). With co-packaged optics the switch ports carry their optics in the package (~9 W per
 * port); the NIC end of the first tier stays a pluggable transceiver. */
#ifndef AIF_FABRIC_H
#define AIF_FABRIC_H

typedef enum { OPTICS_PLUGGABLE, OPTICS_CPO } OpticsKind;

typedef struct {
  int radix;                 /* ports per switch */
  int tiers;                 /* 0 = the fewest that serve the endpoints */
  OpticsKind optics;
  int copper_first_tier;     /* GPU-to-leaf links in copper (no optics) */
  double transceiver_power;  /* W per pluggable transceiver */
  double transceiver_cost;   /* USD per pluggable transceiver */
  double cpo_port_power;     /* W per co-packaged optical port */
  double switch_port_power;  /* W per switch port, optics excluded (ASIC, SerDes, fans) */
} FabricSpec;

typedef struct {
  int tiers;
  int fits;                  /* the tiers asked hold the endpoints (with tiers 0, always) */
  double capacity;           /* endpoints the tree's tiers can hold */
  double endpoints, switches, links;
  double transceivers, cpo_ports;
  double optics_w, switch_w;  /* W for the whole fabric */
  double optics_usd;
  double w_per_gpu, optics_w_per_gpu;
} FabricPlan;

/* The fewest tiers that serve N endpoints with switches of radix K (at most 4). */
int fabric_tiers_for(double n, int k);
/* Endpoints T tiers of radix-K switches hold: k (k/2)^(t-1). */
double fabric_capacity(int t, int k);
void fabric_plan(const FabricSpec *spec, double endpoints, FabricPlan *out);

#endif
