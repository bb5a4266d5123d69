/* calibrate.c — reading the calibration kernels' output and fitting the profile (calibrate.h). */
#include "calibrate.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aif_error.h"
#include "precision.h"

void bench_data_clear(BenchData *d)
{
  g_clear_pointer(&d->device, g_free);
  g_clear_pointer(&d->rows, g_array_unref);
}

static gboolean number(const char *s, double *v)
{
  char *end;
  if (!*s) {
    *v = 0;
    return TRUE;
  }
  *v = g_ascii_strtod(s, &end);
  return *end == '\0' && isfinite(*v) && *v >= 0;
}

/* The column of field F on LINE (1-based), for messages. */
static int column(char **f, int i)
{
  int col = 1;
  for (int k = 0; k < i; k++)
    col += (int)strlen(f[k]) + 1;
  return col;
}

static gboolean parse_device(char **f, guint nf, const char *name, int line, BenchData *out, GError **error)
{
  double v[5];
  if (nf != 7) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: expected device,NAME,SMS,SM_CLOCK_KHZ,MEMORY_BYTES,CC_MAJOR,CC_MINOR", name, line);
    return FALSE;
  }
  for (int i = 0; i < 5; i++)
    if (!number(f[i + 2], &v[i])) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: expected a number, got '%s'", name, line, column(f, i + 2), f[i + 2]);
      return FALSE;
    }
  g_free(out->device);
  out->device = g_strdup(f[1]);
  out->sms = (int)v[0], out->sm_clock = v[1] * 1e3, out->memory = v[2];
  out->cc_major = (int)v[3], out->cc_minor = (int)v[4];
  return TRUE;
}

static gboolean parse_row(char **f, guint nf, const char *name, int line, BenchData *out, GError **error)
{
  static const char *const kinds[] = { "hbm", "gemm", "attn", "launch", "h2d", "d2h", "p2p", "nccl", NULL };
  if (!g_strv_contains(kinds, f[0])) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:1: unknown measurement '%s' (expected device, hbm, gemm, attn, launch, h2d, d2h, p2p or nccl)", name, line, f[0]);
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
    if (!number(f[i + 2], v[i]) || (i == 4 && *v[i] <= 0)) {
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: expected a %s number, got '%s'", name, line,
                  column(f, i + 2), i == 4 ? "positive" : "non-negative", f[i + 2]);
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

static double row_peak(const BenchRow *r, const SystemSpec *sys)
{
  return system_peak_flops(sys, strcmp(r->variant, "fp8") == 0 ? PREC_FP8 : PREC_BF16);
}

/* The model's time for GEMM row R at efficiency E and half-peak rows H. */
static double gemm_model(const BenchRow *r, double peak, double bw, double e, double h)
{
  double t_compute = 2 * r->m * r->n * r->k / (peak * e * r->m / (r->m + h));
  return MAX(t_compute, r->bytes / bw);
}

static double gemm_loss(const BenchData *d, const SystemSpec *sys, double bw, double e, double h)
{
  double loss = 0;
  for (guint i = 0; i < d->rows->len; i++) {
    const BenchRow *r = &g_array_index(d->rows, BenchRow, i);
    double peak = row_peak(r, sys);
    if (strcmp(r->kind, "gemm") != 0 || peak <= 0 || r->m <= 0)
      continue;
    double l = log(gemm_model(r, peak, bw, e, h) / r->seconds);
    loss += l * l;
  }
  return loss;
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
      double *best = strcmp(r->variant, "fp8") == 0 ? &out->fp8_flops : &out->bf16_flops;
      *best = MAX(*best, flops);
      out->gemm_rows++;
    } else if (strcmp(r->kind, "launch") == 0)
      out->launch = out->launch > 0 ? MIN(out->launch, r->seconds) : r->seconds;
    else if (strcmp(r->kind, "h2d") == 0)
      out->h2d_bw = MAX(out->h2d_bw, rate);
    else if (strcmp(r->kind, "d2h") == 0)
      out->d2h_bw = MAX(out->d2h_bw, rate);
    else if (strcmp(r->kind, "p2p") == 0 && strcmp(r->variant, "unidirectional") == 0)
      out->p2p_bw = MAX(out->p2p_bw, rate);
  }
  out->hbm_efficiency = out->hbm_bw / sys->hbm_bandwidth;
}

