/* test_network.c — max-min fair sharing by hand: one flow, two flows on a link, a flow held back
 * elsewhere leaving its share to the other, reallocation when a flow ends; KV-cache transfer times
 * over NVLink inside a rack against the NICs across racks. */
#include "test_util.h"
#include "comm.h"
#include "memory.h"
#include "network.h"

static double rate(Network *n, int f) { return g_array_index(n->flows, Flow, f).rate; }

START_TEST(fair_shares)
{
  Network n;
  network_init(&n);
  int l1 = network_add_link(&n, 100), l2 = network_add_link(&n, 30);
  /* alone on a 100 B/s link: all of it; 100 B end after 1 s */
  int a = network_start(&n, (int[]){ l1 }, 1, 100, 0);
  ck_assert_close(rate(&n, a), 100, 1e-12);
  int which;
  ck_assert_close(network_next_end(&n, &which), 1.0, 1e-12);
  ck_assert_int_eq(which, a);
  /* a second flow on the same link: half each */
  int b = network_start(&n, (int[]){ l1 }, 1, 100, 1);
  ck_assert_close(rate(&n, a), 50, 1e-12);
  ck_assert_close(rate(&n, b), 50, 1e-12);
  network_end(&n, b);
  /* a flow also crossing a 30 B/s link is held to 30 there; the other takes the 70 left */
  int c = network_start(&n, (int[]){ l1, l2 }, 2, 60, 2);
  ck_assert_close(rate(&n, c), 30, 1e-12);
  ck_assert_close(rate(&n, a), 70, 1e-12);
  /* half a second on: a has moved 35 B, c 15 B; when c ends, a gets the whole link again */
  network_advance(&n, 0.5);
  ck_assert_close(g_array_index(n.flows, Flow, a).remaining, 65, 1e-12);
  ck_assert_close(g_array_index(n.flows, Flow, c).remaining, 45, 1e-12);
  network_end(&n, c);
  ck_assert_close(rate(&n, a), 100, 1e-12);
  /* three flows, two bottlenecks: x on L1 only, y on L1 and L2, z on L2 only (L1 = 100, L2 = 30):
   * L2 is the bottleneck (15 each for y and z), x takes 100 - 15 = 85 */
  network_end(&n, a);
  int x = network_start(&n, (int[]){ l1 }, 1, 1, 3), y = network_start(&n, (int[]){ l1, l2 }, 2, 1, 4),
      z = network_start(&n, (int[]){ l2 }, 1, 1, 5);
  ck_assert_close(rate(&n, y), 15, 1e-12);
  ck_assert_close(rate(&n, z), 15, 1e-12);
  ck_assert_close(rate(&n, x), 85, 1e-12);
  network_clear(&n);
}
END_TEST

/* DeepSeek-R1's KV cache for a 1,000-token prompt in FP8: 576 B x 61 layers x 1,000 = 35.136 MB.
 * From a 4-GPU prefill engine to a 4-GPU decode engine in one GB200 NVL72 rack: 4 x 900 GB/s one
 * way x 0.8 = 2.88 TB/s -> 12.2 us. Across racks over ConnectX-7: 4 x 50 GB/s x 0.8 = 160 GB/s ->
 * 219.6 us, 18x longer. Two transfers at once from one engine share its ports: twice as long. */
START_TEST(kv_transfer_nvlink_vs_nic)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const SystemSpec *gb = catalog_system(c, "gb200-nvl72");
  ArchProfile a = { .nvlink_efficiency = 0.8, .nic_efficiency = 0.8 };
  CommLinks l;
  ArchStackProfile on = { 0 };
  comm_links(gb, &a, &on, 1.0, &l);
  double bytes = memory_kv_bytes_per_token_layer(catalog_model(c, "deepseek-r1"), PREC_FP8) * 61 * 1000;
  ck_assert_close(bytes, 35.136e6, 1e-12);
  Network n;
  network_init(&n);
  int nvl_up = network_add_link(&n, 4 * l.nvlink_bw), nvl_down = network_add_link(&n, 4 * l.nvlink_bw);
  int nic_up = network_add_link(&n, 4 * l.nic_bw), nic_down = network_add_link(&n, 4 * l.nic_bw);
  int f = network_start(&n, (int[]){ nvl_up, nvl_down }, 2, bytes, 0), which;
  ck_assert_close(network_next_end(&n, &which), 12.2e-6, 1e-3);
  network_end(&n, f);
  f = network_start(&n, (int[]){ nic_up, nic_down }, 2, bytes, 1);
  ck_assert_close(network_next_end(&n, &which), 219.6e-6, 1e-3);
  network_start(&n, (int[]){ nic_up, nic_down }, 2, bytes, 2);
  ck_assert_close(network_next_end(&n, &which), 2 * 219.6e-6, 1e-3);
  network_clear(&n);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("network");
  TCase *tc = tcase_create("network");
  tcase_add_test(tc, fair_shares);
  tcase_add_test(tc, kv_transfer_nvlink_vs_nic);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
