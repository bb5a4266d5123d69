/* aif_error.h — the one GError domain of aifsim and what its codes mean.
 *
 * Every failure the caller reports travels as a GError in this domain. The code decides the exit
 * status at the CLI edge: AIF_ERROR_INPUT (bad scenario, unit, reference, infeasible request) exits 2,
 * AIF_ERROR_RUN (an I/O failure or a simulation that could not finish) exits 1. */
#ifndef AIF_ERROR_H
#define AIF_ERROR_H

#include <glib.h>

#define AIF_ERROR (aif_error_quark())

typedef enum {
  AIF_ERROR_INPUT, /* the user's input is wrong: exit 2 */
  AIF_ERROR_RUN    /* the run itself failed: exit 1 */
} AifErrorCode;

GQuark aif_error_quark(void);

#endif
