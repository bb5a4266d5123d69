/* evaluate.h — one point of a scenario -> one row of results.
 *
 * The seam between the scenario side (points) and the models: it makes the point a Deployment
 * (predict.h), predicts it by the method the point asks for, and fills the result row with the
 * outcome and the factory it implies. */
#ifndef AIF_EVALUATE_H
#define AIF_EVALUATE_H

#include "engine.h"
#include "predict.h"
#include "profile.h"
#include "results.h"
#include "scenario.h"
#include "steady_state.h"

/* Fills ROW (already initialised) for PT. Never fails: a point that cannot run is a row with
 * status infeasible or unsupported and the reason. */
void evaluate_point(const Point *pt, const Profile *prof, ResultRow *row);
/* The same, and when the point is event-simulated its time series, a SeriesRow (serving_sim.h) per
 * INTERVAL s appended to SERIES. */
void evaluate_point_series(const Point *pt, const Profile *prof, ResultRow *row, double interval, GArray *series);

/* PT as the Deployment its prediction runs, its engines on PROF; SIM receives the event
 * simulation's configuration the deployment points at (`aifsim estimate --explain` takes it apart). */
void evaluate_deployment(const Point *pt, const Profile *prof, SimConfig *sim, Deployment *d);
/* The engine a scenario's engine spec describes on the point's system and model. */
void evaluate_engine(const Point *pt, const Profile *prof, const EngineSpec *es, Engine *out);
/* The factory a scenario's keys describe, its GPUs held to evaluate_gpu_cap's W on system S. */
void evaluate_factory_spec(const FactoryParams *f, const SystemSpec *s, FactorySpec *out);
/* The W each GPU of system S is held to: factory.gpu_power_cap, or what factory.rack_power_cap
 * leaves a GPU after the rest of its share of the rack (power_gpu_for_it), the lower of the two;
 * 0 = its TDP. */
double evaluate_gpu_cap(const FactoryParams *f, const SystemSpec *s);

/* Frees an array of ResultRow * (rows read or evaluated). */
void evaluate_rows_free(GPtrArray *rows);

/* The family a planner thinks in and the chart colours a point by: its mode and its parallelism
 * class ("aggregated: attention-DP + EP"; a disaggregated point's decode pool), newly allocated.
 * The full configuration label is deployment_label (label.h). */
char *point_family_label(const Point *pt);

#endif
