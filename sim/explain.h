/* explain.h — one measured row taken apart (`aifsim validate --explain ID`): its prediction beside
 * the measurement, the engines as the row launched them, and where the model's step time goes,
 * component by component, beside the datasheet floors (models/step_floor.h). The instrument for
 * the accuracy work: a row the model misses says here whether the miss is in the step (and in
 * which part of it) or in the queueing around it. `aifsim estimate --explain` prints the same steps
 * for a scenario point. Reads deployments (predict.h) and the validate module's rows; writes text. */
#ifndef AIF_EXPLAIN_H
#define AIF_EXPLAIN_H

#include "predict.h"
#include "validate.h"

/* Appends to OUT D's engines and three of the model's steps on them, each split into its parts
 * beside its floors: a decode step of one decode engine at BATCH sequences (the prediction's mean;
 * NAN or 0: its users up to its batch cap and its KV pool's room) at the mean context, one prompt
 * alone on the engine that prefills, and a prefill step at the load's token budget a rank. */
void explain_steps(GString *out, const Deployment *d, double batch);

/* The text for ROW predicted as PRED (the row's engines point at the profile that predicted it),
 * newly allocated. */
char *explain_row(const ValRow *row, const Prediction *pred);

#endif
