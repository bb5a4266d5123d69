/* simgrid_backend.h — the event simulation with SimGrid moving the KV caches (`serving.engine: simgrid`).
 *
 * The same engines, batching and routing as serving_sim.h, stepped by one SimGrid actor on SimGrid's
 * clock; every KV transfer is a SimGrid communication over a platform generated from the
 * simulation's own link graph (per-engine NVLink and NIC links, the oversubscribed core), under the
 * CM02 flow model without TCP effects. It is the reference for the native max-min network: the two
 * agree when the physics is the same, and the platform is where a user changes it. SimGrid keeps one
 * engine per process and cannot reset, so each call runs in a forked child. */
#ifndef AIF_SIMGRID_BACKEND_H
#define AIF_SIMGRID_BACKEND_H

#include "serving_sim.h"

/* As serving_simulate. Returns NULL, or why it could not run (newly allocated). */
char *simgrid_simulate(const SimConfig *p, const Engine *e, int engines, const Engine *d, int dec,
                       gboolean same_domain, SimResult *out);

/* The SimGrid platform (XML) for S's network, or NULL and why when it is too large. */
char *simgrid_platform_xml(Sim *s, char **why);

#endif
