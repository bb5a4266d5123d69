/* moe.h — how much of a mixture-of-experts layer a batch touches.
 *
 * With T tokens each routed to k of E experts (uniformly, without repeats), an expert is left
 * untouched with probability (1 - k/E)^T, so E (1 - (1 - k/E)^T) distinct experts are expected to
 * run: the expert weights a step must read grow with the batch until every expert is read. */
#ifndef AIF_MOE_H
#define AIF_MOE_H

/* Expected distinct experts (of E, top-K routing) that TOKENS tokens touch. */
double moe_expected_experts(int experts, int k, double tokens);

#endif
