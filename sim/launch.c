/* launch.c — a simulated point as the files that launch it (see launch.h).
 *
 * Option names are the stacks' own, as their documentation gives them for the release each file
 * names: TensorRT-LLM 1.0 (trtllm-serve, PyTorch backend, LLM-API YAML), SGLang 0.5
 * (sglang.launch_server server arguments), vLLM 0.10 (vllm serve engine arguments) and Dynamo 0.5
 * (dynamo.frontend and the dynamo.trtllm / dynamo.sglang / dynamo.vllm workers; the
 * nvidia.com/v1alpha1 DynamoGraphDeployment). */
#include "launch.h"
#include "keytable.h"
#include "predict.h"

#include <math.h>
#include <stdarg.h>
#include <string.h>

/* One engine kind as launched: an aggregated engine, or one pool of a disaggregated deployment. */
typedef struct {
  const char *role;       /* NULL (aggregated), "prefill" or "decode" */
  int workers, gpus, pp, stage, ep;
  gboolean adp;
  int max_batch;          /* per attention rank, as the scenario and TensorRT-LLM count it */
  int chunk;              /* prefill tokens per step; 0 = whole prompts */
  int max_num_tokens;     /* tokens in one step: the chunk, or the longest sequence unchunked */
  int nodes;              /* nodes one engine spans */
} Pool;

/* What every file of a point shares. */
typedef struct {
  const Point *pt;
  const ScenarioParams *p;
  Stack stack;
  Precision kv;
  double kv_fraction;
  KvPoolRule rule;
  int max_seq_len;
  int mtp, experts, slots;
  int graph_tokens;       /* vLLM: steps of up to this many tokens run as CUDA graphs (the profile's) */
  gboolean graphs, dynamo, disagg;
  /* the point was simulated with its block-scaled FP8 GEMMs in FlashInfer's kernels, DeepGEMM off
   * (engine_flashinfer_fp8: SGLang on Blackwell and later; these files never launch DeepEP): the
   * files switch them so */
  gboolean flashinfer_fp8;
  /* TensorRT-LLM serving a block-scaled FP8 checkpoint's experts on Blackwell or later, where its
   * MoE backend changes their tiles (engine_trtllm_gen_moe): the files name the backend the point
   * was simulated with (serving.moe_backend, per pool by its layout) */
  gboolean fp8_moe_backend;
  const char *model_path, *name, *image, *label;
  Pool agg, prefill, decode;
} Launch;

static const char *const stack_release[] = { "TensorRT-LLM 1.0 (PyTorch backend)", "SGLang 0.5", "vLLM 0.10" };
#define DYNAMO_RELEASE "Dynamo 0.5"

/* TEXT single-quoted for a POSIX shell: nothing inside is expanded or run. */
static void sh_q(GString *out, const char *text)
{
  g_string_append_c(out, '\'');
  for (const char *c = text; *c; c++)
    if (*c == '\'')
      g_string_append(out, "'\\''");
    else
      g_string_append_c(out, *c);
  g_string_append_c(out, '\'');
}

/* TEXT as one line of a comment (a line break would end it). */
static void comment_text(GString *out, const char *text)
{
  for (const char *c = text; *c; c++)
    g_string_append_c(out, (unsigned char)*c < 0x20 || *c == 0x7f ? ' ' : *c);
}

static int longest(const LengthSpec *l)
{
  return (int)ceil(l->dist == DIST_FIXED ? l->mean : l->max);
}

static void pool_from(const Launch *l, const EngineSpec *es, const char *role, Pool *out)
{
  *out = (Pool){ .role = role, .workers = es->workers, .gpus = es->tp * es->pp, .pp = es->pp, .stage = es->tp,
                 .ep = es->ep, .adp = es->attention_dp, .max_batch = es->max_batch, .chunk = es->chunked_prefill };
  /* unchunked, a step may hold a whole prompt: the stacks want room for the longest sequence */
  out->max_num_tokens = out->chunk > 0 ? out->chunk : l->max_seq_len;
  int per_node = l->pt->system.gpus_per_node > 0 ? l->pt->system.gpus_per_node : 8;
  out->nodes = (out->gpus + per_node - 1) / per_node;
}

/* The CUDA graph sizes POOL captures, SEP between them: the model's ladder for the stack
 * (engine_stack_graphs), so the engine launched pads its batches as the prediction did. */
static char *graph_sizes(const Launch *l, const Pool *pool, const char *sep)
{
  GraphBatches g;
  engine_stack_graphs(l->stack, l->mtp, pool->max_batch, &g);
  GString *out = g_string_new(NULL);
  for (int i = 0; i < g.n; i++)
    g_string_append_printf(out, "%s%d", i ? sep : "", (int)g.size[i]);
  return g_string_free(out, FALSE);
}

