/* test_validate.c — measured rows become deployments (or an honest unsupported), the error table
 * counts them, and the fit recovers a profile from results that profile produced. */
#include "test_util.h"
#include "aif_error.h"
#include "fit.h"
#include "scenario.h"
#include "validate.h"

#include <string.h>

/* Columns in a shuffled order, with an extra one: validate must not care. */
static const char *const csv_text =
  "extra,id,source_kind,system,gpus,model,precision,isl,osl,concurrency,scenario,mode,tp,ep,dp_attention,"
  "prefill_workers,prefill_tp,prefill_ep,prefill_dp_attention,decode_workers,decode_tp,decode_ep,"
  "decode_dp_attention,prefill_gpus,decode_gpus,spec_decode,framework,out_tok_s_per_gpu,tok_s_per_user,"
  "tpot_ms,ttft_ms\n"
  "x,agg1,inferencex,h200-sxm-hgx8,8,deepseek-r1,fp8,1024,1024,16,concurrency,agg,8,8,0,,,,,,,,,,,none,trt,100,50,20,150\n"
  "x,agg2,inferencex,b200-hgx8,8,deepseek-r1,fp4,8192,1024,64,concurrency,agg,4,4,1,,,,,,,,,,,mtp,sglang,300,40,25,900\n"
  "x,dis1,inferencex,gb200-nvl72,24,deepseek-r1,fp4,1024,1024,240,concurrency,disagg,,,,1,4,4,1,1,16,16,1,8,16,none,dynamo-trt,500,60,16,300\n"
  "x,mlp1,mlperf,h200-sxm-hgx8,8,llama-2-70b,fp8,,290,,offline,agg,,,,,,,,,,,,,,,trtllm,4000,,,\n"
  "x,mlp2,mlperf,h200-sxm-hgx8,8,llama-2-70b,fp8,,290,,server,agg,,,,,,,,,,,,,,,trtllm,3900,7,,400\n"
  "x,bad1,inferencex,mi355x,8,deepseek-r1,fp8,1024,1024,16,concurrency,agg,8,8,0,,,,,,,,,,,none,trt,100,50,20,150\n"
  "x,bad2,inferencex,h200-sxm-hgx8,8,deepseek-r1,fp8,1024,1024,16,concurrency,agg,8,8,0,,,,,,,,,,,none,tgi,100,50,20,150\n"
  "x,bad3,inferencex,h200-sxm-hgx8,8,deepseek-r1,fp8,1024,1024,,concurrency,agg,8,8,0,,,,,,,,,,,none,trt,100,50,20,150\n"
  "x,inf1,trtllm-bench,h100-sxm-hgx8,1,llama-3.1-405b,fp8,1000,1000,,offline,agg,1,,,,,,,,,,,,,,trtllm,10,,,\n";

static char *write_tmp(const char *text)
{
  g_autofree char *dir = test_tmpdir();
  char *path = g_build_filename(dir, "m.csv", NULL);
  ck_assert(g_file_set_contents(path, text, -1, NULL));
  return path;
}

/* The outcome's name of row ID, as predictions.csv prints it. */
static const char *status_of(GPtrArray *rows, const Prediction *p, const char *id)
{
  for (guint i = 0; i < rows->len; i++)
    if (strcmp(((ValRow *)rows->pdata[i])->id, id) == 0)
      return outcome_names[p[i].status];
  ck_abort_msg("no row %s", id);
  return NULL;
}

START_TEST(rows_to_predictions)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  g_autofree char *path = write_tmp(csv_text);
  g_autoptr(GError) err = NULL;
  g_autoptr(GPtrArray) rows = validate_read(path, c, rec, &err);
  ck_assert_msg(rows, "%s", err ? err->message : "");
  ck_assert_uint_eq(rows->len, 9);
  Profile prof;
  profile_defaults(&prof);
  Prediction *p = g_new0(Prediction, rows->len);
  for (guint i = 0; i < rows->len; i++)
    validate_predict(rows->pdata[i], &prof, &p[i]);
  ck_assert_str_eq(status_of(rows, p, "agg1"), "ok");
  ck_assert_str_eq(status_of(rows, p, "agg2"), "ok");
  ck_assert_str_eq(status_of(rows, p, "dis1"), "ok");
  ck_assert_str_eq(status_of(rows, p, "mlp1"), "ok");
  ck_assert_str_eq(status_of(rows, p, "mlp2"), "ok");
  ck_assert_str_eq(status_of(rows, p, "bad1"), "unsupported");
  ck_assert_str_eq(p[5].reason, "system 'mi355x' is not in the catalog");
  ck_assert_str_eq(p[6].reason, "serving stack 'tgi' has no profile");
  ck_assert_str_eq(p[7].reason, "concurrency missing");
  ck_assert_str_eq(status_of(rows, p, "inf1"), "infeasible");
  ck_assert(g_str_has_prefix(p[8].reason, "needs "));
  /* MLPerf leaves TP open: the best one that fits is chosen and reported */
  ck_assert_msg(g_str_has_prefix(p[3].config, "agg ") && strstr(p[3].config, " tp"), "%s", p[3].config);
  /* the label a scenario point of the same deployment carries (label.h): pools, precision,
   * framework, drafts (the recipes give SGLang's EAGLE 2), closed-loop users */
  ck_assert_str_eq(p[0].config, "agg 1x tp8 ep8 fp8 trtllm c16");
  ck_assert_str_eq(p[1].config, "agg 2x tp4 ep4 dp fp4 sglang mtp2 c64");
  ck_assert_str_eq(p[2].config, "P 1x tp8 ep4 dp D 1x tp16 ep16 dp fp4 dynamo-trt c240");
  /* predictions are positive and the server row meets its TPOT target (0.7 x 200 ms) */
  for (int i = 0; i < 5; i++)
    ck_assert(p[i].predicted[MET_OUT_TOK_S_PER_GPU] > 0);
  ck_assert(1000.0 / p[4].predicted[MET_TOK_S_PER_USER] <= 140.0 + 1e-6);
  /* the table counts every row */
  g_autofree char *summary = validate_summary(rows, p);
  ck_assert_msg(strstr(summary, "all                                9     5     1     3"), "%s", summary);
  /* per serving framework too: trt has agg1, bad1 (unknown system) and bad3 (no concurrency) */
  ck_assert_msg(strstr(summary, "framework=trt                      3     1     0     2"), "%s", summary);
  ck_assert_msg(strstr(summary, "framework=dynamo-trt               1     1     0     0"), "%s", summary);
  g_autofree char *csv = validate_predictions_csv(rows, p);
  ck_assert(g_str_has_prefix(csv, "id,status,reason,predicted_out_tok_s_per_gpu,predicted_tok_s_per_user,"
                                  "predicted_ttft_ms,predicted_gpu_power_w,predicted_server_power_w,predicted_config,"
                                  "self_check\n"));
  ck_assert(strstr(csv, "\nbad1,unsupported,system 'mi355x' is not in the catalog,,,,,,,\n"));
  for (guint i = 0; i < rows->len; i++)
    prediction_clear(&p[i]);
  g_free(p);
  profile_clear(&prof);
}
END_TEST

/* Little's law on a row's own figures (validate_self_consistency), InferenceX's answers drawn in
 * 80-100% of the OSL (mean 921.6 of 1,024 tokens):
 *   agg1: 16 users, TTFT 0.15 s, 50 tok/s per user, 8 GPUs: 16 x 921.6 / (0.15 + 921.6 / 50) / 8
 *         = 99.193 tok/s per GPU implied, 100 measured: 1.00813
 *   dis1: 240 users, 0.3 s, 60 tok/s, 24 GPUs: 240 x 921.6 / (0.3 + 15.36) / 24 = 588.506; 500: 0.849609
 * MLPerf's and trtllm-bench's rows are no closed loop (NAN), nor is a row that cannot be modelled.
 * No row is off (0.8-1.25x), so the summary says nothing; agg1 at 45 tok/s per GPU is (0.45x).
 * PREDICTIONS.csv's last column carries each row's figure to 4 decimals, empty where NAN. */
