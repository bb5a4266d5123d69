/* moe.h — how much of a mixture-of-experts layer a batch touches.
 *
 * With T tokens each routed to k of E experts (uniformly, without repeats), an expert is left
 * untouched with probability (1 - k/E)^T, so E (1 - (1 - k/E)^T) distinct experts are expected to
 * run: the expert weights a step must read grow with the batch until every expert is read.
 *
 * Under expert parallelism the experts are split into groups, each on its own GPUs, and a step
 * lasts as long as its busiest group. While a batch touches few of the experts, the touched ones
 * spread unevenly: with 4 tokens on DeepSeek-R1 (top-8 of 256) over 8 groups of 32, a group runs
 * 3.8 experts on average and the busiest ~6.4, so EP8 reads 1.7x what tensor-parallel experts
 * (every GPU a slice of each) read. Each group's count is binomial, and the busiest of G is its
 * mean plus the expected maximum of G standard normals times its spread, capped at the group. */
#ifndef AIF_MOE_H
#define AIF_MOE_H

/* Expected distinct experts (of E, top-K routing) that TOKENS tokens touch. */
double moe_expected_experts(int experts, int k, double tokens);
/* Expected distinct experts in the busiest of GROUPS equal groups of the experts, when TOUCHED of
 * them run (moe_expected_experts). */
double moe_busiest_group_experts(int experts, double touched, int groups);
/* The busiest group's token-to-expert assignments over the mean group's (1 when balanced). */
double moe_busiest_group_load(int k, double tokens, int groups);

#endif