/* --- TensorRT-LLM ------------------------------------------------------------------------------- */

/* The LLM-API options of one pool (trtllm-serve --extra_llm_api_options, Dynamo --extra-engine-args). */
static char *trtllm_yaml(const Launch *l, const Pool *pool)
{
  GString *y = g_string_new(NULL);
  g_string_append_printf(y, "# %s: LLM-API options (trtllm-serve --extra_llm_api_options, Dynamo --extra-engine-args)\n"
                            "# written by aifsim launch for ", stack_release[STACK_TRTLLM]);
  comment_text(y, l->label);
  g_string_append_printf(y, "%s%s\n", pool->role ? ", " : "", pool->role ? pool->role : "");
  g_string_append_printf(y, "tensor_parallel_size: %d\npipeline_parallel_size: %d\n", pool->stage, pool->pp);
  if (l->experts > 0)
    g_string_append_printf(y, "moe_expert_parallel_size: %d\n", pool->ep);
  g_string_append_printf(y, "enable_attention_dp: %s\n", pool->adp ? "true" : "false");
  g_string_append_printf(y, "max_batch_size: %d\nmax_num_tokens: %d\nmax_seq_len: %d\n", pool->max_batch,
                         pool->max_num_tokens, l->max_seq_len);
  g_string_append_printf(y, "enable_chunked_prefill: %s\n", pool->chunk > 0 ? "true" : "false");
  if (l->graphs) {
    g_autofree char *sizes = graph_sizes(l, pool, ", ");
    g_string_append_printf(y, "cuda_graph_config:\n  enable_padding: true\n  batch_sizes: [%s]\n", sizes);
  } else
    g_string_append(y, "cuda_graph_config: null   # eager: every step's kernels launched by the host\n");
  g_string_append_printf(y, "kv_cache_config:\n  dtype: %s\n  free_gpu_memory_fraction: %.2f\n",
                         l->kv == PREC_FP8 ? "fp8" : l->kv == PREC_FP4 ? "nvfp4" : "auto", l->kv_fraction);
  if (l->mtp > 0)
    g_string_append_printf(y, "speculative_config:\n  decoding_type: MTP\n  num_nextn_predict_layers: %d\n", l->mtp);
  gboolean eplb = l->experts > 0 && pool->ep > 1 && l->slots > l->experts;
  if (l->fp8_moe_backend || eplb)
    g_string_append(y, "moe_config:\n");
  if (l->fp8_moe_backend) {
    gboolean gen = moe_backend_trtllm_gen(l->p->serving.moe_backend, pool->stage / pool->ep);
    g_string_append_printf(y, "  backend: %s\n", gen ? "TRTLLM   # trtllm-gen's experts: tiles of the tokens an expert gets"
                                                      : "DEEPGEMM   # DeepGEMM's experts: 128-token tiles");
  }
  if (eplb)
    g_string_append_printf(y, "  load_balancer:\n    num_slots: %d   # EPLB: %d redundant experts\n", l->slots,
                           l->slots - l->experts);
  if (pool->role) {
    g_string_append(y, "cache_transceiver_config:\n  backend: DEFAULT\n");
    if (strcmp(pool->role, "prefill") == 0)
      g_string_append(y, "disable_overlap_scheduler: true   # a prefill worker has no next step to overlap\n");
  }
  return g_string_free(y, FALSE);
}

/* --- SGLang and vLLM arguments ------------------------------------------------------------------ */

static void arg(GString *a, const char *name, const char *fmt, ...) G_GNUC_PRINTF(3, 4);
static void arg(GString *a, const char *name, const char *fmt, ...)
{
  g_string_append_printf(a, " \\\n    %s", name);
  if (fmt) {
    va_list ap;
    va_start(ap, fmt);
    g_autofree char *v = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_string_append_c(a, ' ');
    g_string_append(a, v);
  }
}

