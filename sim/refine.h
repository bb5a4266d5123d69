/* refine.h — the most users a closed-loop point's configuration holds within its limits, between
 * two user counts a sweep ran (`aifsim plan`).
 *
 * A sweep steps its users coarsely (the default scenario doubles them), so a pick, or the pick with
 * the held-out error as headroom, sits at the last count that met the limits and can leave most of
 * the next step's tokens unclaimed: on the default chart GB200's pick with headroom is its engine
 * at 2,048 users, 59% of the pick's tokens per MW, where about 3,500 users clear the same limits at
 * nearly 90%. The search bisects the users between LO (met) and HI (did not, or the next count the
 * sweep has): each try is evaluate_point on the point with that many users, the same simulation
 * `run` does, so a count it returns reproduces with workload.arrival.users set to it. It takes
 * fewer users as never meeting the limits worse (per-user speed falls and TTFT grows with them);
 * the simulation's noise can make that false by a few users near the edge.
 *
 * A pick at the sweep's most users has no next count: whether the sweep's range, not the limits,
 * stopped it is what a planner needs to know before trusting it (the pick's tokens per MW may be
 * far from the configuration's best). refine_past_sweep tries twice those users first; where they
 * meet the limits the sweep's range is what stopped the pick (and more users may meet them too),
 * otherwise it bisects between the two as above. */
#ifndef AIF_REFINE_H
#define AIF_REFINE_H

#include "evaluate.h"

/* The search stops when the gap between the most users that met and the fewest that did not is at
 * most this share of the former (and at least one user): a few percent of a factory's tokens, in
 * about five simulations for a doubling step. */
#define REFINE_RESOLUTION (1.0 / 32)

typedef struct {
  int users;    /* the most users found to meet PT's limits (LO where no count above it did) */
  int top;      /* the most users the search could reach: HI - 1 for refine_users, 2 LO past the sweep */
  guint tries;  /* simulations run */
  ResultRow row; /* the point at USERS where above LO (clear with result_row_clear); status
                  * OUTCOME_UNSUPPORTED with no figures where the search found nothing above LO */
} Refine;

/* Searches the users of PT (a closed loop) in (LO, HI) for the most that still meet PT's plan
 * limits (its status ok), into OUT (its row initialised here). LO < HI, both at least 1. */
void refine_users(const Point *pt, const Profile *prof, int lo, int hi, Refine *out);

/* The same search past the sweep's most users, LO (met, at least 1): 2 LO first, and where that
 * misses the limits, the users in (LO, 2 LO). OUT->users == OUT->top says 2 LO met them. */
void refine_past_sweep(const Point *pt, const Profile *prof, int lo, Refine *out);

#endif
