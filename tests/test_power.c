/* test_power.c — the power and factory models against hand-worked numbers: fabric sizing and
 * optics, GPU power and caps, IT power of whole systems against the component model in reference.md,
 * and the facility arithmetic of a 100 MW Hopper factory. */
#include "test_util.h"
#include "factory.h"
#include "power.h"

static FabricSpec fabric(int optics, int copper)
{
  return (FabricSpec){ .radix = 64, .optics = optics, .copper_first_tier = copper, .transceiver_power = 30,
                       .transceiver_cost = 1000, .cpo_port_power = 9, .switch_port_power = 14 };
}

START_TEST(fat_tree_tiers)
{
  /* radix 64: 64 endpoints on one switch, 64^2/2 = 2048 in two tiers, 64^3/4 = 65,536 in three */
  ck_assert_int_eq(fabric_tiers_for(64, 64), 1);
  ck_assert_int_eq(fabric_tiers_for(65, 64), 2);
  ck_assert_int_eq(fabric_tiers_for(2048, 64), 2);
  ck_assert_int_eq(fabric_tiers_for(2049, 64), 3);
  ck_assert_int_eq(fabric_tiers_for(65536, 64), 3);
  ck_assert_int_eq(fabric_tiers_for(65537, 64), 4);
  /* what a tree holds: 64 x 32^2 = 65,536 in three tiers; 256 x 128^2 = 4,194,304 */
  ck_assert_close(fabric_capacity(3, 64), 65536, 1e-12);
  ck_assert_close(fabric_capacity(3, 256), 4194304, 1e-12);
  /* asked for three tiers of radix 64, 100,008 GPUs do not fit; sized (tiers 0), they take four */
  FabricSpec f = fabric(OPTICS_PLUGGABLE, FALSE);
  FabricPlan fp;
  f.tiers = 3;
  fabric_plan(&f, 100008, &fp);
  ck_assert(!fp.fits);
  f.tiers = 0;
  fabric_plan(&f, 100008, &fp);
  ck_assert(fp.fits);
  ck_assert_int_eq(fp.tiers, 4);
}
END_TEST

/* The nameplate covers the GPUs the entry says, fixed when the catalog loads: a GB200 NVL72 rack's
 * 120 kW over its 72 GPUs is 1,666.7 W per GPU, whatever NVLink domain a scenario then asks for (the
 * domain once chose the divisor: an 8-GPU domain divided the rack by a 4-GPU tray, 30 kW per GPU,
 * 18x). An HGX H200 server's 10.2 kW over its 8 GPUs is 1,275 W. */
START_TEST(nameplate_per_gpu)
{
  g_autoptr(Catalog) cat = shipped_catalog();
  SystemSpec gb = *catalog_system(cat, "gb200-nvl72");
  ck_assert_int_eq(gb.system_power_gpus, 72);
  ck_assert_close(power_nameplate_per_gpu(&gb), 120000.0 / 72, 1e-12);
  gb.nvlink_domain_gpus = 8;
  ck_assert_close(power_nameplate_per_gpu(&gb), 120000.0 / 72, 1e-12);
  const SystemSpec *h = catalog_system(cat, "h200-sxm-hgx8");
  ck_assert_close(power_nameplate_per_gpu(h), 1275, 1e-12);
  /* an entry that does not say: the rack's when the rack is one domain, else the server's */
  SystemSpec u = gb;
  u.system_power_gpus = 0, u.nvlink_domain_gpus = 72;
  ck_assert_int_eq(system_power_unit(&u), 72);
  u.nvlink_domain_gpus = 8;
  ck_assert_int_eq(system_power_unit(&u), 4);
}
END_TEST

/* 45,824 GPUs, radix 64 -> 3 tiers; switches ceil(5 x 45,824 / 64) = 3,580; links 3 x 45,824.
 * Pluggable: 2 transceivers per link -> 6 per GPU = 274,944, x 30 W = 8.248 MW (180 W per GPU).
 * Switch ports: 3,580 x 64 x 14 W = 3.208 MW. CPO: NIC ends stay pluggable (45,824 x 30 W) and the
 * 5 switch ends per GPU are co-packaged (229,120 x 9 W): 3.437 MW, 75 W per GPU. Copper in the first
 * tier leaves 4 transceivers per GPU: 120 W. */