static void sglang_args(const Launch *l, const Pool *pool, GString *a)
{
  arg(a, "--tp-size", "%d", pool->stage);
  if (pool->pp > 1)
    arg(a, "--pp-size", "%d", pool->pp);
  if (l->experts > 0 && pool->ep > 1)
    arg(a, "--ep-size", "%d", pool->ep);
  if (pool->adp) {
    arg(a, "--enable-dp-attention", NULL);
    arg(a, "--dp-size", "%d", pool->stage);
  }
  /* SGLang counts running requests over the whole engine, not per attention rank */
  arg(a, "--max-running-requests", "%d", pool->max_batch * (pool->adp ? pool->stage : 1));
  arg(a, "--chunked-prefill-size", "%d", pool->chunk > 0 ? pool->chunk : -1);
  arg(a, "--context-length", "%d", l->max_seq_len);
  arg(a, "--kv-cache-dtype", "%s", l->kv == PREC_FP8 ? "fp8_e4m3" : l->kv == PREC_FP4 ? "fp4_e2m1" : "auto");
  arg(a, "--mem-fraction-static", "%.2f", l->kv_fraction);
  if (l->graphs) {
    g_autofree char *sizes = graph_sizes(l, pool, " ");
    arg(a, "--cuda-graph-bs", "%s", sizes);
  } else
    arg(a, "--disable-cuda-graph", NULL);
  if (l->mtp > 0) { /* SGLang runs DeepSeek's MTP heads as EAGLE drafts */
    arg(a, "--speculative-algorithm", "EAGLE");
    arg(a, "--speculative-num-steps", "%d", l->mtp);
    arg(a, "--speculative-eagle-topk", "1");
    arg(a, "--speculative-num-draft-tokens", "%d", l->mtp + 1);
  }
  if (l->experts > 0 && pool->ep > 1 && l->slots > l->experts) {
    arg(a, "--enable-eplb", NULL);
    arg(a, "--ep-num-redundant-experts", "%d", l->slots - l->experts);
  }
  if (pool->role) {
    arg(a, "--disaggregation-mode", "%s", pool->role);
    arg(a, "--disaggregation-transfer-backend", "nixl");
  }
  if (pool->nodes > 1) {
    arg(a, "--nnodes", "%d", pool->nodes);
    arg(a, "--node-rank", "\"${NODE_RANK:?set NODE_RANK to this node's rank, 0..%d}\"", pool->nodes - 1);
    arg(a, "--dist-init-addr", "\"${HEAD_ADDR:?set HEAD_ADDR to rank 0 host:port}\"");
  }
}

/* vLLM's capture sizes, in tokens, up to MAX: its default shape (1, 2, 4, multiples of 8 below 256,
 * of 16 from 256) ending at MAX. vLLM 0.10 captures only up to min(2 x max_num_seqs, 512) by
 * default; listing them makes it graph every step the model does (the profile's graph_max_tokens),
 * whatever the batch cap. No spaces: the manifest splits arguments on them. */
static char *vllm_graph_sizes(int max)
{
  GString *out = g_string_new(NULL);
  int last = 0;
  for (int b = 1; b <= max; b = b < 4 ? 2 * b : b < 256 ? b + 8 - b % 8 : b + 16) {
    g_string_append_printf(out, "%s%d", last ? "," : "", b);
    last = b;
  }
  if (last < max)
    g_string_append_printf(out, ",%d", max);
  return g_string_free(out, FALSE);
}

static void vllm_args(const Launch *l, const Pool *pool, GString *a)
{
  /* vLLM's attention data parallel is data-parallel ranks of TP 1; its expert parallel spans DP x TP */
  arg(a, "--tensor-parallel-size", "%d", pool->adp ? 1 : pool->stage);
  if (pool->pp > 1)
    arg(a, "--pipeline-parallel-size", "%d", pool->pp);
  if (pool->adp)
    arg(a, "--data-parallel-size", "%d", pool->stage);
  if (l->experts > 0 && pool->ep > 1)
    arg(a, "--enable-expert-parallel", NULL);
  arg(a, "--max-num-seqs", "%d", pool->max_batch);
  arg(a, "--max-num-batched-tokens", "%d", pool->max_num_tokens);
  arg(a, pool->chunk > 0 ? "--enable-chunked-prefill" : "--no-enable-chunked-prefill", NULL);
  arg(a, "--max-model-len", "%d", l->max_seq_len);
  arg(a, "--kv-cache-dtype", "%s", l->kv == PREC_BF16 ? "auto" : "fp8"); /* vLLM 0.10 has no FP4 KV cache */
  arg(a, "--gpu-memory-utilization", "%.2f", l->kv_fraction);
  if (!l->graphs)
    arg(a, "--enforce-eager", NULL);
  else if (l->graph_tokens > 0) { /* the steps the model runs as graphs: up to graph_max_tokens */
    g_autofree char *sizes = vllm_graph_sizes(l->graph_tokens);
    arg(a, "--compilation-config", "'{\"cudagraph_capture_sizes\":[%s]}'", sizes);
  }
  if (l->mtp > 0)
    arg(a, "--speculative-config", "'{\"method\":\"deepseek_mtp\",\"num_speculative_tokens\":%d}'", l->mtp);
  if (l->experts > 0 && pool->ep > 1 && l->slots > l->experts) {
    arg(a, "--enable-eplb", NULL);
    arg(a, "--num-redundant-experts", "%d", l->slots - l->experts);
  }
  if (pool->nodes > 1) /* across nodes vLLM runs its ranks on a Ray cluster */
    arg(a, pool->adp ? "--data-parallel-backend" : "--distributed-executor-backend", "ray");
  if (pool->role && strcmp(pool->role, "prefill") == 0 && l->dynamo)
    arg(a, "--is-prefill-worker", NULL);
}