START_TEST(self_consistency)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  g_autofree char *path = write_tmp(csv_text);
  g_autoptr(GPtrArray) rows = validate_read(path, c, rec, NULL);
  ValRow *agg1 = rows->pdata[0], *dis1 = rows->pdata[2];
  ck_assert_close(validate_self_consistency(agg1), 100 / (16 * 921.6 / (0.15 + 921.6 / 50) / 8), 1e-12);
  ck_assert_close(validate_self_consistency(agg1), 1.00813, 1e-5);
  ck_assert_close(validate_self_consistency(dis1), 0.849609, 1e-5);
  for (guint i = 3; i < rows->len; i++)
    ck_assert(isnan(validate_self_consistency(rows->pdata[i])));
  Prediction *p = g_new0(Prediction, rows->len);
  for (guint i = 0; i < rows->len; i++)
    p[i] = (Prediction){ .status = OUTCOME_UNSUPPORTED, .predicted = { NAN, NAN, NAN, NAN, NAN } };
  g_autofree char *quiet = validate_summary(rows, p);
  ck_assert_msg(!strstr(quiet, "self-check"), "%s", quiet);
  g_autofree char *csv = validate_predictions_csv(rows, p);
  ck_assert_msg(strstr(csv, ",1.0081\n") && strstr(csv, ",0.8496\n"), "%s", csv);
  ck_assert_msg(strstr(csv, "\nmlp1,unsupported,,,,,,,,\n"), "%s", csv);
  agg1->measured[MET_OUT_TOK_S_PER_GPU] = 45;
  g_autofree char *loud = validate_summary(rows, p);
  ck_assert_msg(strstr(loud, "self-check: 1 of 3 closed-loop rows"), "%s", loud);
  g_free(p);
}
END_TEST

START_TEST(missing_column)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  g_autofree char *path = write_tmp("id,system\na,h200-sxm-hgx8\n");
  g_autoptr(GError) err = NULL;
  ck_assert_ptr_null(validate_read(path, c, rec, &err));
  ck_assert_int_eq(err->code, AIF_ERROR_INPUT);
  g_autofree char *want = g_strdup_printf("%s:1:1: missing column 'source_kind'", path);
  ck_assert_msg(g_str_has_prefix(err->message, want), "%s", err->message);
}
END_TEST

static const ValRow *row_of(GPtrArray *rows, const char *id)
{
  for (guint i = 0; i < rows->len; i++)
    if (strcmp(((ValRow *)rows->pdata[i])->id, id) == 0)
      return rows->pdata[i];
  ck_abort_msg("no row %s", id);
  return NULL;
}

/* InferenceX rows get the settings its launch scripts gave the servers (sim/validate.c). By hand:
 * trt1, TensorRT-LLM attention-DP with MTP at 256 users on 8 GPUs: 1 draft token, a budget per
 * rank of (1 + 1) x 256 / 8 + 1024 + 64 = 1152 tokens (a multiple of 64); trt2, B200 FP8 at 1k/1k
 * with 128 users and no attention-DP: max(8192, 128 + 1024 + 64 -> 1216) = 8192 tokens and batch
 * waiting 40 steps / 80%; sgl1, SGLang FP4 on B200 at 64 users with MTP: a look every 30 decode
 * steps, 512 running requests, 16384-token chunks, 2 drafts; sgl2, SGLang on H200 at 8k/1k: every
 * step, 256 requests; the Dynamo rows keep the profile's scheduler settings and take the recipes'
 * MTP depth: dis1, 256 users on one 16-rank attention-DP decode worker = 16 per rank -> 3 drafts;
 * dis2, 2253 users on 16 ranks = 140.8 per rank -> 1; dis3, 1214 users on 2 x 8 ranks = 75.9 ->
 * 2; dis4, 128 users on 2 decode workers without attention-DP (a worker is one rank): 64 each -> 3
 * (the boundary); dis5, Dynamo-SGLang: EAGLE's 2 steps. The MLPerf row keeps the profile's
 * settings. gpt-oss-120b has scripts of its own: oss1, vLLM on H200 at 64 users: async scheduling
 * (overlap on), 8192-token chunks, 64 running sequences, the checkpoint's BF16 KV cache; oss2,
 * TensorRT-LLM on B200: 20000-token budget, batch 512, FP8 KV cache, the stack's overlap. Other
 * models have no launch rules: l70, Llama-3.3-70B where trt2 stands, keeps the profile's. */
