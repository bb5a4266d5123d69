/* calibrate.c — reading the calibration kernels' output and fitting the profile (calibrate.h). */
#include "calibrate.h"
#include "moe.h"
#include "keytable.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aif_error.h"
#include "csv.h"
#include "power.h"
#include "precision.h"

void bench_data_clear(BenchData *d)
{
  g_clear_pointer(&d->device, g_free);
  g_clear_pointer(&d->rows, g_array_unref);
}

/* Every figure the kernels print is a count, a size or a time far inside these bounds; anything
 * outside them is not a measurement, and would overflow the rates fitted from it. */
#define MAX_FIGURE 1e18
#define MIN_SECONDS 1e-9

static gboolean number(const char *s, double *v)
{
  char *end;
  if (!*s) {
    *v = 0;
    return TRUE;
  }
  *v = g_ascii_strtod(s, &end);
  return *end == '\0' && isfinite(*v) && *v >= 0 && *v <= MAX_FIGURE;
}

/* A whole number from 0 to MAX (SM counts, compute capabilities). */
static gboolean whole(double v, double max) { return v == floor(v) && v <= max; }

static gboolean parse_device(char **f, guint nf, const char *name, int line, BenchData *out, GError **error)
{
  double v[5];
  if (nf != 7) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: expected device,NAME,SMS,SM_CLOCK_KHZ,MEMORY_BYTES,CC_MAJOR,CC_MINOR", name, line);
    return FALSE;
  }
  static const double max[5] = { 1e6, 1e9, MAX_FIGURE, 1000, 1000 }; /* SMs, kHz, bytes, major, minor */
  for (int i = 0; i < 5; i++)
    if (!number(f[i + 2], &v[i]) || v[i] > max[i] || ((i == 0 || i >= 3) && !whole(v[i], max[i]))) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: expected a %s from 0 to %g, got '%s'", name, line,
                  csv_field_start(f, i + 2), i == 0 || i >= 3 ? "whole number" : "number", max[i], f[i + 2]);
      return FALSE;
    }
  g_free(out->device);
  out->device = g_strdup(f[1]);
  out->sms = (int)v[0], out->sm_clock = v[1] * 1e3, out->memory = v[2], out->device_line = line;
  out->cc_major = (int)v[3], out->cc_minor = (int)v[4];
  return TRUE;
}

static gboolean parse_row(char **f, guint nf, const char *name, int line, BenchData *out, GError **error)
{
  static const char *const kinds[] = { "hbm", "gemm", "grouped", "attn", "sfu", "launch", "h2d", "d2h", "p2p", "nccl", "power", NULL };
  if (!g_strv_contains(kinds, f[0])) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: unknown measurement '%s' (expected device, hbm, gemm, grouped, attn, sfu, launch, h2d, d2h, p2p, nccl or power)", name, line, f[0]);
    return FALSE;
  }
  if (nf != 7 || strlen(f[1]) >= sizeof ((BenchRow *)0)->variant) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: expected KIND,VARIANT,M,N,K,BYTES,SECONDS", name, line);
    return FALSE;
  }
  BenchRow r = { 0 };
  g_strlcpy(r.kind, f[0], sizeof r.kind);
  g_strlcpy(r.variant, f[1], sizeof r.variant);
  double *v[] = { &r.m, &r.n, &r.k, &r.bytes, &r.seconds };
  for (int i = 0; i < 5; i++)
    if (!number(f[i + 2], v[i]) || (i == 4 && *v[i] < MIN_SECONDS)) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: expected %s, got '%s'", name, line,
                  csv_field_start(f, i + 2), i == 4 ? "a time of at least 1e-9 s" : "a number from 0 to 1e18", f[i + 2]);
      return FALSE;
    }
  g_array_append_val(out->rows, r);
  return TRUE;
}

gboolean bench_parse(const char *text, const char *name, BenchData *out, GError **error)
{
  *out = (BenchData){ .rows = g_array_new(FALSE, FALSE, sizeof(BenchRow)) };
  g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
  for (int i = 0; lines[i]; i++) {
    g_strchomp(lines[i]);
    if (!lines[i][0] || lines[i][0] == '#')
      continue;
    g_auto(GStrv) f = g_strsplit(lines[i], ",", -1);
    guint nf = g_strv_length(f);
    gboolean ok = strcmp(f[0], "device") == 0 ? parse_device(f, nf, name, i + 1, out, error)
                                              : parse_row(f, nf, name, i + 1, out, error);
    if (!ok) {
      bench_data_clear(out);
      return FALSE;
    }
  }
  if (!out->device) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:1:1: expected a device line (is this aifsim-bench output?)", name);
    bench_data_clear(out);
    return FALSE;
  }
  return TRUE;
}