/* --- Scripts ------------------------------------------------------------------------------------ */

/* The environment SGLang's FP8 kernels are chosen by where the point was simulated with FlashInfer's
 * (Launch.flashinfer_fp8): both names of DeepGEMM's switch (SGLang renamed it), FlashInfer's GEMMs on. */
static const char *const flashinfer_env[][2] = { { "SGLANG_ENABLE_JIT_DEEPGEMM", "false" },
                                                 { "SGL_ENABLE_JIT_DEEPGEMM", "false" },
                                                 { "SGLANG_ENABLE_FLASHINFER_GEMM", "true" } };

static void script_head(const Launch *l, GString *s, const char *what, const char *release)
{
  g_string_append_printf(s, "#!/bin/sh\n# %s, for %s. Written by aifsim launch for ", what, release);
  comment_text(s, l->label);
  g_string_append(s, ".\n# MODEL: the checkpoint to serve, in the precision the point was simulated at.\nset -eu\n"
                     "cd \"$(dirname \"$0\")\"\nMODEL=${MODEL:-");
  sh_q(s, l->model_path);
  g_string_append(s, "}\n");
  if (!l->flashinfer_fp8)
    return;
  g_string_append(s, "# block-scaled FP8 in FlashInfer's GEMMs, DeepGEMM off, as the point was simulated (and as\n"
                     "# SGLang's Blackwell launches run it: docs/model.md); the experts in its default trtllm-gen MoE\nexport");
  for (gsize i = 0; i < G_N_ELEMENTS(flashinfer_env); i++)
    g_string_append_printf(s, " %s=%s", flashinfer_env[i][0], flashinfer_env[i][1]);
  g_string_append_c(s, '\n');
}

/* How one engine of POOL starts on this node: the GPUs it takes, and a multi-node launcher note. */
static void engine_prefix(const Launch *l, const Pool *pool, GString *s)
{
  if (pool->nodes > 1 && l->stack == STACK_TRTLLM)
    g_string_append_printf(s, "# one engine spans %d nodes: run this under MPI, one rank per GPU, e.g.\n"
                              "#   srun -N %d --ntasks-per-node %d --mpi pmix sh THIS_SCRIPT\n"
                              "# (trtllm-llmapi-launch starts the ranks behind one server)\n",
                           pool->nodes, pool->nodes, pool->gpus / pool->nodes);
  else if (pool->nodes > 1 && l->stack == STACK_SGLANG)
    g_string_append_printf(s, "# one engine spans %d nodes: run this on each, with NODE_RANK and HEAD_ADDR set\n",
                           pool->nodes);
  else if (pool->nodes > 1)
    g_string_append_printf(s, "# one engine spans %d nodes: start a Ray cluster over them (ray start --head, then\n"
                              "# ray start --address on the others) and run this on the head node\n", pool->nodes);
}

static const char *launcher(const Launch *l, const Pool *pool)
{
  return pool->nodes > 1 && l->stack == STACK_TRTLLM ? "trtllm-llmapi-launch " : "";
}

static char *standalone_script(const Launch *l)
{
  const Pool *pool = &l->agg;
  GString *s = g_string_new(NULL);
  script_head(l, s, "One engine of the point", stack_release[l->stack]);
  engine_prefix(l, pool, s);
  if (pool->workers > 1)
    g_string_append_printf(s, "# the point runs %d such engines: start one per %d GPUs (ports 8000 up) and spread\n"
                              "# requests over them (round robin), or use the Dynamo launch of the same point\n",
                           pool->workers, pool->gpus);
  g_string_append(s, "PORT=${PORT:-8000}\n");
  if (l->stack == STACK_TRTLLM) {
    g_string_append_printf(s, "exec %strtllm-serve \"$MODEL\" --backend pytorch --host 0.0.0.0 --port \"$PORT\" \\\n"
                              "    --extra_llm_api_options extra-llm-api-config.yaml\n", launcher(l, pool));
  } else if (l->stack == STACK_SGLANG) {
    g_string_append(s, "exec python3 -m sglang.launch_server --model-path \"$MODEL\" --host 0.0.0.0 --port \"$PORT\"");
    sglang_args(l, pool, s);
    g_string_append_c(s, '\n');
  } else {
    g_string_append(s, "exec vllm serve \"$MODEL\" --host 0.0.0.0 --port \"$PORT\"");
    vllm_args(l, pool, s);
    g_string_append_c(s, '\n');
  }
  return g_string_free(s, FALSE);
}