START_TEST(inferencex_launch_settings)
{
  static const char *const text =
    "id,source_kind,system,gpus,model,precision,isl,osl,concurrency,scenario,mode,tp,ep,dp_attention,"
    "prefill_workers,prefill_tp,prefill_ep,prefill_dp_attention,decode_workers,decode_tp,decode_ep,"
    "decode_dp_attention,prefill_gpus,decode_gpus,spec_decode,framework,out_tok_s_per_gpu,tok_s_per_user,ttft_ms\n"
    "trt1,inferencex,b200-hgx8,8,deepseek-r1,fp8,1024,1024,256,concurrency,agg,8,8,1,,,,,,,,,,,mtp,trt,1000,40,900\n"
    "trt2,inferencex,b200-hgx8,8,deepseek-r1,fp8,1024,1024,128,concurrency,agg,8,1,0,,,,,,,,,,,none,trt,500,35,500\n"
    "sgl1,inferencex,b200-hgx8,8,deepseek-r1,fp4,1024,1024,64,concurrency,agg,8,8,0,,,,,,,,,,,mtp,sglang,400,50,500\n"
    "sgl2,inferencex,h200-sxm-hgx8,8,deepseek-r1,fp8,8192,1024,64,concurrency,agg,8,1,0,,,,,,,,,,,none,sglang,140,19,700\n"
    "dis1,inferencex,gb200-nvl72,24,deepseek-r1,fp4,1024,1024,256,concurrency,disagg,,,,1,4,4,1,1,16,16,1,8,16,mtp,dynamo-trt,500,60,300\n"
    "dis2,inferencex,gb200-nvl72,24,deepseek-r1,fp4,1024,1024,2253,concurrency,disagg,,,,2,4,4,1,1,16,16,1,8,16,mtp,dynamo-trt,500,60,300\n"
    "dis3,inferencex,b200-hgx8,24,deepseek-r1,fp4,1024,1024,1214,concurrency,disagg,,,,1,4,4,1,2,8,8,1,8,16,mtp,dynamo-trt,500,60,300\n"
    "dis4,inferencex,b200-hgx8,24,deepseek-r1,fp4,1024,1024,128,concurrency,disagg,,,,1,4,4,1,2,8,8,0,8,16,mtp,dynamo-trt,500,60,300\n"
    "dis5,inferencex,b200-hgx8,16,deepseek-r1,fp8,1024,1024,64,concurrency,disagg,,,,1,8,8,0,1,8,8,0,8,8,mtp,dynamo-sglang,500,60,300\n"
    "dis6,inferencex,gb200-nvl72,48,deepseek-r1,fp8,1024,1024,4096,concurrency,disagg,,,,2,1,1,1,1,1,1,1,16,32,none,dynamo-sglang,2100,29,1000\n"
    "dis7,inferencex,gb200-nvl72,20,deepseek-r1,fp8,1024,1024,128,concurrency,disagg,,,,1,1,1,1,4,1,1,1,4,16,none,dynamo-sglang,280,49,500\n"
    "dis8,inferencex,h100-sxm-hgx8,32,deepseek-r1,fp8,1024,1024,615,concurrency,disagg,,,,1,16,16,1,1,16,16,1,16,16,mtp,dynamo-trt,239,15,10000\n"
    "dis9,inferencex,h100-sxm-hgx8,32,deepseek-r1,fp8,1024,1024,1229,concurrency,disagg,,,,1,16,16,1,1,16,16,1,16,16,mtp,dynamo-trt,400,12,10000\n"
    "dis10,inferencex,b200-hgx8,24,deepseek-r1,fp8,1024,1024,1600,concurrency,disagg,,,,1,8,8,1,2,8,8,1,8,16,mtp,dynamo-trt,2400,42,1500\n"
    "dis11,inferencex,h200-sxm-hgx8,24,deepseek-r1,fp8,8192,1024,128,concurrency,disagg,,,,2,8,8,1,1,8,8,1,16,8,mtp,dynamo-trt,202,42,1100\n"
    "dis12,inferencex,gb200-nvl72,40,deepseek-r1,fp8,1024,8192,2152,concurrency,disagg,,,,1,8,8,1,2,16,16,1,8,32,mtp,dynamo-trt,2790,58,4100\n"
    "dis13,inferencex,b200-hgx8,32,deepseek-r1,fp8,1024,1024,32,concurrency,disagg,,,,1,8,8,1,3,8,1,0,8,24,none,dynamo-trt,80,60,300\n"
    "mlp1,mlperf,h200-sxm-hgx8,8,llama-2-70b,fp8,,290,,offline,agg,,,,,,,,,,,,,,,trtllm,4000,,\n"
    "mls1,mlperf,b200-hgx8,8,llama-2-70b,fp4,,274,,server,agg,,,,,,,,,,,,,,,trtllm,12392,7.6,253\n"
    "mls2,mlperf,h200-sxm-hgx8,8,llama-2-70b,fp8,,293,,server,agg,,,,,,,,,,,,,,,trtllm,4274,5.3,527\n"
    "mls3,mlperf,b200-hgx8,8,llama-2-70b,fp4,,274,,interactive,agg,,,,,,,,,,,,,,,trtllm,7517,31.2,53\n"
    "oss1,inferencex,h200-sxm-hgx8,1,gpt-oss-120b,fp4,1024,1024,64,concurrency,agg,1,1,0,,,,,,,,,,,none,vllm,3000,50,100\n"
    "oss2,inferencex,b200-hgx8,1,gpt-oss-120b,fp4,1024,1024,64,concurrency,agg,1,1,0,,,,,,,,,,,none,trt,5000,80,80\n"
    "l70,inferencex,b200-hgx8,8,llama-3.3-70b,fp8,1024,1024,128,concurrency,agg,8,1,0,,,,,,,,,,,none,trt,500,35,500\n";
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  g_autofree char *path = write_tmp(text);
  g_autoptr(GError) err = NULL;
  g_autoptr(GPtrArray) rows = validate_read(path, c, rec, &err);
  ck_assert_msg(rows, "%s", err ? err->message : "");
  const ValRow *t1 = row_of(rows, "trt1"), *t2 = row_of(rows, "trt2"), *s1 = row_of(rows, "sgl1"),
               *s2 = row_of(rows, "sgl2"), *d1 = row_of(rows, "dis1"), *m1 = row_of(rows, "mlp1");
  ck_assert(t1->launch && t1->draft_tokens == 1 && t1->load.chunk == 1152);
  ck_assert(t1->adp_balance_timeout == 60 && t1->adp_batching_wait == 0 && t1->batch_wait_timeout == 0);
  ck_assert(t2->draft_tokens == 0 && t2->load.chunk == 8192);
  ck_assert(t2->batch_wait_timeout == 40 && t2->batch_wait_tokens == 0.8);
  /* sgl1, FP4 with MTP on B200: the MTP script's 512 running requests, 16384-token chunks and 0.82
   * of HBM (over the FP4 script's 256 and 0.85: later recipes win) */
  ck_assert(s1->recv_interval == 30 && s1->load.max_batch == 512 && s1->load.chunk == 16384 && s1->draft_tokens == 2);
  ck_assert_double_eq(s1->decode.kv_fraction, 0.82);
  ck_assert(isnan(s1->adp_balance_timeout) && isnan(s1->batch_wait_timeout));
  ck_assert(s2->recv_interval == 1 && s2->load.max_batch == 256 && s2->load.chunk == 32768);
  ck_assert_double_eq(s2->decode.kv_fraction, 0); /* the H200 script's fraction is not known: the stack's */
  ck_assert(!d1->launch && d1->draft_tokens == 3 && m1->launch && m1->draft_tokens == 0);
  /* MLPerf's Llama-2-70B server and offline submissions: TP1 engines of 2,048 sequences,
   * max_num_tokens 3,584 on B200 and 1,536 on H200, 0.95 and 0.9 of the free HBM, the C++
   * executor (no overlap scheduler); the interactive row (mls3) takes none of it */
  const ValRow *ms1 = row_of(rows, "mls1"), *ms2 = row_of(rows, "mls2"), *ms3 = row_of(rows, "mls3");
  ck_assert(ms1->load.max_batch == 2048 && ms1->load.chunk == 3584 && ms1->overlap == 0);
  ck_assert_double_eq(ms1->decode.kv_fraction, 0.95);
  ck_assert(ms2->load.max_batch == 2048 && ms2->load.chunk == 1536 && ms2->overlap == 0);
  ck_assert_double_eq(ms2->decode.kv_fraction, 0.9);
  ck_assert(m1->load.max_batch == 2048 && m1->load.chunk == 1536 && m1->overlap == 0);
  ck_assert_double_eq(m1->decode.kv_fraction, 0.9);
  ck_assert(ms3->load.max_batch > 1e8 && ms3->load.chunk == 8192 && isnan(ms3->overlap));
  ck_assert_int_eq(row_of(rows, "dis2")->draft_tokens, 1);
  ck_assert_int_eq(row_of(rows, "dis3")->draft_tokens, 2);
  ck_assert_int_eq(row_of(rows, "dis4")->draft_tokens, 3);
  ck_assert_int_eq(row_of(rows, "dis5")->draft_tokens, 2);
  /* GB200's wide-EP TensorRT-LLM recipes give a decode rank a CUDA-graph batch at or below its
   * users: dis1, 256 users over 16 ranks = 16 a rank, 16 x 16 = 256 a decode engine; dis2, 2,253
   * / 16 = 140.8 a rank, 128 x 16 = 2,048 (205 users wait for a slot). So do B200's FP4 recipes
   * and H100's: dis3, 1,214 users over 2 x 8 ranks = 75.9 a rank, 64 x 8 = 512 an engine (the
   * recipe's ctx1_gen2_dep8_batch64: 1,024 slots); dis8, 615 / 16 = 38.4 a rank, 32 x 16 = 512.
   * B200's FP8 recipes are sized over their users (dis10, 1,600 users, batch 768 a rank): no cap.
   * H100's recipes spend fewer drafts: dis8, 38.4 a rank -> 2 (Blackwell's rule: 3); dis9, 1,229 /
   * 16 = 76.8 -> 1 (2); H200's at 8k prompts too: dis11, 128 / 8 = 16 a rank -> 2 (3); GB200's
   * 1k-prompt ones 1 beyond 64 a rank: dis12, 2,152 / 32 = 67.3 -> 1 (2).
   * Dynamo-SGLang's wide engines (dis5, 8 GPUs) take 0.82 of HBM. */
  ck_assert_double_eq(d1->load.max_batch, 256);
  ck_assert_double_eq(row_of(rows, "dis2")->load.max_batch, 2048);
  ck_assert_double_eq(row_of(rows, "dis3")->load.max_batch, 512);
  ck_assert_double_eq(row_of(rows, "dis8")->load.max_batch, 512);
  ck_assert_double_eq(row_of(rows, "dis9")->load.max_batch, 1024);
  ck_assert(row_of(rows, "dis10")->load.max_batch >= 1e9);
  ck_assert_int_eq(row_of(rows, "dis8")->draft_tokens, 2);
  ck_assert_int_eq(row_of(rows, "dis9")->draft_tokens, 1);
  ck_assert_int_eq(row_of(rows, "dis10")->draft_tokens, 2);
  ck_assert_int_eq(row_of(rows, "dis11")->draft_tokens, 2);
  ck_assert_int_eq(row_of(rows, "dis12")->draft_tokens, 1);
  ck_assert_double_eq(row_of(rows, "dis5")->decode.kv_fraction, 0.82);
  ck_assert_double_eq(row_of(rows, "dis5")->prefill.kv_fraction, 0.82);
  ck_assert_double_eq(d1->decode.kv_fraction, 0);
  /* GB200's Dynamo-SGLang recipes spread the experts of every attention-DP worker over its GPUs
   * (ep-size = dp-size) and give the decode worker 32 redundant experts, where the rows record EP 1:
   * dis6, two 8-GPU prefill workers and a 32-GPU decode worker, EP 8 and EP 32 with 256 + 32 slots.
   * A 4-GPU decode worker (dis7) is not one of them, nor a B200 engine that records its EP (dis5). */
  const ValRow *d6 = row_of(rows, "dis6"), *d7 = row_of(rows, "dis7"), *d5 = row_of(rows, "dis5");
  ck_assert_int_eq(d6->prefill.ep, 8);
  ck_assert_int_eq(d6->decode.ep, 32);
  ck_assert_int_eq(d6->decode.expert_slots, 288);
  ck_assert_int_eq(d6->prefill.expert_slots, 0);
  ck_assert(d7->prefill.ep == 1 && d7->decode.ep == 1 && d7->decode.expert_slots == 0);
  ck_assert(d5->prefill.ep == 8 && d5->decode.ep == 8 && d5->decode.expert_slots == 0);
  /* the wide GB200 workers run DeepEP (their experts in DeepGEMM); the 4-GPU TP workers and the
   * B200 attention-DP engines run SGLang's default, no all-to-all backend */
  ck_assert(d6->prefill.deepep && d6->decode.deepep);
  ck_assert(!d7->prefill.deepep && !d7->decode.deepep && !d5->prefill.deepep && !d5->decode.deepep);
  /* GB200's 4-GPU Dynamo-SGLang workers are the low-latency recipes' TP engines, whatever attention
   * DP the row records (dis7 records it on both pools); the wide workers (dis6) keep theirs, and so
   * does a B200 row (dis5, recorded without it) */
  ck_assert(!d7->prefill.dp_attention && !d7->decode.dp_attention);
  ck_assert(d6->prefill.dp_attention && d6->decode.dp_attention);
  ck_assert(!d5->prefill.dp_attention && !d5->decode.dp_attention);
  /* TensorRT-LLM's B200 FP8 launches run trtllm-gen's MoE where the experts are sliced over TP8
   * (trt2's engine, dis13's three decode workers) and DeepGEMM where they are whole over EP 8
   * (trt1, dis10's pools, dis13's attention-DP prefill worker); Llama has no experts (l70) */
  const ValRow *d13 = row_of(rows, "dis13"), *d10 = row_of(rows, "dis10");
  ck_assert(t2->decode.trtllm_gen_moe && d13->decode.trtllm_gen_moe);
  ck_assert(!t1->decode.trtllm_gen_moe && !d13->prefill.trtllm_gen_moe);
  ck_assert(!d10->decode.trtllm_gen_moe && !d10->prefill.trtllm_gen_moe);
  ck_assert(!row_of(rows, "l70")->decode.trtllm_gen_moe);
  const ValRow *o1 = row_of(rows, "oss1"), *o2 = row_of(rows, "oss2");
  ck_assert(o1->launch && o1->overlap == 1 && o1->load.chunk == 8192 && o1->load.max_batch == 64);
  ck_assert(o1->kv_asked == KVP_BF16 && o1->batch_wait_timeout == 0);
  ck_assert(o2->launch && isnan(o2->overlap) && o2->load.chunk == 20000 && o2->load.max_batch == 512);
  ck_assert(o2->kv_asked == KVP_FP8 && o2->draft_tokens == 0);
  /* the launch's KV precision holds over the stack's default when predicted (it was once reset to
   * the profile's, FP8 for vLLM here, by the prediction) */
  Profile prof;
  profile_defaults(&prof);
  prof.stack[STACK_VLLM].kv_cache = PREC_FP8;
  Prediction pr;
  validate_predict((ValRow *)o1, &prof, &pr);
  ck_assert_int_eq(o1->decode.kv_precision, PREC_BF16);
  prediction_clear(&pr);
  profile_clear(&prof);
  ck_assert(isnan(t1->overlap) && isnan(s1->overlap));
  /* DeepSeek's scripts are DeepSeek's: a Llama row in trt2's place batch-waits not */
  const ValRow *l70 = row_of(rows, "l70");
  ck_assert(!l70->launch && l70->load.chunk == 8192);
}
END_TEST

