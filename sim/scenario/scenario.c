/* scenario.c — scenario keys, loading, validation and sweep expansion (see scenario.h). */
#include "scenario.h"
#include "point_space.h"
#include "aif_error.h"
#include "input_file.h"
#include "precision.h"
#include "trace.h"

#include <glib/gstdio.h>
#include <math.h>
#include <unistd.h>
#include <string.h>

const char *const framework_names[] = { "trtllm", "sglang", "vllm", "dynamo-trt", "dynamo-sglang", "dynamo-vllm", NULL };
static const char *const dist_names[] = { "fixed", "uniform", "normal", "lognormal", "exponential", NULL };
const char *const arrival_names[] = { "closed", "poisson", "gamma", "trace", NULL };
const char *const mode_names[] = { "aggregated", "disaggregated", NULL };
static const char *const kvp_names[] = { "auto", "bf16", "fp8", "fp4", NULL };
const char *const router_names[] = { "round_robin", "least_loaded", "kv_aware", "queue", NULL };
static const char *const spec_names[] = { "none", "mtp", NULL };
static const char *const optics_names[] = { "pluggable", "cpo", NULL };
static const char *const fabric_names[] = { "infiniband", "ethernet", NULL };
static const char *const provisioning_names[] = { "nameplate", "component", "drawn", NULL };
static const char *const parallelism_names[] = { "manual", "auto", NULL };
static const char *const power_policy_names[] = { "none", "cap", "shed", NULL };
static const char *const moe_backend_names[] = { "auto", "deepgemm", "trtllm", NULL }; /* MoeBackend's order */
static const char *const engine_names[] = { "auto", "steady", "des", "simgrid", NULL };
static const char *const start_names[] = { "spread", "together", NULL };
static const char *const window_names[] = { "steady", "all", NULL };
const char *const percentile_names[] = { "p50", "p90", "p99", NULL };

#define O(f) offsetof(ScenarioParams, f)
#define GROUP(path, help) { path, KT_GROUP, 0, NULL, help, 0, NULL, 0, NULL, NULL, 0, 0 }
#define INT(path, f, def, help, fl) { path, KT_INT, 0, def, help, O(f), NULL, fl, NULL, NULL, 0, 0 }
#define NUM(path, f, dim, def, help, fl) { path, KT_NUMBER, dim, def, help, O(f), NULL, fl, NULL, NULL, 0, 0 }
/* keys bounded by a fixed maximum, or by an input limit its environment variable raises */
#define INT_MAX_(path, f, def, help, fl, max) { path, KT_INT, 0, def, help, O(f), NULL, fl, NULL, NULL, max, 0 }
#define INT_LIM(path, f, def, help, fl, lim) { path, KT_INT, 0, def, help, O(f), NULL, fl, NULL, NULL, 0, (lim) + 1 }
#define NUM_LIM(path, f, dim, def, help, fl, lim) { path, KT_NUMBER, dim, def, help, O(f), NULL, fl, NULL, NULL, 0, (lim) + 1 }
#define ENUM(path, f, names, def, help) { path, KT_ENUM, 0, def, help, O(f), names, 0, NULL, NULL, 0, 0 }
#define ENUMF(path, f, names, def, help, fl) { path, KT_ENUM, 0, def, help, O(f), names, fl, NULL, NULL, 0, 0 }
#define BOOL(path, f, def, help) { path, KT_BOOL, 0, def, help, O(f), NULL, 0, NULL, NULL, 0, 0 }
#define STR(path, f, def, help, fl) { path, KT_STRING, 0, def, help, O(f), NULL, fl, NULL, NULL, 0, 0 }
#define LENGTH(path, f, what)                                                                          \
  { path, KT_GROUP, 0, NULL, what " tokens per request (a number: fixed)", 0, NULL, 0, "mean", NULL, 0, 0 }, \
  ENUM(path ".dist", f.dist, dist_names, "fixed", "fixed, uniform (min..max), normal, lognormal, or exponential (of the mean: chat answers' lengths; one-sequence engines then serve as M/M/c servers)"),  \
  NUM_LIM(path ".mean", f.mean, DIM_NONE, "1024", "mean tokens", KT_POSITIVE, LIMIT_TOKENS),         \
  NUM_LIM(path ".stddev", f.stddev, DIM_NONE, "0", "standard deviation (normal)", KT_NONNEG, LIMIT_TOKENS), \
  NUM(path ".sigma", f.sigma, DIM_NONE, "0.5", "sigma of the underlying normal (lognormal)", KT_NONNEG), \
  NUM_LIM(path ".min", f.min, DIM_NONE, "1", "smallest length drawn", KT_POSITIVE, LIMIT_TOKENS),    \
  NUM_LIM(path ".max", f.max, DIM_NONE, "131072", "largest length drawn", KT_POSITIVE, LIMIT_TOKENS)
#define ENGINE(path, f, what, nworkers)                                                                  \
  GROUP(path, what),                                                                                    \
  /* GPUs per engine and engines per pool: far above any NVLink domain or deployment, and small     \
   * enough that their products (GPUs of a deployment) stay exact in an int */                        \
  INT_MAX_(path ".workers", f.workers, nworkers, "engines of this kind", KT_POSITIVE, 65536),           \
  INT_MAX_(path ".tp", f.tp, "1", "tensor-parallel GPUs per engine", KT_POSITIVE, 4096),                \
  INT_MAX_(path ".pp", f.pp, "1", "pipeline stages per engine", KT_POSITIVE, 4096),                     \
  INT_MAX_(path ".ep", f.ep, "1", "expert-parallel GPUs per engine", KT_POSITIVE, 4096),                \
  BOOL(path ".attention_dp", f.attention_dp, "false", "attention data-parallel across the engine's GPUs"), \
  INT(path ".max_batch", f.max_batch, "256", "most sequences in one engine step; with attention_dp, on each attention rank (TensorRT-LLM's max_batch_size, vLLM's max_num_seqs)", KT_POSITIVE), \
  INT(path ".chunked_prefill", f.chunked_prefill, "8192", "prefill tokens per step (0 = whole prompts)", KT_NONNEG)