gboolean bench_merge(BenchData *into, const BenchData *more, const char *name, GError **error)
{
  if (strcmp(into->device, more->device) != 0 || into->sms != more->sms) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: measured on %s (%d SMs), not %s (%d SMs): fit one GPU "
                "model at a time", name, more->device_line, more->device, more->sms, into->device, into->sms);
    return FALSE;
  }
  g_array_append_vals(into->rows, more->rows->data, more->rows->len);
  return TRUE;
}

const SystemSpec *calibrate_match_system(const GPtrArray *systems, const char *device)
{
  const char *d = g_str_has_prefix(device, "NVIDIA ") ? device + 7 : device;
  g_autofree char *model = g_strndup(d, strcspn(d, " -"));
  for (guint i = 0; i < systems->len; i++) {
    const SystemSpec *s = systems->pdata[i];
    if (s->gpu_name && g_ascii_strncasecmp(s->gpu_name, model, strlen(model)) == 0 &&
        (s->gpu_name[strlen(model)] == '\0' || s->gpu_name[strlen(model)] == ' '))
      return s;
  }
  return NULL;
}

static gboolean is_fp8(const BenchRow *r)
{
  return g_str_has_prefix(r->variant, "fp8");
}

static gboolean is_fp4(const BenchRow *r)
{
  return strcmp(r->variant, "fp4") == 0;
}

/* The datasheet peak of R's precision; 0 where the GPU has no such tensor cores (FP4 on Hopper). */
static double row_peak(const BenchRow *r, const SystemSpec *sys)
{
  return system_peak_flops(sys, is_fp4(r) ? PREC_FP4 : is_fp8(r) ? PREC_FP8 : PREC_BF16);
}

/* One distinct GEMM shape as the fit sees it. */
typedef struct {
  double flops, bytes, m, n, k, seconds, peak;
  gboolean fp8, block, fp4;
} Shape;

static gboolean same_shape(const Shape *a, const Shape *b)
{
  return a->m == b->m && a->n == b->n && a->k == b->k && a->fp8 == b->fp8 && a->block == b->block &&
         a->fp4 == b->fp4;
}

/* The GEMM rows at a precision SYS supports, each shape once at its best time (several runs may be
 * merged; older kernels timed FP8 below 16 rows at 16 under each requested size), variant ONLY
 * ("bf16", "fp8", "fp8block", "fp4") or, with NULL, BF16 and per-tensor FP8. */
static GArray *shapes(const BenchData *d, const SystemSpec *sys, const char *only)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(Shape));
  for (guint i = 0; i < d->rows->len; i++) {
    const BenchRow *r = &g_array_index(d->rows, BenchRow, i);
    double peak = row_peak(r, sys);
    if (strcmp(r->kind, "gemm") != 0 || peak <= 0 || r->m <= 0 ||
        (only ? strcmp(r->variant, only) != 0 : strcmp(r->variant, "fp8block") == 0 || is_fp4(r)))
      continue;
    Shape sh = { 2 * r->m * r->n * r->k, r->bytes, r->m, r->n, r->k, r->seconds, peak, is_fp8(r),
                 strcmp(r->variant, "fp8block") == 0, is_fp4(r) };
    guint j = 0;
    while (j < out->len && !same_shape(&g_array_index(out, Shape, j), &sh))
      j++;
    if (j == out->len)
      g_array_append_val(out, sh);
    else /* the same shape timed again (another run, or below 16 FP8 rows): the best time */
      g_array_index(out, Shape, j).seconds = MIN(g_array_index(out, Shape, j).seconds, sh.seconds);
  }
  return out;
}

/* The curve: efficiency E (FP8 shapes: E x FP8, block-scaled: E x FP8 x BLOCK, FP4: E x FP4, each
 * of its own peak), half-peak rows H, fixed seconds per GEMM. */
typedef struct {
  double e, h, fixed, fp8, block, fp4, loss;
} GemmCurve;

typedef enum { FACTOR_FP8, FACTOR_BLOCK, FACTOR_FP4 } Factor;

/* The model's time for shape S on curve C. */
static double gemm_model(const Shape *s, double bw, const GemmCurve *c)
{
  double e = c->e * (s->fp8 ? c->fp8 : 1) * (s->block ? c->block : 1) * (s->fp4 ? c->fp4 : 1);
  return MAX(s->flops / (s->peak * e * s->m / (s->m + c->h)), s->bytes / bw) + c->fixed;
}

static double gemm_loss(const GArray *sh, double bw, const GemmCurve *c)
{
  double loss = 0;
  for (guint i = 0; i < sh->len; i++) {
    const Shape *s = &g_array_index(sh, Shape, i);
    double l = log(gemm_model(s, bw, c) / s->seconds);
    loss += l * l;
  }
  return loss;
}

