/* label.h — the one text a deployment is named by.
 *
 * Both adapters (a scenario point, a measured row) name what they predict with this text, so a
 * configuration reads the same in results.csv, plan.csv and validate's predictions:
 *   agg 4x tp2 ep2 dp fp8 trtllm mtp3 c64
 *   P 2x tp4 D 1x tp8 ep8 dp fp4 dynamo-trtllm c256
 * pools (workers x TP, PP, EP, attention-DP), a Green Context's prefill share, the precision (and
 * weight-only where the GPU has no tensor cores for it), the framework, MTP drafts, closed-loop users. */
#ifndef AIF_LABEL_H
#define AIF_LABEL_H

#include "predict.h"

/* The configuration label of D (owned by the caller). */
char *deployment_label(const Deployment *d);

#endif
