/* simgrid_backend.c — serving_sim's steps driven by a SimGrid actor, KV transfers as SimGrid comms.
 *
 * One driver actor on host "ctl" runs the simulation's events at their times, sleeping on a
 * semaphore in between; a transfer the simulation starts becomes a helper actor that calls
 * sg_host_sendto() between the two engines' hosts, then queues its request and releases the
 * semaphore, so the driver wakes at the end of a transfer as it does at an event. The platform has
 * a host per engine and the simulation's links one for one (latency zero: the simulation adds the
 * link latency itself), so the only difference from the native backend is who shares bandwidth.
 * Everything SimGrid runs in a forked child, whose result comes back through a pipe. */
#define _GNU_SOURCE /* memfd_create */
#include "simgrid_backend.h"
#include "fd_io.h"

#include <errno.h>
#include <simgrid/actor.h>
#include <simgrid/engine.h>
#include <simgrid/host.h>
#include <simgrid/semaphore.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>
#include <xbt/config.h>
#include <xbt/log.h>

/* Routes grow as engines squared; past this the XML and its loading dominate the run. */
#define MAX_ENGINES 128

typedef struct {
  Sim *sim;
  GQueue done;        /* requests whose transfer ended, oldest first */
  sg_sem_t ready;     /* one release per entry of DONE */
  int outstanding;    /* transfers in flight */
} Driver;

typedef struct {
  Driver *drv;
  int req, from, to;
  double bytes;
} Transfer;

char *simgrid_platform_xml(Sim *s, char **why)
{
  int front, n = sim_engines(s, &front);
  if (n > MAX_ENGINES) {
    *why = g_strdup_printf("the simgrid engine routes every pair of engines: %d engines, at most %d", n, MAX_ENGINES);
    return NULL;
  }
  int links[4], fabric;
  gboolean same;
  const Network *net = sim_network(s, 0, links, &fabric, &same);
  gboolean wired = net->capacity->len > 0;
  GString *x = g_string_new("<?xml version='1.0'?>\n<!DOCTYPE platform SYSTEM \"https://simgrid.org/simgrid.dtd\">\n"
                            "<platform version=\"4.1\">\n<zone id=\"factory\" routing=\"Full\">\n"
                            "  <host id=\"ctl\" speed=\"1f\"/>\n");
  for (int k = 0; k < n; k++)
    g_string_append_printf(x, "  <host id=\"e%d\" speed=\"1f\"/>\n", k);
  for (guint l = 0; wired && l < net->capacity->len; l++)
    g_string_append_printf(x, "  <link id=\"l%u\" bandwidth=\"%.17gBps\" latency=\"0s\"/>\n", l,
                           g_array_index(net->capacity, double, l));
  for (int i = 0; wired && i < n; i++) {
    int a[4];
    sim_network(s, i, a, &fabric, &same);
    for (int j = 0; j < n; j++) {
      if (i == j)
        continue;
      int b[4];
      sim_network(s, j, b, &fabric, &same);
      g_string_append_printf(x, "  <route src=\"e%d\" dst=\"e%d\" symmetrical=\"NO\">", i, j);
      if (same)
        g_string_append_printf(x, "<link_ctn id=\"l%d\"/><link_ctn id=\"l%d\"/>", a[0], b[1]);
      else
        g_string_append_printf(x, "<link_ctn id=\"l%d\"/><link_ctn id=\"l%d\"/>", a[2], b[3]);
      if (!same && fabric >= 0)
        g_string_append_printf(x, "<link_ctn id=\"l%d\"/>", fabric);
      g_string_append(x, "</route>\n");
    }
  }
  g_string_append(x, "</zone>\n</platform>\n");
  return g_string_free(x, FALSE);
}

static void transfer_actor(int argc, char *argv[])
{
  (void)argc, (void)argv;
  Transfer *t = sg_actor_self_get_data();
  char from[32], to[32];
  g_snprintf(from, sizeof from, "e%d", t->from);
  g_snprintf(to, sizeof to, "e%d", t->to);
  sg_host_sendto(sg_host_by_name(from), sg_host_by_name(to), t->bytes);
  g_queue_push_tail(&t->drv->done, GINT_TO_POINTER(t->req));
  sg_sem_release(t->drv->ready);
  g_free(t);
}

/* Called by the simulation (inside the driver) when a KV cache starts moving. */
static void start_transfer(gpointer user, int req, int from, int to, double bytes)
{
  Driver *drv = user;
  Transfer *t = g_new(Transfer, 1);
  *t = (Transfer){ drv, req, from, to, bytes };
  sg_actor_t a = sg_actor_init("kv", sg_host_by_name("ctl"));
  sg_actor_set_data(a, t);
  sg_actor_start(a, transfer_actor, 0, NULL);
  drv->outstanding++;
}