/* Grids over the efficiency (0.1 .. 1.2), the half-peak rows (0.5 .. 8192, log-spaced) and the
 * fixed time (0 .. 40 us) at FP8's factor B.fp8, then finer grids centred on the best, each again
 * while its best moves (along the valley where efficiency trades against half-peak rows): the
 * loss is cheap and has kinks where shapes leave the roofline's memory side, which gradient steps
 * handle badly. */
static void fit_curve(const GArray *sh, double bw, GemmCurve *b)
{
  static const int repeats[] = { 1, 12, 12 };
  for (int pass = 0; pass < 3; pass++)
    for (int rep = 0; rep < repeats[pass]; rep++) {
      double ew = pass == 1 ? 0.01 : 0.0006, hw = pass == 1 ? 0.12 : 0.012, fw = pass == 1 ? 1e-6 : 0.06e-6;
      double e0 = pass ? b->e - ew : 0.1, e1 = pass ? b->e + ew : 1.2;
      /* half-peak rows kept within [0.5, 8192]: the fixed time can stand in for small ones, and a
       * run with few small-M shapes (--quick) would otherwise walk them towards zero */
      double h0 = pass ? MAX(log(b->h) - hw, log(0.5)) : log(0.5);
      double h1 = pass ? MIN(log(b->h) + hw, log(8192.0)) : log(8192.0);
      double f0 = pass ? MAX(b->fixed - fw, 0) : 0, f1 = pass ? b->fixed + fw : 40e-6;
      const int en = pass ? 24 : 110, hn = pass ? 24 : 60, fn = pass ? 20 : 40;
      GemmCurve best = { .loss = INFINITY };
      for (int i = 0; i <= en; i++)
        for (int j = 0; j <= hn; j++)
          for (int k = 0; k <= fn; k++) {
            GemmCurve c = { e0 + (e1 - e0) * i / en, exp(h0 + (h1 - h0) * j / hn), f0 + (f1 - f0) * k / fn,
                            b->fp8, b->block, b->fp4, 0 };
            c.loss = gemm_loss(sh, bw, &c);
            if (c.loss < best.loss)
              best = c;
          }
      gboolean moved = pass == 0 || best.e != b->e || best.h != b->h || best.fixed != b->fixed;
      *b = best;
      if (!moved)
        break;
    }
}

/* The factor F of curve C. */
static double *factor(GemmCurve *c, Factor f)
{
  return f == FACTOR_FP4 ? &c->fp4 : f == FACTOR_BLOCK ? &c->block : &c->fp8;
}

/* Factor F on the curve, the rest held: a grid over 0.1 .. 1.5, then finer ones. */
static void fit_factor(const GArray *sh, double bw, GemmCurve *b, Factor block)
{
  double lo = 0.1, hi = 1.5;
  for (int pass = 0; pass < 3; pass++) {
    GemmCurve best = *b;
    best.loss = INFINITY;
    for (int i = 0; i <= 100; i++) {
      GemmCurve c = *b;
      *factor(&c, block) = lo + (hi - lo) * i / 100;
      c.loss = gemm_loss(sh, bw, &c);
      if (c.loss < best.loss)
        best = c;
    }
    double w = (hi - lo) / 100;
    lo = *factor(&best, block) - w, hi = *factor(&best, block) + w;
    *b = best;
  }
}

/* The curve over every shape, BF16 and FP8 sharing the half-peak rows and fixed time and FP8
 * taking its own factor on the efficiency. BF16 alone starts it (its rows fix the curve without the
 * factor); then the factor and the curve are fitted in turn until the loss settles. */
static GemmCurve fit_gemms(const GArray *sh, double bw)
{
  g_autoptr(GArray) bf16 = g_array_new(FALSE, FALSE, sizeof(Shape));
  gboolean fp8 = FALSE;
  for (guint i = 0; i < sh->len; i++) {
    const Shape *s = &g_array_index(sh, Shape, i);
    if (s->fp8)
      fp8 = TRUE;
    else
      g_array_append_vals(bf16, s, 1);
  }
  GemmCurve c = { .fp8 = 1, .block = 1, .fp4 = 1 };
  fit_curve(bf16->len ? bf16 : sh, bw, &c);
  if (!fp8 || !bf16->len)
    return c;
  for (int round = 0; round < 8; round++) {
    double before = c.loss;
    fit_factor(sh, bw, &c, FACTOR_FP8);
    fit_curve(sh, bw, &c);
    if (round > 0 && c.loss > before * (1 - 1e-6))
      break;
  }
  return c;
}

