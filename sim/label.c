/* label.c — the configuration label of a deployment (see label.h). */
#include "label.h"

static void engine_label(GString *s, const char *pool, const Engine *e, int workers)
{
  int pp = MAX(e->pp, 1);
  g_string_append_printf(s, "%s%s%dx tp%d", s->len ? " " : "", pool, workers, e->gpus / pp);
  if (pp > 1)
    g_string_append_printf(s, " pp%d", pp);
  if (e->ep > 1)
    g_string_append_printf(s, " ep%d", e->ep);
  if (e->dp_attention)
    g_string_append(s, " dp");
}

char *deployment_label(const Deployment *d)
{
  const Engine *e = &d->decode;
  GString *s = g_string_new(NULL);
  if (!d->disaggregated) {
    engine_label(s, "agg ", e, d->dec_workers);
  } else {
    engine_label(s, "P ", &d->prefill, d->pre_workers);
    engine_label(s, "D ", e, d->dec_workers);
  }
  if (d->sim && d->sim->green_prefill_sms > 0)
    g_string_append_printf(s, " gc%.0f%%", 100 * d->sim->green_prefill_sms);
  g_string_append_printf(s, " %s", precision_names[e->precision]);
  if (!e->native_only && system_compute_precision(e->sys, e->precision) != e->precision)
    g_string_append(s, " weight-only");
  g_string_append_printf(s, " %s", framework_names[d->framework]);
  if (e->draft_tokens > 0)
    g_string_append_printf(s, " mtp%d", e->draft_tokens);
  gboolean closed = d->sim ? d->sim->arrival == ARRIVAL_CLOSED : d->load.users > 0;
  if (closed)
    g_string_append_printf(s, " c%.0f", d->load.users);
  return g_string_free(s, FALSE);
}