static void take_done(Driver *drv)
{
  int req = GPOINTER_TO_INT(g_queue_pop_head(&drv->done));
  drv->outstanding--;
  sim_transfer_done(drv->sim, req, simgrid_get_clock());
}

/* Runs the simulation's events at their times and the transfers' ends as they come. */
static void driver_actor(int argc, char *argv[])
{
  (void)argc, (void)argv;
  Driver *drv = sg_actor_self_get_data();
  for (;;) {
    double t, now = simgrid_get_clock();
    gboolean more = sim_next_time(drv->sim, &t);
    if (!g_queue_is_empty(&drv->done)) {
      sg_sem_acquire(drv->ready);
      take_done(drv);
    } else if (more && t <= now + 1e-12 * MAX(1.0, now)) {
      sim_step(drv->sim);
    } else if (more) {
      if (!sg_sem_acquire_timeout(drv->ready, t - now))
        take_done(drv);
    } else if (drv->outstanding) {
      sg_sem_acquire(drv->ready);
      take_done(drv);
    } else {
      break;
    }
  }
}

/* The child's whole run: SimGrid set up for fabrics (CM02, no TCP window, no cross traffic), the
 * platform loaded from memory, the driver run to the end. */
static char *run_child(Sim *s, SimResult *out)
{
  char *why = NULL;
  g_autofree char *xml = simgrid_platform_xml(s, &why);
  if (!xml)
    return why;
  int fd = memfd_create("aifsim-platform", 0);
  if (fd < 0 || write(fd, xml, strlen(xml)) != (ssize_t)strlen(xml))
    return g_strdup_printf("simgrid platform: %s", g_strerror(errno));
  int argc = 1;
  char *argv[] = { "aifsim", NULL };
  simgrid_init(&argc, argv);
  xbt_log_control_set("root.thresh:error");
  sg_cfg_set_string("network/model", "CM02");
  sg_cfg_set_double("network/TCP-gamma", 0);
  sg_cfg_set_boolean("network/crosstraffic", "no");
  g_autofree char *path = g_strdup_printf("/proc/self/fd/%d", fd);
  simgrid_load_platform(path);
  close(fd);
  Driver drv = { .sim = s, .ready = sg_sem_init(0) };
  g_queue_init(&drv.done);
  sim_set_transfer(s, start_transfer, &drv);
  sg_actor_t a = sg_actor_init("driver", sg_host_by_name("ctl"));
  sg_actor_set_data(a, &drv);
  sg_actor_start(a, driver_actor, 0, NULL);
  simgrid_run();
  return sim_finish(s, out);
}

char *simgrid_simulate(const SimConfig *p, const Engine *e, int engines, const Engine *d, int dec,
                       gboolean same_domain, SimResult *out)
{
  *out = (SimResult){ .outcome = OUTCOME_INFEASIBLE };
  char *why = NULL;
  Sim *s = sim_new(p, e, engines, d, dec, same_domain, &why);
  if (!s)
    return why;
  int fds[2];
  if (pipe(fds) != 0) {
    sim_free(s);
    return g_strdup_printf("simgrid engine: pipe: %s", g_strerror(errno));
  }
  fflush(NULL);
  pid_t pid = fork();
  if (pid == 0) { /* the child: result, then the reason's length and text */
    close(fds[0]);
    SimResult r = { .outcome = OUTCOME_INFEASIBLE }; /* what an early failure reports */
    char *w = run_child(s, &r);
    guint32 len = w ? (guint32)strlen(w) : 0;
    fd_write_all(fds[1], &r, sizeof r);
    fd_write_all(fds[1], &len, sizeof len);
    fd_write_all(fds[1], w ? w : "", len);
    _exit(0);
  }
  sim_free(s);
  close(fds[1]);
  if (pid < 0) {
    close(fds[0]);
    return g_strdup_printf("simgrid engine: fork: %s", g_strerror(errno));
  }
  guint32 len = 0;
  gboolean ok = fd_read_all(fds[0], out, sizeof *out) && fd_read_all(fds[0], &len, sizeof len);
  if (ok && len) {
    why = g_malloc0(len + 1);
    ok = fd_read_all(fds[0], why, len);
  }
  close(fds[0]);
  int status = 0;
  while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
    ;
  if (!ok) {
    g_free(why);
    *out = (SimResult){ .outcome = OUTCOME_INFEASIBLE };
    return g_strdup_printf("simgrid engine: the simulation process died (status %d)", status);
  }
  return why;
}