/* The best rates of every kind, and the HBM efficiency. */
static void best_rates(const BenchData *d, const SystemSpec *sys, CalibrationFit *out)
{
  for (guint i = 0; i < d->rows->len; i++) {
    const BenchRow *r = &g_array_index(d->rows, BenchRow, i);
    double rate = r->bytes / r->seconds;
    if (strcmp(r->kind, "hbm") == 0 && strcmp(r->variant, "write") != 0)
      out->hbm_bw = MAX(out->hbm_bw, rate); /* reads and copies: what decode and GEMMs do */
    else if (strcmp(r->kind, "gemm") == 0 && row_peak(r, sys) > 0) {
      double flops = 2 * r->m * r->n * r->k / r->seconds;
      double *best = strcmp(r->variant, "fp8block") == 0 ? &out->fp8_block_flops
                   : is_fp4(r)                           ? &out->fp4_flops
                   : is_fp8(r)                           ? &out->fp8_flops
                                                         : &out->bf16_flops;
      *best = MAX(*best, flops);
    } else if (strcmp(r->kind, "launch") == 0)
      out->launch = out->launch > 0 ? MIN(out->launch, r->seconds) : r->seconds;
    else if (strcmp(r->kind, "h2d") == 0)
      out->h2d_bw = MAX(out->h2d_bw, rate);
    else if (strcmp(r->kind, "d2h") == 0)
      out->d2h_bw = MAX(out->d2h_bw, rate);
    else if (strcmp(r->kind, "p2p") == 0 && strcmp(r->variant, "unidirectional") == 0)
      out->p2p_bw = MAX(out->p2p_bw, rate);
    else if (strcmp(r->kind, "attn") == 0 && strcmp(r->variant, "decode") == 0)
      out->decode_bw = MAX(out->decode_bw, rate);
    else if (strcmp(r->kind, "attn") == 0 && strcmp(r->variant, "prefill") == 0) /* Q K^T and S V */
      out->prefill_flops = MAX(out->prefill_flops, 4 * r->m * r->m * r->k * r->n / r->seconds);
    else if (strcmp(r->kind, "sfu") == 0 && strcmp(r->variant, "exp2") == 0) /* M threads x N each */
      out->exp_rate = MAX(out->exp_rate, r->m * r->n / r->seconds);
  }
  out->hbm_efficiency = out->hbm_bw / sys->hbm_bandwidth;
  /* the catalog's figure is the units' count x their rate x the clock, which the loop measures
   * whole; a catalog without one (0) has nothing to scale, and the rate is reported only */
  if (sys->exp_rate > 0)
    out->exp_efficiency = out->exp_rate / sys->exp_rate;
}

/* A power phase's rows averaged over the runs merged into D (0 when there is none). */
typedef struct {
  double watts, clock, rate;
} Phase;

static Phase phase(const BenchData *d, const char *variant, double *limit)
{
  Phase p = { 0 };
  int n = 0;
  for (guint i = 0; i < d->rows->len; i++) {
    const BenchRow *r = &g_array_index(d->rows, BenchRow, i);
    if (strcmp(r->kind, "power") != 0 || strcmp(r->variant, variant) != 0)
      continue;
    p.watts += r->m, p.clock += d->sm_clock > 0 ? r->n * 1e6 / d->sm_clock : 0, p.rate += r->bytes / r->seconds;
    *limit = r->k;
    n++;
  }
  if (n)
    p.watts /= n, p.clock /= n, p.rate /= n;
  return p;
}

/* Board power by phase, the sustained GEMM rates and clocks, and what they give the catalog. */
static void power_figures(const BenchData *d, const SystemSpec *sys, CalibrationFit *out)
{
  Phase idle = phase(d, "idle", &out->power_limit), memory = phase(d, "memory", &out->power_limit);
  Phase compute = phase(d, "compute", &out->power_limit), fp8 = phase(d, "compute-fp8", &out->power_limit);
  out->idle_w = idle.watts, out->memory_w = memory.watts;
  out->compute_w = compute.watts, out->compute_clock = compute.clock, out->sustained_flops = compute.rate;
  out->compute_fp8_w = fp8.watts, out->compute_fp8_clock = fp8.clock, out->sustained_fp8_flops = fp8.rate;
  for (guint i = 0; i < d->rows->len; i++) { /* each mix once, in the order first met */
    const BenchRow *r = &g_array_index(d->rows, BenchRow, i);
    if (strcmp(r->kind, "power") != 0 || !g_str_has_prefix(r->variant, "mix") || out->n_mix >= G_N_ELEMENTS(out->mix))
      continue;
    double share = g_ascii_strtod(r->variant + 3, NULL) / 100;
    gboolean seen = FALSE;
    for (guint j = 0; j < out->n_mix; j++)
      seen |= out->mix[j].share == share;
    if (seen)
      continue;
    Phase m = phase(d, r->variant, &out->power_limit);
    out->mix[out->n_mix].share = share, out->mix[out->n_mix].watts = m.watts, out->mix[out->n_mix].clock = m.clock;
    out->n_mix++;
  }
  if (out->idle_w > 0 && out->memory_w > out->idle_w && sys->tdp > out->idle_w)
    out->memory_bound_power = (out->memory_w - out->idle_w) / (sys->tdp - out->idle_w);
  /* the power model with the measured idle and HBM share, at the full clock */
  SystemSpec measured_power = *sys; /* read only: shares SYS's strings */
  measured_power.idle_power = out->idle_w, measured_power.memory_bound_power = out->memory_bound_power;
  for (guint j = 0; j < out->n_mix; j++) {
    double share = out->mix[j].share;
    out->mix[j].model_watts = power_gpu(&measured_power, share + (1 - share) * out->memory_bound_power, 1);
  }
}