static const char *const dynamo_module[] = { "dynamo.trtllm", "dynamo.sglang", "dynamo.vllm" };

static const char *router_mode(const Launch *l)
{
  /* Dynamo's frontend routes round-robin, random or KV-aware; its KV router scores workers by
   * prefix overlap and load, so without shared prefixes it is the load-aware choice (and the
   * nearest to a global queue, which it has no mode for) */
  return l->p->serving.router == ROUTER_ROUND_ROBIN ? "round-robin" : "kv";
}

/* The KV router's overlap weight when the point was simulated with another than Dynamo's default 1. */
static char *overlap_weight(const Launch *l)
{
  double w = l->p->serving.kv_overlap_weight;
  return l->p->serving.router == ROUTER_KV_AWARE && w != 1 ? g_strdup_printf("%g", w) : NULL;
}

/* A Dynamo worker's command line after the module, as argv words (shell-quoted where inputs reach). */
static void dynamo_worker_args(const Launch *l, const Pool *pool, GString *a, gboolean shell)
{
  if (l->stack == STACK_VLLM)
    g_string_append(a, shell ? " --model \"$MODEL\"" : "");
  else
    g_string_append(a, shell ? " --model-path \"$MODEL\"" : "");
  if (l->stack == STACK_TRTLLM) {
    arg(a, "--extra-engine-args", "%s.yaml", pool->role ? pool->role : "engine");
    if (pool->role) {
      arg(a, "--disaggregation-mode", "%s", pool->role);
      arg(a, "--disaggregation-strategy", "decode_first");
    }
  } else if (l->stack == STACK_SGLANG) {
    sglang_args(l, pool, a);
  } else {
    vllm_args(l, pool, a);
  }
}

static char *dynamo_script(const Launch *l)
{
  GString *s = g_string_new(NULL);
  g_autofree char *rel = g_strdup_printf("%s, %s workers", DYNAMO_RELEASE, stack_release[l->stack]);
  script_head(l, s, "The point on Dynamo: `sh dynamo-serve.sh frontend` once, then one worker per engine", rel);
  g_string_append(s, "# Needs etcd and NATS (ETCD_ENDPOINTS, NATS_SERVER), as every Dynamo deployment does.\n");
  const Pool *pools[2] = { l->disagg ? &l->prefill : &l->agg, l->disagg ? &l->decode : NULL };
  for (int i = 0; i < 2 && pools[i]; i++) {
    g_string_append_printf(s, "# %s: %d engine%s of %d GPUs%s\n", pools[i]->role ? pools[i]->role : "worker",
                           pools[i]->workers, pools[i]->workers == 1 ? "" : "s", pools[i]->gpus,
                           pools[i]->nodes > 1 ? " (spanning nodes)" : "");
    engine_prefix(l, pools[i], s);
  }
  g_autofree char *weight = overlap_weight(l);
  g_string_append_printf(s, "case \"${1:-}\" in\nfrontend)\n  exec python3 -m dynamo.frontend --http-port \"${PORT:-8000}\""
                            " --router-mode %s%s%s ;;\n", router_mode(l), weight ? " --kv-overlap-score-weight " : "",
                         weight ? weight : "");
  for (int i = 0; i < 2 && pools[i]; i++) {
    g_string_append_printf(s, "%s)\n  exec %spython3 -m %s", pools[i]->role ? pools[i]->role : "worker",
                           launcher(l, pools[i]), dynamo_module[l->stack]);
    dynamo_worker_args(l, pools[i], s, TRUE);
    g_string_append(s, " ;;\n");
  }
  g_string_append_printf(s, "*)\n  echo \"usage: $0 frontend|%s\" >&2; exit 2 ;;\nesac\n",
                         l->disagg ? "prefill|decode" : "worker");
  return g_string_free(s, FALSE);
}

/* --- Kubernetes --------------------------------------------------------------------------------- */

static void yaml_q(GString *out, const char *text)
{
  g_autofree char *q = kt_yaml_quote(text);
  /* a plain scalar could still read as a number or a boolean: quote every argument */
  if (q[0] != '"' && q[0] != '\'')
    g_string_append_printf(out, "\"%s\"", q);
  else
    g_string_append(out, q);
}

