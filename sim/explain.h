/* explain.h — one measured row taken apart (`aifsim validate --explain ID`): its prediction beside
 * the measurement, the engines as the row launched them, and where the model's step time goes,
 * component by component, beside the datasheet floors (models/step_floor.h). The instrument for
 * the accuracy work: a row the model misses says here whether the miss is in the step (and in
 * which part of it) or in the queueing around it. Reads the validate module's rows; writes text. */
#ifndef AIF_EXPLAIN_H
#define AIF_EXPLAIN_H

#include "validate.h"

/* The text for ROW predicted as PRED (the row's engines point at the profile that predicted it),
 * newly allocated. */
char *explain_row(const ValRow *row, const Prediction *pred);

#endif
