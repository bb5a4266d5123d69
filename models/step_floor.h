/* step_floor.h — the datasheet floors of one engine step: what no kernel beats.
 *
 * The bytes floor is what one GPU must read from HBM in the step (its share of the weights the
 * step touches: every non-expert weight, and of the routed experts only those the step's tokens
 * pick, moe.h; and the KV cache its decode sequences attend to) over the HBM's datasheet rate.
 * The FLOPs floor is two FLOPs per active parameter per token, spread evenly over the engine's
 * GPUs, over the tensor cores' dense peak at the engine's precision (attention's own products,
 * the busiest GPU's extra share and MTP drafts left out: each only raises the floor). A step the
 * model times (step_time.h) sits at some multiple of the larger floor: that multiple is what the
 * profile's efficiencies, the overheads and the collectives add, and what `aifsim validate
 * --explain` prints beside each measured row. */
#ifndef AIF_STEP_FLOOR_H
#define AIF_STEP_FLOOR_H

#include "step_time.h"

typedef struct {
  double bytes;     /* B one GPU reads */
  double flops;     /* FLOP one GPU computes */
  double memory_s;  /* bytes / HBM datasheet rate */
  double compute_s; /* flops / dense peak at the engine's precision */
  double floor_s;   /* the larger */
} StepFloor;

void step_floor(const Engine *e, const StepBatch *b, StepFloor *out);

#endif
