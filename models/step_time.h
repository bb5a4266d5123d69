/* step_time.h — how long one engine step takes for a given batch.
 *
 * A step runs every layer once for all the tokens of the batch: the decode sequences (one token
 * each, or 1 + d with MTP drafts to verify) and any prefill tokens (chunked prefill or a prefill
 * engine). Per GPU and per layer, each GEMM takes the longer of its FLOPs over the reachable
 * tensor-core rate (which grows with the rows M) and its weight bytes over the reachable HBM
 * bandwidth; attention reads each sequence's KV cache (decode) or does quadratic work (prefill);
 * MoE layers read the experts the batch touches; the kernels between the GEMMs (norms, gated
 * activations) move activations at the HBM's rate; collectives follow from
 * the parallelism (comm.h); the stack adds per-step and per-layer overheads. Rates come from the
 * profile.
 *
 * A step whose work would draw more than the board's power limit (its TDP, or a cap) at the full
 * clock runs at the clock that meets the limit: the compute-bound parts slow with it. */
#ifndef AIF_STEP_TIME_H
#define AIF_STEP_TIME_H

#include "engine.h"

typedef struct {
  double decode_seqs;    /* sequences decoding in this step (whole engine) */
  double decode_ctx;     /* their mean context length, tokens */
  double prefill_tokens; /* prompt tokens processed in this step (whole engine) */
  double prefill_seqs;   /* prompts those tokens belong to */
  double prefill_ctx;    /* mean tokens each prefill token attends to (prefix + half its chunk) */
  double prefill_rank_tokens; /* attention-DP: the prompt tokens of the rank that holds the most,
                               * where the caller placed the prompts on ranks (the event
                               * simulation); 0: as many prompts a rank as they spread to */
  gboolean with_prompts; /* the decode part of a step that carries prompt chunks (with none of
                          * their tokens counted): run as such a step is, never in a padded graph */
} StepBatch;

typedef struct {
  double gemm;       /* attention projections, dense FFNs, LM head */
  double attention;  /* attention math and KV reads */
  double moe;        /* expert layers */
  double elementwise; /* norms and gated activations: activations through HBM */
  double comm;       /* collectives and pipeline transfers */
  double overhead;   /* stack overheads */
  double mtp;        /* MTP draft passes */
  double total;      /* s: the step's latency */
  double busy;       /* s of full-power-equivalent GPU activity in the step */
  double activity;   /* busy / kernel time: where the GPU sits between idle (0) and TDP (1), at
                      * the step's clock; never above what the power limit allows */
  double clock;      /* the tensor-core clock the step ran at (fraction of full): below 1 where its
                      * work at the full clock would draw more than the board's limit */
} StepTime;

void step_time(const Engine *e, const StepBatch *b, StepTime *out);

/* Shorthands: a decode step of SEQS sequences at context CTX; a prefill of SEQS prompts of LEN
 * tokens each (whole prompts, no prefix cached). Return seconds. */
double step_time_decode(const Engine *e, double seqs, double ctx);
/* The decode part alone of a step that also carries prompt chunks: the same sequences, but never
 * padded to a captured graph's batch (such steps run eagerly, engine.h). */
double step_time_decode_beside_prompts(const Engine *e, double seqs, double ctx);
double step_time_prefill(const Engine *e, double seqs, double len);
/* A prefill of LEN new tokens each behind CACHED tokens of the same prompts found in a prefix cache:
 * the cached ones are not computed, but the new ones attend to them. */
double step_time_prefill_after(const Engine *e, double seqs, double len, double cached);
/* Power activity (0 = idle, 1 = TDP) of a decode step and of a prefill, for the power model. */
double step_activity_decode(const Engine *e, double seqs, double ctx);
double step_activity_prefill(const Engine *e, double seqs, double len);

#endif