/* Stacks without rows: the rows here are TensorRT-LLM's and SGLang's, so after a fit with no
 * rounds (nothing moves) vLLM holds the geometric mean of their values: kernel efficiency 0.8 and
 * 1.25 give 1.0; step overheads 1 ms and 4 ms give 2 ms; MTP acceptance 0.5 and 0.8 give 0.632.
 * Its own scheduler settings (batch cap, overlap) are left as they were. */
START_TEST(fit_carries_unmeasured_stack)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  g_autofree char *path = write_tmp(csv_text);
  g_autoptr(GPtrArray) rows = validate_read(path, c, rec, NULL);
  Profile p;
  profile_defaults(&p);
  p.stack[STACK_TRTLLM].kernel_efficiency = 0.8, p.stack[STACK_SGLANG].kernel_efficiency = 1.25;
  p.stack[STACK_TRTLLM].step_overhead = 1e-3, p.stack[STACK_SGLANG].step_overhead = 4e-3;
  p.stack[STACK_TRTLLM].mtp_acceptance = 0.5, p.stack[STACK_SGLANG].mtp_acceptance = 0.8;
  double cap = p.stack[STACK_VLLM].max_seqs_per_rank;
  gboolean overlap = p.stack[STACK_VLLM].overlap_scheduler;
  FitOptions opt = { .rounds = 0 };
  fit_profile(rows, &p, &opt);
  ck_assert_close(p.stack[STACK_VLLM].kernel_efficiency, 1.0, 1e-12);
  ck_assert_close(p.stack[STACK_VLLM].step_overhead, 2e-3, 1e-12);
  ck_assert_close(p.stack[STACK_VLLM].mtp_acceptance, sqrt(0.4), 1e-12);
  ck_assert_close(p.stack[STACK_VLLM].max_seqs_per_rank, cap, 1e-12);
  ck_assert(p.stack[STACK_VLLM].overlap_scheduler == overlap);
  /* the measured stacks keep what they had */
  ck_assert_close(p.stack[STACK_SGLANG].kernel_efficiency, 1.25, 1e-12);
  profile_clear(&p);
}
END_TEST

/* A disaggregated row's TTFT enters the fit both ways only while its pools run under half their
 * ceilings, and beyond that only where the model's TTFT is the longer: one user on a B200 Dynamo
 * deployment (TTFT is overheads, one prefill and the handoff; B200's FP8 recipes give its decode
 * ranks batches over their users) and 2,800 users on the same pools (about 2/3 of the prefill pool's
 * ceiling, where the model's TTFT still carries the handoff). A longer handoff moves the light
 * row's loss by its TTFT. The busy row measured at 60 s (its deployment queued far more than the
 * model's: admission the rows do not give) moves only through its throughput and per-user speed
 * (a sixth as much here); measured at 50 ms (the model's pools queue where the measured ones kept
 * up: its prefill too slow), its TTFT counts, and moves it more than that. */
static double handoff_moves(const Catalog *c, const Recipes *rec, int users, int ttft_ms)
{
  const char *head =
    "id,source_kind,system,gpus,model,precision,isl,osl,concurrency,scenario,mode,tp,ep,dp_attention,"
    "prefill_workers,prefill_tp,prefill_ep,prefill_dp_attention,decode_workers,decode_tp,decode_ep,"
    "decode_dp_attention,prefill_gpus,decode_gpus,spec_decode,framework,out_tok_s_per_gpu,tok_s_per_user,"
    "tpot_ms,ttft_ms\n";
  const char *tail = ",concurrency,disagg,,,,1,4,4,1,1,16,16,1,4,16,none,dynamo-trt,500,60,16,";
  g_autofree char *text =
    g_strdup_printf("%sd,inferencex,b200-hgx8,20,deepseek-r1,fp8,1024,1024,%d%s%d\n", head, users, tail, ttft_ms);
  g_autofree char *path = write_tmp(text);
  g_autoptr(GPtrArray) rows = validate_read(path, c, rec, NULL);
  Profile p;
  profile_defaults(&p);
  Prediction pr;
  validate_predict(rows->pdata[0], &p, &pr);
  gboolean busy = users > 1;
  ck_assert_msg(busy ? pr.pool_load > 0.6 && pr.pool_load < 0.95 : pr.pool_load < 0.2, "pool load %g", pr.pool_load);
  /* the busy row's two measurements lie either side of the model's TTFT */
  ck_assert(!busy || (pr.predicted[MET_TTFT] > 50 && pr.predicted[MET_TTFT] < 60000));
  prediction_clear(&pr);
  double before = fit_loss(rows, &p);
  p.stack[STACK_TRTLLM].handoff_overhead *= 2;
  validate_predict(rows->pdata[0], &p, &pr); /* the longer handoff leaves the row where it was */
  ck_assert(busy ? pr.pool_load > 0.6 : pr.pool_load < 0.2);
  prediction_clear(&pr);
  double moved = fit_loss(rows, &p) - before;
  profile_clear(&p);
  return moved;
}

START_TEST(fit_ttft_one_way_above_half_load)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  double light = handoff_moves(c, rec, 1, 300), queued = handoff_moves(c, rec, 2800, 60000),
         kept_up = handoff_moves(c, rec, 2800, 50);
  ck_assert(fabs(light) > 1e-3);
  ck_assert_msg(fabs(queued) < 0.35 * fabs(light), "queued busy row's loss moved %g, light row's %g", queued, light);
  ck_assert_msg(kept_up > fabs(queued) + 1e-4, "kept-up busy row's loss moved %g, queued one's %g", kept_up, queued);
}
END_TEST

/* Sets every row's "measurements" to TRUTH's predictions, times 1 + NOISE x (-1, 0 or +1 by row and
 * metric) so that a fit cannot reach them exactly when NOISE > 0. */
static void measure_with(GPtrArray *rows, const Profile *truth, double noise)
{
  for (guint i = 0; i < rows->len; i++) {
    ValRow *r = rows->pdata[i];
    Prediction p;
    validate_predict(r, truth, &p);
    for (int m = 0; m < N_METRICS; m++)
      r->measured[m] = p.predicted[m] * (1 + noise * ((i + m) % 3 - 1.0));
    prediction_clear(&p);
  }
}

/* A known profile in, the same profile out: rows whose "measurements" are the predictions of a
 * truth profile are fitted from a perturbed start; the perturbed parameters come back. */
