/* units.c — parsing and printing of physical quantities (see units.h).
 *
 * A quantity is a number, optional blanks, and a unit made of an optional prefix and a base symbol.
 * Each dimension lists the base symbols it accepts and which prefixes they take, so "ms" is a
 * millisecond while "Ms" is refused, and "Gb/s" is converted from bits. */
#include "units.h"
#include "aif_error.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK(aif-error-quark, aif_error)

typedef enum { PFX_NONE = 0, PFX_BIG = 1, PFX_SMALL = 2, PFX_BINARY = 4 } PrefixSet;

typedef struct {
  const char *symbol;
  UnitDim dim;
  double factor;   /* SI value of one unit without prefix */
  PrefixSet prefixes;
} BaseUnit;

/* Longer symbols first where one ends another ("B/s" before "s", "Wh" before "h"). */
static const BaseUnit base_units[] = {
  { "FLOP/s", DIM_FLOPS, 1, PFX_BIG }, { "FLOPS", DIM_FLOPS, 1, PFX_BIG },
  { "flop/s", DIM_FLOPS, 1, PFX_BIG },
  { "B/s", DIM_BANDWIDTH, 1, PFX_BIG | PFX_BINARY }, { "Bps", DIM_BANDWIDTH, 1, PFX_BIG | PFX_BINARY },
  { "b/s", DIM_BANDWIDTH, 0.125, PFX_BIG }, { "bps", DIM_BANDWIDTH, 0.125, PFX_BIG },
  { "USD/kWh", DIM_ENERGY_PRICE, 1 / 3.6e6, PFX_NONE }, { "USD/MWh", DIM_ENERGY_PRICE, 1 / 3.6e9, PFX_NONE },
  { "USD/J", DIM_ENERGY_PRICE, 1, PFX_NONE },
  { "req/s", DIM_RATE, 1, PFX_NONE }, { "/s", DIM_RATE, 1, PFX_NONE }, { "Hz", DIM_RATE, 1, PFX_BIG },
  { "Wh", DIM_ENERGY, 3600, PFX_BIG }, { "J", DIM_ENERGY, 1, PFX_BIG },
  { "W", DIM_POWER, 1, PFX_BIG },
  { "B", DIM_BYTES, 1, PFX_BIG | PFX_BINARY }, { "b", DIM_BYTES, 0.125, PFX_BIG },
  { "min", DIM_TIME, 60, PFX_NONE }, { "h", DIM_TIME, 3600, PFX_NONE }, { "d", DIM_TIME, 86400, PFX_NONE },
  { "y", DIM_TIME, 31557600, PFX_NONE }, /* Julian year */ { "s", DIM_TIME, 1, PFX_SMALL },
  { "USD", DIM_MONEY, 1, PFX_BIG },
};

typedef struct {
  const char *text;
  double factor;
  PrefixSet set;
} Prefix;

static const Prefix prefixes[] = {
  { "k", 1e3, PFX_BIG }, { "K", 1e3, PFX_BIG }, { "M", 1e6, PFX_BIG }, { "G", 1e9, PFX_BIG },
  { "T", 1e12, PFX_BIG }, { "P", 1e15, PFX_BIG }, { "E", 1e18, PFX_BIG },
  { "Ki", 1024.0, PFX_BINARY }, { "Mi", 1048576.0, PFX_BINARY }, { "Gi", 1073741824.0, PFX_BINARY },
  { "Ti", 1099511627776.0, PFX_BINARY }, { "Pi", 1125899906842624.0, PFX_BINARY },
  { "m", 1e-3, PFX_SMALL }, { "u", 1e-6, PFX_SMALL }, { "\xc2\xb5", 1e-6, PFX_SMALL },
  { "n", 1e-9, PFX_SMALL },
};

static const struct {
  const char *symbol;
  const char *example;
} dim_info[DIM_COUNT_] = {
  [DIM_NONE] = { "", "42" },
  [DIM_FRACTION] = { "", "0.3 or 30%" },
  [DIM_TIME] = { "s", "2 us" },
  [DIM_BYTES] = { "B", "141 GB" },
  [DIM_BANDWIDTH] = { "B/s", "1.8 TB/s" },
  [DIM_FLOPS] = { "FLOP/s", "989 TFLOP/s" },
  [DIM_POWER] = { "W", "700 W" },
  [DIM_ENERGY] = { "J", "5 kJ" },
  [DIM_RATE] = { "/s", "10 req/s" },
  [DIM_MONEY] = { "USD", "30000 USD" },
  [DIM_ENERGY_PRICE] = { "USD/J", "0.08 USD/kWh" },
};

const char *units_symbol(UnitDim dim) { return dim_info[dim].symbol; }
const char *units_example(UnitDim dim) { return dim_info[dim].example; }

/* The factor of a prefix allowed by SET, or 0 when PREFIX is not one. */
static double prefix_factor(const char *prefix, size_t len, PrefixSet set)
{
  if (len == 0)
    return 1.0;
  for (size_t i = 0; i < G_N_ELEMENTS(prefixes); i++)
    if ((prefixes[i].set & set) && strlen(prefixes[i].text) == len &&
        strncmp(prefixes[i].text, prefix, len) == 0)
      return prefixes[i].factor;
  return 0.0;
}

