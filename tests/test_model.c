/* test_model.c — the performance model against hand-worked numbers. Each test's comment carries
 * its derivation; the profiles are built here (not the shipped fit) so the numbers cannot drift. */
#include "test_util.h"
#include "comm.h"
#include "memory.h"
#include "moe.h"
#include "steady_state.h"
#include "step_floor.h"
#include "step_time.h"

/* A profile with ideal efficiencies and no overheads: step times become pure bytes / bandwidth or
 * FLOPs / peak, which can be worked by hand. */
static void ideal_profile(Profile *p)
{
  profile_defaults(p);
  for (int a = 0; a < N_ARCH; a++) {
    ArchProfile *ap = &p->arch[a];
    ap->hbm_efficiency = ap->gemm_efficiency = ap->fp4_efficiency = 1;
    ap->fp8_efficiency = ap->fp8_block_efficiency = 1;
    ap->attention_efficiency = ap->nvlink_efficiency = ap->nic_efficiency = 1;
    ap->collective_latency = 0;
    ap->allreduce_efficiency = ap->allreduce_bulk_efficiency = 1;
    ap->allreduce_latency = ap->allreduce_bulk_latency = 0;
    ap->exp_efficiency = 1;
    ap->gemm_half_m = ap->grouped_tile_m = ap->grouped_block_tile_m = 64;
    ArchStackProfile *on = &p->on[a];
    on->gemm = on->fp4 = on->fp8_block = on->attention = on->memory = on->moe = on->overhead_scale = 1;
    on->nic_latency = on->nic_alltoall_latency = 0;
    on->gemm_half_n = 0; /* expert slices as efficient as whole experts (one test sets it) */
  }
  for (int s = 0; s < N_STACK; s++) {
    StackProfile *sp = &p->stack[s];
    sp->step_overhead = sp->layer_overhead = sp->moe_layer_overhead = sp->request_overhead = 0;
    sp->handoff_overhead = 0;
    sp->kernel_efficiency = 1;
  }
}

/* ENGINE with attention data-parallel over its GPUs and whole experts on each (EP = its GPUs): the
 * wide expert-parallel layout. */
static Engine wide_ep(Engine e)
{
  e.ep = e.gpus, e.dp_attention = TRUE;
  return e;
}

/* A copy of catalog system ID whose compute-bound work never meets the power limit (compute_power
 * 1): hand-worked compute-bound steps at the full clock on Hopper, whose catalog figure is 1.64. */
static const SystemSpec *full_clock(const Catalog *c, const char *id, SystemSpec *copy)
{
  system_spec_copy(copy, catalog_system(c, id));
  copy->compute_power = 1;
  return copy;
}

static Engine engine(const Catalog *c, const char *sys, const char *model, Precision p, int gpus,
                     const Profile *prof)
{
  return (Engine){ .sys = catalog_system(c, sys), .model = catalog_model(c, model), .prof = prof, .precision = p,
                   .kv_precision = PREC_FP8, .stack = STACK_TRTLLM, .gpus = gpus, .pp = 1, .ep = 1 };
}

/* DeepSeek-R1 FP8 on 8 H200s in the wide expert-parallel layout, its system FULL (a copy at the
 * full clock: full_clock; the caller clears it). */
static Engine h200_deepseek_wide_ep(const Catalog *c, const Profile *prof, SystemSpec *full)
{
  Engine e = wide_ep(engine(c, "h200-sxm-hgx8", "deepseek-r1", PREC_FP8, 8, prof));
  e.sys = full_clock(c, "h200-sxm-hgx8", full);
  return e;
}

/* Pipeline stages run the engine's sequences in PP micro-batches, one in each stage at a time.
 * Llama-3.3-70B FP8 on H200s, ideal profile. A PP2 engine (2 GPUs, 40 layers a stage) prefilling 8
 * prompts of 2,048 tokens splits them 4 and 4: its step is two stage steps of 4 prompts through 40
 * layers, which is one GPU's pass of 4 prompts through all 80 (~8,192 x 2 x 68.45e9 / 1979e12 =
 * 0.57 s of GEMMs), plus a second LM head over 4 tokens (2.1 GB at 4.8 TB/s, 0.44 ms) and one
 * transfer of 8,192 x 8,192 x 2 B over NVLink (0.3 ms): within 0.2%. Were the stages idle while
 * another works (one batch through both in turn), it would be twice that. A lone prompt has no
 * micro-batch beside it: both stages in turn, one GPU's pass of it. Decoding 2 sequences (one a
 * micro-batch, memory-bound), a stage step reads the stage's half of the layers and an LM head:
 * 2 x (34.226e9 + 2.101e9) / 4.8e12 = 15.136 ms, one GPU decoding 1 sequence (14.698 ms:
 * llama70b_decode_batch1_h200) and a second LM head: micro-batches do not make memory-bound
 * decoding cheaper, each reads the stage's weights again. */
START_TEST(pipeline_micro_batches)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine one = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 1, &prof), two = one;
  two.gpus = 2, two.pp = 2;
  double t1 = step_time_prefill(&one, 4, 2048), t2 = step_time_prefill(&two, 8, 2048);
  ck_assert_msg(t2 / t1 > 1 && t2 / t1 < 1.002, "PP2 8 prompts %g s, one GPU 4 prompts %g s", t2, t1);
  double l1 = step_time_prefill(&one, 1, 2048), l2 = step_time_prefill(&two, 1, 2048);
  ck_assert_msg(l2 / l1 > 1 && l2 / l1 < 1.01, "PP2 lone prompt %g s, one GPU %g s", l2, l1);
  double linear = 80.0 * 150994944.0 + 80.0 * 3 * 8192 * 28672, head = 128256.0 * 8192 * 2;
  ck_assert_close(2 * (linear / 2 + head) / 4.8e12, 15.136e-3, 1e-3);
  ck_assert_close(step_time_decode(&two, 2, 0), 2 * (linear / 2 + head) / 4.8e12, 2e-3);
  profile_clear(&prof);
}
END_TEST

/* Llama-3.3-70B, FP8, one H200, batch 1, empty context.
 * Weights: attention 80 x (2 x 8192 x 64 x 128 + 2 x 8192 x 8 x 128) = 80 x 150,994,944 = 12.0796e9;
 * FFN 80 x 3 x 8192 x 28672 = 56.3714e9; both FP8 (1 B). Embedding + LM head 2 x 128256 x 8192 x 2 B.
 * A decode step reads the FP8 layers and the BF16 LM head (the embedding is a lookup):
 * (12.0796e9 + 56.3714e9) + 128256 x 8192 x 2 = 70.5524e9 B; at 4.8 TB/s that is 14.698 ms. At M = 1
 * compute is 2 x 68.45e9 FLOP x 65 / 1979e12 = 4.5 ms, below it, so memory decides. The token's
 * activations between the GEMMs add 80 x 258,048 B (step_time.c, elementwise_bytes: two norms
 * 2 x 8192 x (3 x 2 + 1) = 114,688, the gated activation 28672 x (2 x 2 + 1) = 143,360): 4.3 us. */
START_TEST(llama70b_decode_batch1_h200)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 1, &prof);
  double linear = 80.0 * 150994944.0 + 80.0 * 3 * 8192 * 28672;
  double head = 128256.0 * 8192 * 2;
  ck_assert_close(memory_weight_bytes_gpu(&e), linear + 2 * head, 1e-12);
  ck_assert_close(step_time_decode(&e, 1, 0), (linear + head + 80 * 258048.0) / 4.8e12, 1e-9);
  ck_assert_close((linear + head) / 4.8e12, 14.698e-3, 1e-3);
  /* with real efficiencies it is slower, and still about weights over effective bandwidth */
  Profile def;
  profile_defaults(&def);
  e.prof = &def;
  double t = step_time_decode(&e, 1, 0), bound = (linear + head) / (4.8e12 * def.arch[ARCH_HOPPER].hbm_efficiency);
  ck_assert_msg(t > bound && t < bound + 8e-3, "step %.3f ms vs weights/effective bandwidth %.3f ms", t * 1e3, bound * 1e3);
  profile_clear(&prof);
  profile_clear(&def);
}
END_TEST

/* The datasheet floors of a step (step_floor.h), by hand. Llama-3.3-70B FP8 on one H200 decoding
 * one sequence with no context reads its weights once: 80 x 150,994,944 B of attention, 80 x 3 x
 * 8,192 x 28,672 B of FFN, and the embedding and LM head, 2 x 128,256 x 8,192 x 2 B: 72,653,733,888
 * B at 4.8 TB/s = 15.136 ms. Ten sequences at 1,000 tokens add their KV cache: 10 x 1,000 x 80
 * layers x 2,048 B (8 KV heads x 128 x K and V, FP8) = 1.6384 GB, +0.3413 ms. A 1,000-token prompt
 * is 2 x 70.6e9 active parameters x 1,000 = 141.2 TFLOP: 71.35 ms at the 1,979 TFLOP/s FP8 peak,
 * an eighth of it a GPU on eight. DeepSeek-R1 FP8 with EP8 holds 32 routed experts a GPU, each 3 x
 * 7,168 x 2,048 = 44,040,192 parameters in each of 58 MoE layers: 81.74 GB; one token touches 8 of
 * 256, so a step whose tokens touch them all reads 31/32 of that more: 79,184,265,216 B. */
START_TEST(step_floor_by_hand)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 1, &prof);
  StepFloor f0, f1, fp;
  step_floor(&e, &(StepBatch){ .decode_seqs = 1, .decode_ctx = 0 }, &f0);
  ck_assert_close(f0.bytes, 72653733888.0, 1e-9);
  ck_assert_close(f0.memory_s, 15.136e-3, 1e-3);
  ck_assert_close(f0.floor_s, f0.memory_s, 1e-12); /* one token: the bytes bind */
  step_floor(&e, &(StepBatch){ .decode_seqs = 10, .decode_ctx = 1000 }, &f1);
  ck_assert_close(f1.bytes - f0.bytes, 1.6384e9, 1e-9);
  step_floor(&e, &(StepBatch){ .prefill_tokens = 1000, .prefill_seqs = 1, .prefill_ctx = 500 }, &fp);
  ck_assert_close(fp.compute_s, 71.35e-3, 1e-2);
  ck_assert_close(fp.floor_s, fp.compute_s, 1e-12); /* a prompt: the FLOPs bind */
  Engine e8 = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 8, &prof);
  StepFloor f8;
  step_floor(&e8, &(StepBatch){ .prefill_tokens = 1000, .prefill_seqs = 1, .prefill_ctx = 500 }, &f8);
  ck_assert_close(f8.flops, fp.flops / 8, 1e-12);
  Engine ds = engine(c, "h200-sxm-hgx8", "deepseek-r1", PREC_FP8, 8, &prof);
  ds.ep = 8;
  StepFloor one, all;
  step_floor(&ds, &(StepBatch){ .decode_seqs = 1, .decode_ctx = 0 }, &one);
  step_floor(&ds, &(StepBatch){ .prefill_tokens = 1e9, .prefill_seqs = 1e6, .prefill_ctx = 500 }, &all);
  ck_assert_close(all.bytes - one.bytes, 79184265216.0, 1e-6);
  /* and the model's own step never beats its floor */
  Profile def;
  profile_defaults(&def);
  ds.prof = &def;
  StepTime t;
  StepBatch b = { .decode_seqs = 64, .decode_ctx = 2000 };
  step_time(&ds, &b, &t);
  step_floor(&ds, &b, &one);
  ck_assert_msg(t.total > one.floor_s, "step %.3f ms under its floor %.3f ms", t.total * 1e3, one.floor_s * 1e3);
  profile_clear(&prof);
  profile_clear(&def);
}
END_TEST

/* DeepSeek-R1 MLA caches the 512-wide latent plus the 64-wide rotary key per token and layer:
 * 576 elements, 576 B in FP8 and 1152 B in BF16; 61 layers give 35,136 B per token in FP8. The
 * latent is shared by all heads, so TP does not split it: each TP rank holds it all. */
START_TEST(deepseek_mla_kv_bytes)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const LlmSpec *ds = catalog_model(c, "deepseek-r1");
  ck_assert_close(memory_kv_bytes_per_token_layer(ds, PREC_FP8), 576, 1e-12);
  ck_assert_close(memory_kv_bytes_per_token_layer(ds, PREC_BF16), 1152, 1e-12);
  Profile prof;
  ideal_profile(&prof);
  Engine e = engine(c, "h200-sxm-hgx8", "deepseek-r1", PREC_FP8, 8, &prof);
  ck_assert_close(memory_kv_bytes_per_seq_gpu(&e, 1000), 35136.0 * 1000, 1e-12);
  /* GQA for contrast: Llama-3.3-70B, 8 KV heads x 128 x 2 (K and V) = 2048 elements per layer; TP8
   * gives each rank one KV head: 256 B per layer per token in FP8, x 80 layers = 20,480 B. */
  Engine l = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 8, &prof);
  ck_assert_close(memory_kv_bytes_per_seq_gpu(&l, 1), 20480, 1e-12);
  profile_clear(&prof);
}
END_TEST

/* TP8 ring all-reduce of 16 MB, both of the all-reduce's regimes alike (0.8, 10 us): each GPU moves
 * 2 x 7/8 x 16e6 = 28e6 B one way. NVLink 4 (H200): 900 GB/s both ways -> 450 GB/s one way, x 0.8
 * efficiency = 360 GB/s -> 77.78 us, + 10 us latency = 87.78 us. NVLink 5 (B200): 720 GB/s ->
 * 38.89 us + 10 us = 48.89 us. */
START_TEST(allreduce_nvlink4_vs_5)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  ArchProfile a = { .nvlink_efficiency = 0.8, .nic_efficiency = 0.8, .collective_latency = 10e-6,
                    .allreduce_efficiency = 0.8, .allreduce_bulk_efficiency = 0.8,
                    .allreduce_latency = 10e-6, .allreduce_bulk_latency = 10e-6 };
  ArchStackProfile on = { 0 };
  CommLinks h, b;
  comm_links(catalog_system(c, "h200-sxm-hgx8"), &a, &on, 1.0, &h);
  comm_links(catalog_system(c, "b200-hgx8"), &a, &on, 1.0, &b);
  ck_assert_close(comm_allreduce(&h, 8, 16e6), 87.7778e-6, 1e-5);
  ck_assert_close(comm_allreduce(&b, 8, 16e6), 48.8889e-6, 1e-5);
  ck_assert_close(comm_allreduce(&h, 1, 16e6), 0, 1e-12);
  /* 16 GPUs leave the 8-GPU domain: the ring moves 2 x 15/16 x 16e6 = 30e6 B per GPU, in 8
   * channels each crossing on its own NIC (400 Gb/s = 50 GB/s, x 0.8 = 40 GB/s): 30e6 / 8 / 40e9
   * = 93.75 us, longer than NVLink's 30e6 / 360e9 = 83.33 us; + 10 us + the NIC latency (0 here)
   * = 103.75 us. (All of it through one NIC would be 750 us.) */
  ck_assert_close(comm_allreduce(&h, 16, 16e6), 103.75e-6, 1e-9);
  profile_clear(&prof);
}
END_TEST