/* Bytes each GPU sends one way in collective R of VARIANT ("allreduce", "alltoall"), as comm.c
 * counts them (0: another row). */
static double moved(const BenchRow *r, const char *variant)
{
  double n = r->m;
  if (strcmp(r->kind, "nccl") != 0 || strcmp(r->variant, variant) != 0 || n < 2)
    return 0;
  return strcmp(variant, "allreduce") == 0 ? 2 * (n - 1) / n * r->bytes : (n - 1) / n * r->bytes;
}

typedef struct {
  double moved, seconds, gpus;
} CollectiveTime;

static int by_moved(gconstpointer a, gconstpointer b)
{
  double x = ((const CollectiveTime *)a)->moved, y = ((const CollectiveTime *)b)->moved;
  return (x > y) - (x < y);
}

/* The collective times of VARIANT, smallest message first. */
static GArray *collective_times(const BenchData *d, const char *variant)
{
  GArray *out = g_array_new(FALSE, FALSE, sizeof(CollectiveTime));
  for (guint i = 0; i < d->rows->len; i++) {
    const BenchRow *r = &g_array_index(d->rows, BenchRow, i);
    double x = moved(r, variant);
    if (x > 0)
      g_array_append_val(out, ((CollectiveTime){ x, r->seconds, r->m }));
  }
  g_array_sort(out, by_moved);
  return out;
}

typedef struct {
  double latency, s_per_byte, residual; /* residual: weighted sum of squares */
} Line;

/* t = latency + moved x s_per_byte through times N of T by least squares weighted by 1/t^2
 * (relative error): small messages fix the latency, large ones the bandwidth. FALSE where they do
 * not fix a line with a positive slope. */
static gboolean fit_line(const CollectiveTime *t, guint n, Line *out)
{
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (guint i = 0; i < n; i++) {
    double w = 1 / (t[i].seconds * t[i].seconds), x = t[i].moved, y = t[i].seconds;
    sw += w, sx += w * x, sy += w * y, sxx += w * x * x, sxy += w * x * y;
  }
  double det = sw * sxx - sx * sx;
  if (n < 2 || !(det > 0))
    return FALSE;
  out->s_per_byte = (sw * sxy - sx * sy) / det;
  out->latency = (sy - out->s_per_byte * sx) / sw;
  out->residual = 0;
  for (guint i = 0; i < n; i++) {
    double e = t[i].seconds - out->latency - out->s_per_byte * t[i].moved;
    out->residual += e * e / (t[i].seconds * t[i].seconds);
  }
  return out->s_per_byte > 0;
}

/* The all-reduce's two regimes (profile.h): every split of the times into smaller and larger
 * messages, at least two each side, whose lines cross (the small messages' starts sooner and moves
 * bytes slower); the split whose two lines leave the least residual, where that is under half of
 * one line's (a GPU whose runs sit on one line gets it for both regimes). FALSE: no line. */
static gboolean fit_allreduce(const GArray *times, Line *small, Line *bulk, double *split)
{
  const CollectiveTime *t = (const CollectiveTime *)times->data;
  guint n = times->len;
  if (!fit_line(t, n, small))
    return FALSE;
  *bulk = *small, *split = 0;
  if (small->residual <= 1e-9 * n) /* within ~3e-5 of every time: one line is the answer */
    return TRUE;
  double best = 0.5 * small->residual;
  for (guint k = 2; k + 2 <= n; k++) {
    Line a, b;
    if (!fit_line(t, k, &a) || !fit_line(t + k, n - k, &b))
      continue;
    if (!(a.s_per_byte > b.s_per_byte && a.latency < b.latency) || a.residual + b.residual >= best)
      continue;
    best = a.residual + b.residual;
    *small = a, *bulk = b, *split = t[k].moved;
  }
  return TRUE;
}

