/* evaluate.c — point -> result row (see evaluate.h). */
#include "evaluate.h"
#include "precision.h"

static void engine_label(GString *s, const char *prefix, const EngineSpec *e)
{
  g_string_append_printf(s, "%s%s%dx tp%d", *s->str ? " " : "", prefix, e->workers, e->tp);
  if (e->pp > 1)
    g_string_append_printf(s, " pp%d", e->pp);
  if (e->ep > 1)
    g_string_append_printf(s, " ep%d", e->ep);
  if (e->attention_dp)
    g_string_append(s, " dp");
}

char *point_config_label(const Point *pt)
{
  const ScenarioParams *p = &pt->p;
  GString *s = g_string_new(NULL);
  if (p->mode == MODE_AGGREGATED) {
    engine_label(s, "agg ", &p->agg);
  } else {
    engine_label(s, "P ", &p->prefill);
    engine_label(s, "D ", &p->decode);
  }
  g_string_append_printf(s, " %s %s", precision_names[p->precision], framework_names[p->framework]);
  if (p->spec_method == SPEC_MTP)
    g_string_append_printf(s, " mtp%d", p->spec_tokens);
  if (p->arrival == ARRIVAL_CLOSED)
    g_string_append_printf(s, " c%d", p->users);
  return g_string_free(s, FALSE);
}

void evaluate_point(const Point *pt, ResultRow *row)
{
  row->system = g_strdup(pt->system.id);
  row->model = g_strdup(pt->model.id);
  row->config = point_config_label(pt);
  row->status = g_strdup("unsupported");
  row->reason = g_strdup("the performance model is not built yet");
}