/* The all-reduce as NCCL runs it on H200s (450 GB/s one way): the ring's small messages at 0.6
 * (270 GB/s) after 30 us, its large ones at 0.8 (360 GB/s) after 60 us, both moving 2(n-1)/n of
 * the message; the switch's reduction at 0.64 (288 GB/s) after 60 us, moving (n+1)/n of it. The
 * fastest counts.
 * 8 GPUs, 1 MB: ring 1.75e6 B: small 1.75e6 / 270e9 = 6.4815 us + 30 = 36.4815 us; bulk 4.8611 + 60;
 * switch 1.125e6 / 288e9 = 3.9063 + 60 -> 36.4815 us.
 * 8 GPUs, 16 MB: small 28e6 / 270e9 = 103.7037 + 30 = 133.7037; bulk 28e6 / 360e9 = 77.7778 + 60 =
 * 137.7778; switch 18e6 / 288e9 = 62.5 + 60 = 122.5 -> 122.5 us.
 * 256 MB: 8 GPUs: bulk 448e6 / 360e9 = 1244.4444 + 60 = 1304.4444, switch 288e6 / 288e9 = 1000 + 60
 * = 1060 -> 1060 us (1304.4444 without a switch line). 4 GPUs: small 384e6 / 270e9 = 1422.2222 + 30,
 * bulk 384e6 / 360e9 = 1066.6667 + 60 = 1126.6667, switch 320e6 / 288e9 = 1111.1111 + 60 = 1171.1111
 * -> the ring's 1126.6667 us. 2 GPUs: bulk 256e6 / 360e9 = 711.1111 + 60 = 771.1111, switch 384e6 /
 * 288e9 = 1333.3333 + 60 -> 771.1111 us.
 * A stack whose kernels reach half (kernel factor 0.5) halves every rate: 8 GPUs, 16 MB: small
 * 207.4074 + 30, bulk 155.5556 + 60, switch 125 + 60 = 185 us.
 * The shipped Hopper figures (small 29.4 us at 0.598, ring bulk 57.8 us at 0.822, switch 57.8 us at
 * 0.653786), 8 GPUs, 16 MB: small 28e6 / 269.1e9 = 104.0505 + 29.4 = 133.4505, bulk 28e6 / 369.9e9 =
 * 75.6961 + 57.8 = 133.4961, switch 18e6 / 294.20370e9 = 61.1821 + 57.8 = 118.9821 us, where NCCL
 * measured 8 x H100 at 234.5 GB/s of bus bandwidth, 28e6 / 234.5e9 = 119.403 us (reference.md D.3);
 * 1 MB: small 1.75e6 / 269.1e9 = 6.5032 + 29.4 = 35.9032 us (8 x H200 measured 53.0 GB/s: 33.02 us).
 * 4 GB on 4 GPUs: the ring's 6e9 / 369.9e9 = 16220.6 + 57.8 = 16278.4 us (the switch's 5e9 /
 * 294.2037e9 = 16995.1 + 57.8), 368.6 GB/s of bus bandwidth where NCCL's H100 ring runs measure
 * 365-370 from 2 to 8 GPUs; on 8 GPUs the switch's 4.5e9 / 294.2037e9 = 15295.6 + 57.8 = 15353.4 us,
 * 7e9 / 15353.4e-6 = 455.9 GB/s (measured 475.5). */
START_TEST(all_reduce_algorithms)
{
  g_autoptr(Catalog) c = shipped_catalog();
  const SystemSpec *h200 = catalog_system(c, "h200-sxm-hgx8");
  ArchProfile a = { .nvlink_efficiency = 0.8, .allreduce_efficiency = 0.6, .allreduce_latency = 30e-6,
                    .allreduce_bulk_efficiency = 0.8, .allreduce_bulk_latency = 60e-6,
                    .allreduce_nvls_efficiency = 0.64, .allreduce_nvls_latency = 60e-6 };
  ArchStackProfile on = { 0 };
  CommLinks l;
  comm_links(h200, &a, &on, 1.0, &l);
  ck_assert_close(comm_allreduce(&l, 8, 1e6), 36.4815e-6, 1e-5);
  ck_assert_close(comm_allreduce(&l, 8, 16e6), 122.5e-6, 1e-9);
  ck_assert_close(comm_allreduce(&l, 8, 256e6), 1060e-6, 1e-9);
  ck_assert_close(comm_allreduce(&l, 4, 256e6), 1126.6667e-6, 1e-7);
  ck_assert_close(comm_allreduce(&l, 2, 256e6), 771.1111e-6, 1e-7);
  comm_links(h200, &a, &on, 0.5, &l);
  ck_assert_close(comm_allreduce(&l, 8, 16e6), 185e-6, 1e-9);
  a.allreduce_nvls_efficiency = 0;
  comm_links(h200, &a, &on, 1.0, &l);
  ck_assert_close(comm_allreduce(&l, 8, 256e6), 1304.4444e-6, 1e-7);
  Profile p;
  profile_defaults(&p);
  comm_links(h200, &p.arch[ARCH_HOPPER], &on, 1.0, &l);
  ck_assert_close(comm_allreduce(&l, 8, 16e6), 118.9821e-6, 1e-5);
  ck_assert_close(comm_allreduce(&l, 8, 1e6), 35.9032e-6, 1e-5);
  ck_assert_close(comm_allreduce(&l, 4, 4e9), 16278.4e-6, 1e-5);
  ck_assert_close(comm_allreduce(&l, 8, 4e9), 15353.4e-6, 1e-5);
  profile_clear(&p);
}
END_TEST

/* Leaving the domain, an all-reduce pays nic_latency and an all-to-all nic_alltoall_latency.
 * H200, 16 GPUs, 16 MB per GPU; collective latency 10 us, NIC latency 20 us, all-to-all NIC
 * latency 50 us. All-reduce: 93.75 us (above) + 10 + 20 = 123.75 us. All-to-all: each GPU sends
 * 16e6 x 15/16 = 15e6 B, of which 16e6 x 8/16 = 8e6 B to the other node's 8 GPUs over its NIC
 * (8e6 / 40e9 = 200 us) and 7e6 B over NVLink (7e6 / 360e9 = 19.44 us): 200 + 10 + 50 = 260 us.
 * Inside the domain (8 GPUs) neither NIC latency counts: 16e6 x 7/8 / 360e9 = 38.89 us + 10. */
START_TEST(nic_latencies_by_collective)
{
  g_autoptr(Catalog) c = shipped_catalog();
  ArchProfile a = { .nvlink_efficiency = 0.8, .nic_efficiency = 0.8, .collective_latency = 10e-6 };
  ArchStackProfile on = { .nic_latency = 20e-6, .nic_alltoall_latency = 50e-6 };
  CommLinks h;
  comm_links(catalog_system(c, "h200-sxm-hgx8"), &a, &on, 1.0, &h);
  ck_assert_close(comm_allreduce(&h, 16, 16e6), 123.75e-6, 1e-9);
  ck_assert_close(comm_alltoall(&h, 16, 16e6), 260e-6, 1e-9);
  ck_assert_close(comm_alltoall(&h, 8, 16e6), 48.8889e-6, 1e-5);
}
END_TEST

/* Expected distinct experts for top-8 of 256: E (1 - (1 - k/E)^T).
 * T = 1: exactly 8. T = 64: 0.96875^64 = exp(64 ln 0.96875) = exp(-2.0319167) = 0.1310840, so
 * 256 (1 - 0.1310840) = 222.44250.
 * T = 1024: 256 (1 - 0.96875^1024) = 256 - 256 x 7.6e-15: every expert. */
START_TEST(expected_experts)
{
  ck_assert_close(moe_expected_experts(256, 8, 1, 0), 8, 1e-12);
  ck_assert_close(moe_expected_experts(256, 8, 64, 0), 222.44250, 1e-6);
  ck_assert_close(moe_expected_experts(256, 8, 1024, 0), 256, 1e-9);
  ck_assert_close(moe_expected_experts(256, 8, 0, 0), 0, 1e-12);
  /* never more than all of them, always at least top-k for one token, popular experts or not */
  for (double cv = 0; cv <= 2; cv += 0.5)
    for (double t = 1; t < 5000; t *= 1.7) {
      double x = moe_expected_experts(128, 4, t, cv);
      ck_assert(x >= 4 - 1e-9 && x <= 128 + 1e-9);
    }
}
END_TEST

/* Hot experts: popularity Gamma-spread with CV 0.5 (DeepSeek-R1's moe.load_cv), top-8 of 256.
 * T = 32: lambda = -32 ln(1 - 8/256) = 32 x 0.03174870 = 1.0159583; uniform routing misses an
 * expert with exp(-1.0159583) = 0.3620472, i.e. 256 x 0.6379528 = 163.31385 touched. Spread:
 * (1 + 1.0159583 x 0.25)^(-1/0.25) = 1.2539896^-4 = exp(-4 x 0.2263301) = 0.4044122 missed, so
 * 256 x 0.5955878 = 152.47047 touched: 6.6% fewer weights to read.
 * T = 1: the formula gives 7.97; one token's top-8 are 8 distinct experts, the floor. */
START_TEST(expected_experts_popular)
{
  ck_assert_close(moe_expected_experts(256, 8, 32, 0), 163.31385, 1e-4);
  ck_assert_close(moe_expected_experts(256, 8, 32, 0.5), 152.47047, 1e-4);
  ck_assert_close(moe_expected_experts(256, 8, 1, 0.5), 8, 1e-12);
  /* the more skewed the routing, the fewer experts a batch touches */
  ck_assert(moe_expected_experts(256, 8, 32, 1.0) < moe_expected_experts(256, 8, 32, 0.5));
}
END_TEST

/* The busiest of 8 expert-parallel groups (32 experts each), top-8 of 256.
 * T = 4: p = 1 - 0.96875^4 = 0.1192617 of the experts touched; a group's count has mean
 * 32 p = 3.816376 and spread sqrt(32 p (1 - p)) = sqrt(3.361128) = 1.833365; the expected
 * maximum of 8 standard normals is 1.4236, so the busiest group runs 3.816376 + 1.4236 x 1.833365
 * = 6.426354 experts, 1.68x the mean. Its token-expert pairs: 32 in all, 4 a group, spread
 * sqrt(32 x 1/8 x 7/8) = 1.870829: (4 + 1.4236 x 1.870829) / 4 = 1.665828.
 * T = 1024: every expert touched, every group full: 32; the pairs are within 4.2% of even:
 * 1 + 1.4236 sqrt(8192 x 1/8 x 7/8) / 1024 = 1 + 1.4236 x 29.933259 / 1024 = 1.041614.
 * One group (tensor-parallel experts): the mean. */
START_TEST(busiest_expert_group)
{
  ck_assert_close(moe_busiest_group_experts(256, moe_expected_experts(256, 8, 4, 0), 8), 6.426354, 1e-5);
  MoePlacement even = { .experts = 256, .k = 8, .groups = 8 }, one = { .experts = 256, .k = 8, .groups = 1 };
  ck_assert_close(moe_busiest_group_load(&even, 4), 1.665828, 1e-5);
  ck_assert_close(moe_busiest_group_experts(256, moe_expected_experts(256, 8, 1024, 0), 8), 32, 1e-9);
  ck_assert_close(moe_busiest_group_load(&even, 1024), 1.041614, 1e-5);
  ck_assert_close(moe_busiest_group_experts(256, moe_expected_experts(256, 8, 4, 0), 1), moe_expected_experts(256, 8, 4, 0), 1e-12);
  ck_assert_close(moe_busiest_group_load(&one, 4), 1, 1e-12);
  /* between the mean and the whole group, for any batch and group count */
  for (int g = 2; g <= 256; g *= 2)
    for (double t = 1; t < 5000; t *= 1.9) {
      double mean = moe_expected_experts(256, 8, t, 0) / g, x = moe_busiest_group_experts(256, mean * g, g);
      ck_assert(x >= mean - 1e-9 && x <= 256.0 / g + 1e-9);
    }
}
END_TEST

/* Hot experts and EPLB: top-8 of 256 over 8 groups, 1024 tokens, experts' popularity spread 0.5.
 * Sampling alone: (8 - 1) / 8192 = 8.5449e-4 (the 1.041614 above). Popularity: a group of 32
 * experts spreads 0.5 / sqrt(32) = 0.0883883, squared 0.0078125; together sqrt(0.0086670) =
 * 0.0930968, x 1.4236 = 0.132533: the busiest group carries 1.132533 of the mean.
 * EPLB with 32 redundant slots (288, 36 a group): 0.5 x 256/288 / 36 = 0.0123457, squared
 * 1.5242e-4; sqrt(8.5449e-4 + 1.5242e-4) = 0.0317319, x 1.4236 = 0.0451736: 1.045174.
 * EPLB without redundant slots (32 a group): 0.5 / 32 = 0.015625: 1 + 1.4236 x sqrt(8.5449e-4 +
 * 2.4414e-4) = 1.047186. One group is never uneven. */
START_TEST(hot_experts_and_eplb)
{
  MoePlacement hot = { .experts = 256, .k = 8, .groups = 8, .load_cv = 0.5 };
  ck_assert_close(moe_busiest_group_load(&hot, 1024), 1.132533, 1e-5);
  MoePlacement eplb = hot;
  eplb.eplb = TRUE, eplb.redundant = 32;
  ck_assert_close(moe_busiest_group_load(&eplb, 1024), 1.045174, 1e-5);
  eplb.redundant = 0;
  ck_assert_close(moe_busiest_group_load(&eplb, 1024), 1.047186, 1e-5);
  hot.groups = 1;
  ck_assert_close(moe_busiest_group_load(&hot, 1024), 1, 1e-12);
  /* wider EP is more uneven without EPLB, and EPLB never makes it worse */
  MoePlacement a = { .experts = 256, .k = 8, .load_cv = 0.5 }, b;
  for (int g = 2; g < 256; g *= 2) {
    a.groups = g;
    b = a, b.groups = 2 * g;
    ck_assert(moe_busiest_group_load(&b, 4096) > moe_busiest_group_load(&a, 4096));
    MoePlacement e = a;
    e.eplb = TRUE, e.redundant = g;
    ck_assert(moe_busiest_group_load(&e, 4096) <= moe_busiest_group_load(&a, 4096) + 1e-12);
  }
}
END_TEST

/* MLA's down-projections are replicated over attention TP ranks, so a TP8 engine's GPUs hold
 * 36,634,624 attention weights a layer (test_catalog) where an attention-DP one's hold all
 * 187,105,280: DeepSeek-R1 FP8 (1 B) on 8 B200s, 61 layers, 61 x 150,470,656 = 9.1787e9 B more
 * on each attention-DP GPU, which also holds its shared expert whole (engine.h): 58 MoE layers x
 * 44,040,192 x 7/8 = 2.2350e9 B more, 11.4137e9 B in all. A TP8 prompt of 8,192 tokens runs those
 * 36,634,624 a layer (not 187,105,280 / 8 = 23,388,160), and an eighth of the 3 dense layers' FFNs
 * (3 x 7168 x 18432 / 8 = 49,545,216): 2 x 8192 x (61 x 36,634,624 + 3 x 49,545,216) = 39.0487
 * TFLOP, at the FP8 peak of 4.5 PFLOP/s times 8192 / (8192 + 64) (ideal profile, half the rate at
 * 64 rows) 8.7453 ms; the LM head's one row reads its eighth of 129,280 x 7168 BF16 weights,
 * 231.67 MB at 8 TB/s, 0.029 ms: 8.774 ms of GEMMs. */