static const KtKey keys[] = {
  STR("name", name, NULL, "scenario name (names the results folder)", KT_REQUIRED | KT_NOSWEEP),
  STR("description", description, NULL, "one line about the scenario", KT_NOSWEEP),
  INT("seed", seed, "1", "random seed: same scenario + seed = same results", KT_NONNEG),
  { "system", KT_GROUP, 0, NULL, "the system (catalog id, or id plus overridden figures)", 0, NULL, 0, "id", &hardware_table, 0, 0 },
  STR("system.id", system_id, NULL, "hardware catalog id (aifsim catalog systems)", KT_REQUIRED),
  { "model", KT_GROUP, 0, NULL, "the LLM (catalog id, or id plus overridden figures)", 0, NULL, 0, "id", &llm_table, 0, 0 },
  STR("model.id", model_id, NULL, "model catalog id (aifsim catalog models)", KT_REQUIRED),
  GROUP("workload", "requests and their arrival"),
  LENGTH("workload.input", workload.input, "input (prompt)"),
  LENGTH("workload.output", workload.output, "output (generated)"),
  STR("workload.trace", workload.trace, NULL, "CSV of arrival_s,input_tokens,output_tokens (replaces lengths; arrival: trace)", KT_NOSWEEP),
  STR("workload.mix", workload.mix, NULL, "request classes mixed in the demand, 'NAME SHARE INPUT OUTPUT [MAX_TTFT]; ...' (e.g. 'chat 60% 1024 400 2 s; reasoning 30% 2048 4000 10 s; long-context 10% 32768 300 30 s'): each request draws its class by share and its lengths from workload.input and output's distributions at the class's means; a class is held to its own TTFT limit at plan.percentile (else plan.max_ttft), the queue router serves the earliest deadline first, and the results give each class's figures (classes)", KT_NOSWEEP),
  GROUP("workload.arrival", "how requests arrive"),
  ENUM("workload.arrival.kind", workload.arrival, arrival_names, "closed", "closed (N users), poisson, gamma (bursty) or trace"),
  INT_LIM("workload.arrival.users", workload.users, "64", "closed loop: concurrent users", KT_POSITIVE, LIMIT_USERS),
  NUM("workload.arrival.rate", workload.rate, DIM_RATE, "1 req/s", "open loop: mean request rate", KT_POSITIVE),
  STR("workload.arrival.curve", workload.curve, NULL, "open loop: demand over time, the rate's multiplier in each period in turn, repeating (e.g. 24 hourly figures of a day: '0.3 0.2 0.2 0.3 0.5 0.8 1 1.2 ...'); arrivals follow it exactly (a Poisson process of that varying rate)", KT_NOSWEEP),
  NUM("workload.arrival.period", workload.curve_period, DIM_TIME, "1 h", "how long each figure of workload.arrival.curve holds", KT_POSITIVE),
  NUM("workload.arrival.burst_cv", workload.burst_cv, DIM_NONE, "2", "gamma: coefficient of variation of gaps (1 = Poisson)", KT_POSITIVE),
  ENUM("workload.arrival.start", workload.start, start_names, "spread", "closed loop: users start spread over one request, or together at 0 (a benchmark client)"),
  NUM("workload.arrival.think_time", workload.think_time, DIM_TIME, "0 s", "closed loop: pause between a reply and the next request", KT_NONNEG),
  INT_LIM("workload.requests", workload.requests, "1000", "requests to simulate (a closed loop over a steady window with no warm-up: at least three a user)", KT_POSITIVE, LIMIT_REQUESTS),
  NUM("workload.duration", workload.duration, DIM_TIME, "0 s", "simulated time limit (0 = until the requests are done)", KT_NONNEG),
  NUM("workload.warmup", workload.warmup, DIM_TIME, "0 s", "start of the measurement window: throughput counts every request completed after it, the latencies only those that also arrived after it", KT_NONNEG),
  ENUM("workload.window", workload.window, window_names, "steady", "steady (after the warm-up, else the first tenth of the requests; a closed loop's after as many as its users, its first cycle) or all (every request, as a benchmark client reports)"),
  GROUP("workload.shift", "a change of workload during the run (e.g. chat, then long-context research)"),
  NUM("workload.shift.at", workload.shift_at, DIM_TIME, "0 s", "when new requests change their lengths (0 = never)", KT_NONNEG),
  NUM_LIM("workload.shift.input", workload.shift_input, DIM_NONE, "0", "mean prompt tokens from then on (0 = unchanged)", KT_NONNEG, LIMIT_TOKENS),
  NUM_LIM("workload.shift.output", workload.shift_output, DIM_NONE, "0", "mean output tokens from then on (0 = unchanged)", KT_NONNEG, LIMIT_TOKENS),
  GROUP("workload.sessions", "multi-turn conversations and agent loops: each prompt resends the session so far"),
  INT_MAX_("workload.sessions.turns", workload.turns, "1", "turns per session (closed loop): turn k's prompt is the earlier turns' prompts and answers plus its new input (workload.input); think_time between turns", KT_POSITIVE, 4096),
  GROUP("workload.shared_prefix", "a prefix every prompt opens with: a system prompt, tools, a shared document"),
  NUM_LIM("workload.shared_prefix.tokens", workload.shared_prefix, DIM_NONE, "0", "tokens of the shared prefix (0: none)", KT_NONNEG, LIMIT_TOKENS),
  INT_MAX_("workload.shared_prefix.groups", workload.prefix_groups, "1", "distinct prefixes, each session (or request) drawing one at random", KT_POSITIVE, 1 << 20),
  GROUP("serving", "how the model is served"),
  ENUM("serving.framework", serving.framework, framework_names, "trtllm", "serving stack: its efficiencies come from the profile"),
  ENUM("serving.precision", serving.precision, precision_names, "fp8", "weight and GEMM precision"),
  INT_MAX_("serving.expert_slots", serving.expert_slots, "0", "EPLB, for engines with EP > 1: expert slots per MoE layer over the EP GPUs, placed by measured load, the slots beyond the model's experts holding copies of hot experts (0 = off; e.g. 288 for DeepSeek-R1's 256, as TensorRT-LLM's wide-EP recipes run)", KT_NONNEG, 1 << 20),
  ENUM("serving.moe_backend", serving.moe_backend, moe_backend_names, "auto", "TensorRT-LLM's MoE backend for a block-scaled FP8 checkpoint's experts (DeepSeek-R1's) on Blackwell and later: deepgemm (DeepGEMM's fixed 128-token tiles), trtllm (trtllm-gen's, whose tile follows the tokens an expert gets, 8 to 128), or auto: as NVIDIA's launches pick it, trtllm where the experts are sliced over TP (EP 1 on several GPUs), deepgemm where EP spreads them whole; `aifsim launch` writes it (moe_config.backend)"),
  BOOL("serving.cuda_graphs", serving.cuda_graphs, "true", "steps run as CUDA graphs where the stack captures them, padded to its capture sizes (docs/model.md; false: every kernel launched by the host, as --enforce-eager)"),
  BOOL("serving.weight_only", serving.weight_only, "true", "a precision the GPU has no tensor cores for (FP4 on Hopper): true = weights kept in it and widened to BF16 in the GEMMs (W4A16, as MXFP4 is served on Hopper); false = such points are infeasible"),
  ENUM("serving.kv_cache_precision", serving.kv_precision, kvp_names, "auto", "KV-cache precision (auto: the stack's default from the profile; bf16 when serving bf16)"),
  ENUM("serving.mode", serving.mode, mode_names, "aggregated", "aggregated or disaggregated prefill/decode"),
  ENUM("serving.engine", serving.engine, engine_names, "auto", "des (the event simulation), steady (the steady-state model: a fast screen), simgrid (the event simulation with SimGrid moving the KV caches: the reference network); auto: des"),
  { "serving.parallelism", KT_ENUM, 0, "manual", "manual, or auto: every TP x EP x attention-DP the systems and models allow (aggregated engines, or the decode pool)", O(serving.parallelism), parallelism_names, KT_NOSWEEP, NULL, NULL, 0, 0 },
  ENUM("serving.router", serving.router, router_names, "least_loaded", "how a request picks an engine (aggregated, or a prefill engine): round_robin, least_loaded, kv_aware (the most of its prompt cached, less the load, as Dynamo's KV router scores), or queue (requests wait at the router in arrival order until an engine has a free batch slot and KV room, then go to the least loaded such engine: a global queue, as a router with admission control holds them)"),
  NUM("serving.kv_overlap_weight", serving.kv_overlap_weight, DIM_NONE, "1", "kv_aware routing: weight of the prompt tokens left to compute against the engine's load (Dynamo's kv-overlap-score-weight; higher: more reuse, less balance)", KT_NONNEG),
  ENGINE("serving.aggregated", serving.agg, "aggregated engines (prefill and decode together)", "1"),
  GROUP("serving.disaggregated", "separate prefill and decode pools"),
  ENGINE("serving.disaggregated.prefill", serving.prefill, "the prefill pool", "1"),
  ENGINE("serving.disaggregated.decode", serving.decode, "the decode pool", "1"),
  GROUP("serving.disaggregated.planner", "moves engines between the prefill and decode pools (Dynamo-style)"),
  BOOL("serving.disaggregated.planner.enabled", serving.planner, "false", "on: rebalance the pools as queues build (event simulation; pools of equal engines)"),
  NUM("serving.disaggregated.planner.interval", serving.plan_interval, DIM_TIME, "5 s", "how often the planner looks at the queues", KT_POSITIVE),
  NUM("serving.disaggregated.planner.reconfigure_time", serving.plan_reconfigure, DIM_TIME, "20 s", "an engine's time out of service while it changes pool", KT_NONNEG),
  NUM("serving.disaggregated.planner.threshold", serving.plan_threshold, DIM_NONE, "4", "requests queued per engine that trigger a move", KT_POSITIVE),
  GROUP("serving.prefix_cache", "KV blocks kept after a request for later prompts with the same prefix (the stacks' prefix caching)"),
  BOOL("serving.prefix_cache.enabled", serving.prefix_cache, "true", "keep finished requests' KV in the engines' free KV room, evicting the least recently used (matters with sessions or a shared prefix)"),
  INT_MAX_("serving.prefix_cache.block", serving.cache_block, "32", "tokens per KV block: a hit counts whole blocks (TensorRT-LLM tokens_per_block 32, vLLM 16, SGLang 1)", KT_POSITIVE, 4096),
  NUM("serving.prefix_cache.host", serving.cache_host, DIM_FRACTION, "0", "share of the nodes' CPU memory the KV offload may fill (0: no host tier); what leaves HBM goes there, a hit there is reloaded over the host link (NVLink-C2C on Grace and Vera, PCIe on x86) or recomputed, whichever is sooner", 0),
  NUM("serving.prefix_cache.storage", serving.cache_storage, DIM_FRACTION, "0", "share of the nodes' local NVMe the KV offload may fill below the host tier (0: none)", 0),
  NUM("serving.prefix_cache.remote", serving.cache_remote, DIM_BYTES, "0 B", "room per GPU in a remote KV store reached over the scale-out NICs (LMCache, Dynamo's remote tier) below the local tiers (0: none); reloads share the NIC's bandwidth over the fabric's oversubscription", KT_NONNEG),
  NUM("serving.prefix_cache.hit_rate", serving.cache_hit_rate, DIM_FRACTION, "0", "the steady state's share of prompt tokens found cached (0: what the workload's sessions and shared prefix would reuse; the event simulation measures it)", 0),
  GROUP("serving.green_context", "Green Contexts: prefill and decode as two streams on partitioned SMs"),
  NUM("serving.green_context.prefill_sms", serving.green_prefill_sms, DIM_FRACTION, "0", "SM share of the prefill stream on each GPU (0: off; e.g. 30%); event simulation, aggregated", 0),
  GROUP("serving.speculative", "speculative decoding"),
  ENUM("serving.speculative.method", serving.spec_method, spec_names, "none", "none or mtp (multi-token prediction)"),
  /* every drafted token is drawn each step: no stack drafts more than a few */
  INT_MAX_("serving.speculative.draft_tokens", serving.spec_tokens, "1", "tokens drafted per step", KT_POSITIVE, 64),
  NUM("serving.speculative.acceptance", serving.spec_acceptance, DIM_FRACTION, "0.7", "probability a drafted token is accepted", 0),
  STR("serving.profile", serving.profile, NULL, "calibration profile YAML (default: the shipped defaults)", 0),
  GROUP("factory", "the facility around the GPUs"),
  NUM("factory.power_budget", factory.power_budget, DIM_POWER, "100 MW", "facility power budget", KT_POSITIVE),
  NUM("factory.pue", factory.pue, DIM_NONE, "0", "power usage effectiveness (0 = the system's default)", KT_NONNEG),
  NUM("factory.energy_price", factory.energy_price, DIM_ENERGY_PRICE, "0.08 USD/kWh", "price of facility energy", KT_NONNEG),
  NUM("factory.amortisation", factory.amortisation, DIM_TIME, "4 y", "capital amortisation period", KT_POSITIVE),
  INT("factory.gpus", factory.factory_gpus, "0", "GPUs in the factory (0 = as many as the power budget allows)", KT_NONNEG),
  NUM("factory.other_it_fraction", factory.other_it_fraction, DIM_FRACTION, "10%", "IT outside the GPU racks (storage, front-end, management), share of theirs", 0),
  ENUM("factory.provisioning", factory.provisioning, provisioning_names, "nameplate", "power provisioned per GPU: the system nameplate, the component model at TDP (both at the power cap when one is set), or drawn: what the operating point draws (power oversubscription: more racks in the budget)"),
  NUM("factory.gpu_power_cap", factory.gpu_power_cap, DIM_POWER, "0 W", "GPU power limit (0 = TDP); lowers the tensor-core clock, and the power each GPU is provisioned for", KT_NONNEG),
  NUM("factory.rack_power_cap", factory.rack_power_cap, DIM_POWER, "0 W", "IT power limit per rack at the wall (0 = none): what is left after the CPUs, NICs, switches and supplies is each GPU's cap (the lower of it and gpu_power_cap)", KT_NONNEG),
  GROUP("factory.fabric", "the scale-out network"),
  ENUM("factory.fabric.kind", factory.fabric_kind, fabric_names, "infiniband", "infiniband or ethernet"),
  /* a fat tree of 8 tiers of radix-64 switches already joins 2^43 endpoints */
  INT_MAX_("factory.fabric.tiers", factory.fabric_tiers, "0", "switch tiers (0 = the fewest that serve the GPUs)", KT_NONNEG, 8),
  INT("factory.fabric.switch_radix", factory.switch_radix, "64", "ports per switch", KT_POSITIVE),
  NUM("factory.fabric.oversubscription", factory.oversubscription, DIM_NONE, "1", "leaf-to-spine oversubscription: cross-rack KV transfers share the NICs' bandwidth over it (event simulation)", KT_POSITIVE),
  ENUM("factory.fabric.optics", factory.optics, optics_names, "pluggable", "pluggable transceivers or co-packaged optics"),
  BOOL("factory.fabric.copper_first_tier", factory.copper_first_tier, "false", "GPU-to-leaf links in copper (no optics)"),
  NUM("factory.fabric.transceiver_power", factory.transceiver_power, DIM_POWER, "30 W", "per pluggable transceiver (GTC 2025 keynote)", KT_NONNEG),
  NUM("factory.fabric.transceiver_cost", factory.transceiver_cost, DIM_MONEY, "1000 USD", "per pluggable transceiver (GTC 2025 keynote)", KT_NONNEG),
  NUM("factory.fabric.cpo_port_power", factory.cpo_port_power, DIM_POWER, "9 W", "per co-packaged optical port (NVIDIA, Hot Chips 2025)", KT_NONNEG),
  NUM("factory.fabric.switch_port_power", factory.switch_port_power, DIM_POWER, "14 W", "per switch port without optics (51.2T box 900 W / 64 ports, SemiAnalysis)", KT_NONNEG),
  GROUP("factory.floor", "the floor simulated as a whole (event simulation): the point's deployment copied onto every GPU the factory holds, the workload as the floor's demand"),
  BOOL("factory.floor.simulate", factory.floor, "false", "on: the point's deployment fills the factory (factory.gpus, or the racks the power budget provisions) and one router spreads the workload over all of it: workload.arrival.rate (or users) is the whole floor's demand, and the run lasts workload.duration (else workload.requests of the floor's); run writes the floor's time series and day chart per point (series/)"),
  INT("factory.floor.sample_engines", factory.sample_engines, "64", "the fast path: engines simulated in full, whole deployments of the point, with their share of the demand (the router's share: the rest serve alike); 0 = every engine of the floor", KT_NONNEG),
  NUM("factory.floor.series_interval", factory.series_interval, DIM_TIME, "1 min", "a row of the floor's time series per interval (offered and served load, in flight, TTFT, tok/s, drawn power); 0 = none", KT_NONNEG),
  GROUP("factory.envelope", "the facility's power envelope (factory.power_budget) held as the load draws it (event simulation): what the floor draws is looked at every period, and above the envelope the GPUs are capped or requests turned away; it binds where more racks are installed than the budget powers at full load (factory.gpus, or provisioning: drawn)"),
  ENUM("factory.envelope.policy", factory.power_policy, power_policy_names, "none", "none (the envelope is not enforced: drawn power is reported), cap (a power cap on every GPU, lowered while the facility draws more than the envelope and raised again below it: compute-bound steps slow) or shed (requests turned away in the share that brings the draw under it)"),
  NUM("factory.envelope.period", factory.power_period, DIM_TIME, "1 s", "how often the controller looks at the facility's draw (data-centre power capping reacts in seconds)", KT_POSITIVE),
  GROUP("factory.autoscale", "the autoscaler (event simulation, aggregated engines): engines the load does not need are parked at idle power and woken as it grows, paying the time to load their weights"),
  BOOL("factory.autoscale.enabled", factory.autoscale, "false", "on: every interval, keep as many engines serving as the requests in the system need at the target share of their batch slots (at least min_engines); park the rest once they empty, least loaded first"),
  NUM("factory.autoscale.interval", factory.autoscale_interval, DIM_TIME, "1 min", "how often the autoscaler looks (its reaction time)", KT_POSITIVE),
  NUM("factory.autoscale.target", factory.autoscale_target, DIM_FRACTION, "70%", "share of a serving engine's batch slots the autoscaler fills before it wakes another", KT_POSITIVE),
  NUM("factory.autoscale.start_time", factory.autoscale_start, DIM_TIME, "2 min", "a parked engine's time to serve again: its weights loaded from the node's storage, CUDA graphs captured (an estimate)", KT_NONNEG),
  INT("factory.autoscale.min_engines", factory.autoscale_min, "1", "engines that always serve (of the simulated part, on a floor)", KT_POSITIVE),
  GROUP("factory.failures", "GPU and node failures (event simulation): an engine stops when a GPU or a node of it fails, its requests are sent again elsewhere (or lost) and its KV cache is gone, until it is repaired; the router and the planner skip it meanwhile. Defaults: Meta's Llama 3 405B run (16,384 H100s, 54 days, 419 unexpected interruptions)"),
  BOOL("factory.failures.enabled", factory.failures, "false", "on: draw failures for every engine"),
  NUM("factory.failures.gpu_mtbf", factory.gpu_mtbf, DIM_TIME, "86000 h", "mean time between failures of one GPU: GPU, HBM, SRAM, NVLink (Llama 3: 246 of the 419 interruptions in 21.2 M GPU-hours)", KT_POSITIVE),
  NUM("factory.failures.node_mtbf", factory.node_mtbf, DIM_TIME, "15000 h", "mean time between failures of one node apart from its GPUs: host, NIC, cables and switches, software (Llama 3: the other 173 in 2.65 M node-hours)", KT_POSITIVE),
  NUM("factory.failures.switch_tray_mtbf", factory.tray_mtbf, DIM_TIME, "76000 h", "mean time between failures of one NVLink switch tray (rack-scale domains, e.g. NVL72's nine): the domain runs on, its GPUs' NVLink bandwidth down by the tray's share until it is repaired (an estimate: Llama 3's 35 switch and cable interruptions, one per 607,000 GPU-hours of fabric, over the 8 GPUs' worth of links a tray of nine carries)", KT_POSITIVE),
  NUM("factory.failures.repair_time", factory.repair_time, DIM_TIME, "1 h", "an engine's time out of service after a failure, to serving again with its weights loaded (an estimate: a spare node swapped in by automation)", KT_NONNEG),
  BOOL("factory.failures.retry", factory.retry, "true", "requests on a failed engine are sent again (their latency counts from their first arrival); false: lost"),
  GROUP("factory.maintenance", "planned maintenance (event simulation): every engine in turn is drained (it takes no new work and finishes what it holds), then out of service for the duration (driver and firmware updates, node swaps), its turns staggered evenly over the engines so that a steady share is out at any time"),
  NUM("factory.maintenance.interval", factory.maint_interval, DIM_TIME, "0 s", "time between one engine's maintenances (0: none; e.g. 30 d for monthly updates)", KT_NONNEG),
  NUM("factory.maintenance.duration", factory.maint_duration, DIM_TIME, "2 h", "an engine's time out of service once drained (an estimate: a reboot into new firmware and drivers, the weights loaded again)", KT_POSITIVE),
  NUM("share", share, DIM_FRACTION, "0", "on a floor of several deployments (factory.floor.simulate with deployments): this deployment's share of the floor's GPUs at the start (0: an equal part of what the others' shares leave); the autoscaler, when on, moves GPUs between the deployments as their demand changes", 0),
  STR("deployments", deployments, NULL, "further deployments on the same floor (factory.floor.simulate), a list of up to 7 mappings, each the keys that differ from the point's: model (id and figures), serving, workload (its own demand: rate, curve, mix), plan (its own SLO) and share; single values only. Each serves its own demand on its share of the floor's GPUs; with factory.autoscale on, engines parked by one deployment's autoscaler go (their GPUs, whole engines at a time) to the deployment furthest short of engines, which loads its weights first (autoscale.start_time). The results' row is the floor's (its tokens, power, tok/s per MW), its latency columns the point's deployment's, and the deployments column gives each one's figures", KT_NOSWEEP),
  GROUP("plan", "what `aifsim plan` optimises for"),
  NUM("plan.min_tok_s_per_user", plan.min_tok_s_per_user, DIM_NONE, "0", "slowest acceptable output tokens/s per user (one for the scenario)", KT_NONNEG | KT_NOSWEEP),
  NUM("plan.max_ttft", plan.max_ttft, DIM_TIME, "0 s", "longest acceptable TTFT at plan.percentile (0 = no limit; one for the scenario)", KT_NONNEG | KT_NOSWEEP),
  NUM("plan.max_tpot", plan.max_tpot, DIM_TIME, "0 s", "longest acceptable TPOT at plan.percentile (0 = no limit; one for the scenario)", KT_NONNEG | KT_NOSWEEP),
  ENUMF("plan.percentile", plan.percentile, percentile_names, "p50", "the percentile the TTFT and TPOT limits hold at: p50, p90 or p99 (one for the scenario)", KT_NOSWEEP),
  { "plan.max_lost_share", KT_NUMBER, DIM_FRACTION, "0", "largest acceptable share of the requests lost with failed engines (factory.failures without retry; event simulation), e.g. 0.1%; 0 = no limit of its own (a TTFT or TPOT limit lets miss only what its percentile does: 10% at p90); one for the scenario", O(plan.max_lost_share), NULL, KT_NONNEG | KT_NOSWEEP, NULL, NULL, 1, 0 },
};