/* Bytes each GPU sends one way in collective R, as comm.c counts them (0: not a collective). */
static double moved(const BenchRow *r)
{
  double n = r->m;
  if (strcmp(r->kind, "nccl") != 0 || n < 2)
    return 0;
  return strcmp(r->variant, "allreduce") == 0 ? 2 * (n - 1) / n * r->bytes
       : strcmp(r->variant, "alltoall") == 0   ? (n - 1) / n * r->bytes
                                               : 0;
}

/* t = latency + moved x s_per_byte by least squares weighted by 1/t^2 (relative error): small
 * messages fix the latency, large ones the bandwidth. */
static void fit_collectives(const BenchData *d, const SystemSpec *sys, CalibrationFit *out)
{
  double sw = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (guint i = 0; i < d->rows->len; i++) {
    const BenchRow *r = &g_array_index(d->rows, BenchRow, i);
    double x = moved(r);
    if (x <= 0)
      continue;
    double w = 1 / (r->seconds * r->seconds);
    sw += w, sx += w * x, sy += w * r->seconds, sxx += w * x * x, sxy += w * x * r->seconds;
    out->nccl_rows++;
  }
  double det = sw * sxx - sx * sx;
  if (out->nccl_rows < 2 || det <= 0 || sys->nvlink_bandwidth <= 0) {
    out->nccl_rows = 0;
    return;
  }
  double slope = (sw * sxy - sx * sy) / det, latency = (sy - slope * sx) / sw;
  if (slope <= 0) {
    out->nccl_rows = 0;
    return;
  }
  out->nvlink_efficiency = 1 / slope / (sys->nvlink_bandwidth / 2);
  out->collective_latency = MAX(0.0, latency);
}

gboolean calibrate_fit(const BenchData *d, const SystemSpec *sys, CalibrationFit *out, GError **error)
{
  *out = (CalibrationFit){ 0 };
  best_rates(d, sys, out);
  if (out->hbm_bw <= 0 || out->gemm_rows == 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "the measurements need HBM read or copy rows and GEMM rows "
                "at a precision %s supports", sys->id);
    return FALSE;
  }
  /* a grid over the efficiency (0.1 .. 1.2) and half-peak rows (0.5 .. 8192, log-spaced), then a
   * finer grid around the best: the loss is cheap and has kinks where rows leave the roofline's
   * memory side, which gradient steps handle badly */
  double bw = out->hbm_bw, best = INFINITY, be = 0, bh = 0;
  for (int pass = 0; pass < 2; pass++) {
    double e0 = pass ? be - 0.01 : 0.1, e1 = pass ? be + 0.01 : 1.2, estep = pass ? 0.0002 : 0.005;
    double h0 = pass ? log(bh) - 0.1 : log(0.5), h1 = pass ? log(bh) + 0.1 : log(8192.0);
    int hn = pass ? 100 : 220;
    for (double e = e0; e <= e1 + 1e-12; e += estep)
      for (int j = 0; j <= hn; j++) {
        double h = exp(h0 + (h1 - h0) * j / hn);
        double l = gemm_loss(d, sys, bw, e, h);
        if (l < best)
          best = l, be = e, bh = h;
      }
  }
  out->gemm_efficiency = be, out->gemm_half_m = bh;
  out->rms_log_error = sqrt(best / out->gemm_rows);
  fit_collectives(d, sys, out);
  return TRUE;
}

void calibrate_apply(const CalibrationFit *fit, const SystemSpec *sys, Profile *p)
{
  ArchProfile *a = &p->arch[sys->arch];
  a->hbm_efficiency = fit->hbm_efficiency;
  a->gemm_efficiency = fit->gemm_efficiency;
  a->gemm_half_m = fit->gemm_half_m;
  if (fit->nccl_rows) {
    a->nvlink_efficiency = fit->nvlink_efficiency;
    a->collective_latency = fit->collective_latency;
  }
}