static void fit_collectives(const BenchData *d, const SystemSpec *sys, CalibrationFit *out)
{
  double one_way = sys->nvlink_bandwidth / 2;
  if (!(one_way > 0))
    return;
  g_autoptr(GArray) a2a = collective_times(d, "alltoall"), ar = collective_times(d, "allreduce");
  Line l, bulk;
  if (fit_line((const CollectiveTime *)a2a->data, a2a->len, &l)) {
    out->nvlink_efficiency = 1 / l.s_per_byte / one_way;
    out->collective_latency = MAX(0.0, l.latency);
    out->alltoall_rows = a2a->len;
  }
  if (fit_allreduce(ar, &l, &bulk, &out->allreduce_split)) {
    out->allreduce_efficiency = 1 / l.s_per_byte / one_way;
    out->allreduce_latency = MAX(0.0, l.latency);
    out->allreduce_bulk_efficiency = 1 / bulk.s_per_byte / one_way;
    out->allreduce_bulk_latency = MAX(0.0, bulk.latency);
    /* the same times as the switch's reduction: (n+1)/n of the message each way where the ring's
     * reading counts 2(n-1)/n, over the largest run's GPUs */
    double n = g_array_index(ar, CollectiveTime, ar->len - 1).gpus;
    out->allreduce_gpus = n;
    out->allreduce_nvls_efficiency = out->allreduce_bulk_efficiency * (n + 1) / (2 * (n - 1));
    out->allreduce_rows = ar->len;
  }
}

static gboolean fit_finite(const CalibrationFit *fit, const SystemSpec *sys, GError **error);

/* The grouped (expert) GEMMs' time on tiles of TILE rows (moe_tile_rows, as step_time.c charges
 * them) at the dense curve's rate for their precision (BF16, FP8, block-scaled FP8 where the GPU
 * ran it), or their weights' read; log error squared, summed. */
static double grouped_dense_rate(const BenchRow *r, const SystemSpec *sys, const CalibrationFit *f)
{
  if (strcmp(r->kind, "grouped") != 0 || r->m <= 0 || r->n <= 0 || r->k <= 0 || is_fp4(r))
    return 0;
  if (!is_fp8(r))
    return strcmp(r->variant, "bf16") == 0 ? sys->flops_bf16 * f->gemm_efficiency : 0;
  double block = strcmp(r->variant, "fp8block") == 0 ? f->fp8_block_efficiency : 1;
  return sys->flops_fp8 * f->gemm_efficiency * f->fp8_efficiency * block;
}

static gboolean is_grouped(const BenchRow *r, const SystemSpec *sys, const CalibrationFit *f)
{
  return grouped_dense_rate(r, sys, f) > 0;
}

/* A grouped row's experts: its weight bytes over one expert's (FP8: a byte a weight, BF16 two). */
static double grouped_experts(const BenchRow *r)
{
  return r->bytes / ((is_fp8(r) ? 1 : 2) * r->n * r->k);
}

static double grouped_loss(const BenchData *d, const SystemSpec *sys, const CalibrationFit *f, double tile)
{
  double loss = 0;
  for (guint i = 0; i < d->rows->len; i++) {
    const BenchRow *r = &g_array_index(d->rows, BenchRow, i);
    if (!is_grouped(r, sys, f))
      continue;
    double experts = grouped_experts(r);
    double rate = grouped_dense_rate(r, sys, f) * r->m / moe_tile_rows(r->m, tile);
    double t = MAX(2 * experts * r->m * r->n * r->k / rate, r->bytes / f->hbm_bw) + f->gemm_fixed;
    double l = log(t / r->seconds);
    loss += l * l;
  }
  return loss;
}

/* The grouped GEMMs' tile rows: a log grid from 1 to 1,024 rows, then a finer one around the best.
 * Left 0 (not measured) without grouped rows, or where the tile is not pinned: a tile 1.5x smaller
 * or larger must explain the runs worse (with few rows per expert every GEMM reads its weights,
 * and any tile below some size fits alike). */
static void fit_grouped(const BenchData *d, const SystemSpec *sys, CalibrationFit *out)
{
  for (guint i = 0; i < d->rows->len; i++) {
    const BenchRow *r = &g_array_index(d->rows, BenchRow, i);
    if (!is_grouped(r, sys, out))
      continue;
    out->grouped_rows++;
    double experts = grouped_experts(r);
    double flops = 2 * experts * r->m * r->n * r->k / r->seconds;
    double *best = is_fp8(r) ? &out->grouped_fp8_flops : &out->grouped_bf16_flops;
    *best = MAX(*best, flops);
  }
  if (out->grouped_rows == 0)
    return;
  double best = 0, best_loss = INFINITY;
  for (int i = 0; i <= 200; i++) {
    double tile = pow(2, i / 20.0), l = grouped_loss(d, sys, out, tile);
    if (l < best_loss)
      best_loss = l, best = tile;
  }
  for (int i = -20; i <= 20; i++) {
    double tile = best * pow(2, i / 400.0), l = grouped_loss(d, sys, out, tile);
    if (l < best_loss)
      best_loss = l, best = tile;
  }
  gboolean pinned = grouped_loss(d, sys, out, best / 1.5) > best_loss + 1e-6 &&
                    grouped_loss(d, sys, out, best * 1.5) > best_loss + 1e-6;
  if (pinned)
    out->grouped_tile_m = best, out->grouped_rms_log_error = sqrt(best_loss / out->grouped_rows);
}