START_TEST(mla_down_projections_replicated)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine tp = engine(c, "b200-hgx8", "deepseek-r1", PREC_FP8, 8, &prof), adp = tp;
  tp.ep = adp.ep = 8, adp.dp_attention = TRUE;
  ck_assert_close(memory_weight_bytes_gpu(&adp) - memory_weight_bytes_gpu(&tp),
                  61 * 150470656.0 + 58 * 44040192.0 * 7 / 8, 1e-9);
  ck_assert_double_eq(tp.sys->flops_fp8, 4.5e15);
  StepBatch b = { .prefill_tokens = 8192, .prefill_seqs = 1, .prefill_ctx = 4096 };
  StepTime t;
  step_time(&tp, &b, &t);
  double flops = 2.0 * 8192 * (61 * 36634624.0 + 3 * 49545216.0);
  ck_assert_close(flops, 39.0487e12, 1e-5);
  double head = 129280.0 * 7168 / 8 * 2 / 8e12;
  ck_assert_close(t.gemm, flops / (4.5e15 * 8192 / 8256) + head, 1e-9);
  ck_assert_close(t.gemm, 8.774e-3, 1e-3);
  /* the shared expert (44,040,192 weights) on that prompt: TP8 splits it, 2 x 8192 x 44,040,192 / 8
   * per layer; the attention-DP GPU holding the prompt runs it whole, 8x that. Over 58 MoE layers at
   * the same rate: 58 x 7.2156e11 / 4.46512e15 = 9.3727 ms whole, 1.1716 ms split (the difference
   * the shared expert makes to each engine's expert time) */
  LlmSpec no_shared = *tp.model;
  no_shared.shared_experts = 0;
  double whole = 58 * 2.0 * 8192 * 44040192.0 / (4.5e15 * 8192 / 8256);
  ck_assert_close(whole, 9.3727e-3, 1e-4);
  Engine *engines[] = { &tp, &adp };
  for (int i = 0; i < 2; i++) {
    StepTime with, without;
    step_time(engines[i], &b, &with);
    Engine bare = *engines[i];
    bare.model = &no_shared;
    step_time(&bare, &b, &without);
    ck_assert_close(with.moe - without.moe, i ? whole : whole / 8, 1e-9);
  }
  profile_clear(&prof);
}
END_TEST

/* EPLB slots are memory: DeepSeek-R1's 256 experts over EP32 are 8 a GPU, its 288 slots 9; slots
 * below the experts, or that EP does not divide, are no deployment. */
START_TEST(eplb_slots)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = wide_ep(engine(c, "gb200-nvl72", "deepseek-r1", PREC_FP4, 32, &prof));
  ck_assert_int_eq(engine_experts_per_gpu(&e), 8);
  double w0 = memory_weight_bytes_gpu(&e);
  e.expert_slots = 288;
  ck_assert_int_eq(engine_experts_per_gpu(&e), 9);
  /* one expert more per GPU per MoE layer: 58 x 44,040,192 params x 0.5625 B (FP4 with its block
   * scales) = 1.4368 GB */
  ck_assert_close(memory_weight_bytes_gpu(&e) - w0, 58 * 44040192.0 * 0.5625, 1e-9);
  ck_assert_ptr_null(engine_check(&e));
  e.expert_slots = 200;
  g_autofree char *few = engine_check(&e);
  ck_assert_msg(few && strstr(few, "fewer than the 256 experts"), "%s", few ? few : "");
  e.expert_slots = 300;
  g_autofree char *odd = engine_check(&e);
  ck_assert_msg(odd && strstr(odd, "does not divide 300 expert slots"), "%s", odd ? odd : "");
  profile_clear(&prof);
}
END_TEST

/* The GPUs a token's 8 experts fall on, 256 experts over 8 groups of 32: a group is missed with
 * probability C(224, 8) / C(256, 8) = (224 x 223 x ... x 217) / (256 x 255 x ... x 249) = 0.3381685,
 * so 8 x (1 - 0.3381685) = 5.294652 groups; over 32 groups of 8: (248 ... 241) / (256 ... 249) =
 * 0.7729125, 32 x 0.2270875 = 7.266800. One group: 1; never more than k or the groups. */
START_TEST(token_groups)
{
  ck_assert_close(moe_token_groups(256, 8, 8), 5.294652, 1e-6);
  ck_assert_close(moe_token_groups(256, 8, 32), 7.266800, 1e-6);
  ck_assert_close(moe_token_groups(256, 8, 1), 1, 1e-12);
  ck_assert_close(moe_token_groups(256, 8, 256), 8, 1e-9);
  for (int g = 2; g <= 256; g *= 2)
    ck_assert(moe_token_groups(256, 8, g) <= MIN(8, g) + 1e-9);
}
END_TEST

/* Wide-EP all-to-all on the engine, DeepSeek-R1 FP8, attention-DP, ideal profile (no latencies),
 * one decode step of 8 sequences per rank, so each GPU dispatches 8 tokens x 8 expert copies (the
 * low-latency kernels: one per expert) x 7168 B (FP8) = 458,752 B and combines twice that (BF16).
 * Inside the domain, 32 GB200s (NVLink 1,800 GB/s both ways: 900 one way): dispatch
 * 458,752 x 31/32 / 900e9 = 0.493796 us, combine 0.987591 us, 1.481387 us a MoE layer; the 3
 * dense layers gather and scatter 256 tokens x 7168 x 2 B = 3,670,016 B as an all-reduce does:
 * 2 x 31/32 x 3,670,016 / 900e9 = 7.900868 us. 58 x 1.481387 + 3 x 7.900868 = 109.623 us.
 * Across domains, 16 H200s (8 a domain; NVLink 450 GB/s one way, NIC 400 Gb/s = 50 GB/s): half
 * of the dispatch, 229,376 B, crosses the NIC: 4.58752 us, longer than the NVLink share's
 * 200,704 / 450e9 = 0.446 us; combine 9.17504 us: 13.76256 us a MoE layer. Dense: 128 tokens,
 * 1,835,008 B, ring 2 x 15/16 x that = 3,440,640 B, over 8 NICs 3,440,640 / 8 / 50e9 = 8.6016 us
 * (NVLink 7.646 us): 58 x 13.76256 + 3 x 8.6016 = 824.0333 us.
 * EP16 on the 32 GB200s slices each expert over 2 GPUs: the tokens are gathered to both GPUs of
 * each group holding one of their experts, 16 x (1 - C(240, 8) / C(256, 8)) = 6.523280 groups,
 * x 2 = 13.04656 copies for the low-latency kernels' 8: 58 x 1.481387 x 13.04656 / 8 + 3 x 7.900868
 * = 163.823 us. */
START_TEST(wide_ep_alltoall)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = wide_ep(engine(c, "gb200-nvl72", "deepseek-r1", PREC_FP8, 32, &prof));
  StepBatch b = { .decode_seqs = 256, .decode_ctx = 1024 };
  StepTime t;
  step_time(&e, &b, &t);
  ck_assert_close(t.comm, 109.623e-6, 1e-5);
  Engine h = wide_ep(engine(c, "h200-sxm-hgx8", "deepseek-r1", PREC_FP8, 16, &prof));
  b.decode_seqs = 128;
  step_time(&h, &b, &t);
  ck_assert_close(t.comm, 824.0333e-6, 1e-6);
  /* EP16 over 32 GPUs: sliced experts, gathered tokens */
  e.ep = 16;
  b.decode_seqs = 256;
  step_time(&e, &b, &t);
  ck_assert_close(moe_token_groups(256, 8, 16), 6.523280, 1e-6);
  ck_assert_close(t.comm, 58 * 1.481387e-6 * 13.04656 / 8 + 3 * 7.900868e-6, 1e-5);
  /* the stack's all-to-all kernels, 20 us more a call: 58 MoE layers x (dispatch + combine) x 20 us
   * = 2.32 ms more on the attention-DP engine; a TP engine's all-reduces do not pay it */
  double before = t.comm;
  for (int s = 0; s < N_STACK; s++)
    prof.stack[s].alltoall_overhead = 20e-6;
  step_time(&e, &b, &t);
  ck_assert_close(t.comm, before + 58 * 2 * 20e-6, 1e-9);
  Engine tp = engine(c, "gb200-nvl72", "deepseek-r1", PREC_FP8, 8, &prof);
  b.decode_seqs = 64;
  step_time(&tp, &b, &t);
  before = t.comm;
  for (int s = 0; s < N_STACK; s++)
    prof.stack[s].alltoall_overhead = 0;
  step_time(&tp, &b, &t);
  ck_assert_close(t.comm, before, 1e-12);
  profile_clear(&prof);
}
END_TEST

/* A degraded NVLink domain (a switch tray down: the engine keeps nvlink_share of its bandwidth):
 * every collective inside the domain is latency + bytes / bandwidth, so its time at share s is
 * L + B / s. The 32-GPU wide-EP decode step of wide_ep_alltoall: at 1, 1/2 and 1/4 of the NVLink
 * bandwidth, comm(1/4) - comm(1/2) = 4B - 2B = 2 (comm(1/2) - comm(1)); and eight of NVL72's nine
 * trays leave comm(8/9) = L + 9/8 B = comm(1) + (comm(1/2) - comm(1)) / 8. */
START_TEST(degraded_nvlink_domain)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = wide_ep(engine(c, "gb200-nvl72", "deepseek-r1", PREC_FP8, 32, &prof));
  StepBatch b = { .decode_seqs = 256, .decode_ctx = 1024 };
  double comm[4];
  static const double share[4] = { 0, 0.5, 0.25, 8.0 / 9 };
  for (int k = 0; k < 4; k++) {
    StepTime t;
    e.nvlink_share = share[k];
    step_time(&e, &b, &t);
    comm[k] = t.comm;
  }
  double bw = comm[1] - comm[0];
  ck_assert(bw > 0);
  ck_assert_close(comm[2] - comm[1], 2 * bw, 1e-9);
  ck_assert_close(comm[3], comm[0] + bw / 8, 1e-9);
  profile_clear(&prof);
}
END_TEST

/* A step's overhead in parts, Llama-3.1-8B BF16 on one B200, ideal profile, a decode step of one
 * sequence at an empty context: t0 = its kernels (weights / HBM). With 1 ms of GPU-side step
 * overhead it takes t0 + 1 ms. The host's 0.5 ms hides under it when the overlap scheduler runs
 * (TensorRT-LLM), and adds where it does not (vLLM): t0 + 1.5 ms. A host part of 5 ms is longer
 * than the GPU's step: with overlap the step takes the host's 5 ms. Eager layers (10 us more each,
 * 32 layers) cost 0.32 ms on TensorRT-LLM's prompt steps, never on its decode steps (CUDA graphs);
 * vLLM graphs any step up to 512 tokens, a prompt of 256 tokens included. An architecture's
 * overhead_scale multiplies the GPU-side parts, not the host's. */
START_TEST(step_overhead_parts)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = engine(c, "b200-hgx8", "llama-3.1-8b", PREC_BF16, 1, &prof);
  e.kv_precision = PREC_BF16;
  double t0 = step_time_decode(&e, 1, 0);
  for (int s = 0; s < N_STACK; s++)
    prof.stack[s].step_overhead = 1e-3, prof.stack[s].host_overhead = 0.5e-3;
  ck_assert_close(step_time_decode(&e, 1, 0), t0 + 1e-3, 1e-12);
  e.stack = STACK_VLLM;
  ck_assert_close(step_time_decode(&e, 1, 0), t0 + 1.5e-3, 1e-12);
  e.stack = STACK_TRTLLM;
  prof.stack[STACK_TRTLLM].host_overhead = 5e-3;
  ck_assert_close(step_time_decode(&e, 1, 0), 5e-3, 1e-12);
  prof.stack[STACK_TRTLLM].host_overhead = 0;
  double p0 = step_time_prefill(&e, 1, 256);
  prof.stack[STACK_TRTLLM].eager_layer_overhead = prof.stack[STACK_VLLM].eager_layer_overhead = 10e-6;
  ck_assert_close(step_time_prefill(&e, 1, 256), p0 + 32 * 10e-6, 1e-12);
  ck_assert_close(step_time_decode(&e, 1, 0), t0 + 1e-3, 1e-12);
  e.eager = TRUE; /* no graphs at all: decode steps pay it too */
  ck_assert_close(step_time_decode(&e, 1, 0), t0 + 1e-3 + 32 * 10e-6, 1e-12);
  e.eager = FALSE, e.stack = STACK_VLLM;
  prof.stack[STACK_VLLM].host_overhead = 0;
  ck_assert_close(step_time_prefill(&e, 1, 256), p0, 1e-12);
  ck_assert_close(step_time_prefill(&e, 1, 1024),
                  (e.stack = STACK_TRTLLM, step_time_prefill(&e, 1, 1024)), 1e-12); /* both eager past 512 */
  /* Blackwell's factor on the GPU-side parts, 0.5: 1 ms of step overhead is 0.5 ms, the 32 eager
   * layers' 0.32 ms 0.16 ms; the host's part (0 here on TensorRT-LLM) does not scale */
  prof.on[ARCH_BLACKWELL].overhead_scale = 0.5;
  ck_assert_close(step_time_decode(&e, 1, 0), t0 + 0.5e-3, 1e-12);
  e.eager = TRUE;
  ck_assert_close(step_time_decode(&e, 1, 0), t0 + 0.5e-3 + 32 * 5e-6, 1e-12);
  profile_clear(&prof);
}
END_TEST

/* The host's part per sequence under MTP, ideal profile, DeepSeek-R1 FP8 on a TP8 B200 engine
 * with one draft token under vLLM (no overlap scheduler: the host's time adds to the step). Host
 * 0.5 ms a step + 10 us a sequence: a decode step of 8 sequences takes 0.5 + 8 x 0.01 = 0.58 ms
 * more than with no host time, one of 64 0.5 + 0.64 = 1.14 ms more; without drafts the part per
 * sequence is not there (0.5 ms more). Under TensorRT-LLM's overlap scheduler the host's time hides
 * under a longer GPU step and sets the step where it is longer: 64 sequences at 1 ms each give a
 * 64.5 ms host, far above the kernels, so the step takes 64.5 ms. On an 8-GPU attention-DP engine
 * each rank has its own scheduler: 64 decode sequences and 2 prompts put 64 / 8 = 8 sequences and
 * one whole prompt (2 / 8 is less than one) on the busiest rank, 9 x 10 us = 90 us more on vLLM;
 * 64 prompts alone 8 a rank, 80 us. */
START_TEST(mtp_host_overhead_per_sequence)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = engine(c, "b200-hgx8", "deepseek-r1", PREC_FP8, 8, &prof);
  e.stack = STACK_VLLM, e.draft_tokens = 1, e.acceptance = 0.7;
  double t8 = step_time_decode(&e, 8, 1024), t64 = step_time_decode(&e, 64, 1024);
  e.draft_tokens = 0;
  double plain8 = step_time_decode(&e, 8, 1024);
  e.draft_tokens = 1;
  prof.stack[STACK_VLLM].host_overhead = 0.5e-3, prof.stack[STACK_VLLM].mtp_host_overhead = 10e-6;
  ck_assert_close(step_time_decode(&e, 8, 1024), t8 + 0.58e-3, 1e-12);
  ck_assert_close(step_time_decode(&e, 64, 1024), t64 + 1.14e-3, 1e-12);
  e.draft_tokens = 0;
  ck_assert_close(step_time_decode(&e, 8, 1024), plain8 + 0.5e-3, 1e-12);
  e.draft_tokens = 1, e.stack = STACK_TRTLLM;
  prof.stack[STACK_TRTLLM].host_overhead = 0.5e-3, prof.stack[STACK_TRTLLM].mtp_host_overhead = 1e-3;
  ck_assert(t64 < 64.5e-3);
  ck_assert_close(step_time_decode(&e, 64, 1024), 64.5e-3, 1e-12);

  Engine d = wide_ep(engine(c, "b200-hgx8", "deepseek-r1", PREC_FP8, 8, &prof));
  d.stack = STACK_VLLM, d.draft_tokens = 1, d.acceptance = 0.7;
  StepBatch mixed = { .decode_seqs = 64, .decode_ctx = 1024, .prefill_tokens = 2 * 512, .prefill_seqs = 2,
                      .prefill_ctx = 256 };
  StepBatch prompts = { .prefill_tokens = 64 * 128, .prefill_seqs = 64, .prefill_ctx = 64 };
  StepTime with, without;
  prof.stack[STACK_VLLM].mtp_host_overhead = 0;
  step_time(&d, &mixed, &without);
  prof.stack[STACK_VLLM].mtp_host_overhead = 10e-6;
  step_time(&d, &mixed, &with);
  ck_assert_close(with.total - without.total, 90e-6, 1e-12);
  prof.stack[STACK_VLLM].mtp_host_overhead = 0;
  step_time(&d, &prompts, &without);
  prof.stack[STACK_VLLM].mtp_host_overhead = 10e-6;
  step_time(&d, &prompts, &with);
  ck_assert_close(with.total - without.total, 80e-6, 1e-12);
  profile_clear(&prof);
}
END_TEST