const KtTable scenario_table = { "scenario", keys, G_N_ELEMENTS(keys) };

static void axis_free(gpointer p)
{
  Axis *a = p;
  g_free(a->group);
  g_array_unref(a->values);
  g_free(a);
}

void scenario_free(Scenario *s)
{
  if (!s)
    return;
  g_ptr_array_unref(s->axes);
  if (s->deployments)
    g_ptr_array_unref(s->deployments);
  point_space_free(s->space);
  yaml_doc_free(s->doc);
  g_free(s->dir);
  g_free(s);
}

typedef struct {
  Scenario *s;
  const Catalog *catalog;
} LoadCtx;

static int node_index(YamlDoc *d, yaml_node_t *n) { return (int)(n - d->doc.nodes.start) + 1; }

static yaml_node_t *axis_value(const Scenario *s, const Axis *a, guint i)
{
  return yaml_doc_get(s->doc, g_array_index(a->values, int, i));
}

static const Axis *find_axis(const Scenario *s, const char *path)
{
  for (guint i = 0; i < s->axes->len; i++) {
    const Axis *a = s->axes->pdata[i];
    if (a->table == &scenario_table && strcmp(a->key->path, path) == 0)
      return a;
  }
  return NULL;
}

gboolean scenario_sweeps(const Scenario *s, const char *path)
{
  const Axis *a = find_axis(s, path);
  return a && (a->values->len > 1 || a->range);
}