gboolean calibrate_fit(const BenchData *d, const SystemSpec *sys, CalibrationFit *out, GError **error)
{
  *out = (CalibrationFit){ 0 };
  best_rates(d, sys, out);
  g_autoptr(GArray) all = shapes(d, sys, NULL);
  out->gemm_rows = all->len;
  if (out->hbm_bw <= 0 || out->gemm_rows == 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "the measurements need HBM read or copy rows and GEMM rows "
                "at a precision %s supports", sys->id);
    return FALSE;
  }
  GemmCurve c = fit_gemms(all, out->hbm_bw);
  out->gemm_efficiency = c.e, out->fp8_efficiency = c.fp8, out->gemm_half_m = c.h, out->gemm_fixed = c.fixed;
  out->rms_log_error = sqrt(c.loss / out->gemm_rows);
  g_autoptr(GArray) block = shapes(d, sys, "fp8block");
  if (block->len) { /* block scaling's factor on the FP8 curve, the curve held */
    fit_factor(block, out->hbm_bw, &c, FACTOR_BLOCK);
    out->fp8_block_efficiency = c.block;
  }
  g_autoptr(GArray) fp4 = shapes(d, sys, "fp4");
  if (fp4->len) { /* FP4's share of its own peak: the profile keeps it whole, not as a factor */
    fit_factor(fp4, out->hbm_bw, &c, FACTOR_FP4);
    out->fp4_efficiency = c.e * c.fp4;
  }
  fit_grouped(d, sys, out);
  fit_collectives(d, sys, out);
  power_figures(d, sys, out);
  return fit_finite(out, sys, error);
}

/* The profile keys a calibration sets (per architecture), with the fit figure each comes from. A
 * key is measured when its figure is positive; the collectives' when their rows were timed. The
 * grouped GEMMs' tile is reported, not set: cuBLAS's batched kernel is not the grouped kernel a
 * serving stack runs its experts with (DeepGEMM, CUTLASS, Triton), and on an H200 it behaves as a
 * 155-row tile where the measured rows want 16-64 (docs/validation.md, "The grouped GEMMs"). */
typedef enum { BY_FIGURE, BY_ALLTOALL, BY_ALLREDUCE, BY_ALLREDUCE_RING, BY_ALLREDUCE_NVLS } MeasuredBy;

static const struct {
  const char *key;
  size_t fit;
  MeasuredBy by;
} measured[] = {
  { "hbm_efficiency", offsetof(CalibrationFit, hbm_efficiency), BY_FIGURE },
  { "gemm_efficiency", offsetof(CalibrationFit, gemm_efficiency), BY_FIGURE },
  { "fp8_efficiency", offsetof(CalibrationFit, fp8_efficiency), BY_FIGURE },
  { "gemm_half_m", offsetof(CalibrationFit, gemm_half_m), BY_FIGURE },
  { "fp8_block_efficiency", offsetof(CalibrationFit, fp8_block_efficiency), BY_FIGURE },
  { "fp4_efficiency", offsetof(CalibrationFit, fp4_efficiency), BY_FIGURE },
  { "exp_efficiency", offsetof(CalibrationFit, exp_efficiency), BY_FIGURE },
  { "nvlink_efficiency", offsetof(CalibrationFit, nvlink_efficiency), BY_ALLTOALL },
  { "collective_latency", offsetof(CalibrationFit, collective_latency), BY_ALLTOALL },
  { "allreduce_latency", offsetof(CalibrationFit, allreduce_latency), BY_ALLREDUCE },
  { "allreduce_efficiency", offsetof(CalibrationFit, allreduce_efficiency), BY_ALLREDUCE },
  { "allreduce_bulk_latency", offsetof(CalibrationFit, allreduce_bulk_latency), BY_ALLREDUCE_RING },
  { "allreduce_bulk_efficiency", offsetof(CalibrationFit, allreduce_bulk_efficiency), BY_ALLREDUCE_RING },
  { "allreduce_nvls_latency", offsetof(CalibrationFit, allreduce_bulk_latency), BY_ALLREDUCE_NVLS },
  { "allreduce_nvls_efficiency", offsetof(CalibrationFit, allreduce_nvls_efficiency), BY_ALLREDUCE_NVLS },
};

/* Whether NCCL ran the runs' large all-reduces in the switch (NVLS) rather than as a ring: where no
 * ring moves bytes that fast (its reading above 1), or where P (the profile they go into, NULL:
 * none) has a switch line for the architecture and the runs beat its ring line, which NCCL would
 * have run had it been the faster. Never where the switch's reading would pass its bound (a ring
 * of 2 GPUs moves less than the switch does). The answer is the same before and after
 * calibrate_apply writes the runs into P. */