/* CUDA graphs with padding (engine.h). Llama-3.1-405B, FP8, TP8 on H200s, graphs captured for 256,
 * 384 and 512 sequences. A decode-only step of 300 sequences runs the 384 graph: its GEMMs and
 * all-reduces are those of 384 sequences, its attention reads the KV caches of its own 300 (the
 * padding's dummy sequences hold none), its overheads are the step's; the kernels between the GEMMs
 * run on the graph's 384 too. 256 runs its own graph, as
 * without the list. 600, above every graph, runs eagerly: the unpadded step plus 126 layers x the
 * eager launch cost, 10 us = 1.26 ms. A step carrying a prompt runs eagerly, its own batch; the
 * decode part of such a step, alone, is the unpadded decode step. */
START_TEST(graph_padding)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  prof.stack[STACK_TRTLLM].eager_layer_overhead = 10e-6;
  Engine plain = engine(c, "h200-sxm-hgx8", "llama-3.1-405b", PREC_FP8, 8, &prof), e = plain;
  GraphBatches g = { .n = 3, .size = { 256, 384, 512 } };
  e.graphs = g;
  StepBatch b300 = { .decode_seqs = 300, .decode_ctx = 1000 }, b384 = b300, b256 = b300, b600 = b300;
  b384.decode_seqs = 384, b256.decode_seqs = 256, b600.decode_seqs = 600;
  StepTime t, u300, u384, u256, u600;
  step_time(&plain, &b300, &u300), step_time(&plain, &b384, &u384);
  step_time(&plain, &b256, &u256), step_time(&plain, &b600, &u600);
  step_time(&e, &b300, &t);
  ck_assert(u384.gemm > u300.gemm * 1.05 && u384.comm > u300.comm * 1.05);
  ck_assert(u300.clock == 1 && u384.clock == 1 && t.clock == 1);
  ck_assert_close(t.gemm, u384.gemm, 1e-12);
  ck_assert_close(t.comm, u384.comm, 1e-12);
  ck_assert_close(t.attention, u300.attention, 1e-12);
  ck_assert_close(t.overhead, u300.overhead, 1e-12);
  ck_assert_close(t.elementwise, u384.elementwise, 1e-12);
  ck_assert(u384.elementwise > u300.elementwise * 1.05);
  ck_assert_close(t.total, u384.gemm + u384.comm + u384.elementwise + u300.attention + u300.overhead, 1e-12);
  step_time(&e, &b256, &t);
  ck_assert_close(t.total, u256.total, 1e-12);
  step_time(&e, &b600, &t);
  ck_assert_close(t.total, u600.total + 126 * 10e-6, 1e-12);
  StepBatch mixed = { .decode_seqs = 300, .decode_ctx = 1000, .prefill_tokens = 128, .prefill_seqs = 1,
                      .prefill_ctx = 64 };
  StepTime m_plain, m_graphs;
  step_time(&plain, &mixed, &m_plain), step_time(&e, &mixed, &m_graphs);
  ck_assert_close(m_graphs.total, m_plain.total, 1e-12);
  ck_assert_close(step_time_decode_beside_prompts(&e, 300, 1000), u300.total, 1e-12);
  ck_assert_close(engine_graph_batch(&e, 512), 512, 0);
  ck_assert_close(engine_graph_batch(&e, 512.5), 0, 0);
  ck_assert_close(engine_graph_batch(&plain, 300.5), 300.5, 0);
  profile_clear(&prof);
}
END_TEST

/* The stacks' capture ladders (engine_stack_graphs), counted by hand:
 *  TensorRT-LLM to 300: 1, 2, 4 (3), 8..128 by 8 (16), 192, 256 by 64 (2), then 300 itself: 22;
 *   to 256 the ladder ends on it (21, no second 256); a batch of 130 runs the 192 graph;
 *  SGLang to 600: 1, 2, 4, 8, 12 (5), 16..256 by 8 (31), 272..496 by 16 (15), 512..576 by 32 (3),
 *   600: 55 (index 35 = 256, 36 = 272, 50 = 496, 53 = 576);
 *  SGLang speculative to 100: 1..8 (8), 10..32 by 2 (12), 40..64 by 4 (7), 72..96 by 8 (4), 100: 32
 *   (index 19 = 32, 20 = 40, 26 = 64, 30 = 96);
 *  SGLang to 100,000: the ladder stops at 191 sizes, the last 512 + 32 x (190 - 51) = 4,960, and
 *   ends at 100,000 (192);
 *  a batch cap of 0 still captures 1; vLLM none (its graphs are by tokens, unpadded). */
/* STACK's ladder for DRAFTS and MAX_BATCH has N sizes, and the size at each index AT[i] is SIZE[i]
 * (K of them). */
static void check_ladder(Stack stack, int drafts, int max_batch, int n, const int *at, const double *size, int k)
{
  GraphBatches g;
  engine_stack_graphs(stack, drafts, max_batch, &g);
  ck_assert_msg(g.n == n, "%s, %d drafts, cap %d: %d sizes, expected %d", stack_names[stack], drafts, max_batch, g.n, n);
  for (int i = 0; i < k; i++)
    ck_assert_msg(g.size[at[i]] == size[i], "%s, %d drafts, cap %d: size %d is %g, expected %g", stack_names[stack],
                  drafts, max_batch, at[i], g.size[at[i]], size[i]);
}

START_TEST(stack_graph_ladders)
{
  check_ladder(STACK_TRTLLM, 0, 300, 22, (int[]){ 2, 3, 18, 19, 20, 21 }, (double[]){ 4, 8, 128, 192, 256, 300 }, 6);
  check_ladder(STACK_TRTLLM, 0, 256, 21, (int[]){ 20 }, (double[]){ 256 }, 1);
  Engine e = { 0 };
  engine_stack_graphs(STACK_TRTLLM, 0, 256, &e.graphs);
  ck_assert_double_eq(engine_graph_batch(&e, 130), 192);
  ck_assert_double_eq(engine_graph_batch(&e, 257), 0);
  check_ladder(STACK_SGLANG, 0, 600, 55, (int[]){ 4, 35, 36, 50, 53, 54 }, (double[]){ 12, 256, 272, 496, 576, 600 }, 6);
  check_ladder(STACK_SGLANG, 2, 100, 32, (int[]){ 7, 19, 20, 26, 30, 31 }, (double[]){ 8, 32, 40, 64, 96, 100 }, 6);
  check_ladder(STACK_SGLANG, 0, 100000, GRAPH_BATCHES_MAX, (int[]){ 190, 191 }, (double[]){ 4960, 100000 }, 2);
  check_ladder(STACK_TRTLLM, 0, 0, 1, (int[]){ 0 }, (double[]){ 1 }, 1);
  check_ladder(STACK_VLLM, 0, 256, 0, NULL, NULL, 0);
}
END_TEST

/* Padding under attention-DP (engine.h, engine_routes_padding). DeepSeek-R1 FP8 on 8 H200s,
 * attention-DP with EP 8, the stack's ladder: 4 sequences over 8 ranks (0.5 a rank) run the
 * 1-sequence graph on every rank, 8 tokens. TensorRT-LLM routes the dummy ones: its experts do the
 * work of 8 sequences (the unpadded step of 8). SGLang masks them out of the top-k: its experts do
 * the work of the 4 real ones (the unpadded step of 4). */
START_TEST(padding_through_the_experts)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = engine(c, "h200-sxm-hgx8", "deepseek-r1", PREC_FP8, 8, &prof);
  e.ep = 8, e.dp_attention = TRUE;
  for (int k = 0; k < 2; k++) {
    e.stack = k == 0 ? STACK_TRTLLM : STACK_SGLANG;
    Engine plain = e;
    engine_stack_graphs(e.stack, 0, 256, &e.graphs);
    ck_assert_double_eq(engine_graph_batch(&e, 0.5), 1);
    StepBatch b4 = { .decode_seqs = 4, .decode_ctx = 1000 }, b8 = b4;
    b8.decode_seqs = 8;
    StepTime t, u4, u8;
    step_time(&e, &b4, &t), step_time(&plain, &b4, &u4), step_time(&plain, &b8, &u8);
    ck_assert(u8.moe > u4.moe * 1.2);
    ck_assert_close(t.moe, k == 0 ? u8.moe : u4.moe, 1e-12);
    ck_assert_close(t.attention, u4.attention, 1e-12);
  }
  profile_clear(&prof);
}
END_TEST

/* The steady state with graphs (engine.h): the steps that carry a prompt's chunk decode their batch
 * unpadded. Offline at 128 tokens in and out on a Llama-3.1-8B H200 engine of up to 1,000
 * sequences, about 8 prompts arrive every step, so every step carries one: a graph list that would
 * pad every decode-only step to 2,048 changes nothing. At 4,096 tokens out the KV room holds ~440
 * sequences, one finishing every ~9 steps: most steps decode alone and pay the padding, so the
 * engine is slower, but by less than if every step did (the padded step's time over the unpadded
 * one's at that batch). */
START_TEST(graph_padding_in_steady_state)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  prof.stack[STACK_TRTLLM].max_seqs_per_rank = 4096;
  Engine plain = engine(c, "h200-sxm-hgx8", "llama-3.1-8b", PREC_FP8, 1, &prof), e = plain;
  GraphBatches g = { .n = 1, .size = { 2048 } };
  e.graphs = g;
  Load ld = { .isl = 128, .osl = 128, .max_batch = 1000, .chunk = 8192 };
  SteadyState a, b;
  g_free(steady_aggregated(&plain, 1, &ld, &a));
  g_free(steady_aggregated(&e, 1, &ld, &b));
  ck_assert(a.batch > 900); /* the slots full but for the prompts coming in */
  ck_assert_close(b.out_tok_s, a.out_tok_s, 1e-12);
  ld.osl = 4096;
  g_free(steady_aggregated(&plain, 1, &ld, &a));
  g_free(steady_aggregated(&e, 1, &ld, &b));
  double ctx = ld.isl + ld.osl / 2;
  double slower = step_time_decode(&e, a.batch, ctx) / step_time_decode(&plain, a.batch, ctx);
  ck_assert(slower > 1.2);
  ck_assert(b.out_tok_s < a.out_tok_s / 1.05 && b.out_tok_s > a.out_tok_s / slower);
  profile_clear(&prof);
}
END_TEST

/* The power-limited clock. The prefill of test prefill_compute_bound (Llama-3.1-8B BF16 on a B200,
 * 8 prompts of 4096 tokens): GEMMs (G) and attention (A) compute-bound, the LM head weight-read-
 * bound (H, its compute Hc under the read). Say compute-bound work with its tensor cores busy all the
 * time drew 1.64 x (TDP - idle) at the full clock (an H200's measured figure): the GEMMs' tensor
 * cores are busy u = 32768 / (32768 + 64) of the time (their rate over a large GEMM's), attention's
 * all of it, the head's 8 / 72; the step's activity is (G x 1.64 u + A x 1.64 + H') / (G + A + H),
 * H' = min(H x max(1.64 x 8/72, m), Hc x 1.64 x 8/72 + H x m), m the catalog's memory-bound share;
 * with the kernels between the GEMMs (E, HBM-bound: E x m) (G x 1.64 u + A x 1.64 + H' + E m) /
 * (G + A + H + E). Above 1, so the step runs at clock (1 / activity)^(1/2.5), where it draws the
 * TDP: its compute takes (G + A) / clock, the head and E what they took. A decode step, HBM-bound, keeps the full clock. A
 * power cap halfway between idle and TDP on the same prefill at the catalog's 1: the same activity
 * with 1 for 1.64, against 0.5. */
START_TEST(power_limited_clock)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  SystemSpec sys;
  system_spec_copy(&sys, catalog_system(c, "b200-hgx8"));
  Engine e = engine(c, "b200-hgx8", "llama-3.1-8b", PREC_BF16, 1, &prof);
  e.sys = &sys, e.kv_precision = PREC_BF16;
  double layer_params = 2.0 * 4096 * 4096 + 2.0 * 4096 * 1024 + 3.0 * 4096 * 14336;
  double g = 2.0 * 32768 * 32 * layer_params / (2250e12 * 32768.0 / (32768 + 64));
  double a = 32768.0 * 2048 * 4 * 32 * 128 * 32 / 2250e12, u = 32768.0 / (32768 + 64);
  double head = 128256.0 * 4096 * 2 / 8e12, m = sys.memory_bound_power, uh = 8 / 72.0;
  double head_compute = 2.0 * 8 * 128256 * 4096 / (2250e12 * uh);
  double ew = 32768.0 * 32 * (2 * 4096 * 8 + 14336 * 6) / 8e12; /* prefill_compute_bound */
  StepBatch pf = { .prefill_tokens = 8 * 4096, .prefill_seqs = 8, .prefill_ctx = 2048 };
  StepTime t;
  step_time(&e, &pf, &t);
  ck_assert_close(t.total, g + a + head + ew, 1e-9);
  ck_assert_close(t.clock, 1, 1e-12);
  sys.compute_power = 1.64;
  double activity =
    (g * 1.64 * u + a * 1.64 + MIN(head * MAX(1.64 * uh, m), head_compute * 1.64 * uh + head * m) + ew * m) /
    (g + a + head + ew);
  double clock = pow(1 / activity, 1 / 2.5);
  step_time(&e, &pf, &t);
  ck_assert_close(t.clock, clock, 1e-9);
  ck_assert_close(t.total, (g + a) / clock + head + ew, 1e-9);
  ck_assert_close(t.activity, 1, 1e-12);
  double d0 = step_time_decode(&e, 1, 0);
  StepBatch dec = { .decode_seqs = 1 };
  step_time(&e, &dec, &t);
  ck_assert_close(t.clock, 1, 1e-12);
  ck_assert_close(t.total, d0, 1e-12);
  sys.compute_power = 1;
  e.power_limit = sys.idle_power + 0.5 * (sys.tdp - sys.idle_power);
  activity = (g * u + a + MIN(head * MAX(uh, m), head_compute * uh + head * m) + ew * m) / (g + a + head + ew);
  clock = pow(0.5 / activity, 1 / 2.5);
  step_time(&e, &pf, &t);
  ck_assert_close(t.clock, clock, 1e-9);
  ck_assert_close(t.total, (g + a) / clock + head + ew, 1e-9);
  ck_assert_close(t.activity, 0.5, 1e-12);
  system_spec_clear(&sys);
  profile_clear(&prof);
}
END_TEST

START_TEST(infeasible_with_numbers)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  prof.memory_reserve = 0.05;
  /* Llama-3.1-405B in FP8 on one H100: ~400 GB of weights on an 80 GiB GPU */
  Engine e = engine(c, "h100-sxm-hgx8", "llama-3.1-405b", PREC_FP8, 1, &prof);
  MemoryPlan m;
  g_autofree char *why = memory_plan(&e, 2048, &m);
  ck_assert_ptr_nonnull(why);
  /* 81,559 MiB as nvidia-smi shows it: 85.5 GB */
  g_autofree char *want = g_strdup_printf("needs %.1f GB per GPU for weights and reserve, has 85.5 GB",
                                          (m.weights + 0.05 * 81559.0 * 1048576) / 1e9);
  ck_assert_str_eq(why, want);
  ck_assert(m.weights > 400e9 && m.weights < 420e9);
  profile_clear(&prof);
}
END_TEST