/* A catalog id must exist: checked at the node so the error points at it. */
static gboolean check_catalog_id(const LoadCtx *ctx, const KtKey *key, YamlDoc *d, yaml_node_t *node,
                                 GError **error)
{
  const char *id = yaml_doc_scalar(node);
  gboolean sys = strcmp(key->path, "system.id") == 0;
  if (sys ? catalog_system(ctx->catalog, id) != NULL : catalog_model(ctx->catalog, id) != NULL)
    return TRUE;
  g_autoptr(GPtrArray) ids = sys ? catalog_system_ids(ctx->catalog) : catalog_model_ids(ctx->catalog);
  const char *near = kt_closest(id, (const char *const *)ids->pdata);
  g_autofree char *all = g_strjoinv(", ", (char **)ids->pdata);
  if (near)
    yaml_doc_error(d, node, error, "unknown %s '%s' (did you mean '%s'?)", sys ? "system" : "model", id, near);
  else
    yaml_doc_error(d, node, error, "unknown %s '%s' (known: %s)", sys ? "system" : "model", id, all);
  return FALSE;
}

/* A path value as a file: relative paths in a scenario are relative to the scenario file. */
static char *value_path(const LoadCtx *ctx, yaml_node_t *node)
{
  const char *p = yaml_doc_scalar(node);
  return g_path_is_absolute(p) ? g_strdup(p) : g_build_filename(ctx->s->dir, p, NULL);
}

/* The file a path value names must be readable. */
static gboolean check_path(const LoadCtx *ctx, const KtKey *key, YamlDoc *d, yaml_node_t *node, GError **error)
{
  g_autofree char *full = value_path(ctx, node);
  if (g_file_test(full, G_FILE_TEST_IS_REGULAR) && g_access(full, R_OK) == 0)
    return TRUE;
  yaml_doc_error(d, node, error, "'%s': cannot read file '%s'", key->path, full);
  return FALSE;
}

/* A trace is read at load, so a bad one stops the run before any point (its own file:line:col
 * follows the scenario's). */
static gboolean check_trace(const LoadCtx *ctx, YamlDoc *d, yaml_node_t *node, GError **error)
{
  g_autofree char *full = value_path(ctx, node);
  g_autoptr(GError) err = NULL;
  g_autoptr(GArray) rows = trace_read(full, &err);
  if (!rows)
    yaml_doc_error(d, node, error, "'workload.trace': %s", err->message);
  return rows != NULL;
}

