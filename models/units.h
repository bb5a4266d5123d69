/* units.h — physical quantities at the YAML edge: "1.8 TB/s", "700 W", "141 GB", "2 us" -> SI.
 *
 * Everything inside aifsim is SI (seconds, bytes, FLOP, watts, joules, bytes/s, FLOP/s). Text with a
 * unit is parsed once, when a scenario or catalog is loaded, and printed again only at the output edge.
 * Decimal prefixes are decimal (1 GB = 1e9 B), binary ones binary (1 GiB = 2^30 B); bits are 1/8 byte. */
#ifndef AIF_UNITS_H
#define AIF_UNITS_H

#include <glib.h>

typedef enum {
  DIM_NONE,      /* a plain number: counts, ratios */
  DIM_FRACTION,  /* 0..1, also written "30%" */
  DIM_TIME,      /* s */
  DIM_BYTES,     /* B */
  DIM_BANDWIDTH, /* B/s (bits/s accepted and converted) */
  DIM_FLOPS,     /* FLOP/s */
  DIM_POWER,     /* W */
  DIM_ENERGY,    /* J */
  DIM_RATE,      /* 1/s: requests per second */
  DIM_MONEY,     /* USD */
  DIM_ENERGY_PRICE, /* USD/J (written USD/kWh, USD/MWh) */
  DIM_COUNT_
} UnitDim;

/* Parses TEXT as a quantity of dimension DIM into SI. On failure returns FALSE and sets *why to a
 * static sentence saying what was expected. A plain number is accepted only for DIM_NONE and
 * DIM_FRACTION. */
gboolean units_parse(const char *text, UnitDim dim, double *out_si, const char **why);

/* The SI unit symbol of a dimension ("W", "B/s"), and an example for error messages ("700 W"). */
const char *units_symbol(UnitDim dim);
const char *units_example(UnitDim dim);

/* Formats an SI value with a readable prefix: 1.8e12 B/s -> "1.8 TB/s". Returns a newly allocated
 * string. */
char *units_format(double si, UnitDim dim);
/* The same with as many digits as reading the text back needs to give SI exactly (6 where they
 * do, up to 17): what files that are read again are written with (143771 MiB is 150.754820096 GB,
 * not 150.755 GB). */
char *units_format_exact(double si, UnitDim dim);

#endif