/* Each stack sizes its KV pool by its own rule. Llama-3.3-70B in FP8 on one H200 (143,771 MiB =
 * 150.7548e9 B as nvidia-smi shows it): weights 68.4510e9 B of FP8 layers + 2 x 128256 x 8192 x 2 B
 * of BF16 embedding and LM head = 72.6536e9 B; activations 4% of HBM = 6.0302e9 B.
 *   TensorRT-LLM, 0.9 of what is free: 0.9 x (150.7548 - 72.6536 - 6.0302)e9 = 64.8639e9 B
 *   SGLang, its default (HBM less activations): 0.96 x 150.7548e9 - 72.6536e9 = 72.0710e9 B;
 *     launched with --mem-fraction-static 0.82: 0.82 x 150.7548e9 - 72.6536e9 = 50.9653e9 B
 *   vLLM, 0.9 of HBM for everything: 135.6793e9 - 72.6536e9 - 6.0302e9 = 56.9955e9 B
 * The rest is what each leaves to activations and the runtime. */
START_TEST(kv_pool_rules_of_the_stacks)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  prof.memory_reserve = 0.04;
  Engine e = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 1, &prof);
  ck_assert_double_eq(e.sys->hbm_capacity, 143771.0 * 1048576);
  double w = memory_weight_bytes_gpu(&e), reserve;
  ck_assert_close(w, 72.6536e9, 1e-5);
  ck_assert_close(memory_kv_pool(&e, w, &reserve), 64.8639e9, 1e-5);
  ck_assert_close(reserve, e.sys->hbm_capacity - w - 64.8639e9, 1e-5);
  e.stack = STACK_SGLANG;
  ck_assert_close(memory_kv_pool(&e, w, NULL), 72.0710e9, 1e-5);
  e.kv_fraction = 0.82;
  ck_assert_close(memory_kv_pool(&e, w, &reserve), 50.9653e9, 1e-5);
  ck_assert_close(reserve, 0.18 * e.sys->hbm_capacity, 1e-9);
  e.kv_fraction = 0;
  e.stack = STACK_VLLM;
  ck_assert_close(memory_kv_pool(&e, w, NULL), 56.9955e9, 1e-5);
  profile_clear(&prof);
}
END_TEST

/* FP4 weights on Hopper, which has no FP4 tensor cores: weight-only, as the W4A16 kernels serve
 * MXFP4 there. Llama-3.3-70B, one H200, ideal efficiencies. The 68.451e9 linear weights (see
 * llama70b_decode_batch1_h200) take 0.5625 B each (4 bits + one FP8 scale per 16): 38.504e9 B.
 * Batch 1: the GEMMs pad the token to 16 rows, 2 x 68.451e9 x 17 / 989e12 = 2.35 ms of BF16 math,
 * below the weight read, so a step is (38.504e9 + 2.1013e9 LM head) / 4.8e12 = 8.459 ms (FP8:
 * 14.70 ms). A prefill of 8,192 tokens computes at the BF16 peak, not an FP4 one:
 * 2 x (8192 + 16) x 68.451e9 / 989e12 = 1.1362 s of linear GEMMs, plus the LM head's one row
 * (its 2.1013e9 B read, 0.438 ms). Engines stay feasible; only a GPU without BF16 tensor cores
 * could refuse them. The batch-1 step's activations between the GEMMs stay BF16 here:
 * 80 x (2 x 8192 x (3 x 2 + 2) + 28672 x (2 x 2 + 2)) = 80 x 303,104 B more (elementwise_bytes). */
START_TEST(fp4_weight_only_on_hopper)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP4, 1, &prof);
  SystemSpec full;
  e.sys = full_clock(c, "h200-sxm-hgx8", &full);
  ck_assert_ptr_null(engine_check(&e));
  ck_assert_int_eq(system_compute_precision(e.sys, PREC_FP4), PREC_BF16);
  double linear = 80.0 * 150994944.0 + 80.0 * 3 * 8192 * 28672, head = 128256.0 * 8192 * 2;
  ck_assert_close(memory_weight_bytes_gpu(&e), linear * 0.5625 + 2 * head, 1e-12);
  ck_assert_close(step_time_decode(&e, 1, 0), (linear * 0.5625 + head + 80 * 303104.0) / 4.8e12, 1e-9);
  ck_assert_close(step_time_decode(&e, 1, 0), 8.459e-3, 1e-3);
  StepBatch b = { .prefill_tokens = 8192, .prefill_seqs = 1, .prefill_ctx = 0 };
  StepTime t;
  step_time(&e, &b, &t);
  ck_assert_close(t.gemm, 2 * (8192 + 16) * linear / 989e12 + head / 4.8e12, 1e-9);
  ck_assert_close(t.gemm, 1.1366, 1e-3);
  /* the same GPU in FP8 serves FP8 natively: its batch-1 step reads twice the bytes */
  Engine f = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 1, &prof);
  ck_assert_int_eq(system_compute_precision(f.sys, PREC_FP8), PREC_FP8);
  ck_assert(step_time_decode(&f, 1, 0) > 1.7 * step_time_decode(&e, 1, 0));
  system_spec_clear(&full);
  profile_clear(&prof);
}
END_TEST

/* MTP with d = 3 drafts accepted with probability 0.7 each (a chain): 1 + 0.7 + 0.49 + 0.343. */
START_TEST(mtp_tokens_per_step)
{
  Engine e = { .draft_tokens = 3, .acceptance = 0.7 };
  ck_assert_close(engine_tokens_per_step(&e), 2.533, 1e-12);
  e.draft_tokens = 0;
  ck_assert_close(engine_tokens_per_step(&e), 1, 1e-12);
}
END_TEST

/* Closed loop: users = throughput x (TTFT + decode time), Little's law, and more users give more
 * throughput but less speed per user. */
START_TEST(closed_loop_littles_law)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 8, &prof);
  double last_tput = 0, last_user = 1e9;
  for (double users = 1; users <= 256; users *= 4) {
    Load ld = { .isl = 1024, .osl = 1024, .users = users, .max_batch = 1e9, .chunk = 8192 };
    SteadyState ss;
    g_autofree char *why = steady_aggregated(&e, 1, &ld, &ss);
    ck_assert_ptr_null(why);
    double x = ss.out_tok_s / ld.osl; /* requests/s */
    double in_flight = x * (ss.ttft + (ld.osl - 1) * ss.tpot);
    ck_assert_close(in_flight, users, 0.02);
    ck_assert(ss.out_tok_s > last_tput && ss.tok_s_per_user < last_user);
    last_tput = ss.out_tok_s, last_user = ss.tok_s_per_user;
  }
  profile_clear(&prof);
}
END_TEST

/* A compute-bound engine admits the users it has room for. Llama-3.3-70B FP4 on one B200 with
 * ideal efficiencies, 300-token prompts, 274-token answers: past a few hundred sequences a step's
 * time grows in proportion to its batch, so throughput barely rises with more sequences, yet a user
 * with a free slot decodes at once. At 90% of the memory's sequences no user waits for admission:
 * TTFT stays within a few steps (a prompt's prefill rides one step) and, by Little's law, the
 * decode batch holds every user not in TTFT: users x decode / (TTFT + decode). A rate capped at
 * 97% of the engine's ceiling held 60% of them in an admission queue instead (TTFT 9 s). */
START_TEST(compute_bound_engine_admits)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  prof.stack[STACK_TRTLLM].max_seqs_per_rank = 1e6; /* memory alone bounds the batch */
  Engine e = engine(c, "b200-hgx8", "llama-3.3-70b", PREC_FP4, 1, &prof);
  Load ld = { .isl = 300, .osl = 274, .users = 1, .max_batch = 1e9, .chunk = 8192 };
  SteadyState ss;
  g_autofree char *w1 = steady_aggregated(&e, 1, &ld, &ss);
  ck_assert_ptr_null(w1);
  ld.users = floor(0.9 * ss.max_seqs);
  g_autofree char *w2 = steady_aggregated(&e, 1, &ld, &ss);
  ck_assert_ptr_null(w2);
  double decode = (ld.osl - 1) * ss.tpot;
  ck_assert(ld.users > 500); /* deep in the compute-bound regime */
  ck_assert_double_lt(ss.ttft, 3 * ss.step);
  ck_assert_close(ss.batch, ld.users * decode / (ss.ttft + decode), 0.02);
  profile_clear(&prof);
}
END_TEST

/* A launch's batch cap is the engine's: TensorRT-LLM launched with max_batch_size 1,500 runs 1,500
 * sequences, though its stack's default (the cap where a launch sets none) is 1,000. The default
 * counts per attention rank: 8 ranks of an attention-DP engine run 8 x 1,000. Offline, Llama-3.3-70B
 * FP4 on one B200 with 128-token prompts and answers (256 tokens of FP8 KV cache a sequence, 41.9 MB:
 * some 3,000 fit beside 35 GB of weights) saturates the launch's cap, not the default. */
START_TEST(launch_cap_replaces_stack_default)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  prof.stack[STACK_TRTLLM].max_seqs_per_rank = 1000;
  Engine e = engine(c, "b200-hgx8", "llama-3.3-70b", PREC_FP4, 1, &prof);
  ck_assert_close(engine_launch_cap(&e, 1500), 1500, 1e-12);
  ck_assert_close(engine_launch_cap(&e, 64), 64, 1e-12);
  ck_assert_close(engine_launch_cap(&e, ENGINE_BATCH_UNSET), 1000, 1e-12);
  ck_assert_close(engine_launch_cap(&e, 1e9), 1000, 1e-12); /* validate's rows without one */
  Engine adp = engine(c, "b200-hgx8", "deepseek-r1", PREC_FP4, 8, &prof);
  adp.ep = 8, adp.dp_attention = TRUE;
  ck_assert_close(engine_launch_cap(&adp, ENGINE_BATCH_UNSET), 8000, 1e-12);
  Load ld = { .isl = 128, .osl = 128, .max_batch = 1500, .chunk = 8192 };
  SteadyState ss;
  g_autofree char *why = steady_aggregated(&e, 1, &ld, &ss);
  ck_assert_ptr_null(why);
  ck_assert_double_gt(ss.max_seqs, 1500);
  ck_assert_double_gt(ss.batch, 1000);
  ck_assert_double_le(ss.batch, 1500 + 1e-9);
  profile_clear(&prof);
}
END_TEST

/* Under latency limits (an MLPerf server run) the steady state serves the most it can while they
 * hold, so at the answer a limit binds: Llama-3.1-8B FP8 on one H200 with the built-in profile,
 * 930-token prompts, 129-token answers, TPOT up to 70 ms and p99 TTFT up to 2 s. Throughput rises with
 * the load until the TPOT limit stops it, well short of the batch memory allows: TPOT sits at the
 * limit (within 0.5%), TTFT under its own. A search that stopped at the last of its grid's loads
 * (15% apart) left TPOT anywhere below the limit and jumped between grid points as a fitted figure
 * moved in its sixth digit. */
START_TEST(slo_limit_binds)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  prof.stack[STACK_TRTLLM].max_seqs_per_rank = 2048; /* as fitted: the scheduler's cap is not what stops it */
  Engine e = engine(c, "h200-sxm-hgx8", "llama-3.1-8b", PREC_FP8, 1, &prof);
  Load ld = { .isl = 930, .osl = 129, .max_batch = 1e9, .chunk = 8192, .tpot_limit = 0.070, .ttft_p99_limit = 2.0 };
  SteadyState ss;
  g_autofree char *why = steady_aggregated(&e, 1, &ld, &ss);
  ck_assert_ptr_null(why);
  ck_assert_double_lt(ss.batch, 0.9 * MIN(ss.max_seqs, engine_batch_cap(&e)));
  ck_assert_double_le(ss.ttft_p99, ld.ttft_p99_limit);
  ck_assert_double_le(ss.ttft, ss.ttft_p99);
  ck_assert_double_le(ss.tpot, ld.tpot_limit);
  ck_assert_close(ss.tpot, ld.tpot_limit, 0.005);
  profile_clear(&prof);
}
END_TEST

/* The p99 of a prompt's wait under Poisson arrivals (M/D/1, exponential tail of mean
 * S / (2 (1 - rho)), zero with probability 1 - rho): 0.25 prompts/s of 1.6 s each is rho = 0.4, a
 * tail mean of 1.6 / 1.2 = 1.33333 s, and a p99 of 1.33333 x ln(40) = 1.33333 x 3.688879 =
 * 4.918506 s; 1 prompt/s of 0.5 s is 0.5 x ln(50) = 1.956012 s; at rho = 0.5% fewer than 1% of
 * prompts wait at all: 0. */
START_TEST(prompt_wait_tail)
{
  ck_assert_close(steady_prompt_wait_p99(0.25, 1.6), 4.918506, 1e-6);
  ck_assert_close(steady_prompt_wait_p99(1.0, 0.5), 1.956012, 1e-6);
  ck_assert_double_eq(steady_prompt_wait_p99(0.005, 1.0), 0);
}
END_TEST

/* Long prompts make the TTFT tail bind first: Llama-3.1-405B FP8 on eight H100 with the built-in
 * profile, 9,400-token prompts and 650-token answers (MLPerf's server limits: p99 TTFT 6 s, TPOT
 * 175 ms, of which a median may reach 70%). A prompt holds the engine's prefill budget for
 * seconds, so queued prompts wait whole prefills: the answer is where p99 TTFT meets 6 s (within
 * 0.5%), with TPOT well under its limit and the mean TTFT under half the p99. Held to the mean
 * TTFT instead, TPOT bound at 122.5 ms with the prefill taking two thirds of the engine's time. */
START_TEST(ttft_tail_binds)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = engine(c, "h100-sxm-hgx8", "llama-3.1-405b", PREC_FP8, 8, &prof);
  Load ld = { .isl = 9400, .osl = 650, .max_batch = 1e9, .chunk = 8192, .tpot_limit = 0.1225, .ttft_p99_limit = 6.0 };
  SteadyState ss;
  g_autofree char *why = steady_aggregated(&e, 1, &ld, &ss);
  ck_assert_ptr_null(why);
  ck_assert_close(ss.ttft_p99, ld.ttft_p99_limit, 0.005);
  ck_assert_double_lt(ss.tpot, 0.8 * ld.tpot_limit);
  ck_assert_double_lt(ss.ttft, 0.5 * ss.ttft_p99);
  profile_clear(&prof);
}
END_TEST

/* Prefill is compute-bound: 8 prompts of 4096 tokens of Llama-3.1-8B on one B200 in BF16 with
 * ideal efficiencies. GEMM FLOPs: 2 x 32768 tokens x (32 layers x (2 x 4096 x 4096 + 2 x 4096 x
 * 1024 + 3 x 4096 x 14336)) = 2 x 32768 x 6.9793e9 = 4.5739e14; at 2250 TFLOP/s with
 * M / (M + 64) efficiency (M = 32768: 0.998051) that is 203.69 ms. Attention: 32768 tokens x 2048
 * mean span x 4 x 32 heads x 128 x 32 layers = 3.5184e13 FLOP -> 15.637 ms. The LM head reads
 * 1.05e9 BF16 weights for the 8 last tokens (0.47 ms, memory-bound). The kernels between the GEMMs
 * move 32 layers x (two norms, 2 x 4096 x (3 x 2 + 2) = 65,536 B, and the gated activation,
 * 14336 x (2 x 2 + 2) = 86,016 B) = 4,849,664 B a token (elementwise_bytes), 1.5892e11 B for the
 * 32768 tokens: 19.865 ms at 8 TB/s. About 239.7 ms in all. */
