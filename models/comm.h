/* comm.h — time of the collectives an engine step issues: all-reduce (tensor parallel),
 * all-to-all (expert parallel dispatch and combine), point-to-point (pipeline stages).
 *
 * Inside an NVLink domain the GPUs reach each other over NVLink; a group larger than the domain
 * crosses the scale-out NIC for the part of its traffic that leaves the domain. Each call costs a
 * latency (launch and synchronisation) plus its bytes over the bandwidth collectives reach. An
 * all-reduce inside the domain has up to three such lines, what NCCL chooses between (profile.h):
 * the ring's low-latency protocol, which starts soonest; the ring's bulk protocol, which moves
 * bytes faster; and the NVSwitch's own reduction (NVLS), which moves (N+1)/N of the message each
 * way where a ring moves 2(N-1)/N, so it wins from 5 GPUs up and ties the ring at 4 (NCCL's
 * measured H100 runs, docs/validation.md). It takes the fastest, so a decode step's 1-30 MB
 * all-reduces, between the regimes, cost what NCCL measures there and not the bulk rate at the
 * small messages' latency. */
#ifndef AIF_COMM_H
#define AIF_COMM_H

#include "hardware.h"
#include "profile.h"

typedef struct {
  double nvlink_bw;  /* B/s one way per GPU, as reached */
  double nic_bw;     /* B/s per GPU, as reached */
  double latency;    /* s per call */
  double nic_latency; /* s more per all-reduce or transfer that crosses the NIC */
  double nic_a2a_latency; /* s more per all-to-all that crosses it */
  int domain;        /* GPUs per NVLink domain */
  /* the all-reduce inside the domain (profile.h): [0] the ring's small messages, [1] its large
   * ones, [2] the switch's reduction (NVLS; bandwidth 0: none) */
  double allreduce_bw[3];      /* B/s one way per GPU */
  double allreduce_latency[3]; /* s per call */
} CommLinks;

void comm_links(const SystemSpec *s, const ArchProfile *a, const ArchStackProfile *on, double kernel_efficiency,
                CommLinks *out);
/* A domain whose NVLink carries SHARE of its bandwidth (switch trays down): every rate over it. */
void comm_links_share(CommLinks *l, double share);
/* All-reduce of BYTES per GPU over N GPUs: inside the domain the fastest of the ring's two
 * regimes (2(N-1)/N x BYTES over NVLink, + latency) and the switch's reduction ((N+1)/N x BYTES,
 * + latency); a group larger than the domain spreads a ring's crossing over the domain's NICs
 * (see comm.c). */
double comm_allreduce(const CommLinks *l, int n, double bytes);
/* All-to-all where each GPU sends BYTES in total, spread evenly over the other N-1 GPUs. */
double comm_alltoall(const CommLinks *l, int n, double bytes);
/* One transfer of BYTES between pipeline stages (over NVLink when in one domain). */
double comm_p2p(const CommLinks *l, gboolean same_domain, double bytes);

#endif
