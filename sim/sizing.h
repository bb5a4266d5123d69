/* sizing.h — the floor a demand needs: the fewest racks of a point's system whose floor,
 * simulated as a whole (factory.floor.simulate) through the scenario's demand, meets its SLO and an
 * availability goal (`aifsim plan --size`).
 *
 * A search over the rack count (the factory's GPUs, factory.gpus): doubling up from one rack to
 * the first size that meets the goal, or to what the power budget holds, then bisection between the
 * last that failed and the first that met. Each try is evaluate_point on the point with that floor:
 * the same simulation `run` does, so a size it returns reproduces with factory.gpus set to it. The
 * search takes more racks as never worse (more engines share the same demand); the simulation's
 * noise can make that false by a rack or so near the edge. */
#ifndef AIF_SIZING_H
#define AIF_SIZING_H

#include "evaluate.h"

typedef struct {
  double min_availability; /* the engines' share of the run in service (factory.failures); 0: any */
} SizingGoal;

typedef enum { SIZING_FOUND, SIZING_OVER_BUDGET, SIZING_NOT_A_FLOOR } SizingOutcome;

typedef struct {
  SizingOutcome outcome;
  double racks;        /* the fewest that meet the goal (FOUND), or the most tried (OVER_BUDGET) */
  guint tries;         /* floor simulations run */
  ResultRow row;       /* the point at that size (FOUND: it meets the goal); clear with result_row_clear */
} Sizing;

/* Sizes PT's floor for GOAL into OUT (its row initialised here). */
void sizing_search(const Point *pt, const Profile *prof, const SizingGoal *goal, Sizing *out);
/* Why a sizing came out as it did, in words (static). */
const char *sizing_outcome_text(SizingOutcome o);

#endif