START_TEST(prefill_compute_bound)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = engine(c, "b200-hgx8", "llama-3.1-8b", PREC_BF16, 1, &prof);
  e.kv_precision = PREC_BF16;
  double layer_params = 2.0 * 4096 * 4096 + 2.0 * 4096 * 1024 + 3.0 * 4096 * 14336;
  double gemm = 2.0 * 32768 * 32 * layer_params / (2250e12 * 32768.0 / (32768 + 64));
  double attn = 32768.0 * 2048 * 4 * 32 * 128 * 32 / 2250e12;
  double head = MAX(2.0 * 8 * 128256 * 4096 / (2250e12 * 8 / (8 + 64.0)), 128256.0 * 4096 * 2 / 8e12);
  double ew = 32768.0 * 32 * (2 * 4096 * 8 + 14336 * 6) / 8e12;
  ck_assert_close(ew, 19.865e-3, 1e-3);
  ck_assert_close(step_time_prefill(&e, 8, 4096), gemm + attn + head + ew, 1e-9);
  ck_assert_close(gemm + attn + head + ew, 239.7e-3, 2e-3);
  /* a Green Context of half the SMs halves the compute rate: GEMMs and attention take twice as
   * long, the weight-read-bound LM head and the HBM-bound kernels between the GEMMs (HBM bandwidth
   * kept) do not */
  e.sm_share = 0.5;
  ck_assert_close(step_time_prefill(&e, 8, 4096), 2 * (gemm + attn) + head + ew, 1e-9);
  profile_clear(&prof);
}
END_TEST

/* The kernels between the GEMMs (step_time.c, elementwise_bytes) move activations at the HBM's
 * rate. DeepSeek-R1 FP8 on 8 B200s (8 TB/s), ideal profile, a prefill step of 8 prompts of 1,024
 * tokens; FP8 GEMM inputs (1 B), BF16 elsewhere (2 B). Bytes on a GPU, per layer:
 *   two residual-add + RMSNorms over the whole hidden state, per token its attention holds:
 *     2 x 7168 x (3 x 2 + 1) = 100,352 (x 61 layers = 6,121,472)
 *   a dense FFN layer's gated activation on its slice, per token: 18432 / 8 x (2 x 2 + 1) = 11,520
 *   an expert layer's gated activations, per token: its 8 copies over EP on the GPU's slice of the
 *     expert, 8 / EP x 2048 / moe_tp x 5 = 10,240 either way, and the shared expert's slice
 * TP8 EP8: every GPU norms all 8,192 tokens; the shared expert split 8 ways (2048 / 8 x 5 =
 *   1,280): 8192 x (6,121,472 + 3 x 11,520 + 58 x 11,520) = 5.590378e10 B, 6.98797 ms.
 * Attention-DP over the 8 (wide EP): a GPU norms its own prompt's 1,024 tokens and runs the shared
 *   expert whole on them (2048 x 5 = 10,240 a token): 1024 x 6,121,472 + 8192 x 3 x 11,520 +
 *   58 x (8192 x 10,240 + 1024 x 10,240) = 1.202507e10 B, 1.50313 ms.
 * Tensor parallelism divides the GEMMs, not the norms. */
START_TEST(elementwise_between_gemms)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  StepBatch b = { .prefill_tokens = 8192, .prefill_seqs = 8, .prefill_ctx = 512 };
  StepTime tp, dp;
  Engine e = engine(c, "b200-hgx8", "deepseek-r1", PREC_FP8, 8, &prof);
  e.ep = 8;
  step_time(&e, &b, &tp);
  e = wide_ep(e);
  step_time(&e, &b, &dp);
  double norms = 61 * 100352.0, dense = 3 * 11520.0;
  ck_assert_close(tp.elementwise, 8192 * (norms + dense + 58 * 11520.0) / 8e12, 1e-9);
  ck_assert_close(tp.elementwise, 6.98797e-3, 1e-5);
  ck_assert_close(dp.elementwise, (1024 * norms + 8192 * dense + 58 * (8192 + 1024) * 10240.0) / 8e12, 1e-9);
  ck_assert_close(dp.elementwise, 1.50313e-3, 1e-5);
  ck_assert_close(tp.total, tp.gemm + tp.attention + tp.moe + tp.elementwise + tp.comm + tp.overhead, 1e-12);
  profile_clear(&prof);
}
END_TEST

/* Attention data-parallel: each prompt lives on one rank. DeepSeek-R1 FP8 on 8 H200s, attention DP,
 * ideal profile; one prefill step of 8192 prompt tokens attending to 2048 tokens on average.
 * Prefill attention FLOPs per (query, key) pair and layer: 2 x 128 heads x (128 + 64 + 128) = 81920.
 * One prompt of 8192 tokens: its rank does 8192 x 2048 x 81920 x 61 layers = 8.3838e13 FLOP, which
 * TensorRT-LLM runs in FP8 with an FP8 KV cache (fp8_mla_context): at 1979 TFLOP/s 42.36 ms (its
 * 1.31e11 exponentials at 3.9e12/s, 33.6 ms, hide under it), while the other ranks wait at the
 * experts. Eight prompts of 1024: each rank does an eighth, 5.30 ms. The projections likewise run
 * 8192 vs 1024 rows per rank. */
START_TEST(attention_dp_prompt_on_one_rank)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  SystemSpec full;
  Engine e = h200_deepseek_wide_ep(c, &prof, &full);
  StepBatch one = { .prefill_tokens = 8192, .prefill_seqs = 1, .prefill_ctx = 2048 };
  StepBatch eight = { .prefill_tokens = 8192, .prefill_seqs = 8, .prefill_ctx = 2048 };
  StepTime t1, t8;
  step_time(&e, &one, &t1);
  step_time(&e, &eight, &t8);
  double flops = 8192.0 * 2048 * 2 * 128 * (128 + 64 + 128) * 61;
  ck_assert_close(t1.attention, flops / 1979e12, 1e-9);
  ck_assert_close(t1.attention, 42.36e-3, 1e-3);
  ck_assert_close(t8.attention, flops / 8 / 1979e12, 1e-9);
  ck_assert(t1.gemm > 4 * t8.gemm); /* projections: 8192 rows on one rank against 1024 on each */
  ck_assert(t1.total > t8.total);
  system_spec_clear(&full);
  profile_clear(&prof);
}
END_TEST

/* Where the caller placed whole prompts on attention-DP ranks (the event simulation), the step waits
 * for the rank that holds the most prompt tokens. DeepSeek-R1 FP8 on 8 H200s, attention DP, ideal
 * profile, full clock; nine 1,000-token prompts attending to 500 tokens on average. Spread by their
 * count the ranks hold 9000 / 8 = 1,125 tokens each; placed whole, one rank holds two prompts, 2,000.
 *   attention at 2,000 a rank: 2000 x 500 x 81920 x 61 = 4.9971e12 FLOP at 1979 TFLOP/s = 2.5251 ms
 *     (its 7.808e9 exponentials at 3.9e12/s, 2.002 ms, hide under it), the same as sixteen prompts
 *     two a rank; at 1,125 a rank 1.4204 ms;
 *   the projections run 2,000 rows on the busiest rank, the experts' and dense layers' work is the
 *     step's 9,000 tokens: more than the spread step's, less than sixteen prompts'.
 * A placement of 1,125 a rank is the spread itself, to the bit. */
START_TEST(busiest_rank_holds_whole_prompts)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  SystemSpec full;
  Engine e = h200_deepseek_wide_ep(c, &prof, &full);
  StepBatch spread = { .prefill_tokens = 9000, .prefill_seqs = 9, .prefill_ctx = 500 };
  StepBatch even = spread, placed = spread;
  even.prefill_rank_tokens = 1125, placed.prefill_rank_tokens = 2000;
  StepBatch two = { .prefill_tokens = 16000, .prefill_seqs = 16, .prefill_ctx = 500 };
  StepTime ts, te, tp, t2;
  step_time(&e, &spread, &ts);
  step_time(&e, &even, &te);
  step_time(&e, &placed, &tp);
  step_time(&e, &two, &t2);
  ck_assert(te.total == ts.total && te.gemm == ts.gemm && te.moe == ts.moe && te.comm == ts.comm);
  ck_assert_close(tp.attention, 2000.0 * 500 * 81920 * 61 / 1979e12, 1e-9);
  ck_assert_close(tp.attention, 2.5251e-3, 1e-4);
  ck_assert_close(ts.attention, 1125.0 * 500 * 81920 * 61 / 1979e12, 1e-9);
  ck_assert_close(tp.attention, t2.attention, 1e-12);
  ck_assert(ts.gemm < tp.gemm && tp.gemm < t2.gemm);
  ck_assert(tp.total > ts.total && tp.total < t2.total);
  system_spec_clear(&full);
  profile_clear(&prof);
}
END_TEST

/* Fused attention runs the softmax's exponentials on the SFUs beside the MMAs: the slower unit sets
 * its time. One 8,192-token prompt attending to 2,048 tokens on average on one rank of 8 (wide EP),
 * DeepSeek-R1 FP8, ideal profile, full clock: 8192 x 2048 x 61 = 1.02341e9 (query, key) pairs a
 * layer-sum, 81,920 FLOP (8.38378e13 in all) and 128 exponentials (1.30997e11) each.
 *   B200, TensorRT-LLM (FP8 context MLA): MMAs 8.38378e13 / 4.5e15 = 18.631 ms, exponentials
 *     1.30997e11 / 5e12 = 26.199 ms: SFU-bound, 26.199 ms.
 *   B300 (Blackwell Ultra, 10.7e12 exponentials/s): 12.243 ms of exponentials, MMA-bound, 18.631 ms
 *     (1.41x B200's; NVIDIA measured ~35% on DeepSeek-V3's FP8 attention).
 *   B200, SGLang (BF16 prompt attention): 8.38378e13 / 2.25e15 = 37.261 ms, MMA-bound.
 * gpt-oss-120b on one B200 (64 heads of 64: 4 x 64 x 64 = 16,384 FLOP and 64 exponentials a pair,
 * 256 FLOP an exponential), 8,192 tokens at 100 tokens of context (inside the 128-token window, so
 * every layer spans 100): 8192 x 100 x 36 = 2.94912e7 pairs: BF16 MMAs 4.83183e11 / 2.25e15 =
 * 0.21475 ms, exponentials 1.88744e9 / 5e12 = 0.37749 ms: SFU-bound even in BF16 (FlashAttention-3
 * says as much of 64-dim heads on an H100: 3.9e12/s there, 0.48396 ms against MMAs' 0.48856).
 * A calibrated B200 whose MUFU.EX2 loop runs at 0.9 of the catalog's rate (exp_efficiency 0.9):
 * 1.30997e11 / 4.5e12 = 29.110 ms; at 1.5 (7.5e12/s) the MMAs' 18.631 ms bind. */
START_TEST(attention_exponentials_bound)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  SystemSpec b200, b300, h100;
  StepBatch one = { .prefill_tokens = 8192, .prefill_seqs = 1, .prefill_ctx = 2048 };
  StepTime t;
  Engine e = wide_ep(engine(c, "b200-hgx8", "deepseek-r1", PREC_FP8, 8, &prof));
  e.sys = full_clock(c, "b200-hgx8", &b200);
  step_time(&e, &one, &t);
  ck_assert_close(t.attention, 1.30997e11 / 5e12, 1e-5);
  ck_assert_close(t.attention, 26.199e-3, 1e-4);
  prof.arch[ARCH_BLACKWELL].exp_efficiency = 0.9;
  step_time(&e, &one, &t);
  ck_assert_close(t.attention, 29.110e-3, 1e-4);
  prof.arch[ARCH_BLACKWELL].exp_efficiency = 1.5;
  step_time(&e, &one, &t);
  ck_assert_close(t.attention, 18.631e-3, 1e-4);
  prof.arch[ARCH_BLACKWELL].exp_efficiency = 1;
  e.stack = STACK_SGLANG; /* BF16 prompt attention: MMA-bound */
  step_time(&e, &one, &t);
  ck_assert_close(t.attention, 8.38378e13 / 2.25e15, 1e-5);
  e.stack = STACK_TRTLLM;
  e.sys = full_clock(c, "b300-hgx8", &b300);
  step_time(&e, &one, &t);
  ck_assert_close(t.attention, 8.38378e13 / 4.5e15, 1e-5);
  ck_assert_close(t.attention, 18.631e-3, 1e-4);
  /* 64-dim heads: the exponentials bind in BF16 on a B200, the two nearly tie on an H100 */
  StepBatch oss = { .prefill_tokens = 8192, .prefill_seqs = 1, .prefill_ctx = 100 };
  Engine g = engine(c, "b200-hgx8", "gpt-oss-120b", PREC_FP4, 1, &prof);
  g.sys = &b200;
  step_time(&g, &oss, &t);
  ck_assert_close(t.attention, 8192.0 * 100 * 36 * 64 / 5e12, 1e-9);
  ck_assert_close(t.attention, 0.37749e-3, 1e-4);
  g.sys = full_clock(c, "h100-sxm-hgx8", &h100);
  step_time(&g, &oss, &t);
  ck_assert_close(t.attention, 8192.0 * 100 * 36 * 16384 / 989e12, 1e-9);
  system_spec_clear(&b200);
  system_spec_clear(&b300);
  system_spec_clear(&h100);
  profile_clear(&prof);
}
END_TEST

/* Generation MLA on the FP8 tensor cores. DeepSeek-R1 on 8 B200s, wide EP (each attention-DP rank
 * holds its sequences with all 128 heads), ideal profile, a decode step of 64 sequences (8 a rank)
 * at 8,192 tokens of context. Absorbed MLA: 2 x 128 x (2 x 512 + 64) = 278,528 FLOP per query and
 * context token per layer: 8 x 8,192 x 278,528 x 61 = 1.113470e12 FLOP a rank, 0.494876 ms at
 * BF16's 2,250 TFLOP/s, 0.247438 ms at FP8's 4,500. The FP8 KV cache a rank reads: 8 x 8,192 x
 * 576 B x 61 = 2.302669e9 B at 8 TB/s, 0.287834 ms. TensorRT-LLM (and SGLang) quantize the queries
 * and run FP8 MQA: memory-bound, 0.287834 ms. A stack that dequantizes to BF16 (fp8_mla_decode
 * off, vLLM's default here) stays compute-bound at 0.494876 ms; so does a BF16 KV cache, whose
 * bytes double (0.575668 ms, then memory-bound), and Hopper, where no stack runs FP8 MLA
 * generation: the H200's 989 TFLOP/s give 1.125854 ms. */
START_TEST(fp8_mla_decode_attention)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  StepBatch b = { .decode_seqs = 64, .decode_ctx = 8192 };
  StepTime t;
  Engine e = wide_ep(engine(c, "b200-hgx8", "deepseek-r1", PREC_FP8, 8, &prof));
  step_time(&e, &b, &t);
  ck_assert_close(t.attention, 0.287834e-3, 1e-5);
  prof.stack[STACK_TRTLLM].fp8_mla_decode = FALSE;
  step_time(&e, &b, &t);
  ck_assert_close(t.attention, 0.494876e-3, 1e-5);
  prof.stack[STACK_TRTLLM].fp8_mla_decode = TRUE;
  e.kv_precision = PREC_BF16;
  step_time(&e, &b, &t);
  ck_assert_close(t.attention, 0.575668e-3, 1e-5);
  SystemSpec full;
  Engine h = h200_deepseek_wide_ep(c, &prof, &full);
  step_time(&h, &b, &t);
  ck_assert_close(t.attention, 1.125854e-3, 1e-5);
  system_spec_clear(&full);
  profile_clear(&prof);
}
END_TEST