GArray *scenario_curve_parse(const char *text, char **why)
{
  g_autoptr(GArray) curve = g_array_new(FALSE, FALSE, sizeof(double));
  g_auto(GStrv) words = g_strsplit_set(text ? text : "", " ,\t\n", -1);
  double sum = 0;
  for (char **w = words; *w; w++) {
    if (!**w)
      continue;
    char *end = NULL;
    double v = g_ascii_strtod(*w, &end);
    if (*end || !isfinite(v) || v < 0 || v > 1e6) {
      *why = g_strdup_printf("expected multipliers >= 0 (and at most 1e6) separated by spaces, got '%s'", *w);
      return NULL;
    }
    if (curve->len >= 100000) {
      *why = g_strdup("more than 100,000 periods");
      return NULL;
    }
    g_array_append_val(curve, v);
    sum += v;
  }
  if (curve->len == 0 || sum <= 0) {
    *why = g_strdup("expected at least one multiplier above 0");
    return NULL;
  }
  return g_steal_pointer(&curve);
}

/* One class of workload.mix: NAME SHARE INPUT OUTPUT [MAX_TTFT], the words of TEXT. */
static gboolean mix_class(char **w, int n, MixClass *c, char **why)
{
  if (n < 4) {
    *why = g_strdup_printf("expected 'NAME SHARE INPUT OUTPUT [MAX_TTFT]', got %d word%s", n, n == 1 ? "" : "s");
    return FALSE;
  }
  gsize len = strlen(w[0]);
  gboolean name_ok = len > 0 && len < sizeof c->name;
  for (const char *p = w[0]; name_ok && *p; p++)
    name_ok = g_ascii_isalnum(*p) || *p == '-' || *p == '_';
  if (!name_ok) {
    *why = g_strdup_printf("a class name of letters, digits, '-' and '_' (at most 31), got '%s'", w[0]);
    return FALSE;
  }
  g_strlcpy(c->name, w[0], sizeof c->name);
  const char *bad = NULL;
  double tokens_max = (double)input_limit(LIMIT_TOKENS);
  if (!units_parse(w[1], DIM_FRACTION, &c->share, &bad) || !(c->share > 0) || c->share > 1) {
    *why = g_strdup_printf("class '%s': a share above 0 and at most 1 (e.g. 0.3 or 30%%), got '%s'", c->name, w[1]);
    return FALSE;
  }
  for (int k = 0; k < 2; k++) {
    char *end = NULL;
    double v = g_ascii_strtod(w[2 + k], &end);
    if (*end || !(v >= 1) || v > tokens_max) {
      *why = g_strdup_printf("class '%s': %s tokens from 1 to %.0f, got '%s'", c->name, k ? "output" : "input",
                             tokens_max, w[2 + k]);
      return FALSE;
    }
    *(k ? &c->output : &c->input) = v;
  }
  c->max_ttft = 0;
  if (n > 4) {
    g_autofree char *t = g_strjoinv(" ", w + 4);
    if (!units_parse(t, DIM_TIME, &c->max_ttft, &bad) || !(c->max_ttft > 0)) {
      *why = g_strdup_printf("class '%s': a TTFT limit (e.g. 2 s), got '%s'", c->name, t);
      return FALSE;
    }
  }
  return TRUE;
}

GArray *scenario_mix_parse(const char *text, char **why)
{
  g_autoptr(GArray) mix = g_array_new(FALSE, FALSE, sizeof(MixClass));
  g_auto(GStrv) entries = g_strsplit_set(text ? text : "", ";\n", -1);
  double sum = 0;
  for (char **e = entries; *e; e++) {
    g_auto(GStrv) words = g_strsplit_set(*e, " \t", -1);
    char *w[17]; /* up to 16 words and the NULL that ends them */
    int n = 0;
    for (char **p = words; *p && n < 16; p++)
      if (**p)
        w[n++] = *p;
    w[n] = NULL;
    if (n == 0)
      continue;
    if (mix->len >= MIX_MAX_CLASSES) {
      *why = g_strdup_printf("more than %d classes", MIX_MAX_CLASSES);
      return NULL;
    }
    MixClass c;
    if (!mix_class(w, n, &c, why))
      return NULL;
    for (guint k = 0; k < mix->len; k++)
      if (strcmp(g_array_index(mix, MixClass, k).name, c.name) == 0) {
        *why = g_strdup_printf("class '%s' twice", c.name);
        return NULL;
      }
    g_array_append_val(mix, c);
    sum += c.share;
  }
  if (mix->len == 0) {
    *why = g_strdup("expected at least one class 'NAME SHARE INPUT OUTPUT [MAX_TTFT]'");
    return NULL;
  }
  for (guint k = 0; k < mix->len; k++) /* shares need not add up to 1: they are weights */
    g_array_index(mix, MixClass, k).share /= sum;
  return g_steal_pointer(&mix);
}

double scenario_curve_mean(const GArray *curve)
{
  double sum = 0;
  for (guint i = 0; i < curve->len; i++)
    sum += g_array_index(curve, double, i);
  return sum / curve->len;
}

static gboolean check_value(const LoadCtx *ctx, const KtTable *t, const KtKey *key, YamlDoc *d,
                            yaml_node_t *node, GError **error)
{
  /* Each value is parsed into a scratch struct of its table, so errors surface at load time. */
  union {
    ScenarioParams p;
    SystemSpec s;
    LlmSpec m;
  } scratch;
  memset(&scratch, 0, sizeof scratch);
  gboolean ok = kt_assign(key, d, node, &scratch, error);
  gboolean is_null = key->type == KT_STRING && *(char **)((char *)&scratch + key->offset) == NULL;
  kt_clear(t, &scratch);
  if (!ok)
    return FALSE;
  if (t == &scenario_table && (strcmp(key->path, "system.id") == 0 || strcmp(key->path, "model.id") == 0))
    return check_catalog_id(ctx, key, d, node, error);
  if (is_null)
    return TRUE; /* a text key given as null */
  if (t == &scenario_table && (key->offset == offsetof(ScenarioParams, workload.trace) ||
                               key->offset == offsetof(ScenarioParams, serving.profile)) &&
      !check_path(ctx, key, d, node, error))
    return FALSE;
  if (t == &scenario_table && key->offset == offsetof(ScenarioParams, workload.trace))
    return check_trace(ctx, d, node, error);
  /* text keys with a small language of their own, parsed now so that a mistake is found at load */
  static const struct {
    gsize offset;
    GArray *(*parse)(const char *text, char **why);
  } texts[] = { { offsetof(ScenarioParams, workload.mix), scenario_mix_parse },
                { offsetof(ScenarioParams, workload.curve), scenario_curve_parse } };
  for (gsize k = 0; t == &scenario_table && k < G_N_ELEMENTS(texts); k++) {
    if (key->offset != texts[k].offset)
      continue;
    g_autofree char *why = NULL;
    g_autoptr(GArray) parsed = texts[k].parse(yaml_doc_scalar(node), &why);
    if (!parsed) {
      yaml_doc_error(d, node, error, "%s: %s", key->path, why);
      return FALSE;
    }
  }
  return TRUE;
}

static gboolean is_range(YamlDoc *d, yaml_node_t *v)
{
  return v->type == YAML_MAPPING_NODE && yaml_doc_lookup(d, v, "from") && yaml_doc_lookup(d, v, "to");
}

static gboolean collect_deployments(LoadCtx *ctx, YamlDoc *d, yaml_node_t *v, GError **error);

static gboolean collect_leaf(const KtTable *t, const KtKey *key, const char *group, YamlDoc *d,
                             yaml_node_t *v, gpointer user, GError **error)
{
  LoadCtx *ctx = user;
  if (t == &scenario_table && key->offset == offsetof(ScenarioParams, deployments))
    return collect_deployments(ctx, d, v, error);
  Axis *a = g_new0(Axis, 1);
  a->table = t;
  a->key = key;
  a->group = g_strdup(group);
  a->values = g_array_new(FALSE, FALSE, sizeof(int));
  g_ptr_array_add(ctx->s->axes, a);
  if (v->type == YAML_SEQUENCE_NODE || is_range(d, v)) {
    if (key->flags & KT_NOSWEEP) {
      yaml_doc_error(d, v, error, "'%s' takes a single value, not a %s", key->path,
                     v->type == YAML_SEQUENCE_NODE ? "list" : "range");
      return FALSE;
    }
  }
  if (is_range(d, v)) { /* expanded once the walk is over: expanding adds nodes */
    a->range = node_index(d, v);
    return TRUE;
  }
  if (v->type == YAML_SEQUENCE_NODE) {
    for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++)
      g_array_append_val(a->values, *it);
    if (a->values->len == 0) {
      yaml_doc_error(d, v, error, "'%s': an empty list gives no point to simulate", key->path);
      return FALSE;
    }
  } else {
    int idx = node_index(d, v);
    g_array_append_val(a->values, idx);
  }
  for (guint i = 0; i < a->values->len; i++)
    if (!check_value(ctx, t, key, d, yaml_doc_get(d, g_array_index(a->values, int, i)), error))
      return FALSE;
  return TRUE;
}