START_TEST(fit_recovers_known_profile)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  g_autofree char *path = write_tmp(csv_text);
  g_autoptr(GPtrArray) rows = validate_read(path, c, rec, NULL);
  Profile truth, start;
  profile_defaults(&truth);
  truth.on[ARCH_HOPPER].memory = 0.76;
  truth.stack[STACK_TRTLLM].step_overhead = 2.5e-3;
  measure_with(rows, &truth, 0);
  ck_assert_close(fit_loss(rows, &truth), 0, 1e-12);
  profile_defaults(&start);
  double before = fit_loss(rows, &start);
  FitOptions opt = { .rounds = 12 };
  double after = fit_profile(rows, &start, &opt);
  ck_assert_msg(after < before / 50, "loss %g -> %g", before, after);
  /* the same curve out: every prediction within 3% of the truth's. (Several parameters can trade
   * against each other on nine rows, so the test holds the predictions, not each parameter.) */
  for (guint i = 0; i < rows->len; i++) {
    ValRow *r = rows->pdata[i];
    Prediction p;
    validate_predict(r, &start, &p);
    for (int m = 0; m < MET_GPU_POWER; m++) /* power is checked by its own rows, not fitted */
      if (isfinite(r->measured[m]))
        ck_assert_msg(fabs(p.predicted[m] / r->measured[m] - 1) <= 0.03, "%s %s: %g, truth %g", r->id,
                      metric_names[m], p.predicted[m], r->measured[m]);
    prediction_clear(&p);
  }
  profile_clear(&truth);
  profile_clear(&start);
}
END_TEST

/* The fit's loss is nearly an absolute error past 5%, as the median it is judged by: one row whose
 * three figures are all predicted e^E times what was measured loses huber(E), the same width on
 * each figure (fit.c), i.e. 0.5 E^2 up to 0.05 and 0.05 (E - 0.025) beyond:
 *   E = 0.02: 0.5 x 0.0004 = 0.0002;  E = 0.2: 0.05 x 0.175 = 0.00875;  E = 0.4: 0.05 x 0.375 = 0.01875
 * (twice the error beyond the width, about twice the loss; a quadratic loss would give four times). */
static double loss_at(GPtrArray *rows, const Profile *p, double e)
{
  ValRow *r = rows->pdata[0];
  Prediction pr;
  validate_predict(r, p, &pr);
  for (int m = 0; m < N_METRICS; m++)
    r->measured[m] = m <= MET_TTFT ? pr.predicted[m] * exp(-e) : NAN;
  prediction_clear(&pr);
  return fit_loss(rows, p);
}

START_TEST(fit_loss_nearly_absolute)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  g_autofree char *path = write_tmp(csv_text);
  g_autoptr(GPtrArray) rows = validate_read(path, c, rec, NULL);
  g_ptr_array_set_size(rows, 1); /* agg1: throughput, per-user speed and TTFT measured */
  ck_assert_str_eq(((ValRow *)rows->pdata[0])->id, "agg1");
  Profile p;
  profile_defaults(&p);
  ck_assert_close(loss_at(rows, &p, 0.02), 0.0002, 1e-9);
  ck_assert_close(loss_at(rows, &p, 0.2), 0.00875, 1e-9);
  ck_assert_close(loss_at(rows, &p, 0.4), 0.01875, 1e-9);
  ck_assert_close(loss_at(rows, &p, -0.4), 0.01875, 1e-9); /* too slow weighs as too fast */
  profile_clear(&p);
}
END_TEST

/* The test rows "measured" as a profile with Hopper's GEMM share at 0.5 and SGLang's request
 * overhead at 120 ms predicts them, off by 5% either way (measure_with): no fit reaches them
 * exactly. */
static GPtrArray *rows_measured_near_truth(const Catalog *c, const Recipes *rec)
{
  g_autofree char *path = write_tmp(csv_text);
  GPtrArray *rows = validate_read(path, c, rec, NULL);
  Profile truth;
  profile_defaults(&truth);
  truth.on[ARCH_HOPPER].gemm = 0.5;
  truth.stack[STACK_SGLANG].request_overhead = 0.12;
  measure_with(rows, &truth, 0.05);
  profile_clear(&truth);
  return rows;
}

/* Several starts: start 1 is the single descent itself, so the lowest of three ends at or below it;
 * the profile returned is the one whose loss is returned; and the result is the same whether the
 * starts run one after another or at once. */
START_TEST(fit_multistart)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  g_autoptr(GPtrArray) rows = rows_measured_near_truth(c, rec);
  Profile one, serial, parallel;
  profile_defaults(&one);
  serial = parallel = one;
  FitOptions opt = { .rounds = 3 };
  double l1 = fit_profile(rows, &one, &opt);
  opt.starts = 3, opt.threads = 1;
  double ls = fit_profile(rows, &serial, &opt);
  opt.threads = 3;
  double lp = fit_profile(rows, &parallel, &opt);
  ck_assert_msg(ls <= l1, "three starts %g, one %g", ls, l1);
  ck_assert(ls == lp);
  ck_assert(memcmp(serial.on, parallel.on, sizeof serial.on) == 0);
  ck_assert(memcmp(serial.stack, parallel.stack, sizeof serial.stack) == 0);
  ck_assert_close(fit_loss(rows, &serial), ls, 1e-12);
  profile_clear(&one); /* SERIAL and PARALLEL are copies of it: they share its source string */
}
END_TEST

/* --select des: each start's optimum is scored by the loss the event simulation gives it
 * (reported through `scored`), and the lowest gives the profile, whatever the threads: its
 * event-simulation loss is that lowest score, and at most that of the profile the steady state's
 * loss picks from the same starts. */
static void record_score(int start, double loss_des, gpointer user)
{
  ((double *)user)[start] = loss_des;
}

START_TEST(fit_select_des)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  g_autoptr(GPtrArray) rows = rows_measured_near_truth(c, rec);
  Profile by_steady, serial, parallel;
  profile_defaults(&by_steady);
  serial = parallel = by_steady;
  double s1[3] = { NAN, NAN, NAN }, s3[3] = { NAN, NAN, NAN };
  FitOptions opt = { .rounds = 2, .starts = 3, .threads = 1 };
  fit_profile(rows, &by_steady, &opt);
  opt.select_des = TRUE, opt.scored = record_score, opt.user = s1;
  fit_profile(rows, &serial, &opt);
  opt.threads = 3, opt.user = s3;
  fit_profile(rows, &parallel, &opt);
  double best = MIN(s1[0], MIN(s1[1], s1[2]));
  ck_assert(isfinite(best));
  for (int k = 0; k < 3; k++)
    ck_assert(s1[k] == s3[k]);
  ck_assert(memcmp(serial.on, parallel.on, sizeof serial.on) == 0);
  ck_assert(memcmp(serial.stack, parallel.stack, sizeof serial.stack) == 0);
  ck_assert_close(fit_loss_des(rows, &serial), best, 1e-12);
  ck_assert(fit_loss_des(rows, &serial) <= fit_loss_des(rows, &by_steady) + 1e-12);
  profile_clear(&by_steady); /* SERIAL and PARALLEL are copies of it: they share its source string */
}
END_TEST

/* The fit moves the stack layer only: the hardware layer comes out as it went in. Held keys stay
 * as given while the rest descends; an unknown key is refused with a suggestion. */
START_TEST(fit_holds_keys)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  g_autofree char *path = write_tmp(csv_text);
  g_autoptr(GPtrArray) rows = validate_read(path, c, rec, NULL);
  Profile truth, free_fit, held_fit;
  profile_defaults(&truth);
  truth.on[ARCH_HOPPER].gemm = 0.5;
  truth.stack[STACK_SGLANG].request_overhead = 0.12;
  measure_with(rows, &truth, 0);
  profile_defaults(&free_fit);
  held_fit = free_fit;
  const Profile start = free_fit; /* shares the source string; read only */
  double before = fit_loss(rows, &free_fit);
  FitOptions opt = { .rounds = 3 };
  fit_profile(rows, &free_fit, &opt);
  ck_assert(memcmp(free_fit.arch, start.arch, sizeof start.arch) == 0); /* the hardware layer held */
  ck_assert(free_fit.on[ARCH_HOPPER].gemm != start.on[ARCH_HOPPER].gemm); /* the stack layer fitted */
  ck_assert(free_fit.on[ARCH_HOPPER].gemm <= 1 && free_fit.on[ARCH_HOPPER].memory <= 1);
  ck_assert(free_fit.stack[STACK_TRTLLM].kernel_efficiency == 1); /* the reference */
  /* no row runs on Rubin: unheld, it takes the newest fitted architecture's stack layer; held, its own */
  ck_assert(memcmp(&free_fit.on[ARCH_RUBIN], &free_fit.on[ARCH_BLACKWELL], sizeof(ArchStackProfile)) == 0);
  static const char *const hold[] = { "hopper.stacks.gemm", "hopper.stacks.memory", "rubin.stacks.memory", NULL };
  opt.hold = hold;
  held_fit.on[ARCH_RUBIN].memory = 0.5;
  double after = fit_profile(rows, &held_fit, &opt);
  ck_assert(held_fit.on[ARCH_HOPPER].gemm == start.on[ARCH_HOPPER].gemm);
  ck_assert(held_fit.on[ARCH_HOPPER].memory == start.on[ARCH_HOPPER].memory);
  ck_assert(held_fit.on[ARCH_RUBIN].memory == 0.5);
  ck_assert(held_fit.on[ARCH_RUBIN].gemm == held_fit.on[ARCH_BLACKWELL].gemm);
  ck_assert_msg(after < before, "loss %g -> %g", before, after); /* the rest still fitted */
  g_autoptr(GError) err = NULL;
  ck_assert(fit_hold_check("hopper.gemm_efficiency", &err));
  ck_assert(!fit_hold_check("hoper.gemm_efficiency", &err));
  ck_assert(g_error_matches(err, AIF_ERROR, AIF_ERROR_INPUT));
  ck_assert_msg(strstr(err->message, "did you mean 'hopper.gemm_efficiency'"), "%s", err->message);
  profile_clear(&truth);
  profile_clear(&free_fit); /* HELD_FIT is a copy of its start: they share the source string */
}
END_TEST