/* Block-scaled FP8: DeepSeek-R1 ships FP8 weights with one scale per 128 x 128 block, and those
 * GEMMs reach fp8_block_efficiency of the per-tensor FP8 rate. 8 H200s, TP8 (experts split 8 ways,
 * no EP), ideal profile, one prefill step of 8192 tokens. Each MoE layer: 8192 x 8 routed rows over
 * all 256 experts (256 rows each; in 64-row tiles, the last one half empty on average: 256 + 32 =
 * 288 rows computed, 256 / 288 of the peak), expert params 3 x 7168 x 2048 = 44,040,192:
 * 2 x 8192 x 8 x 44,040,192 / 8 GPUs = 7.2155e11 FLOP at 1979e12 x 0.8889 = 0.41018 ms (its
 * weights, 256 x 44.04e6 / 8 B at 4.8 TB/s = 0.294 ms, read faster); the shared expert, one GEMM,
 * 2 x 8192 x 5,505,024 FLOP at 1979e12 x 8192 / 8256 = 0.045932 ms. 58 MoE layers: 26.454 ms. At
 * fp8_block_efficiency 0.5 these compute-bound GEMMs take twice as long; attention (BF16 math)
 * does not change, nor does the FP4 checkpoint, whose experts are not block-scaled FP8. */
START_TEST(fp8_block_scaled_gemms)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = engine(c, "h200-sxm-hgx8", "deepseek-r1", PREC_FP8, 8, &prof);
  SystemSpec full;
  e.sys = full_clock(c, "h200-sxm-hgx8", &full);
  ck_assert_int_eq(e.model->fp8_block, 128);
  StepBatch b = { .prefill_tokens = 8192, .prefill_seqs = 1, .prefill_ctx = 4096 };
  StepTime t1, t2;
  step_time(&e, &b, &t1);
  double routed = 2.0 * 8192 * 8 * 44040192.0 / 8 / (1979e12 * 256.0 / 288);
  double shared = 2.0 * 8192 * 44040192.0 / 8 / (1979e12 * 8192.0 / 8256);
  ck_assert_close(t1.moe, 58 * (routed + shared), 1e-3);
  ck_assert_close(58 * (routed + shared), 26.454e-3, 1e-4);
  prof.arch[ARCH_HOPPER].fp8_block_efficiency = 0.5;
  step_time(&e, &b, &t2);
  ck_assert_close(t2.moe, 2 * t1.moe, 1e-9);
  ck_assert_close(t2.attention, t1.attention, 1e-12);
  ck_assert(t2.gemm > 1.5 * t1.gemm);
  /* expert slices: TP8 gives each GPU 2048 / 8 = 256 of an expert's columns; at gemm_half_n 64 the
   * compute-bound routed GEMMs reach 256 / (256 + 64) of their rate, 1.25x as long (the shared
   * expert, one GEMM over the stage, keeps its rate) */
  prof.on[ARCH_HOPPER].gemm_half_n = 64;
  StepTime t3;
  step_time(&e, &b, &t3);
  ck_assert_close(t3.moe, 58 * 2 * (1.25 * routed + shared), 1e-3);
  Engine fp4 = engine(c, "b200-hgx8", "deepseek-r1", PREC_FP4, 8, &prof);
  StepTime f1, f2;
  step_time(&fp4, &b, &f1);
  prof.arch[ARCH_BLACKWELL].fp8_block_efficiency = 0.5;
  step_time(&fp4, &b, &f2);
  ck_assert_close(f2.total, f1.total, 1e-12);
  system_spec_clear(&full);
  profile_clear(&prof);
}
END_TEST

/* The expert layers' time of one 1,024-token DeepSeek-R1 FP8 prompt on 8 GPUs of SYS (TP8, the
 * full clock, uniform routing: with the catalog's hot experts 0.04 of the 256 stay untouched at
 * 8,192 picks, which the tile arithmetic below leaves out): the grouped-GEMM tests below. */
static double prompt_moe_time(const Catalog *c, const char *sys, const Profile *prof, Stack stack, gboolean deepep,
                              gboolean trtllm_gen)
{
  SystemSpec full;
  Engine e = engine(c, sys, "deepseek-r1", PREC_FP8, 8, prof);
  e.stack = stack, e.deepep = deepep, e.trtllm_gen_moe = trtllm_gen;
  LlmSpec uniform = *e.model; /* a shallow copy, never cleared */
  uniform.load_cv = 0;
  e.model = &uniform;
  e.sys = full_clock(c, sys, &full);
  StepBatch b = { .prefill_tokens = 1024, .prefill_seqs = 1, .prefill_ctx = 512 };
  StepTime t;
  step_time(&e, &b, &t);
  system_spec_clear(&full);
  return t.moe;
}

/* Grouped expert GEMMs compute whole tiles. DeepSeek-R1 FP8 on 8 H200s, TP8, ideal profile with
 * block-scaled FP8 at 0.1 of per-tensor (so the expert GEMMs are compute-bound at few rows), one
 * prompt of 1,024 tokens: 1024 x 8 routed rows touch all 256 experts (1 - (31/32)^1024 ~ 1), 32
 * rows each, fewer than the 64-row tile: each expert computes 32 + 64 - 64/2 x 32/64 = 80 rows'
 * time, 32/80 = 0.4 of the rate: 2 x 1024 x 8 x 44,040,192 / 8 FLOP at 1979e12 x 0.1 x 0.4 =
 * 1.13939 ms a layer (its weights, 0.294 ms, read faster). The shared expert is one GEMM of 1,024
 * rows at 1024 / (1024 + 64) of the rate: 2 x 1024 x 44,040,192 / 8 / (1979e12 x 0.1 x 1024/1088)
 * = 0.060530 ms. 58 MoE layers: 69.596 ms. At the stack layer's moe share 0.5 the routed part
 * takes twice as long. */
START_TEST(grouped_gemm_tiles)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  prof.arch[ARCH_HOPPER].fp8_block_efficiency = 0.1;
  double routed = 2.0 * 1024 * 8 * 44040192.0 / 8 / (1979e12 * 0.1 * 32 / 80);
  double shared = 2.0 * 1024 * 44040192.0 / 8 / (1979e12 * 0.1 * 1024 / 1088);
  ck_assert_close(58 * (routed + shared), 69.596e-3, 1e-4);
  ck_assert_close(prompt_moe_time(c, "h200-sxm-hgx8", &prof, STACK_TRTLLM, FALSE, FALSE), 58 * (routed + shared), 1e-4);
  prof.on[ARCH_HOPPER].moe = 0.5;
  ck_assert_close(prompt_moe_time(c, "h200-sxm-hgx8", &prof, STACK_TRTLLM, FALSE, FALSE), 58 * (2 * routed + shared), 1e-4);
  profile_clear(&prof);
}
END_TEST

/* The shipped Blackwell tiles. Block-scaled FP8 experts run DeepGEMM by default in TensorRT-LLM
 * and in SGLang with DeepEP, whose SM100 kernels compute 128-row tiles only (profile.h); SGLang
 * without DeepEP, and TensorRT-LLM launched with its TRTLLM MoE backend, run them in trtllm-gen's
 * MoE, whose tile follows the tokens per expert (moe_trtllm_gen_tile). The case above on 8 B200s,
 * DeepSeek-R1's FP8 checkpoint (block-scaled): 32 rows per expert pad to 32 + 128 - 128/2 x 32/128
 * = 144, 32/144 of the rate: 2 x 1024 x 8 x 44,040,192 / 8 FLOP at 4500e12 x 0.1 x 32/144 =
 * 0.901943 ms a layer (the weights, 256 experts' eighths at 8 TB/s, 0.176 ms, read faster); the
 * shared expert (a dense GEMM, no tile) 2 x 1024 x 44,040,192 / 8 / (4500e12 x 0.1 x 1024/1088) =
 * 0.026620 ms. 58 layers: 53.857 ms. trtllm-gen's tile for 1024 x 8 / 256 = 32 tokens an expert is
 * 32 rows: 32 + 32 - 32/2 = 48 rows' time, 2/3 of the rate: 0.300648 + 0.026620 ms a layer, 18.982
 * ms. Where SGLang runs its dense block-scaled GEMMs in FlashInfer's kernels (Blackwell, no DeepEP)
 * at the stack layer's fp8_block_flashinfer of 0.5, the shared expert runs at half the rate, the
 * routed ones as before: 0.300648 + 0.053240 ms a layer, 20.525 ms; TensorRT-LLM's and SGLang's
 * DeepEP engines keep DeepGEMM's, and so does SGLang on Hopper (69.596 ms, the case above), and
 * TensorRT-LLM's TRTLLM backend there (trtllm-gen is Blackwell's). With DeepGEMM's tile set to 64
 * rows, 32 + 64 - 64/2 x 32/64 = 80 rows: 0.501080 + 0.026620 ms a layer, 30.607 ms. */
START_TEST(grouped_gemm_tiles_blackwell)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof, shipped;
  ideal_profile(&prof);
  profile_defaults(&shipped);
  ArchProfile *bw = &prof.arch[ARCH_BLACKWELL];
  bw->grouped_tile_m = shipped.arch[ARCH_BLACKWELL].grouped_tile_m;
  bw->grouped_block_tile_m = shipped.arch[ARCH_BLACKWELL].grouped_block_tile_m;
  bw->fp8_block_efficiency = 0.1;
  ck_assert_close(prompt_moe_time(c, "b200-hgx8", &prof, STACK_TRTLLM, FALSE, FALSE), 53.857e-3, 1e-4);
  ck_assert_close(prompt_moe_time(c, "b200-hgx8", &prof, STACK_TRTLLM, FALSE, TRUE), 18.982e-3, 1e-4);
  /* SGLang runs them in DeepGEMM only with DeepEP; without it in trtllm-gen's tiles */
  ck_assert_close(prompt_moe_time(c, "b200-hgx8", &prof, STACK_SGLANG, TRUE, FALSE), 53.857e-3, 1e-4);
  ck_assert_close(prompt_moe_time(c, "b200-hgx8", &prof, STACK_SGLANG, FALSE, FALSE), 18.982e-3, 1e-4);
  prof.on[ARCH_BLACKWELL].fp8_block_flashinfer = 0.5;
  prof.on[ARCH_HOPPER].fp8_block_flashinfer = 0.5;
  ck_assert_close(prompt_moe_time(c, "b200-hgx8", &prof, STACK_SGLANG, FALSE, FALSE), 20.525e-3, 1e-4);
  ck_assert_close(prompt_moe_time(c, "b200-hgx8", &prof, STACK_TRTLLM, FALSE, TRUE), 18.982e-3, 1e-4);
  ck_assert_close(prompt_moe_time(c, "b200-hgx8", &prof, STACK_SGLANG, TRUE, FALSE), 53.857e-3, 1e-4);
  ck_assert_close(prompt_moe_time(c, "b200-hgx8", &prof, STACK_TRTLLM, FALSE, FALSE), 53.857e-3, 1e-4);
  prof.arch[ARCH_HOPPER].fp8_block_efficiency = 0.1;
  ck_assert_close(prompt_moe_time(c, "h200-sxm-hgx8", &prof, STACK_SGLANG, FALSE, FALSE), 69.596e-3, 1e-4);
  ck_assert_close(prompt_moe_time(c, "h200-sxm-hgx8", &prof, STACK_TRTLLM, FALSE, TRUE), 69.596e-3, 1e-4);
  prof.on[ARCH_BLACKWELL].fp8_block_flashinfer = 1;
  bw->grouped_block_tile_m = bw->grouped_tile_m;
  ck_assert_close(prompt_moe_time(c, "b200-hgx8", &prof, STACK_TRTLLM, FALSE, FALSE), 30.607e-3, 1e-4);
  profile_clear(&prof);
  profile_clear(&shipped);
}
END_TEST

/* trtllm-gen's tile by hand (TensorRT-LLM's calculate_tile_tokens_dim): the whole tokens an expert
 * gets, to the next power of two, 8 to 128. 0.5 -> 0 -> 8; 8.9 -> 8; 9 -> 16; 20.7 -> 20 -> 32;
 * 64 -> 64; 100 -> 128; 5000 -> 128. Which engines run it: TensorRT-LLM launched with it on
 * Blackwell for a block-scaled FP8 checkpoint (not on Hopper, not for FP4, not unlaunched), and
 * SGLang's FlashInfer path (Blackwell, no DeepEP). Which launches name it (serving.moe_backend):
 * trtllm always, deepgemm never, auto where the experts are sliced over more than one GPU. */
START_TEST(trtllm_gen_tile_by_hand)
{
  ck_assert(moe_backend_trtllm_gen(MOE_BACKEND_AUTO, 8) && moe_backend_trtllm_gen(MOE_BACKEND_AUTO, 2));
  ck_assert(!moe_backend_trtllm_gen(MOE_BACKEND_AUTO, 1));
  ck_assert(moe_backend_trtllm_gen(MOE_BACKEND_TRTLLM, 1) && !moe_backend_trtllm_gen(MOE_BACKEND_DEEPGEMM, 8));
  static const double per[] = { 0.5, 8, 8.9, 9, 20.7, 64, 100, 5000 }, want[] = { 8, 8, 8, 16, 32, 64, 128, 128 };
  for (gsize i = 0; i < G_N_ELEMENTS(per); i++)
    ck_assert_double_eq(moe_trtllm_gen_tile(per[i]), want[i]);
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine b8 = engine(c, "b200-hgx8", "deepseek-r1", PREC_FP8, 8, &prof);
  Engine h8 = engine(c, "h200-sxm-hgx8", "deepseek-r1", PREC_FP8, 8, &prof);
  Engine b4 = engine(c, "b200-hgx8", "deepseek-r1", PREC_FP4, 8, &prof);
  ck_assert(!engine_trtllm_gen_moe(&b8));
  b8.trtllm_gen_moe = h8.trtllm_gen_moe = b4.trtllm_gen_moe = TRUE;
  ck_assert(engine_trtllm_gen_moe(&b8) && !engine_trtllm_gen_moe(&h8) && !engine_trtllm_gen_moe(&b4));
  b8.trtllm_gen_moe = FALSE, b8.stack = STACK_SGLANG;
  ck_assert(engine_trtllm_gen_moe(&b8));
  b8.deepep = TRUE;
  ck_assert(!engine_trtllm_gen_moe(&b8));
  profile_clear(&prof);
}
END_TEST

/* The attention projections' precision: FP4 checkpoints of MoE models leave attention in BF16
 * (nvidia/DeepSeek-R1-NVFP4 excludes self_attn from quantization; gpt-oss quantizes only its
 * experts); dense models' FP4 checkpoints and FP8 checkpoints keep their own precision. */
START_TEST(dense_precision_of_checkpoints)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine ds4 = engine(c, "b200-hgx8", "deepseek-r1", PREC_FP4, 8, &prof);
  Engine ds8 = engine(c, "b200-hgx8", "deepseek-r1", PREC_FP8, 8, &prof);
  Engine oss = engine(c, "b200-hgx8", "gpt-oss-120b", PREC_FP4, 1, &prof);
  Engine llama = engine(c, "b200-hgx8", "llama-3.3-70b", PREC_FP4, 1, &prof);
  ck_assert_int_eq(engine_dense_precision(&ds4), PREC_BF16);
  ck_assert_int_eq(engine_dense_precision(&oss), PREC_BF16);
  ck_assert_int_eq(engine_dense_precision(&ds8), PREC_FP8);
  ck_assert_int_eq(engine_dense_precision(&llama), PREC_FP4);
  profile_clear(&prof);
}
END_TEST