/* Whether a deployment of the floor may set AXIS's key: what it serves and how (model, serving,
 * workload, its SLO, its share), not the floor's own keys (system, factory) nor the scenario's. */
static gboolean deployment_key(const Axis *a)
{
  if (a->table != &scenario_table)
    return g_strcmp0(a->group, "model") == 0;
  static const char *const prefixes[] = { "model.", "serving.", "workload.", "plan.", "share", NULL };
  const char *path = a->key->path;
  if (strcmp(path, "serving.parallelism") == 0 || strcmp(path, "serving.engine") == 0)
    return FALSE; /* auto's sweep, and SimGrid, are the point's */
  for (int i = 0; prefixes[i]; i++)
    if (g_str_has_prefix(path, prefixes[i]))
      return TRUE;
  return FALSE;
}

/* deployments: a list of mappings, each walked like the scenario into axes of its own that must take
 * one value each and may set only a deployment's keys. */
static gboolean collect_deployments(LoadCtx *ctx, YamlDoc *d, yaml_node_t *v, GError **error)
{
  if (ctx->s->deployments) { /* only the file's own top level says it: not a deployment's */
    yaml_doc_error(d, v, error, "'deployments' belongs to the scenario, not to a deployment");
    return FALSE;
  }
  if (v->type != YAML_SEQUENCE_NODE) {
    yaml_doc_error(d, v, error, "'deployments' expects a list of mappings (model, serving, workload, plan, share)");
    return FALSE;
  }
  int n = (int)(v->data.sequence.items.top - v->data.sequence.items.start);
  if (n < 1 || n > SCENARIO_MAX_DEPLOYMENTS - 1) {
    yaml_doc_error(d, v, error, "'deployments' takes 1 to %d further deployments, not %d", SCENARIO_MAX_DEPLOYMENTS - 1, n);
    return FALSE;
  }
  ctx->s->deployments = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
  GPtrArray *axes = ctx->s->axes;
  gboolean ok = TRUE;
  for (yaml_node_item_t *it = v->data.sequence.items.start; ok && it < v->data.sequence.items.top; it++) {
    yaml_node_t *item = yaml_doc_get(d, *it);
    GPtrArray *mine = g_ptr_array_new_with_free_func(axis_free);
    g_ptr_array_add(ctx->s->deployments, mine);
    ctx->s->axes = mine; /* the walk's axes go to the deployment */
    ok = kt_walk(&scenario_table, d, item, collect_leaf, ctx, error);
    ctx->s->axes = axes;
    for (guint i = 0; ok && i < mine->len; i++) {
      const Axis *a = mine->pdata[i];
      yaml_node_t *at = a->range ? yaml_doc_get(d, a->range) : yaml_doc_get(d, g_array_index(a->values, int, 0));
      if (!deployment_key(a)) {
        yaml_doc_error(d, at, error, "'%s%s%s' is the floor's (or the scenario's), not a deployment's: a deployment "
                       "sets model, serving, workload, plan and share", a->group ? a->group : "", a->group ? "." : "",
                       a->key->path);
        ok = FALSE;
      } else if (a->range || a->values->len != 1) {
        yaml_doc_error(d, at, error, "'%s' in a deployment takes a single value (the sweep is the point's)", a->key->path);
        ok = FALSE;
      }
    }
  }
  return ok;
}

/* Adds an axis for scenario key PATH taking the values TEXTS (NULL-terminated); the key must not
 * be given in the file too. */
static gboolean add_generated_axis(LoadCtx *ctx, const char *path, GPtrArray *texts, GError **error)
{
  Scenario *s = ctx->s;
  const KtKey *key = kt_find(&scenario_table, path);
  for (guint i = 0; i < s->axes->len; i++)
    if (((Axis *)s->axes->pdata[i])->key == key) {
      yaml_doc_error(s->doc, axis_value(s, s->axes->pdata[i], 0), error,
                     "'%s' is chosen by 'serving.parallelism: auto': leave it out, or set parallelism to manual", path);
      return FALSE;
    }
  Axis *a = g_new0(Axis, 1);
  a->table = &scenario_table;
  a->key = key;
  a->values = g_array_new(FALSE, FALSE, sizeof(int));
  g_ptr_array_add(s->axes, a);
  for (guint i = 0; i < texts->len; i++) {
    int idx = yaml_document_add_scalar(&s->doc->doc, NULL, texts->pdata[i], -1, YAML_PLAIN_SCALAR_STYLE);
    g_array_append_val(a->values, idx);
  }
  return TRUE;
}

/* parallelism: auto -> TP and EP over the powers of two up to the largest NVLink domain swept, and
 * attention data-parallel on or off, for MoE models; combinations a system or model cannot run are
 * pruned when evaluated (engine_check). */
static gboolean expand_auto(LoadCtx *ctx, GError **error)
{
  Scenario *s = ctx->s;
  const Axis *par = find_axis(s, "serving.parallelism");
  if (!par || strcmp(yaml_doc_scalar(axis_value(s, par, 0)), "auto") != 0)
    return TRUE;
  const Axis *sys = find_axis(s, "system.id"), *mod = find_axis(s, "model.id");
  int domain = 1;
  gboolean moe = FALSE;
  for (guint i = 0; i < sys->values->len; i++)
    domain = MAX(domain, catalog_system(ctx->catalog, yaml_doc_scalar(axis_value(s, sys, i)))->nvlink_domain_gpus);
  for (guint i = 0; i < mod->values->len; i++)
    moe |= catalog_model(ctx->catalog, yaml_doc_scalar(axis_value(s, mod, i)))->experts > 0;
  g_autoptr(GPtrArray) tp = g_ptr_array_new_with_free_func(g_free), ep = g_ptr_array_new_with_free_func(g_free);
  g_autoptr(GPtrArray) dp = g_ptr_array_new();
  for (gint64 t = 1; t <= MIN(domain, 4096); t *= 2) { /* 64-bit, and within the bound on tp and ep */
    g_ptr_array_add(tp, g_strdup_printf("%" G_GINT64_FORMAT, t));
    if (moe)
      g_ptr_array_add(ep, g_strdup_printf("%" G_GINT64_FORMAT, t));
  }
  if (!moe)
    g_ptr_array_add(ep, g_strdup("1"));
  g_ptr_array_add(dp, (gpointer) "false");
  if (moe)
    g_ptr_array_add(dp, (gpointer) "true");
  s->auto_axes = (int)s->axes->len;
  return add_generated_axis(ctx, "serving.aggregated.tp", tp, error) &&
         add_generated_axis(ctx, "serving.aggregated.ep", ep, error) &&
         add_generated_axis(ctx, "serving.aggregated.attention_dp", dp, error);
}

#define MAX_RANGE_VALUES 100000

