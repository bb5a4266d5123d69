/* network.h — the flow-level network: max-min fair sharing of links among the flows crossing them.
 *
 * Links have capacities (B/s); a flow crosses a list of links and carries some bytes. Rates are the
 * max-min fair allocation (progressive filling: the most constrained link fixes the rate of its
 * flows, whose bandwidth is then taken off every other link they cross, and so on), recomputed only
 * when a flow starts or ends. The serving simulation moves KV caches as flows; a non-blocking
 * switch is never a link (it would only slow the computation, never a flow). */
#ifndef AIF_NETWORK_H
#define AIF_NETWORK_H

#include <glib.h>

typedef struct {
  GArray *capacity;  /* double, B/s, per link */
  GArray *flows;     /* Flow */
  double now;        /* s: the time up to which the flows' bytes are accounted */
} Network;

typedef struct {
  int links[4], n_links;
  double remaining;  /* bytes */
  double rate;       /* B/s, from the last allocation */
  int tag;           /* the owner's label (a request) */
  gboolean active;
} Flow;

void network_init(Network *n);
void network_clear(Network *n);
int network_add_link(Network *n, double capacity);
/* Moves the clock to T, draining every active flow at its rate. */
void network_advance(Network *n, double t);
/* Starts a flow of BYTES over LINKS at the network's current time; returns its index. */
int network_start(Network *n, const int *links, int n_links, double bytes, int tag);
/* The earliest time an active flow ends (INFINITY when none), and which. */
double network_next_end(const Network *n, int *flow);
/* Ends flow F (its bytes are through) and reallocates the others. */
void network_end(Network *n, int f);
/* Recomputes the max-min fair rates of the active flows. */
void network_allocate(Network *n);

#endif