/* Which engines overlap their host with the GPU: the stacks' defaults (TensorRT-LLM and SGLang
 * yes, vLLM no), the profile's say, and SGLang's own rule that EAGLE (MTP) drafts turn it off. */
START_TEST(overlap_scheduler_by_stack)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = engine(c, "h200-sxm-hgx8", "deepseek-r1", PREC_FP8, 8, &prof);
  ck_assert(engine_overlaps(&e));
  e.draft_tokens = 3; /* TensorRT-LLM overlaps MTP too */
  ck_assert(engine_overlaps(&e));
  e.stack = STACK_SGLANG;
  ck_assert(!engine_overlaps(&e));
  e.draft_tokens = 0;
  ck_assert(engine_overlaps(&e));
  prof.stack[STACK_SGLANG].overlap_scheduler = FALSE;
  ck_assert(!engine_overlaps(&e));
  e.stack = STACK_VLLM;
  ck_assert(!engine_overlaps(&e));
  profile_clear(&prof);
}
END_TEST

/* A lone user's TTFT carries its prompt's compute: Llama-3.3-70B FP8 on 8 H200s, one user, no
 * request overhead, one chunk per prompt. TTFT = half a step of waiting + the step that carries the
 * prompt (a decode step plus the prompt's work) + a negligible queueing term, so going from a 1024-
 * to an 8192-token prompt adds what the prefill of the longer prompt adds over the shorter one
 * (within 3%: the decode step grows with the context and the queueing term is ~0.5%). */
START_TEST(ttft_carries_prefill)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  Engine e = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 8, &prof);
  double ttft[2];
  int isl[2] = { 1024, 8192 };
  for (int k = 0; k < 2; k++) {
    Load ld = { .isl = isl[k], .osl = 256, .users = 1, .max_batch = 1e9, .chunk = 8192 };
    SteadyState ss;
    g_autofree char *why = steady_aggregated(&e, 1, &ld, &ss);
    ck_assert_ptr_null(why);
    ttft[k] = ss.ttft;
  }
  double added = step_time_prefill(&e, 1, 8192) - step_time_prefill(&e, 1, 1024);
  ck_assert_close(ttft[1] - ttft[0], added, 0.03);
  ck_assert(added > 0.02); /* the test means something: tens of ms of prefill */
  profile_clear(&prof);
}
END_TEST

/* Disaggregated Llama-3.3-70B FP8 on two H200 HGX nodes (TP8 prefill, TP8 decode: not one NVLink
 * domain), one user: TTFT = request overhead + the prompt's prefill + the handoff + its KV cache
 * over the NICs. KV in FP8: 80 layers x 2 (K, V) x 8 heads x 128 x 1 B = 163,840 B per token; 1024
 * tokens = 167.77e6 B over 8 lanes of 400 Gb/s = 50e9 B/s each: 0.419 ms. With a 30 ms request
 * overhead and a 120 ms handoff: TTFT = prefill + 150.42 ms; a front end that takes 20 us more
 * per prompt token adds 1024 x 20 us = 20.48 ms: prefill + 170.90 ms. Behind Dynamo's front end,
 * which tokenizes at 2 us a token, the stack's 20 us are off the path: 1024 x 2 us = 2.048 ms,
 * prefill + 152.47 ms. */
START_TEST(disaggregated_ttft_has_handoff)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  prof.stack[STACK_TRTLLM].request_overhead = 0.030;
  prof.stack[STACK_TRTLLM].handoff_overhead = 0.120;
  Engine p = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 8, &prof);
  Engine d = p;
  Load ld = { .isl = 1024, .osl = 256, .users = 1, .max_batch = 1e9, .chunk = 16384 };
  SteadyState ss;
  g_autofree char *why = steady_disaggregated(&p, 1, &d, 1, FALSE, &ld, &ss);
  ck_assert_ptr_null(why);
  double prefill = step_time_prefill(&p, 1, 1024);
  double kv = 163840.0 * 1024 / (8 * 50e9);
  /* one user's next prompt meets an idle prefill engine: the queueing term stays under 1% */
  ck_assert_close(ss.ttft, prefill + 0.030 + 0.120 + kv, 0.01);
  ck_assert(prefill > 0.01 && prefill < 0.1); /* tens of ms: the handoff is not lost in it */
  double before = ss.ttft;
  prof.stack[STACK_TRTLLM].request_token_overhead = 20e-6;
  g_autofree char *why2 = steady_disaggregated(&p, 1, &d, 1, FALSE, &ld, &ss);
  ck_assert_ptr_null(why2);
  ck_assert_close(ss.ttft, prefill + 0.030 + 0.120 + 0.02048 + kv, 0.01);
  ck_assert_close(ss.ttft - before, 0.02048, 0.02); /* the closed loop's shift of the queue term */
  prof.dynamo_token_overhead = 2e-6;
  p.dynamo_front = d.dynamo_front = TRUE;
  g_autofree char *why3 = steady_disaggregated(&p, 1, &d, 1, FALSE, &ld, &ss);
  ck_assert_ptr_null(why3);
  ck_assert_close(ss.ttft, prefill + 0.030 + 0.120 + 0.002048 + kv, 0.01);
  ck_assert_close(ss.ttft - before, 0.002048, 0.05);
  profile_clear(&prof);
}
END_TEST

/* The decode engine's scheduler takes a handed-over request in after its steps' looks at the
 * transfers (handoff_steps), when it is busy with other users' sequences; an idle one at once. One
 * user: the decode engine is idle when the KV cache arrives, TTFT is the same with 3 steps as with
 * none. 8 users of 1,024-token answers on one TP8 decode engine, far below the prefill engine's
 * ceiling: it is always busy (a mean batch of 7.7, busy = min(1, 7.7 x 7 / 8) = 1), and TTFT
 * grows by 3 of its steps (3 x 1.97 ms on 71 ms), to within the closed loop's shift of the
 * batch (a longer TTFT leaves fewer users decoding). */
START_TEST(disaggregated_handoff_steps)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  ideal_profile(&prof);
  prof.stack[STACK_TRTLLM].request_overhead = 0.030;
  prof.stack[STACK_TRTLLM].handoff_overhead = 0.020;
  Engine p = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 8, &prof);
  Engine d = p;
  Load ld = { .isl = 1024, .osl = 1024, .users = 1, .max_batch = 1e9, .chunk = 16384 };
  double steps[2] = { 0, 3 }, ttft[2][2], step[2][2], batch[2][2];
  double users[2] = { 1, 8 };
  for (int u = 0; u < 2; u++)
    for (int k = 0; k < 2; k++) {
      prof.stack[STACK_TRTLLM].handoff_steps = steps[k];
      ld.users = users[u];
      SteadyState ss;
      g_autofree char *why = steady_disaggregated(&p, 1, &d, 1, FALSE, &ld, &ss);
      ck_assert_ptr_null(why);
      ttft[u][k] = ss.ttft, step[u][k] = ss.step, batch[u][k] = ss.batch;
    }
  ck_assert_close(ttft[0][1], ttft[0][0], 1e-9); /* the lone user's decode engine is idle */
  ck_assert_double_gt(batch[1][1] * 7 / 8, 1); /* busy = 1 */
  ck_assert_close(ttft[1][1] - ttft[1][0], 3 * step[1][1], 0.03);
  ck_assert_double_gt(3 * step[1][1], 0.05 * ttft[1][0]); /* the steps are not lost in the rest */
  profile_clear(&prof);
}
END_TEST

/* DeepSeek-R1 in FP8 (~690 GB of weights) on a single-GPU H200 engine does not fit: the reason
 * comes back once, owned by the caller (an infeasible disaggregated prediction used to leak a copy;
 * the sanitizer build's LeakSanitizer catches it here). */
START_TEST(disaggregated_infeasible_reason)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine p = engine(c, "h200-sxm-hgx8", "deepseek-r1", PREC_FP8, 1, &prof);
  Engine d = p;
  Load ld = { .isl = 1024, .osl = 256, .users = 8, .max_batch = 1e9, .chunk = 16384 };
  SteadyState ss;
  g_autofree char *why = steady_disaggregated(&p, 1, &d, 1, FALSE, &ld, &ss);
  ck_assert_ptr_nonnull(why);
  ck_assert_msg(strstr(why, "GB per GPU"), "%s", why);
  profile_clear(&prof);
}
END_TEST

/* A disaggregated deployment whose prefill pool is the bottleneck: Llama-3.3-70B FP8 on H200,
 * one TP8 prefill engine for four TP8 decode engines, 8,192-token prompts and 256-token answers,
 * 16,384-token prefill batches (two prompts each). Its ceiling is 0.97 x 2 / t(two prompts) prompts
 * a second; 1,024 users want far more, so the pool runs at it, and the users it cannot serve wait
 * for it in TTFT (Little's law: users = x (TTFT + decode)). At 8 users the pool is busy without
 * being saturated: a prompt waits for the batch under way and its own, not for an ever longer
 * queue (under 2.5 batch times). */
START_TEST(disaggregated_prefill_ceiling)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine p = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 8, &prof);
  Engine d = p;
  Load ld = { .isl = 8192, .osl = 256, .users = 1024, .max_batch = 1e9, .chunk = 16384 };
  SteadyState ss;
  g_autofree char *why = steady_disaggregated(&p, 1, &d, 4, FALSE, &ld, &ss);
  ck_assert_ptr_null(why);
  double t2 = step_time_prefill(&p, 2, 8192), ceiling = 0.97 * 2 / t2;
  double x = ss.out_tok_s / ld.osl;
  ck_assert_close(x, ceiling, 0.01);
  ck_assert_close(ld.users, x * (ss.ttft + (ld.osl - 1) * ss.tpot), 0.01);
  ld.users = 8;
  g_autofree char *why2 = steady_disaggregated(&p, 1, &d, 4, FALSE, &ld, &ss);
  ck_assert_ptr_null(why2);
  x = ss.out_tok_s / ld.osl;
  ck_assert(x < ceiling);
  const StackProfile *sp = &prof.stack[STACK_TRTLLM];
  ck_assert_msg(ss.ttft < 2.5 * t2 + sp->request_overhead + sp->handoff_overhead + 0.05,
                "TTFT %.2f s against a batch of %.2f s", ss.ttft, t2);
  profile_clear(&prof);
}
END_TEST

/* Batch waiting in the steady state, where the timeout decides: two users of Llama-3.3-70B on
 * 8 H200s send a prompt every ~8 s, far fewer than would fill the wanted share of the step in 30
 * steps, so each prompt is held the whole timeout while the other user decodes; the steady state
 * counts half of it on average (a prompt may arrive at any point of a gathering): TTFT grows by
 * 15 step intervals. */
START_TEST(batch_wait_timeout_in_steady_state)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 8, &prof);
  Load ld = { .isl = 1024, .osl = 512, .users = 2, .max_batch = 1e9, .chunk = 8192 };
  SteadyState off, on;
  g_autofree char *w1 = steady_aggregated(&e, 1, &ld, &off);
  ck_assert_ptr_null(w1);
  prof.stack[STACK_TRTLLM].batch_wait_timeout = 30;
  prof.stack[STACK_TRTLLM].batch_wait_tokens = 0.8;
  g_autofree char *w2 = steady_aggregated(&e, 1, &ld, &on);
  ck_assert_ptr_null(w2);
  ck_assert_close((on.ttft - off.ttft) / off.step, 15, 0.05);
  profile_clear(&prof);
}
END_TEST

/* A prompt one token longer than the step's prefill budget costs one more token, not a second
 * full chunk: offline Llama-3.3-70B on 8 H200s with 8,192-token chunks, prompts of 8,192 and
 * 8,193 tokens and 512-token answers, where prefill takes most of the engine's time. Charging
 * the remainder as a whole chunk would double the prefill work and nearly halve throughput;
 * one token changes it by far less than 1%. */
START_TEST(partial_last_chunk)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = engine(c, "h200-sxm-hgx8", "llama-3.3-70b", PREC_FP8, 8, &prof);
  Load ld = { .isl = 8192, .osl = 512, .max_batch = 1e9, .chunk = 8192 };
  SteadyState whole, over;
  g_autofree char *w1 = steady_aggregated(&e, 1, &ld, &whole);
  ck_assert_ptr_null(w1);
  ck_assert(whole.prefill_share > 0.5);
  ld.isl = 8193;
  g_autofree char *w2 = steady_aggregated(&e, 1, &ld, &over);
  ck_assert_ptr_null(w2);
  ck_assert_close(over.out_tok_s / whole.out_tok_s, 1, 0.005);
  profile_clear(&prof);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("model");
  TCase *tc = tcase_create("model");
  tcase_add_test(tc, llama70b_decode_batch1_h200);
  tcase_add_test(tc, deepseek_mla_kv_bytes);
  tcase_add_test(tc, fp8_mla_decode_attention);
  tcase_add_test(tc, attention_exponentials_bound);
  tcase_add_test(tc, allreduce_nvlink4_vs_5);
  tcase_add_test(tc, all_reduce_algorithms);
  tcase_add_test(tc, nic_latencies_by_collective);
  tcase_add_test(tc, expected_experts);
  tcase_add_test(tc, expected_experts_popular);
  tcase_add_test(tc, busiest_expert_group);
  tcase_add_test(tc, hot_experts_and_eplb);
  tcase_add_test(tc, token_groups);
  tcase_add_test(tc, eplb_slots);
  tcase_add_test(tc, mla_down_projections_replicated);
  tcase_add_test(tc, wide_ep_alltoall);
  tcase_add_test(tc, degraded_nvlink_domain);
  tcase_add_test(tc, step_overhead_parts);
  tcase_add_test(tc, mtp_host_overhead_per_sequence);
  tcase_add_test(tc, graph_padding);
  tcase_add_test(tc, graph_padding_in_steady_state);
  tcase_add_test(tc, stack_graph_ladders);
  tcase_add_test(tc, padding_through_the_experts);
  tcase_add_test(tc, power_limited_clock);
  tcase_add_test(tc, infeasible_with_numbers);
  tcase_add_test(tc, kv_pool_rules_of_the_stacks);
  tcase_add_test(tc, fp4_weight_only_on_hopper);
  tcase_add_test(tc, mtp_tokens_per_step);
  tcase_add_test(tc, closed_loop_littles_law);
  tcase_add_test(tc, prefill_compute_bound);
  tcase_add_test(tc, elementwise_between_gemms);
  tcase_add_test(tc, attention_dp_prompt_on_one_rank);
  tcase_add_test(tc, busiest_rank_holds_whole_prompts);
  tcase_add_test(tc, fp8_block_scaled_gemms);
  tcase_add_test(tc, grouped_gemm_tiles);
  tcase_add_test(tc, grouped_gemm_tiles_blackwell);
  tcase_add_test(tc, trtllm_gen_tile_by_hand);
  tcase_add_test(tc, dense_precision_of_checkpoints);
  tcase_add_test(tc, overlap_scheduler_by_stack);
  tcase_add_test(tc, ttft_carries_prefill);
  tcase_add_test(tc, disaggregated_ttft_has_handoff);
  tcase_add_test(tc, disaggregated_handoff_steps);
  tcase_add_test(tc, batch_wait_timeout_in_steady_state);
  tcase_add_test(tc, compute_bound_engine_admits);
  tcase_add_test(tc, launch_cap_replaces_stack_default);
  tcase_add_test(tc, slo_limit_binds);
  tcase_add_test(tc, prompt_wait_tail);
  tcase_add_test(tc, ttft_tail_binds);
  tcase_add_test(tc, partial_last_chunk);
  tcase_add_test(tc, disaggregated_prefill_ceiling);
  tcase_add_test(tc, disaggregated_infeasible_reason);
  tcase_add_test(tc, pipeline_micro_batches);
  tcase_add_test(tc, step_floor_by_hand);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