/* Expands {from, to, step} or {from, to, factor} into the values it names, as new scalar nodes. */
static gboolean expand_range(LoadCtx *ctx, Axis *a, GError **error)
{
  YamlDoc *d = ctx->s->doc;
  const KtKey *key = a->key;
  UnitDim dim = key->type == KT_NUMBER ? key->dim : DIM_NONE;
  /* read everything before adding nodes: adding moves the node array */
  yaml_node_t *m = yaml_doc_get(d, a->range);
  yaml_mark_t mark = m->start_mark;
  g_autofree char *from_t = g_strdup(yaml_doc_scalar(yaml_doc_lookup(d, m, "from")));
  g_autofree char *to_t = g_strdup(yaml_doc_scalar(yaml_doc_lookup(d, m, "to")));
  g_autofree char *step_t = g_strdup(yaml_doc_scalar(yaml_doc_lookup(d, m, "step")));
  g_autofree char *factor_t = g_strdup(yaml_doc_scalar(yaml_doc_lookup(d, m, "factor")));
  yaml_node_t fake = { .type = YAML_SCALAR_NODE, .start_mark = mark };
  for (yaml_node_pair_t *p = m->data.mapping.pairs.start; p < m->data.mapping.pairs.top; p++) {
    const char *k = yaml_doc_scalar(yaml_doc_get(d, p->key));
    if (!k || (strcmp(k, "from") && strcmp(k, "to") && strcmp(k, "step") && strcmp(k, "factor"))) {
      yaml_doc_error(d, &fake, error, "'%s': a range takes from, to and step or factor, not '%s'", key->path, k ? k : "?");
      return FALSE;
    }
  }
  if (key->type != KT_INT && key->type != KT_NUMBER) {
    yaml_doc_error(d, &fake, error, "'%s' is not a number: give a list instead of a range", key->path);
    return FALSE;
  }
  if (!from_t || !to_t || (!step_t == !factor_t)) {
    yaml_doc_error(d, &fake, error, "'%s': a range needs from, to, and either step or factor", key->path);
    return FALSE;
  }
  double from, to, by;
  const char *why = NULL;
  if (!units_parse(from_t, dim, &from, &why) || !units_parse(to_t, dim, &to, &why) ||
      !units_parse(step_t ? step_t : factor_t, step_t ? dim : DIM_NONE, &by, &why)) {
    yaml_doc_error(d, &fake, error, "'%s': range bounds expect %s like '%s'", key->path, why, units_example(dim));
    return FALSE;
  }
  if (to < from || (step_t && by <= 0) || (factor_t && by <= 1)) {
    yaml_doc_error(d, &fake, error, "'%s': a range needs to >= from and a step > 0 or a factor > 1", key->path);
    return FALSE;
  }
  for (double v = from; v <= to * (1 + 1e-9) + 1e-12; v = step_t ? v + by : v * by) {
    if (a->values->len >= MAX_RANGE_VALUES) {
      yaml_doc_error(d, &fake, error, "'%s': the range has more than %d values", key->path, MAX_RANGE_VALUES);
      return FALSE;
    }
    g_autofree char *text = key->type == KT_INT ? g_strdup_printf("%.0f", round(v)) : units_format(v, dim);
    int idx = yaml_document_add_scalar(&d->doc, NULL, (yaml_char_t *)text, -1, YAML_PLAIN_SCALAR_STYLE);
    yaml_node_t *n = yaml_doc_get(d, idx);
    n->start_mark = n->end_mark = mark; /* errors point at the range */
    if (!check_value(ctx, a->table, key, d, n, error))
      return FALSE;
    g_array_append_val(a->values, idx);
  }
  a->range = 0;
  return TRUE;
}

static Scenario *scenario_from_doc(YamlDoc *doc, const Catalog *catalog, GError **error);

Scenario *scenario_load(const char *path, const Catalog *catalog, GError **error)
{
  YamlDoc *doc = yaml_doc_load(path, error);
  return doc ? scenario_from_doc(doc, catalog, error) : NULL;
}

Scenario *scenario_load_text(const char *name, const char *text, const Catalog *catalog, GError **error)
{
  YamlDoc *doc = yaml_doc_parse(name, text, strlen(text), error);
  return doc ? scenario_from_doc(doc, catalog, error) : NULL;
}

/* The scenario DOC (taken) holds; relative paths in it are relative to its file's folder. */
static Scenario *scenario_from_doc(YamlDoc *doc, const Catalog *catalog, GError **error)
{
  g_autoptr(Scenario) s = g_new0(Scenario, 1);
  s->axes = g_ptr_array_new_with_free_func(axis_free);
  s->auto_axes = -1;
  s->doc = doc;
  const char *path = doc->path;
  g_autofree char *dir = g_path_get_dirname(path);
  s->dir = g_canonicalize_filename(dir, NULL);
  LoadCtx ctx = { s, catalog };
  if (!kt_walk(&scenario_table, s->doc, yaml_doc_root(s->doc), collect_leaf, &ctx, error))
    return NULL;
  for (size_t i = 0; i < scenario_table.n_keys; i++) {
    const KtKey *k = &scenario_table.keys[i];
    if ((k->flags & KT_REQUIRED) && !find_axis(s, k->path)) {
      yaml_doc_error(s->doc, yaml_doc_root(s->doc), error, "missing required key '%s' (%s)", k->path, k->help);
      return NULL;
    }
  }
  for (guint i = 0; i < s->axes->len; i++)
    if (((Axis *)s->axes->pdata[i])->range && !expand_range(&ctx, s->axes->pdata[i], error))
      return NULL;
  if (!expand_auto(&ctx, error))
    return NULL;
  s->n_points = 1;
  for (guint i = 0; i < s->axes->len; i++) {
    const Axis *a = s->axes->pdata[i];
    if (s->n_points > G_MAXSIZE / a->values->len / 2) {
      yaml_doc_error(s->doc, axis_value(s, a, 0), error, "the sweep has too many points");
      return NULL;
    }
    s->n_points *= a->values->len;
  }
  s->space = point_space_new(s);
  s->n_points = point_space_size(s->space);
  gint64 max_points = input_limit(LIMIT_POINTS);
  if (s->n_points > (gsize)max_points) {
    yaml_doc_error(s->doc, yaml_doc_root(s->doc), error, "the sweep has %" G_GSIZE_FORMAT " points, above the limit "
                   "of %" G_GINT64_FORMAT " (raise it with %s=N, or split it with --shard)", s->n_points, max_points,
                   input_limit_name(LIMIT_POINTS));
    return NULL;
  }
  return g_steal_pointer(&s);
}

gboolean scenario_override(Scenario *s, const char *path, const char *value, GError **error)
{
  const KtKey *key = kt_find(&scenario_table, path);
  g_return_val_if_fail(key && key->type != KT_GROUP, FALSE);
  int idx = yaml_document_add_scalar(&s->doc->doc, NULL, (yaml_char_t *)value, -1, YAML_PLAIN_SCALAR_STYLE);
  yaml_node_t *node = yaml_doc_get(s->doc, idx); /* valid until the next node is added */
  LoadCtx ctx = { s, NULL };
  g_autoptr(GError) err = NULL;
  if (!check_value(&ctx, &scenario_table, key, s->doc, node, &err)) {
    /* the value came from the command line, not the file: drop the file position */
    const char *msg = strstr(err->message, ": '");
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s", msg ? msg + 2 : err->message);
    return FALSE;
  }
  Axis *a = (Axis *)find_axis(s, path);
  if (!a) {
    a = g_new0(Axis, 1);
    a->table = &scenario_table;
    a->key = key;
    a->values = g_array_new(FALSE, FALSE, sizeof(int));
    g_ptr_array_add(s->axes, a);
  }
  g_array_set_size(a->values, 0);
  g_array_append_val(a->values, idx);
  point_space_free(s->space);
  s->space = point_space_new(s);
  s->n_points = point_space_size(s->space);
  return TRUE;
}

/* Absolute form of a path value, relative to the scenario's folder. */
static void absolutise(const Scenario *s, char **p)
{
  if (*p && !g_path_is_absolute(*p)) {
    char *full = g_build_filename(s->dir, *p, NULL);
    g_free(*p);
    *p = full;
  }
}

/* Keys results give a column of their own (results.h): left out of a point's swept text. */
static const char *const own_columns[] = {
  "system.id", "model.id", "serving.mode", "serving.framework", "serving.precision", "workload.arrival.kind",
  "workload.arrival.users", "workload.arrival.rate", "workload.input", "workload.input.mean", "workload.output",
  "workload.output.mean", "serving.router", "factory.fabric.oversubscription",
  "serving.speculative.draft_tokens", NULL,
};
static const char *const own_engine_columns[] = { ".workers", ".tp", ".pp", ".ep", ".attention_dp", ".max_batch", NULL };

static gboolean has_own_column(const Axis *a)
{
  if (a->table != &scenario_table)
    return FALSE;
  const char *path = a->key->path;
  if (g_strv_contains(own_columns, path))
    return TRUE;
  for (int i = 0; own_engine_columns[i]; i++)
    if (g_str_has_suffix(path, own_engine_columns[i]) &&
        (g_str_has_prefix(path, "serving.aggregated.") || g_str_has_prefix(path, "serving.disaggregated.")))
      return TRUE;
  return FALSE;
}

/* "key=value; ..." for the axes that vary in the sweep and have no column of their own. */
static char *swept_text(const Scenario *s, const guint *digits)
{
  GString *t = g_string_new(NULL);
  for (guint i = 0; i < s->axes->len; i++) {
    const Axis *a = s->axes->pdata[i];
    if (has_own_column(a) || !point_space_axis_varies(s->space, i))
      continue;
    const char *v = yaml_doc_scalar(axis_value(s, a, digits[i]));
    g_string_append_printf(t, "%s%s%s%s=%s", t->len ? "; " : "", a->group ? a->group : "", a->group ? "." : "",
                           a->key->path, v ? v : "?");
  }
  return g_string_free(t, FALSE);
}

/* AXES' values (value DIGITS[i] of axis i; the first when DIGITS is NULL) into OUT, the scenario keys
 * in PASS 0 (they pick the catalog entries), the catalog entries' figures in PASS 1 (SKIP_MODEL: not
 * the model's, which another axes' model.id replaced). */