/* The headline figure pools each row's throughput and per-user errors: rows off by (10%, 5%),
 * (20%, no per-user figure), (30%, 40%) and a row with nothing predicted give the list 0.05, 0.10,
 * 0.20, 0.30, 0.40, median 20% over 5 figures; two rows (10%, 5%) and (30%, 40%), four figures,
 * the mean of the middle two, (0.10 + 0.30) / 2 = 20%. */
START_TEST(pooled_headline_median)
{
  static const double thr[] = { 1.1, 0.8, 1.3, NAN }, user[] = { 0.95, NAN, 1.4, NAN };
  g_autoptr(GPtrArray) rows = g_ptr_array_new_with_free_func(g_free);
  Prediction p[4];
  for (int i = 0; i < 4; i++) {
    ValRow *r = g_new0(ValRow, 1);
    for (int m = 0; m < N_METRICS; m++)
      r->measured[m] = NAN;
    r->measured[MET_OUT_TOK_S_PER_GPU] = 100, r->measured[MET_TOK_S_PER_USER] = 50;
    g_ptr_array_add(rows, r);
    p[i] = (Prediction){ .status = OUTCOME_OK };
    for (int m = 0; m < N_METRICS; m++)
      p[i].predicted[m] = NAN;
    p[i].predicted[MET_OUT_TOK_S_PER_GPU] = 100 * thr[i], p[i].predicted[MET_TOK_S_PER_USER] = 50 * user[i];
  }
  guint n;
  ck_assert_double_eq_tol(validate_pooled_median(rows, p, &n), 0.20, 1e-12);
  ck_assert_uint_eq(n, 5);
  g_ptr_array_remove_index(rows, 3), g_ptr_array_remove_index(rows, 1);
  Prediction two[2] = { p[0], p[2] };
  ck_assert_double_eq_tol(validate_pooled_median(rows, two, &n), 0.20, 1e-12);
  ck_assert_uint_eq(n, 4);
  g_ptr_array_set_size(rows, 0);
  ck_assert(isnan(validate_pooled_median(rows, two, &n)) && n == 0);
}
END_TEST

/* The CUDA-graph batch a wide-EP recipe gives a decode rank for its users: powers of two up to
 * 256 (17.6 -> 16, 140.8 -> 128, 511 -> 256), multiples of 256 beyond (537.6 -> 512, 806.4 -> 768),
 * at least 1 (0.4 -> 1). */
START_TEST(graph_floor_batches)
{
  static const double users[] = { 0.4, 1, 17.6, 140.8, 256, 511, 537.6, 806.4 };
  static const double want[] = { 1, 1, 16, 128, 256, 256, 512, 768 };
  for (gsize i = 0; i < G_N_ELEMENTS(users); i++)
    ck_assert_double_eq(recipes_graph_floor(users[i]), want[i]);
}
END_TEST

/* Loading the recipes at PATH fails with a message that starts with AT (a file's path) and WANT. */
static void recipes_refused(const char *path, const char *at, const char *want)
{
  g_autoptr(GError) err = NULL;
  g_autoptr(Recipes) r = recipes_load(path, &err);
  ck_assert_ptr_null(r);
  g_autofree char *prefix = g_strconcat(at, want, NULL);
  ck_assert_msg(g_str_has_prefix(err->message, prefix), "%s\n want %s", err->message, prefix);
}

/* A recipes file is input like any other: what it gets wrong is said at its line and column. */
START_TEST(bad_recipes)
{
  static const struct { const char *text, *want; } cases[] = {
    { "recipes:\n  - {id: a, source: s, when: {modle: x}, set: {chunk: 1}}\n", ":2:31: unknown condition 'modle'" },
    { "recipes:\n  - {id: a, source: s, when: {model: x}, set: {chunks: 1}}\n", ":2:48: unknown setting 'chunks'" },
    { "recipes:\n  - {id: a, when: {model: x}, set: {chunk: 1}}\n", ":2:5: a recipe names its source" },
    { "recipes:\n  - {id: a, source: s, when: {model: x}, set: {expert_slots: 1e9}}\n",
      ":2:62: expected expert slots up to 1048576" },
    { "recipes:\n  - {id: a, source: s, when: {model: x}, set: {kv_memory_fraction: 1.5}}\n",
      ":2:68: expected a fraction above 0, up to 1" },
    { "recipes:\n  - {id: a, source: s, when: {model: x}, set: {ep: 8}}\n", ":2:52: expected engine" },
    { "recipes:\n  - {id: a, source: s, when: {model: x}, set: {decode_rank_batch: floor}}\n",
      ":2:67: expected a number >= 0 or graph-floor" },
    { "recipes:\n  - {id: a, source: s, when: {concurrency: {over: 3}}, set: {chunk: 1}}\n",
      ":2:45: a range takes min, max, above and below" },
    { "recipes: []\nclients:\n  - {source_kind: b, source: s, length_range: 0, prompts_per_user: 3}\n",
      ":3:47: expected a length range in (0, 1]" },
    { "recipes: []\nclients:\n  - {source_kind: b, length_range: 1, prompts_per_user: 3}\n",
      ":3:5: expected {source_kind, source, length_range, prompts_per_user}" },
    { "recipes:\n  - {id: a, source: s, when: {model: x}, set: {graph_batches: [1, 4, 2]}}\n",
      ":2:70: expected whole batch sizes from 1 to 1048576, each above the one before" },
    { "recipes:\n  - {id: a, source: s, when: {model: x}, set: {attention_dp: no}}\n",
      ":2:62: expected true or false" },
    { "recipes:\n  - {id: a, source: s, when: {model: x}, set: {moe_a2a: nccl}}\n",
      ":2:57: expected deepep or none" },
    { "recipes:\n  - {id: a, source: s, when: {model: x}, set: {sliced_moe_backend: cutlass}}\n",
      ":2:68: expected trtllm or deepgemm" },
    { "recipes:\n  - {id: a, source: s, when: {model: x}, set: {graph_batches: 8}}\n",
      ":2:63: expected a list of batch sizes, e.g. [1, 2, 4, 8]" },
    { "recipes:\n  - {id: a, source: s, when: {model: x}, set: {max_batch: trtllm-benchh}}\n",
      ":2:59: expected a number >= 0, concurrency or trtllm-bench" },
    { "recipes: []\noffline:\n  - {source_kind: b, source: s, runs: [{isl: 128, osl: 128, requests: 2.5}]}\n",
      ":3:71: expected a whole number of requests" },
    { "recipes: []\noffline:\n  - {source_kind: b, source: s, runs: [{isl: 0, osl: 128, requests: 2}]}\n",
      ":3:46: expected a whole number from 1 to 10,000,000" },
    { "recipes: []\noffline:\n  - {source_kind: b, source: s, runs: [{isl: 1, osl: 128}]}\n",
      ":3:40: expected {isl, osl, requests}" },
    { "recipes: []\noffline:\n  - {source_kind: b, runs: []}\n",
      ":3:5: expected {source_kind, source, runs: [{isl, osl, requests}, ...]}" },
    { "recipes: []\nmlperf:\n  - {model: m, source: s, dataset_isl: 900, server: {tpot: fast, ttft: 2 s}, "
      "interactive: {tpot: 30 ms, ttft: 1 s}}\n", ":3:53: expected {tpot: TIME, ttft: TIME}" },
    { "recipes: []\nmlperf:\n  - {model: m, source: s, dataset_isl: 900, dataset: d.csv, server: {tpot: 1 s, ttft: 2 s}, "
      "interactive: {tpot: 30 ms, ttft: 1 s}}\n", ":3:5: expected one of dataset_isl (tokens) and dataset" },
    { "recipes: []\nmlperf:\n  - {model: m, source: s, dataset: none.csv, server: {tpot: 1 s, ttft: 2 s}, "
      "interactive: {tpot: 30 ms, ttft: 1 s}}\n", ":3:36: cannot read the dataset" },
    /* a device is never read: one that never ends would hang the run */
    { "recipes: []\nmlperf:\n  - {model: m, source: s, dataset: /dev/zero, server: {tpot: 1 s, ttft: 2 s}, "
      "interactive: {tpot: 30 ms, ttft: 1 s}}\n", ":3:36: cannot read the dataset (/dev/zero: not a regular file)" },
  };
  g_autofree char *dir = test_tmpdir();
  g_autofree char *path = g_build_filename(dir, "r.yaml", NULL);
  for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
    ck_assert(g_file_set_contents(path, cases[i].text, -1, NULL));
    recipes_refused(path, path, cases[i].want);
  }
}
END_TEST

