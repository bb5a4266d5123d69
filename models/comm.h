/* comm.h — time of the collectives an engine step issues: all-reduce (tensor parallel),
 * all-to-all (expert parallel dispatch and combine), point-to-point (pipeline stages).
 *
 * Inside an NVLink domain the GPUs reach each other over NVLink; a group larger than the domain
 * crosses the scale-out NIC for the part of its traffic that leaves the domain. Each call costs a
 * latency (launch and synchronisation) plus its bytes over the bandwidth collectives reach. */
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
} CommLinks;

void comm_links(const SystemSpec *s, const ArchProfile *a, const ArchStackProfile *on, double kernel_efficiency,
                CommLinks *out);
/* Ring all-reduce of BYTES per GPU over N GPUs: 2(N-1)/N x BYTES over NVLink, + latency; a group
 * larger than the domain spreads the crossing over the domain's NICs (see comm.c). */
double comm_allreduce(const CommLinks *l, int n, double bytes);
/* All-to-all where each GPU sends BYTES in total, spread evenly over the other N-1 GPUs. */
double comm_alltoall(const CommLinks *l, int n, double bytes);
/* One transfer of BYTES between pipeline stages (over NVLink when in one domain). */
double comm_p2p(const CommLinks *l, gboolean same_domain, double bytes);

#endif