/* Splits the " \\\n    --name value" argument text into list items. */
static void yaml_args(GString *y, const char *args, const char *indent)
{
  g_auto(GStrv) words = g_strsplit_set(args, " \n\\", -1);
  for (char **w = words; *w; w++) {
    if (!**w)
      continue;
    g_autofree char *word = g_strdup(*w);
    if (word[0] == '\'' && word[strlen(word) - 1] == '\'' && strlen(word) > 1) { /* a quoted JSON value */
      word[strlen(word) - 1] = 0;
      memmove(word, word + 1, strlen(word));
    }
    g_string_append_printf(y, "%s- ", indent);
    yaml_q(y, word);
    g_string_append_c(y, '\n');
  }
}

static void k8s_service(const Launch *l, const Pool *pool, const char *name, GString *y)
{
  static const char *const kind[] = { "TRTLLM", "SGLang", "VLLM" };
  g_string_append_printf(y, "    %s%s:\n      dynamoNamespace: ", kind[l->stack], name);
  yaml_q(y, l->name);
  g_string_append_printf(y, "\n      componentType: worker\n");
  if (pool->role)
    g_string_append_printf(y, "      subComponentType: %s\n", pool->role);
  g_string_append_printf(y, "      replicas: %d\n", pool->workers);
  if (pool->nodes > 1)
    g_string_append_printf(y, "      multinode:\n        nodeCount: %d\n", pool->nodes);
  g_string_append_printf(y, "      resources:\n        limits:\n          gpu: \"%d\"\n", pool->gpus / pool->nodes);
  g_string_append(y, "      extraPodSpec:\n");
  if (l->stack == STACK_TRTLLM)
    g_string_append(y, "        volumes:\n          - name: engine-config\n            configMap:\n              name: ");
  if (l->stack == STACK_TRTLLM) {
    g_autofree char *cm = g_strconcat(l->name, "-engine", NULL);
    yaml_q(y, cm);
    g_string_append_c(y, '\n');
  }
  g_string_append(y, "        mainContainer:\n          image: ");
  yaml_q(y, l->image);
  g_string_append_c(y, '\n');
  if (l->flashinfer_fp8) { /* as script_head exports them */
    g_string_append(y, "          env:\n");
    for (gsize i = 0; i < G_N_ELEMENTS(flashinfer_env); i++)
      g_string_append_printf(y, "            - name: %s\n              value: \"%s\"\n", flashinfer_env[i][0],
                             flashinfer_env[i][1]);
  }
  if (l->stack == STACK_TRTLLM)
    g_string_append(y, "          workingDir: /config\n          volumeMounts:\n            - name: engine-config\n              mountPath: /config\n");
  g_string_append_printf(y, "          command: [\"python3\", \"-m\", \"%s\"]\n          args:\n", dynamo_module[l->stack]);
  g_string_append_printf(y, "            - \"%s\"\n            - ", l->stack == STACK_VLLM ? "--model" : "--model-path");
  yaml_q(y, l->model_path);
  g_string_append_c(y, '\n');
  g_autoptr(GString) a = g_string_new(NULL);
  dynamo_worker_args(l, pool, a, FALSE);
  g_autofree char *plain = g_strdup(a->str);
  if (pool->nodes > 1 && l->stack == STACK_SGLANG) { /* the operator sets the node rank and head address */
    char *cut = strstr(plain, " \\\n    --nnodes");
    if (cut)
      *cut = 0;
  }
  yaml_args(y, plain, "            ");
}

static char *k8s_manifest(const Launch *l, GHashTable *engine_files)
{
  GString *y = g_string_new(NULL);
  g_string_append_printf(y, "# %s: DynamoGraphDeployment (nvidia.com/v1alpha1) for %s workers.\n# Written by aifsim launch for ",
                         DYNAMO_RELEASE, stack_release[l->stack]);
  comment_text(y, l->label);
  g_string_append(y, ". kubectl apply -f this file in the namespace of the Dynamo platform.\n");
  if (l->stack == STACK_TRTLLM) {
    g_autofree char *cm = g_strconcat(l->name, "-engine", NULL);
    g_string_append(y, "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: ");
    yaml_q(y, cm);
    g_string_append(y, "\ndata:\n");
    g_autoptr(GList) keys = g_list_sort(g_hash_table_get_keys(engine_files), (GCompareFunc)strcmp);
    for (GList *k = keys; k; k = k->next) {
      g_string_append_printf(y, "  %s: |\n", (char *)k->data);
      g_auto(GStrv) lines = g_strsplit(g_hash_table_lookup(engine_files, k->data), "\n", -1);
      for (char **ln = lines; *ln; ln++)
        if (**ln)
          g_string_append_printf(y, "    %s\n", *ln);
    }
    g_string_append(y, "---\n");
  }
  g_string_append(y, "apiVersion: nvidia.com/v1alpha1\nkind: DynamoGraphDeployment\nmetadata:\n  name: ");
  yaml_q(y, l->name);
  g_string_append(y, "\nspec:\n  services:\n    Frontend:\n      dynamoNamespace: ");
  yaml_q(y, l->name);
  g_string_append(y, "\n      componentType: frontend\n      replicas: 1\n      extraPodSpec:\n        mainContainer:\n"
                     "          image: ");
  yaml_q(y, l->image);
  g_autofree char *weight = overlap_weight(l);
  g_string_append_printf(y, "\n          command: [\"python3\", \"-m\", \"dynamo.frontend\"]\n"
                            "          args: [\"--http-port\", \"8000\", \"--router-mode\", \"%s\"%s%s%s]\n", router_mode(l),
                         weight ? ", \"--kv-overlap-score-weight\", \"" : "", weight ? weight : "", weight ? "\"" : "");
  if (l->disagg) {
    k8s_service(l, &l->prefill, "PrefillWorker", y);
    k8s_service(l, &l->decode, "DecodeWorker", y);
  } else {
    k8s_service(l, &l->agg, "Worker", y);
  }
  return g_string_free(y, FALSE);
}