/* An MLPerf entry's dataset is a file of prompt lengths beside the recipes: its mean is the rules'
 * prompt ((100 + 300) / 2 = 200 tokens, whatever column input_length is); a length that is not a
 * whole number of tokens >= 1 is said at the file's own line and column. */
START_TEST(mlperf_dataset_file)
{
  g_autofree char *dir = test_tmpdir();
  g_autofree char *path = g_build_filename(dir, "r.yaml", NULL);
  g_autofree char *data = g_build_filename(dir, "d.csv", NULL);
  ck_assert(g_file_set_contents(path, "recipes: []\nmlperf:\n  - {model: m, source: s, dataset: d.csv, "
                                      "server: {tpot: 1 s, ttft: 2 s}, interactive: {tpot: 30 ms, ttft: 1 s}}\n", -1, NULL));
  ck_assert(g_file_set_contents(data, "output_length,input_length\n5,100\n7,300\n", -1, NULL));
  g_autoptr(GError) err = NULL;
  g_autoptr(Recipes) r = recipes_load(path, &err);
  ck_assert_msg(r, "%s", err ? err->message : "");
  ck_assert_close(recipes_mlperf(r, "m")->dataset_isl, 200, 1e-12);
  static const struct { const char *csv, *want; } bad[] = {
    { "output_length,input_length\n5,100\n7,2.5\n", ":3:3: expected a prompt length in tokens" },
    { "input_length\n100\n0\n", ":3:1: expected a prompt length in tokens" },
    { "prompt,answer\n100,5\n", ":1:1: expected a header with input_length" },
    { "input_length\n", ":2:1: expected at least one prompt length" },
  };
  for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
    ck_assert(g_file_set_contents(data, bad[i].csv, -1, NULL));
    recipes_refused(path, data, bad[i].want);
  }
}
END_TEST

/* The shipped MLPerf rules, as recipes.yaml states them (v5.x: llama-3.1-8b server p99 TPOT 100 ms,
 * TTFT 2 s; its CNN/DailyMail file, datasets/llama-3.1-8b.csv: 11,639,915 prompt tokens over 13,368
 * prompts = 870.73 a prompt; llama-3.1-405b's, 78,380,323 over 8,313 = 9,428.64; llama-2-70b's
 * OpenOrca file: 5,463,976 prompt tokens over 24,576 prompts = 222.33 a prompt). */
START_TEST(mlperf_rules)
{
  g_autoptr(Recipes) rec = shipped_recipes();
  const MlperfRules *m = recipes_mlperf(rec, "llama-3.1-8b");
  ck_assert_ptr_nonnull(m);
  ck_assert_close(m->server_tpot, 0.100, 1e-12);
  ck_assert_close(m->server_ttft, 2.0, 1e-12);
  ck_assert_close(m->dataset_isl, 11639915.0 / 13368, 1e-12);
  const MlperfRules *big = recipes_mlperf(rec, "llama-3.1-405b");
  ck_assert_ptr_nonnull(big);
  ck_assert_close(big->dataset_isl, 78380323.0 / 8313, 1e-12);
  const MlperfRules *orca = recipes_mlperf(rec, "llama-2-70b");
  ck_assert_ptr_nonnull(orca);
  ck_assert_close(orca->dataset_isl, 5463976.0 / 24576, 1e-3);
  ck_assert_ptr_null(recipes_mlperf(rec, "deepseek-r1"));
}
END_TEST

/* A benchmark's load generator is data: lengths drawn from 0.5 x nominal to nominal average 0.75 x
 * (1000 -> 750 tokens in, 200 -> 150 out); the shipped InferenceX client draws from 0.8 x (0.9 x). */
START_TEST(client_rules)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autofree char *dir = test_tmpdir();
  g_autofree char *rpath = g_build_filename(dir, "r.yaml", NULL);
  ck_assert(g_file_set_contents(rpath, "recipes: []\nclients:\n  - {source_kind: bench, source: s, "
                                       "length_range: 0.5, prompts_per_user: 4}\n", -1, NULL));
  g_autoptr(GError) err = NULL;
  g_autoptr(Recipes) rec = recipes_load(rpath, &err);
  ck_assert_msg(rec, "%s", err ? err->message : "");
  g_autoptr(Recipes) shipped = shipped_recipes();
  g_autofree char *text = g_strconcat(csv_text, "x,b1,bench,h200-sxm-hgx8,8,deepseek-r1,fp8,1000,200,16,concurrency,agg,"
                                                "8,8,0,,,,,,,,,,,none,trt,100,50,20,150\n", NULL);
  g_autofree char *path = write_tmp(text);
  g_autoptr(GPtrArray) rows = validate_read(path, c, rec, &err);
  g_autoptr(GPtrArray) ship = validate_read(path, c, shipped, &err);
  ck_assert(rows && ship);
  const ValRow *r0 = rows->pdata[0], *s0 = ship->pdata[0], *b1 = rows->pdata[rows->len - 1];
  ck_assert_ptr_nonnull(b1->client);
  ck_assert_close(b1->load.isl, 750, 1e-9);
  ck_assert_close(b1->load.osl, 150, 1e-9);
  ck_assert_ptr_null(((const ValRow *)ship->pdata[ship->len - 1])->client);
  ck_assert_ptr_null(r0->client); /* agg1 is an InferenceX row: no client for it in this file */
  ck_assert_close(r0->load.isl, 1024, 1e-12);
  ck_assert_ptr_nonnull(s0->client);
  ck_assert_close(s0->load.isl, 0.9 * 1024, 1e-9);
  ck_assert_close(s0->client->prompts_per_user, 10, 1e-12);
  const ClientRules *b = recipes_client(rec, "bench");
  ck_assert_ptr_nonnull(b);
  ck_assert_close(b->length_range, 0.5, 1e-12);
  ck_assert_close(b->prompts_per_user, 4, 1e-12);
}
END_TEST

/* The throughput of offline row OFF1 (Llama-3.1-8B on one H200, 128 in, 1,000 out) under a
 * recipes file of batch cap CAP and, when REQUESTS > 0, an offline run of that many requests. */
static double offline_throughput(const Catalog *c, int cap, int requests)
{
  g_autofree char *dir = test_tmpdir();
  g_autofree char *rpath = g_build_filename(dir, "r.yaml", NULL);
  g_autofree char *runs = requests > 0 ? g_strdup_printf("offline:\n  - {source_kind: bench, source: s, runs: "
                                                         "[{isl: 100, osl: 900, requests: 7}, {isl: 128, osl: "
                                                         "1000, requests: %d}]}\n", requests)
                                       : g_strdup("");
  g_autofree char *text = g_strdup_printf("recipes:\n  - {id: cap, source: s, when: {source_kind: bench}, set: "
                                          "{max_batch: %d}}\n%s", cap, runs);
  ck_assert(g_file_set_contents(rpath, text, -1, NULL));
  g_autoptr(GError) err = NULL;
  g_autoptr(Recipes) rec = recipes_load(rpath, &err);
  ck_assert_msg(rec, "%s", err ? err->message : "");
  g_autofree char *csv = g_strconcat(csv_text, "x,off1,bench,h200-sxm-hgx8,1,llama-3.1-8b,fp8,128,1000,,offline,agg,1,"
                                               ",,,,,,,,,,,,,trtllm,10000,,,\n", NULL);
  g_autofree char *path = write_tmp(csv);
  g_autoptr(GPtrArray) rows = validate_read(path, c, rec, &err);
  ck_assert_msg(rows, "%s", err ? err->message : "");
  ValRow *r = rows->pdata[rows->len - 1];
  ck_assert_double_eq(r->offline_requests, requests > 0 ? requests : 0);
  Profile prof;
  profile_defaults(&prof);
  Prediction p;
  validate_predict(r, &prof, &p);
  ck_assert_int_eq(p.status, OUTCOME_OK);
  double x = p.predicted[MET_OUT_TOK_S_PER_GPU];
  prediction_clear(&p);
  return x;
}