START_TEST(optics_of_a_fat_tree)
{
  FabricSpec p = fabric(OPTICS_PLUGGABLE, FALSE), c = fabric(OPTICS_CPO, FALSE), cu = fabric(OPTICS_PLUGGABLE, TRUE);
  FabricPlan fp, fc, fcu;
  fabric_plan(&p, 45824, &fp);
  ck_assert_int_eq(fp.tiers, 3);
  ck_assert_close(fp.switches, 3580, 1e-12);
  ck_assert_close(fp.links, 3 * 45824.0, 1e-12);
  ck_assert_close(fp.transceivers, 274944, 1e-12);
  ck_assert_close(fp.optics_w, 8248320, 1e-12);
  ck_assert_close(fp.optics_w_per_gpu, 180, 1e-12);
  ck_assert_close(fp.switch_w, 3580.0 * 64 * 14, 1e-12);
  ck_assert_close(fp.optics_usd, 274944000, 1e-12);
  fabric_plan(&c, 45824, &fc);
  ck_assert_close(fc.transceivers, 45824, 1e-12);
  ck_assert_close(fc.cpo_ports, 229120, 1e-12);
  ck_assert_close(fc.optics_w_per_gpu, 75, 1e-12);
  fabric_plan(&cu, 45824, &fcu);
  ck_assert_close(fcu.optics_w_per_gpu, 120, 1e-12);
  /* the keynote: 1M GPUs in 3 tiers with pluggable optics -> 6M transceivers, 180 MW */
  p.tiers = 3;
  fabric_plan(&p, 1e6, &fp);
  ck_assert_close(fp.transceivers, 6e6, 1e-12);
  ck_assert_close(fp.optics_w, 180e6, 1e-12);
}
END_TEST

START_TEST(gpu_power_and_cap)
{
  g_autoptr(Catalog) cat = shipped_catalog();
  const SystemSpec *h = catalog_system(cat, "h100-sxm-hgx8"); /* idle 75 W, TDP 700 W */
  ck_assert_close(power_gpu(h, 0, 1), 75, 1e-12);
  ck_assert_close(power_gpu(h, 1, 1), 700, 1e-12);
  ck_assert_close(power_gpu(h, 0.6, 1), 75 + 0.6 * 625, 1e-12);
  /* a 500 W cap: (500 - 75) / 625 = 0.68 of the dynamic range; work of activity 1 at the full
   * clock runs at 0.68^(1/2.5) = 0.8570, work of 0.5 keeps the full clock, work that would draw
   * 1.64 (an H200's GEMMs) at the TDP runs at (1/1.64)^(1/2.5) = 0.8205 */
  ck_assert_close(power_allowed_activity(h, 500), 0.68, 1e-12);
  double clock = power_limited_clock(h, 1, 500);
  ck_assert_close(clock, pow(0.68, 0.4), 1e-12);
  ck_assert_close(power_gpu(h, 1, clock), 500, 1e-9);
  ck_assert_close(power_limited_clock(h, 0.5, 500), 1, 1e-12);
  ck_assert_close(power_limited_clock(h, 1, 0), 1, 1e-12);
  ck_assert_close(power_limited_clock(h, 1, 800), 1, 1e-12);
  ck_assert_close(power_limited_clock(h, 1.64, 0), pow(1 / 1.64, 0.4), 1e-12);
}
END_TEST

/* A rack's power cap as a cap per GPU, GB200 NVL72. Around each GPU at the wall: 2 Graces x 300 W
 * / 4 GPUs = 150 W, the tray's other 270 W / 4 = 67.5 W, its NIC 25 W, 9 switch trays x 477.5 W / 72
 * = 59.6875 W: 302.1875 W of DC, 318.0921 W at 95% supplies. 100 kW a rack is 1,388.889 W a GPU,
 * (1,388.889 - 318.0921) x 0.95 = 1,017.257 W for the GPU; 80 kW: (1,111.111 - 318.0921) x 0.95 =
 * 753.368 W; 20 kW (277.8 W a GPU) leaves nothing. A cap of the TDP or more is the TDP. */