static gboolean unit_factor(const char *unit, UnitDim dim, double *factor)
{
  size_t ulen = strlen(unit);
  for (size_t i = 0; i < G_N_ELEMENTS(base_units); i++) {
    const BaseUnit *b = &base_units[i];
    size_t slen = strlen(b->symbol);
    if (b->dim != dim || slen > ulen || strcmp(unit + ulen - slen, b->symbol) != 0)
      continue;
    double p = prefix_factor(unit, ulen - slen, b->prefixes);
    if (p > 0) {
      *factor = p * b->factor;
      return TRUE;
    }
  }
  return FALSE;
}

gboolean units_parse(const char *text, UnitDim dim, double *out_si, const char **why)
{
  static const char *const not_number = "a number";
  const char *s = text;
  gboolean dollar = FALSE;
  while (g_ascii_isspace(*s))
    s++;
  if (*s == '$') { /* "$1000" and "$0.08/kWh" read as USD */
    dollar = TRUE;
    s++;
  }
  char *end = NULL;
  double v = g_ascii_strtod(s, &end);
  if (end == s || !isfinite(v)) {
    *why = dim == DIM_NONE ? not_number : "a number with a unit";
    return FALSE;
  }
  while (g_ascii_isspace(*end))
    end++;
  g_autofree char *unit = g_strchomp(g_strdup(end));
  if (dollar) {
    g_autofree char *u = g_strconcat("USD", unit, NULL);
    g_free(unit);
    unit = g_steal_pointer(&u);
  }
  if (*unit == '\0') {
    if (dim == DIM_NONE || dim == DIM_FRACTION) {
      *out_si = v;
      return TRUE;
    }
    *why = "a unit after the number";
    return FALSE;
  }
  if (dim == DIM_FRACTION && strcmp(unit, "%") == 0) {
    *out_si = v / 100.0;
    return TRUE;
  }
  double f;
  if (dim == DIM_NONE || dim == DIM_FRACTION || !unit_factor(unit, dim, &f)) {
    *why = dim == DIM_NONE ? "a plain number without a unit" : "a known unit";
    return FALSE;
  }
  *out_si = v * f;
  if (!isfinite(*out_si)) { /* 1e300 EW: a number, but none a double holds */
    *why = "a finite quantity";
    return FALSE;
  }
  return TRUE;
}

/* SI at PREC significant digits with a readable prefix. */
static char *format_prec(double si, UnitDim dim, int prec)
{
  const char *sym = dim_info[dim].symbol;
  if (dim == DIM_FRACTION)
    return g_strdup_printf("%.*g%%", prec, si * 100.0);
  if (dim == DIM_ENERGY_PRICE)
    return g_strdup_printf("%.*g USD/kWh", prec, si * 3.6e6);
  if (dim == DIM_TIME && si >= 31557600.0 * 0.999)
    return g_strdup_printf("%.*g y", prec, si / 31557600.0);
  if (dim == DIM_NONE || dim == DIM_MONEY || dim == DIM_RATE || si == 0)
    return g_strdup_printf("%.*g%s%s", prec, si, *sym ? " " : "", sym);
  static const struct { double f; const char *p; } steps[] = {
    { 1e18, "E" }, { 1e15, "P" }, { 1e12, "T" }, { 1e9, "G" }, { 1e6, "M" }, { 1e3, "k" },
    { 1, "" }, { 1e-3, "m" }, { 1e-6, "u" }, { 1e-9, "n" },
  };
  double a = fabs(si);
  for (size_t i = 0; i < G_N_ELEMENTS(steps); i++) {
    if (dim == DIM_TIME && steps[i].f > 1)
      continue;
    if (dim != DIM_TIME && steps[i].f < 1)
      break;
    if (a >= steps[i].f * 0.9995 || i + 1 == G_N_ELEMENTS(steps))
      return g_strdup_printf("%.*g %s%s", prec, si / steps[i].f, steps[i].p, sym);
  }
  return g_strdup_printf("%.*g %s", prec > 6 ? prec : 4, si, sym);
}

char *units_format(double si, UnitDim dim)
{
  return format_prec(si, dim, 6);
}

/* TEXT reads back as SI, to the bit. */
static gboolean reads_back(const char *text, UnitDim dim, double si)
{
  double back;
  const char *why;
  return units_parse(text, dim, &back, &why) && back == si;
}

char *units_format_exact(double si, UnitDim dim)
{
  for (int prec = 6; prec <= 17 && isfinite(si); prec++) {
    char *text = format_prec(si, dim, prec);
    if (reads_back(text, dim, si))
      return text;
    g_free(text);
  }
  /* a prefix's factor rounds some values away: the SI unit itself, whose 17 digits are the double */
  char *plain = dim == DIM_FRACTION ? g_strdup_printf("%.17g", si)
                                    : g_strdup_printf("%.17g%s%s", si, *dim_info[dim].symbol ? " " : "",
                                                      dim_info[dim].symbol);
  if (reads_back(plain, dim, si) || !isfinite(si))
    return plain;
  g_free(plain);
  return format_prec(si, dim, 17);
}
