/* comm.c — collective times (see comm.h). */
#include "comm.h"

void comm_links(const SystemSpec *s, const ArchProfile *a, const ArchStackProfile *on, double kernel_efficiency,
                CommLinks *out)
{
  /* catalog NVLink figures count both directions; a ring uses one direction of each link */
  double one_way = s->nvlink_bandwidth / 2.0 * kernel_efficiency;
  out->nvlink_bw = one_way * a->nvlink_efficiency;
  out->nic_bw = s->nic_bandwidth * a->nic_efficiency;
  out->latency = a->collective_latency;
  out->nic_latency = on->nic_latency;
  out->nic_a2a_latency = on->nic_alltoall_latency;
  out->domain = s->nvlink_domain_gpus;
  out->allreduce_bw[0] = one_way * a->allreduce_efficiency;
  out->allreduce_bw[1] = one_way * a->allreduce_bulk_efficiency;
  out->allreduce_bw[2] = one_way * a->allreduce_nvls_efficiency;
  out->allreduce_latency[0] = a->allreduce_latency;
  out->allreduce_latency[1] = a->allreduce_bulk_latency;
  out->allreduce_latency[2] = a->allreduce_nvls_latency;
}

void comm_links_share(CommLinks *l, double share)
{
  l->nvlink_bw *= share;
  for (gsize i = 0; i < G_N_ELEMENTS(l->allreduce_bw); i++)
    l->allreduce_bw[i] *= share;
}

double comm_allreduce(const CommLinks *l, int n, double bytes)
{
  if (n <= 1)
    return 0;
  double moved = 2.0 * (n - 1) / n * bytes;
  if (n <= l->domain) { /* the fastest of what NCCL runs (comm.h) */
    double t = MIN(moved / l->allreduce_bw[0] + l->allreduce_latency[0],
                   moved / l->allreduce_bw[1] + l->allreduce_latency[1]);
    if (l->allreduce_bw[2] > 0) /* up to the switch and back: (n+1)/n of the message each way */
      t = MIN(t, (n + 1.0) / n * bytes / l->allreduce_bw[2] + l->allreduce_latency[2]);
    return t;
  }
  /* Leaving the domain, the ring is split into one channel per GPU of the domain, each crossing
   * on its own GPU's NIC: a NIC carries 1/g of the ring's traffic while NVLink carries the rest,
   * the two pipelined (NCCL's rings over multi-NIC nodes; the same volume as a hierarchical
   * reduce-scatter, all-reduce across domains, all-gather). */
  int g = l->domain;
  return MAX(moved / l->nvlink_bw, moved / g / l->nic_bw) + l->latency + l->nic_latency;
}

double comm_alltoall(const CommLinks *l, int n, double bytes)
{
  if (n <= 1)
    return 0;
  double out = bytes * (n - 1) / n;
  if (n <= l->domain)
    return out / l->nvlink_bw + l->latency;
  double remote = bytes * (double)(n - l->domain) / n; /* peers outside this GPU's domain */
  double local = out - remote;
  return MAX(local / l->nvlink_bw, remote / l->nic_bw) + l->latency + l->nic_a2a_latency;
}

double comm_p2p(const CommLinks *l, gboolean same_domain, double bytes)
{
  return bytes / (same_domain ? l->nvlink_bw : l->nic_bw) + l->latency + (same_domain ? 0 : l->nic_latency);
}