START_TEST(rack_power_cap)
{
  g_autoptr(Catalog) cat = shipped_catalog();
  const SystemSpec *g = catalog_system(cat, "gb200-nvl72");
  ck_assert_close(power_gpu_for_it(g, 100e3 / 72), 1017.257, 1e-6);
  ck_assert_close(power_gpu_for_it(g, 80e3 / 72), 753.368, 1e-6);
  ck_assert_close(power_gpu_for_it(g, 20e3 / 72), 0, 1e-12);
  ck_assert_close(power_gpu_for_it(g, 200e3 / 72), 1200, 1e-12);
}
END_TEST

/* IT power at full load against the SemiAnalysis component model (reference.md A.2), within 10%.
 * HGX H100: per GPU (700 + 2 x 350 / 8 + 572 / 8 + 25 + 300 / 8) / 0.94 = 980.3 W; 8 GPUs: 7,843 W
 * vs 8,000 W. HGX B200: (1000 + 87.5 + 150 + 25 + 50) / 0.94 x 8 = 11,170 W vs 10,591 W. GB200 NVL72:
 * (1200 + 150 + 67.5 + 25 + 9 x 477.5 / 72) / 0.95 x 72 = 113.85 kW vs ~110 kW; GB300 NVL72:
 * (1400 + 150 + 112.5 + 50 + 59.69) / 0.95 x 72 = 134.3 kW vs 129.2 kW. */
START_TEST(it_power_against_component_model)
{
  g_autoptr(Catalog) cat = shipped_catalog();
  static const struct { const char *id; int gpus; double reference; } cases[] = {
    { "h100-sxm-hgx8", 8, 8000 }, { "h200-sxm-hgx8", 8, 8000 }, { "b200-hgx8", 8, 10591 },
    { "gb200-nvl72", 72, 110000 }, { "gb300-nvl72", 72, 129200 },
  };
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    const SystemSpec *s = catalog_system(cat, cases[i].id);
    PowerShare p;
    power_share(s, s->tdp, &p);
    ck_assert_msg(fabs(p.it * cases[i].gpus / cases[i].reference - 1) <= 0.10, "%s: %.0f W vs %.0f W", s->id,
                  p.it * cases[i].gpus, cases[i].reference);
  }
  PowerShare h;
  power_share(catalog_system(cat, "h100-sxm-hgx8"), 700, &h);
  ck_assert_close(h.it, (700 + 87.5 + 71.5 + 25 + 37.5) / 0.94, 1e-12);
}
END_TEST

/* A 100 MW Hopper factory (the GTC 2025 keynote: ~45,000 GPUs in ~1,400 racks). Provisioned per
 * GPU: nameplate 10.2 kW / 8 = 1,275 W + fabric (180 W optics + 3,580 x 64 x 14 W / 45,824 = 70.0 W)
 * = 1,525 W, x 1.1 (IT outside the GPU racks) x 1.3 (PUE) = 2,180.75 W; a 32-GPU rack 69,784 W;
 * 100 MW / 69,784 W = 1,432.99 -> 1,432 racks, 45,824 GPUs. At 100 output tok/s per GPU with GPUs
 * drawing 700 W: average IT 980.3 W + 250 W fabric, x 1.43 = 1,759.3 W per GPU -> 17.59 J per token;
 * capex (35,000 + 6 x 1,000 optics) / 4 years + 1,759.3 W x 0.08 USD/kWh -> 3.639 USD per Mtok. */