static gboolean bulk_is_nvls(const CalibrationFit *fit, const SystemSpec *sys, const Profile *p)
{
  if (!(fit->allreduce_rows > 0) || !(fit->allreduce_nvls_efficiency <= 1))
    return FALSE;
  const ArchProfile *a = p ? &p->arch[sys->arch] : NULL;
  return fit->allreduce_bulk_efficiency > 1 ||
         (a && a->allreduce_nvls_efficiency > 0 && fit->allreduce_bulk_efficiency > a->allreduce_bulk_efficiency);
}

static double fit_figure(const CalibrationFit *fit, gsize i)
{
  return *(const double *)((const char *)fit + measured[i].fit);
}

/* Whether calibrate_apply writes key I of FIT, its large all-reduces read as the switch's where
 * NVLS (bulk_is_nvls, decided once on the profile as it was) and as the ring's elsewhere. */
static gboolean is_measured(const CalibrationFit *fit, gsize i, gboolean nvls)
{
  switch (measured[i].by) {
  case BY_ALLTOALL:
    return fit->alltoall_rows > 0;
  case BY_ALLREDUCE:
    return fit->allreduce_rows > 0;
  case BY_ALLREDUCE_RING:
    return fit->allreduce_rows > 0 && !nvls;
  case BY_ALLREDUCE_NVLS:
    return fit->allreduce_rows > 0 && nvls;
  default:
    return fit_figure(fit, i) > 0;
  }
}

/* A profile is never written with a figure that is not a number: runs whose figures are inside
 * the parser's bounds can still combine into one (a GEMM timed at the shortest time on the largest
 * shape). */
static gboolean fit_finite(const CalibrationFit *fit, const SystemSpec *sys, GError **error)
{
  double power[] = { fit->idle_w, fit->memory_w, fit->compute_w, fit->memory_bound_power, fit->compute_clock };
  for (gsize i = 0; i < G_N_ELEMENTS(measured); i++) {
    g_autofree char *path = g_strdup_printf("%s.%s", gpu_arch_names[sys->arch], measured[i].key);
    const KtKey *key = kt_find(&profile_table, path);
    double v = fit_figure(fit, i);
    /* a share of the datasheet's peak above 1 (above its key's bound for a factor) is a run faster
     * than the hardware: a wrong column, or the runs of another GPU than the catalog entry's */
    gboolean above = (key->dim == DIM_FRACTION && v > 1) || (key->max > 0 && v > key->max);
    /* (the large all-reduces' ring reading passes 1 only where it is the switch's, whose reading
     * then must not: bulk_is_nvls) */
    if (!isfinite(v) || (is_measured(fit, i, bulk_is_nvls(fit, sys, NULL)) && above)) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "the runs give %s = %g: not a measurement of %s (check the "
                  "runs' SECONDS and BYTES columns, and --system)", path, v, sys->id);
      return FALSE;
    }
  }
  /* the catalog's rate is the units' count x their rate x a clock: a loop four times off it is
   * another GPU's, or a column read wrong, not this GPU's clock */
  if (fit->exp_efficiency > 0 && (fit->exp_efficiency > 4 || fit->exp_efficiency < 0.25)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "the runs give %.3g exponentials/s, %.3gx the catalog's %.3g for "
                "%s: not a measurement of it (check the sfu rows' M, N and SECONDS, and --system)", fit->exp_rate,
                fit->exp_efficiency, sys->exp_rate, sys->id);
    return FALSE;
  }
  for (gsize i = 0; i < G_N_ELEMENTS(power); i++)
    if (!isfinite(power[i])) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "the runs' power phases give a figure that is not a number");
      return FALSE;
    }
  return TRUE;
}

void calibrate_apply(const CalibrationFit *fit, const SystemSpec *sys, Profile *p)
{
  gboolean nvls = bulk_is_nvls(fit, sys, p); /* decided on P as it was */
  for (gsize i = 0; i < G_N_ELEMENTS(measured); i++) {
    if (!is_measured(fit, i, nvls))
      continue;
    g_autofree char *path = g_strdup_printf("%s.%s", gpu_arch_names[sys->arch], measured[i].key);
    const KtKey *key = kt_find(&profile_table, path);
    *(double *)((char *)p + key->offset) = fit_figure(fit, i);
  }
}

char *calibrate_measured_keys(const CalibrationFit *fit, const SystemSpec *sys, const Profile *p)
{
  GString *s = g_string_new(NULL);
  gboolean nvls = bulk_is_nvls(fit, sys, p);
  for (gsize i = 0; i < G_N_ELEMENTS(measured); i++)
    if (is_measured(fit, i, nvls))
      g_string_append_printf(s, "%s%s.%s", s->len ? "," : "", gpu_arch_names[sys->arch], measured[i].key);
  return g_string_free(s, FALSE);
}
