/* sizing.c — the floor a demand needs (see sizing.h). */
#include "sizing.h"
#include "factory.h"

#include <math.h>
#include <string.h>

/* PT with a floor of RACKS racks evaluated into ROW (initialised here); whether it meets GOAL. */
static gboolean try_racks(const Point *pt, const Profile *prof, const SizingGoal *goal, double racks, ResultRow *row)
{
  Point at = *pt; /* numbers changed, nothing owned */
  at.p.factory.factory_gpus = (int)(racks * pt->system.gpus_per_rack);
  result_row_init(row, pt->index);
  evaluate_point(&at, prof, row);
  return row->status == OUTCOME_OK && !(goal->min_availability > 0 && row->availability < goal->min_availability);
}

/* The racks the point's power budget holds (its provisioning at full power). */
static double budget_racks(const Point *pt)
{
  FactorySpec fs;
  FactoryPlan plan;
  FactoryParams f = pt->p.factory;
  f.factory_gpus = 0;
  evaluate_factory_spec(&f, &pt->system, &fs);
  factory_plan(&pt->system, &fs, pt->system.tdp, 0, &plan);
  return plan.racks;
}

void sizing_search(const Point *pt, const Profile *prof, const SizingGoal *goal, Sizing *out)
{
  memset(out, 0, sizeof *out);
  result_row_init(&out->row, pt->index);
  if (!pt->p.factory.floor || pt->p.workload.arrival == ARRIVAL_CLOSED) {
    out->outcome = SIZING_NOT_A_FLOOR;
    return;
  }
  double most = MAX(budget_racks(pt), 1), lo = 0, hi = 0; /* lo fails (0: none tried), hi meets */
  ResultRow row;
  for (double racks = 1;; racks = MIN(racks * 2, most)) { /* up by doubling to the first that meets */
    out->tries++;
    gboolean met = try_racks(pt, prof, goal, racks, &row);
    result_row_clear(&out->row);
    out->row = row;
    if (met) {
      hi = racks;
      break;
    }
    lo = racks;
    if (racks >= most) {
      out->outcome = SIZING_OVER_BUDGET, out->racks = racks;
      return;
    }
  }
  ResultRow best = out->row;
  memset(&out->row, 0, sizeof out->row);
  while (hi - lo > 1) { /* then halving the gap between the last that failed and the first that met */
    double mid = floor((lo + hi) / 2);
    out->tries++;
    if (try_racks(pt, prof, goal, mid, &row)) {
      hi = mid;
      result_row_clear(&best);
      best = row;
    } else {
      lo = mid;
      result_row_clear(&row);
    }
  }
  out->outcome = SIZING_FOUND, out->racks = hi, out->row = best;
}

const char *sizing_outcome_text(SizingOutcome o)
{
  switch (o) {
  case SIZING_FOUND: return "found";
  case SIZING_OVER_BUDGET: return "not within the power budget";
  default: return "not a floor with an open-loop demand (factory.floor.simulate, workload.arrival poisson, gamma or trace)";
  }
}