START_TEST(hopper_100mw_factory)
{
  g_autoptr(Catalog) cat = shipped_catalog();
  const SystemSpec *h = catalog_system(cat, "h100-sxm-hgx8");
  FactorySpec f = { .budget = 100e6, .other_it_fraction = 0.1, .provisioning = PROVISION_NAMEPLATE,
                    .energy_price = 0.08 / 3.6e6, .amortisation = 4 * 31557600.0, .fabric = fabric(OPTICS_PLUGGABLE, FALSE) };
  FactoryPlan p;
  factory_plan(h, &f, 700, 100, &p);
  ck_assert_close(p.racks, 1432, 1e-12);
  ck_assert_close(p.gpus, 45824, 1e-12);
  ck_assert_close(p.pue, 1.3, 1e-12);
  /* a rack before the fabric's share: 32 x 1,275 W x 1.1 x 1.3 = 58,344 W, what a budget must hold */
  ck_assert_close(p.rack_w, 58344, 1e-12);
  double fab = 180 + 3580.0 * 64 * 14 / 45824;
  ck_assert_close(p.facility_w, 45824 * (1275 + fab) * 1.1 * 1.3, 1e-9);
  ck_assert_close(p.tok_s, 4582400, 1e-12);
  ck_assert_close(p.tok_s_per_mw, 4582400 / (p.facility_w / 1e6), 1e-12);
  double avg_it = (700 + 87.5 + 71.5 + 25 + 37.5) / 0.94;
  ck_assert_close(p.joules_per_token, (avg_it + fab) * 1.1 * 1.3 / 100, 1e-9);
  ck_assert_close(p.joules_per_token, 17.593, 1e-3);
  ck_assert_close(p.usd_per_mtok, 3.639, 1e-3);
  /* per MW drawn: 100 tok/s per 1,759.3 W drawn per GPU = 56,840 tok/s per MW, against 45,216 per
   * MW provisioned (100 per GPU over (1,275 + 250) W x 1.43 = 2,180.75 W: 45,856) */
  ck_assert_close(p.tok_s_per_mw_drawn, 1e6 / 17.593, 0.5);
  ck_assert(p.tok_s_per_mw_drawn > p.tok_s_per_mw);
  /* within 15% of the keynote's figures */
  ck_assert(fabs(p.gpus / 45000 - 1) < 0.15 && fabs(p.racks / 1400 - 1) < 0.15);
  /* capped at 500 W, a GPU is provisioned for its cap: the nameplate less the 200 W it no longer
   * draws at the wall, 1,275 - 200 / 0.94 = 1,062.2 W; with 250 W of fabric, x 1.43: 1,876.5 W per
   * GPU, 60,048 W a rack: 1,665 racks, 53,280 GPUs in the 100 MW */
  f.gpu_power_cap = 500;
  factory_plan(h, &f, 500, 100, &p);
  ck_assert_close(p.peak_it_per_gpu, 1275 - 200 / 0.94, 1e-9);
  ck_assert_close(p.racks, 1665, 1e-12);
  ck_assert_close(p.gpus, 53280, 1e-12);
  /* provisioned for what the operating point draws (700 W GPUs: 980.3 W of IT each, 1,759.3 W with
   * the fabric at the facility, 56,298 W a rack): 1,776 racks, 56,832 GPUs */
  f.gpu_power_cap = 0, f.provisioning = PROVISION_DRAWN;
  factory_plan(h, &f, 700, 100, &p);
  ck_assert_close(p.peak_it_per_gpu, avg_it, 1e-9);
  ck_assert_close(p.racks, 1776, 1e-12);
  ck_assert_close(p.gpus, 56832, 1e-12);
  ck_assert_close(p.tok_s_per_mw, p.tok_s_per_mw_drawn, 1e-9); /* provisioned as drawn */
  f.provisioning = PROVISION_NAMEPLATE;
  /* sized by GPUs instead: the budget follows */
  f.gpus = 1000;
  factory_plan(h, &f, 700, 100, &p);
  ck_assert_close(p.racks, 32, 1e-12); /* ceil(1000 / 32) */
  ck_assert_close(p.gpus, 1024, 1e-12);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("power");
  TCase *tc = tcase_create("power");
  tcase_add_test(tc, fat_tree_tiers);
  tcase_add_test(tc, nameplate_per_gpu);
  tcase_add_test(tc, optics_of_a_fat_tree);
  tcase_add_test(tc, gpu_power_and_cap);
  tcase_add_test(tc, rack_power_cap);
  tcase_add_test(tc, it_power_against_component_model);
  tcase_add_test(tc, hopper_100mw_factory);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
