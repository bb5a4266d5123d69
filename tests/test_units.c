/* test_units.c — the quantity parser and printer against hand-worked conversions. */
#include "test_util.h"
#include "units.h"

static double parse_ok(const char *text, UnitDim dim)
{
  double v = -1;
  const char *why = NULL;
  ck_assert_msg(units_parse(text, dim, &v, &why), "'%s' refused: %s", text, why);
  return v;
}

static const char *parse_bad(const char *text, UnitDim dim)
{
  double v;
  const char *why = NULL;
  ck_assert_msg(!units_parse(text, dim, &v, &why), "'%s' accepted as %g", text, v);
  return why;
}

START_TEST(decimal_prefixes)
{
  ck_assert_close(parse_ok("1.8 TB/s", DIM_BANDWIDTH), 1.8e12, 1e-12);
  ck_assert_close(parse_ok("141 GB", DIM_BYTES), 141e9, 1e-12);
  ck_assert_close(parse_ok("700 W", DIM_POWER), 700, 1e-12);
  ck_assert_close(parse_ok("100 MW", DIM_POWER), 1e8, 1e-12);
  ck_assert_close(parse_ok("989 TFLOP/s", DIM_FLOPS), 9.89e14, 1e-12);
  ck_assert_close(parse_ok("1979TFLOPS", DIM_FLOPS), 1.979e15, 1e-12);
  ck_assert_close(parse_ok("5 kJ", DIM_ENERGY), 5000, 1e-12);
  ck_assert_close(parse_ok("1 kWh", DIM_ENERGY), 3.6e6, 1e-12);
}
END_TEST

START_TEST(bits_and_binary)
{
  ck_assert_close(parse_ok("400 Gb/s", DIM_BANDWIDTH), 50e9, 1e-12); /* 400e9 / 8 */
  ck_assert_close(parse_ok("1.6 Tbps", DIM_BANDWIDTH), 200e9, 1e-12);
  ck_assert_close(parse_ok("100 GBps", DIM_BANDWIDTH), 100e9, 1e-12);
  ck_assert_close(parse_ok("80 GiB", DIM_BYTES), 80.0 * 1073741824.0, 1e-12);
  ck_assert_close(parse_ok("16 KiB", DIM_BYTES), 16384, 1e-12);
}
END_TEST

START_TEST(time_units)
{
  ck_assert_close(parse_ok("2 us", DIM_TIME), 2e-6, 1e-12);
  ck_assert_close(parse_ok("2 \xc2\xb5s", DIM_TIME), 2e-6, 1e-12);
  ck_assert_close(parse_ok("15 ms", DIM_TIME), 0.015, 1e-12);
  ck_assert_close(parse_ok("3 min", DIM_TIME), 180, 1e-12);
  ck_assert_close(parse_ok("2 h", DIM_TIME), 7200, 1e-12);
  ck_assert_close(parse_ok("4 y", DIM_TIME), 4 * 365.25 * 86400, 1e-12);
  parse_bad("5 Ms", DIM_TIME); /* mega-seconds are not a thing anyone means */
}
END_TEST

START_TEST(fractions_money_rates)
{
  ck_assert_close(parse_ok("30%", DIM_FRACTION), 0.3, 1e-12);
  ck_assert_close(parse_ok("0.7", DIM_FRACTION), 0.7, 1e-12);
  ck_assert_close(parse_ok("0.08 USD/kWh", DIM_ENERGY_PRICE), 0.08 / 3.6e6, 1e-12);
  ck_assert_close(parse_ok("$0.08/kWh", DIM_ENERGY_PRICE), 0.08 / 3.6e6, 1e-12);
  ck_assert_close(parse_ok("$30000", DIM_MONEY), 30000, 1e-12);
  ck_assert_close(parse_ok("10 req/s", DIM_RATE), 10, 1e-12);
  ck_assert_close(parse_ok("42", DIM_NONE), 42, 1e-12);
  ck_assert_close(parse_ok("671e9", DIM_NONE), 671e9, 1e-12);
}
END_TEST

START_TEST(refusals_say_why)
{
  ck_assert_str_eq(parse_bad("700", DIM_POWER), "a unit after the number");
  ck_assert_str_eq(parse_bad("700 X", DIM_POWER), "a known unit");
  ck_assert_str_eq(parse_bad("700 s", DIM_POWER), "a known unit"); /* wrong dimension */
  ck_assert_str_eq(parse_bad("fast", DIM_BANDWIDTH), "a number with a unit");
  ck_assert_str_eq(parse_bad("8 GB", DIM_NONE), "a plain number without a unit");
  parse_bad("", DIM_NONE);
  parse_bad("nan W", DIM_POWER);
}
END_TEST

START_TEST(format_round_trips)
{
  static const struct { double v; UnitDim d; const char *text; } cases[] = {
    { 1.8e12, DIM_BANDWIDTH, "1.8 TB/s" }, { 141e9, DIM_BYTES, "141 GB" }, { 700, DIM_POWER, "700 W" },
    { 2e-6, DIM_TIME, "2 us" }, { 1e8, DIM_POWER, "100 MW" }, { 0.3, DIM_FRACTION, "30%" },
    { 9.89e14, DIM_FLOPS, "989 TFLOP/s" }, { 0.08 / 3.6e6, DIM_ENERGY_PRICE, "0.08 USD/kWh" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    g_autofree char *t = units_format(cases[i].v, cases[i].d);
    ck_assert_str_eq(t, cases[i].text);
    ck_assert_close(parse_ok(t, cases[i].d), cases[i].v, 1e-9);
  }
}
END_TEST

/* Files that are read again (the resolved scenario, the catalog copy, profiles) must give back
 * every figure to the bit: an H200's 143,771 MiB is 150,754,820,096 B, which 6 digits ("150.755
 * GB") do not hold, so the exact form takes the digits it needs ("150.754820096 GB"); figures 6
 * digits hold keep their short form. Every dimension, over values of every size. */
START_TEST(exact_format_reads_back_bit_for_bit)
{
  g_autofree char *h200 = units_format_exact(143771.0 * 1048576, DIM_BYTES);
  ck_assert_str_eq(h200, "150.754820096 GB");
  g_autofree char *short_form = units_format_exact(141e9, DIM_BYTES);
  ck_assert_str_eq(short_form, "141 GB");
  GRand *r = g_rand_new_with_seed(7);
  static const UnitDim dims[] = { DIM_BYTES, DIM_BANDWIDTH, DIM_POWER, DIM_TIME, DIM_FRACTION, DIM_FLOPS,
                                  DIM_ENERGY_PRICE, DIM_NONE };
  for (gsize d = 0; d < G_N_ELEMENTS(dims); d++)
    for (int k = 0; k < 2000; k++) {
      double v = g_rand_double(r) * pow(10, g_rand_int_range(r, -9, 19));
      g_autofree char *t = units_format_exact(v, dims[d]);
      double back = NAN;
      const char *why = NULL;
      ck_assert_msg(units_parse(t, dims[d], &back, &why) && back == v, "%.17g as '%s' reads back as %.17g", v, t,
                    back);
    }
  g_rand_free(r);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("units");
  TCase *tc = tcase_create("parse");
  tcase_add_test(tc, decimal_prefixes);
  tcase_add_test(tc, bits_and_binary);
  tcase_add_test(tc, time_units);
  tcase_add_test(tc, fractions_money_rates);
  tcase_add_test(tc, refusals_say_why);
  tcase_add_test(tc, format_round_trips);
  tcase_add_test(tc, exact_format_reads_back_bit_for_bit);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