/* --- README ------------------------------------------------------------------------------------- */

static char *readme(const Launch *l, const ResultRow *row, GPtrArray *files)
{
  GString *r = g_string_new("# ");
  comment_text(r, l->label);
  g_string_append_printf(r, "\n\n%s serving %s on %s, as aifsim simulated it", framework_names[l->p->serving.framework],
                         l->pt->model.id, l->pt->system.id);
  if (row) { /* the figures the run gave; one it could not give (a percentile of the steady state) is left out */
    g_string_append_printf(r, " (point %" G_GSIZE_FORMAT ", %s)", row->point, outcome_names[row->status]);
    const struct { double v; const char *fmt; } fig[] = {
      { row->out_tok_s_per_gpu, "%.1f output tok/s per GPU" }, { row->tok_s_per_user, "%.1f tok/s per user" },
      { row->ttft_p50_ms, "p50 TTFT %.0f ms" }, { row->ttft_p90_ms, "p90 TTFT %.0f ms" },
      { row->tok_s_per_mw, "%.0f tok/s per MW" },
    };
    const char *sep = ": ";
    for (gsize i = 0; i < G_N_ELEMENTS(fig); i++) {
      if (!isfinite(fig[i].v))
        continue;
      g_string_append(r, sep);
      g_string_append_printf(r, fig[i].fmt, fig[i].v);
      sep = ", ";
    }
  }
  g_string_append_printf(r, ".\n\nWorkload: %d-token prompts, %d-token answers", longest(&l->p->workload.input),
                         longest(&l->p->workload.output));
  if (l->p->workload.arrival == ARRIVAL_CLOSED)
    g_string_append_printf(r, ", %d concurrent users", l->p->workload.users);
  g_string_append_printf(r, ". KV cache %s, its pool sized by the stack's rule at %.2f. %s Set MODEL to the %s checkpoint.\n\n"
                            "Files:\n\n", precision_names[l->kv], l->kv_fraction,
                         !l->graphs              ? "No CUDA graphs: every kernel launched by the host."
                         : l->stack == STACK_VLLM ? "Steps of up to the largest listed token count run as CUDA graphs, as simulated."
                                                  : "Decode steps run as CUDA graphs of the batch sizes the files list, a "
                                                    "batch padded to the next, as simulated.",
                         precision_names[l->p->serving.precision]);
  for (guint i = 0; i < files->len; i++) {
    const LaunchFile *f = files->pdata[i];
    g_string_append_printf(r, "- `%s`\n", f->name);
  }
  if (!l->dynamo)
    g_string_append_printf(r, "\nRun: `MODEL=/path/to/checkpoint sh %s-serve.sh` on the engine's node%s.\n",
                           l->stack == STACK_TRTLLM ? "trtllm" : l->stack == STACK_SGLANG ? "sglang" : "vllm",
                           l->agg.nodes > 1 ? "s (the script says how)" : "");
  else
    g_string_append_printf(r, "\nRun on Kubernetes: `kubectl apply -f dynamo-k8s.yaml` (Dynamo platform installed). On nodes:\n"
                              "`sh dynamo-serve.sh frontend` once, then `sh dynamo-serve.sh %s` per engine.\n",
                           l->disagg ? "prefill` or `... decode" : "worker");
  g_string_append(r, "\nThe option names follow each stack's documentation for the release its file names; check\n"
                     "them against the release you run.\n");
  return g_string_free(r, FALSE);
}

static void add(GPtrArray *files, const char *name, char *text, gboolean exec)
{
  LaunchFile *f = g_new0(LaunchFile, 1);
  f->name = g_strdup(name), f->text = text, f->executable = exec;
  g_ptr_array_add(files, f);
}