/* An offline benchmark of N requests queued at once, measured over the whole run: a 64-sequence
 * engine runs 600 of them in 9 full waves (576) and a last wave of 24 on its own. A full wave of
 * 64 takes 64 x OSL / X(64), the last 24 x OSL / X(24), so the run's throughput is
 *   600 x OSL / (9 x 64 x OSL / X(64) + 24 x OSL / X(24)) = X(64) x 600 / (576 + 24 x X(64) / X(24)).
 * 640 requests make 10 whole waves: X(64); 40 requests, one wave of 40: X(40). */
START_TEST(offline_runs_in_waves)
{
  g_autoptr(Catalog) c = shipped_catalog();
  double x64 = offline_throughput(c, 64, 0), x24 = offline_throughput(c, 24, 0), x40 = offline_throughput(c, 40, 0);
  ck_assert(x24 < x64 && x40 < x64); /* a smaller batch reads the same weights for fewer tokens */
  ck_assert_close(offline_throughput(c, 64, 600), x64 * 600 / (576 + 24 * x64 / x24), 1e-9 * x64);
  ck_assert_close(offline_throughput(c, 64, 640), x64, 1e-9 * x64);
  ck_assert_close(offline_throughput(c, 64, 40), x40, 1e-9 * x64);
  /* the shipped trtllm-bench runs, as TensorRT-LLM's perf overview lists them */
  g_autoptr(Recipes) shipped = shipped_recipes();
  ck_assert_double_eq(recipes_offline_requests(shipped, "trtllm-bench", 128, 4096), 1500);
  ck_assert_double_eq(recipes_offline_requests(shipped, "trtllm-bench", 128, 128), 30000);
  ck_assert_double_eq(recipes_offline_requests(shipped, "trtllm-bench", 128, 4095), 0);
  ck_assert_double_eq(recipes_offline_requests(shipped, "mlperf", 128, 4096), 0);
}
END_TEST

/* trtllm-bench's engine settings (tensorrt_llm/bench/build/tuning.py), on 8 GPUs of 100 GB, 400 GB
 * of weights, a KV cache of 2 x 126 x 8 x 128 x 1 = 258,048 B a token, 95% of the room:
 *  128 in, 4,096 out: 0.95 x (800 - 400) GB / (258,048 x 4,224) = 348.6 requests -> batch rounded
 *   up to 128: 384; tokens 348.6 x (1 + 128 / 4096) = 359.5 -> at least 2,048;
 *  2,048 in, 128 out: 380e9 / (258,048 x 2,176) = 676.7 -> 768; tokens 676.7 x 17 = 11,505 -> up to
 *   1,024: 12,288;
 *  790 GB of weights: 9.5e9 / 1.09e9 = 8.7 -> at least 64; 2,048;
 *  8 GB of weights, 128 in and out: 7.524e11 / (258,048 x 256) = 11,390 -> at most 4,096 (already a
 *   multiple of 256); tokens 4,096 x 2 = 8,192 -> a multiple of 1,024: 8,192; over 2 pipeline
 *   stages 2,048 -> 2,048 and 4,096;
 *  900 GB of weights: they do not fit.
 * The graphs a TensorRT-LLM engine keeps of [1, 2, 4, ..., 256, 384, 512, 1024]: up to min(384,
 * 2048) all to 384; up to 768, 512 and then 768 itself (1,024 would have padded to it); up to
 * min(768, 600 / 2) = 300 with a draft token, 256 and 300; up to 4,096, the whole list. */
START_TEST(trtllm_bench_settings)
{
  BenchEngine b = { .gpus = 8, .pp = 1, .gpu_memory = 100e9, .weights = 400e9, .kv_token = 258048,
                    .isl = 128, .osl = 4096, .kv_fraction = 0.95 };
  double batch, tokens;
  ck_assert(recipes_trtllm_bench_limits(&b, &batch, &tokens));
  ck_assert_double_eq(batch, 384); ck_assert_double_eq(tokens, 2048);
  b.isl = 2048, b.osl = 128;
  ck_assert(recipes_trtllm_bench_limits(&b, &batch, &tokens));
  ck_assert_double_eq(batch, 768); ck_assert_double_eq(tokens, 12288);
  b.isl = 128, b.osl = 4096, b.weights = 790e9;
  ck_assert(recipes_trtllm_bench_limits(&b, &batch, &tokens));
  ck_assert_double_eq(batch, 64); ck_assert_double_eq(tokens, 2048);
  b.isl = b.osl = 128, b.weights = 8e9;
  ck_assert(recipes_trtllm_bench_limits(&b, &batch, &tokens));
  ck_assert_double_eq(batch, 4096); ck_assert_double_eq(tokens, 8192);
  b.pp = 2;
  ck_assert(recipes_trtllm_bench_limits(&b, &batch, &tokens));
  ck_assert_double_eq(batch, 2048); ck_assert_double_eq(tokens, 4096);
  b.weights = 900e9;
  ck_assert(!recipes_trtllm_bench_limits(&b, &batch, &tokens));

  GraphBatches list = { .n = 12, .size = { 1, 2, 4, 8, 16, 32, 64, 128, 256, 384, 512, 1024 } }, g;
  recipes_trtllm_graphs(&list, 384, 2048, 0, &g);
  ck_assert_int_eq(g.n, 10); ck_assert_double_eq(g.size[9], 384);
  recipes_trtllm_graphs(&list, 768, 2048, 0, &g);
  ck_assert_int_eq(g.n, 12); ck_assert_double_eq(g.size[10], 512); ck_assert_double_eq(g.size[11], 768);
  recipes_trtllm_graphs(&list, 768, 600, 1, &g);
  ck_assert_int_eq(g.n, 10); ck_assert_double_eq(g.size[8], 256); ck_assert_double_eq(g.size[9], 300);
  recipes_trtllm_graphs(&list, 4096, 8192, 0, &g);
  ck_assert_int_eq(g.n, 12); ck_assert_double_eq(g.size[11], 1024);
}
END_TEST

/* The shipped recipes launch a trtllm-bench row as the perf overview ran it: Llama-3.1-405B FP8 on
 * 8 H200s (143,771 MiB each), 128 in, 4,096 out, 95% of the room: (8 x 143,771 x 2^20 - 405.9e9) x
 * 0.95 / (258,048 x 4,224) = 697.4 requests -> max_batch 768, max_num_tokens 2,048, graphs up to
 * 512 and then 768, which its engines run (the stack's own ladder where a recipe lists none). */
START_TEST(trtllm_bench_row_as_launched)
{
  g_autoptr(Catalog) c = shipped_catalog();
  g_autoptr(Recipes) rec = shipped_recipes();
  g_autofree char *text = g_strconcat(csv_text, "x,tb1,trtllm-bench,h200-sxm-hgx8,8,llama-3.1-405b,fp8,128,4096,,offline,"
                                                "agg,8,,,,,,,,,,,,,,trtllm,593,,,\n", NULL);
  g_autofree char *path = write_tmp(text);
  g_autoptr(GError) err = NULL;
  g_autoptr(GPtrArray) rows = validate_read(path, c, rec, &err);
  ck_assert_msg(rows, "%s", err ? err->message : "");
  const ValRow *r = rows->pdata[rows->len - 1];
  ck_assert_double_eq(r->load.max_batch, 768);
  ck_assert_double_eq(r->load.chunk, 2048);
  ck_assert_double_eq(r->decode.kv_fraction, 0.95);
  ck_assert_int_eq(r->graphs.n, 12);
  ck_assert_double_eq(r->graphs.size[10], 512);
  ck_assert_double_eq(r->graphs.size[11], 768);
  ck_assert_double_eq(r->offline_requests, 1500);
  const ValRow *inf = rows->pdata[0]; /* an InferenceX row: no list, its stack's ladder (test_model) */
  ck_assert_int_eq(inf->graphs.n, 0);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("validate");
  TCase *tc = tcase_create("validate");
  tcase_set_timeout(tc, 600);
  tcase_add_test(tc, rows_to_predictions);
  tcase_add_test(tc, fit_holds_keys);
  tcase_add_test(tc, missing_column);
  tcase_add_test(tc, inferencex_launch_settings);
  tcase_add_test(tc, bad_recipes);
  tcase_add_test(tc, graph_floor_batches);
  tcase_add_test(tc, pooled_headline_median);
  tcase_add_test(tc, mlperf_rules);
  tcase_add_test(tc, mlperf_dataset_file);
  tcase_add_test(tc, client_rules);
  tcase_add_test(tc, offline_runs_in_waves);
  tcase_add_test(tc, trtllm_bench_settings);
  tcase_add_test(tc, trtllm_bench_row_as_launched);
  tcase_add_test(tc, fit_recovers_known_profile);
  tcase_add_test(tc, fit_loss_nearly_absolute);
  tcase_add_test(tc, fit_carries_unmeasured_stack);
  tcase_add_test(tc, fit_ttft_one_way_above_half_load);
  tcase_add_test(tc, fit_multistart);
  tcase_add_test(tc, fit_select_des);
  tcase_add_test(tc, self_consistency);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
