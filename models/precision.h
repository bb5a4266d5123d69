/* precision.h — numeric formats of weights, activations and the KV cache, and their sizes. */
#ifndef AIF_PRECISION_H
#define AIF_PRECISION_H

typedef enum { PREC_BF16, PREC_FP8, PREC_FP4, PREC_COUNT_ } Precision;

extern const char *const precision_names[]; /* "bf16", "fp8", "fp4", NULL */

/* Bytes per element, with the block scales of FP8/FP4 formats included (NVFP4: one FP8 scale per 16). */
double precision_bytes(Precision p);

#endif