static void launch_file_free(gpointer p)
{
  LaunchFile *f = p;
  g_free(f->name);
  g_free(f->text);
  g_free(f);
}

void launch_files_free(GPtrArray *files)
{
  if (files)
    g_ptr_array_unref(files);
}

GPtrArray *launch_files(const Point *pt, const Profile *prof, const ResultRow *row, const LaunchOptions *opt)
{
  const ScenarioParams *p = &pt->p;
  g_autofree char *name = opt->name ? g_strdup(opt->name)
                                    : g_strdup_printf("aifsim-%s-p%" G_GSIZE_FORMAT, pt->system.id, pt->index);
  g_strdelimit(name, "._ ", '-'); /* a Kubernetes name: lower-case letters, digits and '-' */
  for (char *c = name; *c; c++)
    *c = g_ascii_isalnum(*c) ? g_ascii_tolower(*c) : '-';
  Launch l = { .pt = pt, .p = p, .stack = framework_stack(p->serving.framework),
               .disagg = p->serving.mode == MODE_DISAGGREGATED, .graphs = p->serving.cuda_graphs,
               .model_path = opt->model_path ? opt->model_path : pt->model.id, .name = name,
               .mtp = p->serving.spec_method == SPEC_MTP ? p->serving.spec_tokens : 0, .experts = pt->model.experts,
               .slots = p->serving.expert_slots, .label = row && row->config ? row->config : name };
  l.dynamo = l.disagg || framework_dynamo(p->serving.framework);
  Engine served = { .sys = &pt->system, .model = &pt->model, .precision = p->serving.precision, .stack = l.stack };
  l.flashinfer_fp8 = engine_flashinfer_fp8(&served);
  l.fp8_moe_backend = l.stack == STACK_TRTLLM && l.experts > 0 && engine_block_fp8_past_hopper(&served);
  static const char *const images[] = { "nvcr.io/nvidia/ai-dynamo/tensorrtllm-runtime:0.5.0",
                                        "nvcr.io/nvidia/ai-dynamo/sglang-runtime:0.5.0",
                                        "nvcr.io/nvidia/ai-dynamo/vllm-runtime:0.5.0" };
  l.image = opt->image ? opt->image : images[l.stack];
  l.kv = kv_precision_for(p->serving.kv_precision, p->serving.precision, prof, l.stack);
  const StackProfile *sp = &prof->stack[l.stack];
  l.graph_tokens = (int)MIN(sp->graph_max_tokens, 1 << 20);
  l.rule = sp->kv_pool;
  l.kv_fraction = sp->kv_memory_fraction > 0 ? sp->kv_memory_fraction
                  : sp->kv_pool == KV_POOL_STATIC ? 1 - prof->memory_reserve : 0.9;
  l.max_seq_len = longest(&p->workload.input) + longest(&p->workload.output) + l.mtp;
  pool_from(&l, &p->serving.agg, NULL, &l.agg);
  pool_from(&l, &p->serving.prefill, "prefill", &l.prefill);
  pool_from(&l, &p->serving.decode, "decode", &l.decode);
  GPtrArray *files = g_ptr_array_new_with_free_func(launch_file_free);
  g_autoptr(GHashTable) engine = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  if (l.stack == STACK_TRTLLM) {
    if (!l.dynamo) {
      add(files, "extra-llm-api-config.yaml", trtllm_yaml(&l, &l.agg), FALSE);
    } else if (l.disagg) {
      g_hash_table_insert(engine, g_strdup("prefill.yaml"), trtllm_yaml(&l, &l.prefill));
      g_hash_table_insert(engine, g_strdup("decode.yaml"), trtllm_yaml(&l, &l.decode));
    } else {
      g_hash_table_insert(engine, g_strdup("engine.yaml"), trtllm_yaml(&l, &l.agg));
    }
  }
  if (!l.dynamo) {
    static const char *const script[] = { "trtllm-serve.sh", "sglang-serve.sh", "vllm-serve.sh" };
    add(files, script[l.stack], standalone_script(&l), TRUE);
  } else {
    g_autoptr(GList) keys = g_list_sort(g_hash_table_get_keys(engine), (GCompareFunc)strcmp);
    for (GList *k = keys; k; k = k->next)
      add(files, k->data, g_strdup(g_hash_table_lookup(engine, k->data)), FALSE);
    add(files, "dynamo-serve.sh", dynamo_script(&l), TRUE);
    add(files, "dynamo-k8s.yaml", k8s_manifest(&l, engine), FALSE);
  }
  char *text = readme(&l, row, files);
  add(files, "README.md", text, FALSE);
  return files;
}