static void assign_axes(const Scenario *s, const GPtrArray *axes, const guint *digits, const Catalog *catalog,
                        guint pass, gboolean skip_model, Point *out)
{
  for (guint i = 0; i < axes->len; i++) {
    const Axis *a = axes->pdata[i];
    if ((pass == 0) != (a->table == &scenario_table) || (skip_model && a->table == &llm_table))
      continue;
    void *target = a->table == &scenario_table ? (void *)&out->p
                   : a->table == &hardware_table ? (void *)&out->system
                                                 : (void *)&out->model;
    g_autoptr(GError) err = NULL;
    if (!kt_assign(a->key, s->doc, axis_value(s, a, digits ? digits[i] : 0), target, &err))
      g_error("value checked at load failed later: %s", err->message); /* cannot happen */
    if (pass == 0 && a->table == &scenario_table && strcmp(a->key->path, "model.id") == 0) {
      llm_spec_clear(&out->model);
      llm_spec_copy(&out->model, catalog_model(catalog, out->p.model_id));
    }
    if (pass == 0 && a->table == &scenario_table && strcmp(a->key->path, "system.id") == 0)
      system_spec_copy(&out->system, catalog_system(catalog, out->p.system_id));
  }
}

static gboolean sets_model(const GPtrArray *axes)
{
  for (guint i = 0; i < axes->len; i++)
    if (((const Axis *)axes->pdata[i])->table == &scenario_table &&
        strcmp(((const Axis *)axes->pdata[i])->key->path, "model.id") == 0)
      return TRUE;
  return FALSE;
}

/* The point's paths made absolute, auto's layout given to the decode pool. */
static void point_finish(const Scenario *s, Point *out);

void scenario_point(const Scenario *s, const Catalog *catalog, gsize index, Point *out)
{
  memset(out, 0, sizeof *out);
  out->index = index;
  g_autofree guint *digits = g_new0(guint, s->axes->len + 1);
  point_space_digits(s->space, index, digits);
  kt_defaults(&scenario_table, &out->p);
  for (guint pass = 0; pass < 2; pass++)
    assign_axes(s, s->axes, digits, catalog, pass, FALSE, out);
  out->swept = swept_text(s, digits);
  point_finish(s, out);
  out->n_others = s->deployments ? s->deployments->len : 0;
  out->others = out->n_others ? g_new0(Point, out->n_others) : NULL;
  for (guint k = 0; k < out->n_others; k++) { /* the point, its deployment's keys laid over */
    Point *o = &out->others[k];
    const GPtrArray *mine = s->deployments->pdata[k];
    o->index = index;
    kt_defaults(&scenario_table, &o->p);
    o->p.share = 0; /* the point's share is its own, not the deployment's */
    for (guint pass = 0; pass < 2; pass++) {
      assign_axes(s, s->axes, digits, catalog, pass, sets_model(mine), o);
      if (pass == 0)
        o->p.share = 0;
      assign_axes(s, mine, NULL, catalog, pass, FALSE, o);
    }
    o->swept = g_strdup("");
    point_finish(s, o);
  }
}

static void point_finish(const Scenario *s, Point *out)
{
  absolutise(s, &out->p.workload.trace);
  absolutise(s, &out->p.serving.profile);
  if (out->p.serving.parallelism == PARALLELISM_AUTO && out->p.serving.mode == MODE_DISAGGREGATED) {
    /* auto's generated TP / EP / attention-DP shape the decode pool of a disaggregated point */
    out->p.serving.decode.tp = out->p.serving.agg.tp;
    out->p.serving.decode.ep = out->p.serving.agg.ep;
    out->p.serving.decode.attention_dp = out->p.serving.agg.attention_dp;
  }
}

void point_clear(Point *pt)
{
  for (guint k = 0; k < pt->n_others; k++)
    point_clear(&pt->others[k]);
  g_clear_pointer(&pt->others, g_free);
  pt->n_others = 0;
  g_clear_pointer(&pt->swept, g_free);
  kt_clear(&scenario_table, &pt->p);
  system_spec_clear(&pt->system);
  llm_spec_clear(&pt->model);
}

/* An axis's values as YAML: the value, or "[a, b, c]" for a sweep. */
static char *axis_text(const Scenario *s, const Axis *a)
{
  GString *t = g_string_new(a->values->len > 1 ? "[" : "");
  for (guint i = 0; i < a->values->len; i++) {
    g_autofree char *q = kt_yaml_node(axis_value(s, a, i));
    g_string_append_printf(t, "%s%s", i ? ", " : "", q);
  }
  if (a->values->len > 1)
    g_string_append_c(t, ']');
  return g_string_free(t, FALSE);
}

typedef struct {
  const Scenario *s;
} Resolve;

/* The deployments as a YAML flow list: each a mapping of its keys (dotted) and its model's figures. */
static char *deployments_text(const Scenario *s)
{
  GString *t = g_string_new("[");
  for (guint k = 0; k < s->deployments->len; k++) {
    const GPtrArray *mine = s->deployments->pdata[k];
    GString *figures = g_string_new(NULL);
    g_string_append_printf(t, "%s{", k ? ", " : "");
    gboolean first = TRUE;
    for (guint i = 0; i < mine->len; i++) {
      const Axis *a = mine->pdata[i];
      g_autofree char *v = axis_text(s, a);
      if (a->table != &scenario_table) {
        g_string_append_printf(figures, "%s%s: %s", figures->len ? ", " : "", a->key->path, v);
        continue;
      }
      g_string_append_printf(t, "%s%s: %s", first ? "" : ", ", a->key->path, v);
      first = FALSE;
    }
    if (figures->len)
      g_string_append_printf(t, "%smodel: {%s}", first ? "" : ", ", figures->str);
    g_string_free(figures, TRUE);
    g_string_append_c(t, '}');
  }
  g_string_append_c(t, ']');
  return g_string_free(t, FALSE);
}

/* A swept key is written as its list; the system and model blocks are written apart. */
static char *resolved_text(const KtKey *key, gpointer user, gboolean *skip)
{
  Resolve *r = user;
  if (strcmp(key->path, "deployments") == 0 || strcmp(key->path, "share") == 0) {
    /* a floor of one deployment says neither */
    *skip = !r->s->deployments;
    return !*skip && key->path[0] == 'd' ? deployments_text(r->s) : NULL;
  }
  if (g_str_has_prefix(key->path, "system") || g_str_has_prefix(key->path, "model")) {
    *skip = TRUE;
    return NULL;
  }
  if (r->s->auto_axes >= 0 && (strcmp(key->path, "serving.aggregated.tp") == 0 ||
                               strcmp(key->path, "serving.aggregated.ep") == 0 ||
                               strcmp(key->path, "serving.aggregated.attention_dp") == 0)) {
    *skip = TRUE; /* parallelism: auto (written as such) chooses them again, and prunes the same layouts */
    return NULL;
  }
  const Axis *a = find_axis(r->s, key->path);
  return a && a->values->len > 1 ? axis_text(r->s, a) : NULL;
}

static void emit_block(const Scenario *s, GString *out, const char *group, const char *id_path)
{
  g_string_append_printf(out, "%s:\n", group);
  for (guint i = 0; i < s->axes->len; i++) {
    const Axis *a = s->axes->pdata[i];
    gboolean is_id = a->table == &scenario_table && strcmp(a->key->path, id_path) == 0;
    if (!is_id && g_strcmp0(a->group, group) != 0)
      continue;
    g_autofree char *v = axis_text(s, a);
    g_string_append_printf(out, "  %s: %s\n", is_id ? "id" : a->key->path, v);
  }
}

char *scenario_resolved_yaml(const Scenario *s, const Catalog *catalog)
{
  Point first;
  scenario_point(s, catalog, 0, &first);
  GString *out = g_string_new(NULL);
  g_string_append_printf(out,
                         "# %s resolved: every key with its value (defaults filled in), lists where the\n"
                         "# scenario sweeps. The catalog entries it used are in catalog/ beside this file:\n"
                         "#   aifsim run scenario.resolved.yaml --catalog catalog\n"
                         "# sweep: %" G_GSIZE_FORMAT " points\n",
                         s->doc->path, s->n_points);
  emit_block(s, out, "system", "system.id");
  emit_block(s, out, "model", "model.id");
  Resolve r = { s };
  kt_emit_yaml(&scenario_table, &first.p, out, 0, resolved_text, &r);
  point_clear(&first);
  return g_string_free(out, FALSE);
}
