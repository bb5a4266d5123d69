/* test_des.c — the event core and the serving simulation: deterministic event order, the samplers,
 * Little's law, agreement with the steady-state model, open loops and traces, reproducibility. */
#include "test_util.h"
#include "keytable.h"
#include "metrics.h"
#include "prefix_cache.h"
#include "predict.h"
#include "event_queue.h"
#include "serving_sim.h"
#include "simgrid_backend.h"
#include "steady_state.h"
#include "step_time.h"
#include "workload.h"

#include <glib/gstdio.h>
#include <string.h>

START_TEST(event_order_is_deterministic)
{
  EventQueue q;
  event_queue_init(&q);
  /* same times pop in insertion order; earlier times first */
  event_queue_push(&q, 2.0, 0, 1);
  event_queue_push(&q, 1.0, 0, 2);
  event_queue_push(&q, 2.0, 0, 3);
  event_queue_push(&q, 1.0, 0, 4);
  event_queue_push(&q, 0.5, 0, 5);
  static const int want[] = { 5, 2, 4, 1, 3 };
  Event e;
  for (gsize i = 0; i < G_N_ELEMENTS(want); i++) {
    ck_assert(event_queue_pop(&q, &e));
    ck_assert_int_eq(e.who, want[i]);
  }
  ck_assert(!event_queue_pop(&q, &e));
  /* a heap under load: 10,000 random times come out sorted */
  GRand *r = g_rand_new_with_seed(3);
  for (int i = 0; i < 10000; i++)
    event_queue_push(&q, g_rand_int_range(r, 0, 100), 0, i);
  double last = -1;
  int last_who = -1;
  while (event_queue_pop(&q, &e)) {
    ck_assert(e.time > last || (e.time == last && e.who > last_who));
    last = e.time, last_who = e.who;
  }
  g_rand_free(r);
  event_queue_clear(&q);
}
END_TEST

START_TEST(samplers)
{
  SimConfig p = { .seed = 11 };
  Workload w;
  ck_assert(workload_init(&w, &p, NULL));
  /* gamma(k = 0.25, theta = 2): mean k theta = 0.5, variance k theta^2 = 1 */
  double sum = 0, sq = 0;
  const int n = 200000;
  for (int i = 0; i < n; i++) {
    double x = workload_gamma(&w, 0.25, 2);
    sum += x, sq += x * x;
  }
  double mean = sum / n, var = sq / n - mean * mean;
  ck_assert_close(mean, 0.5, 0.02);
  ck_assert_close(var, 1.0, 0.05);
  /* a near-regular gamma (burst_cv 1e-12: k = 1e24) once looped for ever in the rejection test; it
   * is the normal of mean k theta = 1 and standard deviation sqrt(k) theta = 1e-12 */
  double regular = workload_gamma(&w, 1e24, 1e-24);
  ck_assert_close(regular, 1.0, 1e-9);
  workload_clear(&w);
}
END_TEST

/* An aggregated run of ENGINES engines that must run through (serving_simulate returns no reason
 * it could not). */
static void simulate_ok(const SimConfig *p, const Engine *e, int engines, SimResult *out)
{
  g_autofree char *why = serving_simulate(p, e, engines, NULL, 0, FALSE, out);
  ck_assert_msg(!why, "%s", why);
}

static SimConfig params(const Catalog *c, int arrival)
{
  SimConfig p;
  sim_config_defaults(&p);
  p.arrival = arrival;
  p.requests = 3000;
  p.input.mean = 1024, p.output.mean = 256;
  p.agg.max_batch = 256;
  (void)c;
  return p;
}

/* DeepSeek-R1 in FP4 on GPUS GPUs of SYS, experts over all of them, attention data-parallel. */
static Engine deepseek(const Catalog *c, const char *sys, int gpus, const Profile *prof)
{
  return (Engine){ .sys = catalog_system(c, sys), .model = catalog_model(c, "deepseek-r1"), .prof = prof,
                   .precision = PREC_FP4, .kv_precision = PREC_FP8, .stack = STACK_TRTLLM, .gpus = gpus, .pp = 1,
                   .ep = gpus, .dp_attention = TRUE };
}

/* Prompts and answers drawn around 922 and 256 tokens (InferenceX-style 80-100% ranges): users
 * do not move in lock-step waves. */
static void varied_lengths(SimConfig *p)
{
  p->input = (LengthSpec){ .dist = DIST_UNIFORM, .mean = 922, .min = 820, .max = 1024 };
  p->output = (LengthSpec){ .dist = DIST_UNIFORM, .mean = 256, .min = 192, .max = 320 };
}

static Engine llama_h200(const Catalog *c, const Profile *prof)
{
  return (Engine){ .sys = catalog_system(c, "h200-sxm-hgx8"), .model = catalog_model(c, "llama-3.3-70b"), .prof = prof,
                   .precision = PREC_FP8, .kv_precision = PREC_FP8, .stack = STACK_TRTLLM, .gpus = 8, .pp = 1, .ep = 1 };
}

/* SR, a closed loop P of aggregated engine E (varied_lengths, the default 8,192-token budget), has
 * the steady state's throughput and TPOT within 6%. */
static void assert_agrees_with_steady_state(const Engine *e, const SimConfig *p, const SimResult *sr)
{
  Load ld = { .isl = p->input.mean, .osl = p->output.mean, .users = p->users, .max_batch = p->agg.max_batch,
              .chunk = 8192 };
  SteadyState ss;
  g_autofree char *why = steady_aggregated(e, 1, &ld, &ss);
  ck_assert_ptr_null(why);
  ck_assert_close(sr->out_tok_s, ss.out_tok_s, 0.06);
  ck_assert_close(sr->tpot[0], ss.tpot, 0.06);
}

/* Closed loop with prompt and answer lengths drawn around their means (fixed lengths make users
 * move in waves: requests admitted together finish together and come back together, which the
 * steady state, by construction, does not see): the event simulation and the steady-state model
 * see the same engine, so their throughput and TPOT agree closely; Little's law holds. */
START_TEST(closed_loop_agrees_with_steady_state)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  for (int users = 8; users <= 128; users *= 4) {
    SimConfig p = params(c, ARRIVAL_CLOSED);
    p.users = users;
    varied_lengths(&p);
    SimResult sr;
    simulate_ok(&p, &e, 1, &sr);
    assert_agrees_with_steady_state(&e, &p, &sr);
    ck_assert_close(sr.mean_in_flight, sr.req_s * sr.mean_e2e, 0.02); /* Little's law */
    ck_assert_close(sr.mean_in_flight, users, 0.02);
  }
  profile_clear(&prof);
}
END_TEST

/* A closed loop of more users than requests asked for: 1,024 users of Llama-3.3-70B on 8 H200s
 * (a batch of up to 2,048), 1,000 requests. Its users start spread over one request's estimated
 * duration, so their first requests run in a batch still filling; measured from a tenth of 1,000
 * requests, the window would see only that first cycle's fast early completions. The run lasts
 * three requests a user and opens its window once 1,024 are done, so it agrees with the steady
 * state as the smaller loops above do (within 6%), and with Little's law (the same 1,024 users in
 * flight, completing at req/s = users / mean E2E). */
START_TEST(closed_loop_past_its_first_cycle)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  SimConfig p = params(c, ARRIVAL_CLOSED);
  p.users = 1024, p.requests = 1000, p.agg.max_batch = 2048;
  varied_lengths(&p);
  SimResult sr;
  simulate_ok(&p, &e, 1, &sr);
  ck_assert_uint_ge(sr.measured, 2 * 1024 - 64); /* the second and third cycles */
  assert_agrees_with_steady_state(&e, &p, &sr);
  ck_assert_close(sr.req_s * sr.mean_e2e, 1024, 0.03); /* Little's law */
  profile_clear(&prof);
}
END_TEST

/* Open loop (Poisson) below saturation: the completion rate is the arrival rate and Little's law
 * holds (mean requests in the system = rate x mean latency). */
START_TEST(poisson_open_loop)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  SimConfig p = params(c, ARRIVAL_POISSON);
  p.rate = 2.0;
  SimResult a, b;
  simulate_ok(&p, &e, 1, &a);
  ck_assert_close(a.req_s, 2.0, 0.06);
  ck_assert_close(a.mean_in_flight, a.req_s * a.mean_e2e, 0.03);
  ck_assert(a.ttft[2] >= a.ttft[1] && a.ttft[1] >= a.ttft[0]);
  /* the same seed gives the same result; another seed another one */
  g_autofree char *w2 = serving_simulate(&p, &e, 1, NULL, 0, FALSE, &b);
  ck_assert(memcmp(&a, &b, sizeof a) == 0);
  p.seed = 99;
  g_autofree char *w3 = serving_simulate(&p, &e, 1, NULL, 0, FALSE, &b);
  ck_assert(a.e2e[0] != b.e2e[0]);
  profile_clear(&prof);
}
END_TEST

/* The collector by hand: requests arrive at 0, 1, 2, 3 s, each gives its first token 0.5 s later and
 * completes 2 s after it arrived with 11 tokens. Completions at 2 and 3 s come before that second's
 * arrival. In flight: [0,1) 1, [1,4) 2, [4,5) 1: area 8 over a 5 s window, 1.6 on average; 44
 * tokens / 5 s = 8.8 tok/s; 4 / 5 s = 0.8 req/s; TPOT (2 - 0.5) / 10 = 0.15 s. The backlog went
 * from 0 (the window's opening) to 2 after the last arrival: growth 2, within 4 sqrt(4) = 8. */
START_TEST(metrics_by_hand)
{
  MetricsConfig c = { .start = 0, .target = 4, .max_ttft = 0.4 };
  g_autoptr(Metrics) m = metrics_new(&c);
  metrics_arrived(m, 0);
  metrics_arrived(m, 1);
  metrics_completed(m, 2, 0, 0.5, 11);
  metrics_arrived(m, 2);
  metrics_completed(m, 3, 1, 1.5, 11);
  metrics_arrived(m, 3);
  metrics_completed(m, 4, 2, 2.5, 11);
  metrics_completed(m, 5, 3, 3.5, 11);
  MetricsSummary s;
  metrics_summary(m, 5, &s);
  ck_assert_uint_eq(s.measured, 4);
  ck_assert_close(s.window, 5, 1e-12);
  ck_assert_close(s.out_tok_s, 8.8, 1e-12);
  ck_assert_close(s.req_s, 0.8, 1e-12);
  ck_assert_close(s.ttft[0], 0.5, 1e-12);
  ck_assert_close(s.tpot[2], 0.15, 1e-12);
  ck_assert_close(s.e2e[1], 2, 1e-12);
  ck_assert_close(s.goodput, 0, 1e-12); /* every TTFT (0.5 s) above the 0.4 s limit */
  ck_assert_uint_eq(s.arrivals, 4);
  ck_assert_int_eq(s.backlog_growth, 2);
  ck_assert(s.backlog_judged == FALSE && !s.backlog_grew); /* 4 arrivals judge nothing */
  /* 1,000 arrivals, one a second, every second one served half a second later: after the last
   * arrival (999 s) 499 have completed, 501 are in flight, far beyond a tenth of the arrivals (100)
   * and 4 sqrt(1000) = 126 */
  g_autoptr(Metrics) o = metrics_new(&c);
  for (int k = 0; k < 1000; k++) {
    metrics_arrived(o, k);
    if (k % 2)
      metrics_completed(o, k + 0.5, k / 2, k / 2 + 0.1, 2);
  }
  metrics_summary(o, 1000, &s);
  ck_assert_int_eq(s.backlog_growth, 501);
  ck_assert(s.backlog_judged && s.backlog_grew);
}
END_TEST

/* A warm-up by hand: requests arrive at 0, 1, 2, 3 s, each gives its first token 0.5 s later and
 * completes 2 s after it arrived with 11 tokens; the warm-up (and the window) ends at 2 s. The one
 * done at 2 s is not in the window; the one done at 3 s is (its 11 tokens came out in it) but
 * arrived in the warm-up, so its latencies are not sampled. Throughput: 3 x 11 tokens / 3 s = 11
 * tok/s, 1 req/s; sample: 2; goodput at a 0.6 s TTFT limit: both sampled meet it, 2 / 2 of the
 * 1 req/s answered = 1 req/s. Counting the sampled requests only gave 22 / 3 = 7.33 tok/s. */
START_TEST(warmup_counts_the_window_s_tokens)
{
  MetricsConfig c = { .start = 2, .target = 4, .warmup = 2, .max_ttft = 0.6 };
  g_autoptr(Metrics) m = metrics_new(&c);
  for (int k = 0; k < 4; k++) {
    metrics_arrived(m, k);
    if (k >= 2)
      metrics_completed(m, k, k - 2, k - 1.5, 11);
  }
  metrics_completed(m, 4, 2, 2.5, 11);
  metrics_completed(m, 5, 3, 3.5, 11);
  MetricsSummary s;
  metrics_summary(m, 5, &s);
  ck_assert_close(s.window, 3, 1e-12);
  ck_assert_uint_eq(s.measured, 2);
  ck_assert_close(s.out_tok_s, 11, 1e-12);
  ck_assert_close(s.req_s, 1, 1e-12);
  ck_assert_close(s.goodput, 1, 1e-12);
  ck_assert_close(s.ttft[0], 0.5, 1e-12);
}
END_TEST

/* Lost requests by hand: ten arrive at 0..9 s; the first eight are answered, request j giving its
 * first token 0.1 (j + 1) s after it arrived (0.1 .. 0.8 s) and completing at j + 1 s with 2
 * tokens; the last two are lost (their engine failed) at 9.5 and 9.8 s. The window (0..10 s) has 8
 * answered and 2 lost: the answered share is 0.8, so the median TTFT is the answered ones' quantile
 * 0.5 / 0.8 = 0.625: position 0.625 x 7 = 4.375 among 0.1 .. 0.8, 0.5 + 0.375 x 0.1 = 0.5375 s;
 * p90 and p99 fall among the lost (0.9 > 0.8): none. TPOT (answered only): (1 - 0.1 (j+1)) / 1, its
 * median over j = 0..7 (0.9 .. 0.2) 0.55 s. Goodput at a 0.45 s limit: four (0.1 .. 0.4 s) in 10 s,
 * 0.4 req/s; 8 answered in 10 s, 0.8 req/s. */
START_TEST(lost_requests_miss_the_slo)
{
  MetricsConfig c = { .start = 0, .target = 10, .max_ttft = 0.45 };
  g_autoptr(Metrics) m = metrics_new(&c);
  for (int k = 0; k < 10; k++) {
    metrics_arrived(m, k);
    if (k < 8)
      metrics_completed(m, k + 1, k, k + 0.1 * (k + 1), 2);
  }
  metrics_dropped(m, 9.5, 8);
  metrics_dropped(m, 9.8, 9);
  MetricsSummary s;
  metrics_summary(m, 10, &s);
  ck_assert_uint_eq(s.measured, 8);
  ck_assert_uint_eq(s.lost, 2);
  ck_assert_close(s.ttft[0], 0.5375, 1e-12);
  ck_assert(isnan(s.ttft[1]) && isnan(s.ttft[2]) && isnan(s.e2e[1]));
  ck_assert_close(s.tpot[0], 0.55, 1e-12);
  ck_assert_close(s.goodput, 0.4, 1e-12);
  ck_assert_close(s.req_s, 0.8, 1e-12);
  /* lost before the window opens (a tenth of the target done: after the first completion at 1 s)
   * is not measured; one lost in it is */
  MetricsConfig c2 = { .start = -1, .target = 10 };
  g_autoptr(Metrics) o = metrics_new(&c2);
  metrics_arrived(o, 0), metrics_arrived(o, 0.1), metrics_arrived(o, 0.2);
  metrics_dropped(o, 0.5, 0.1);
  metrics_completed(o, 1, 0, 0.5, 2); /* the window opens */
  metrics_dropped(o, 1.5, 0.2);
  metrics_summary(o, 2, &s);
  ck_assert_uint_eq(s.measured, 0);
  ck_assert_uint_eq(s.lost, 1);
}
END_TEST

/* Poisson arrivals at twice what one engine serves (its rate when swamped) are unstable whatever
 * the run's length, though its medians depend on how many requests were simulated; at half, stable. */
START_TEST(overload_is_unstable)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  SimConfig p = params(c, ARRIVAL_POISSON);
  SimResult r;
  p.rate = 1000;
  p.requests = 2000;
  g_autofree char *w0 = serving_simulate(&p, &e, 1, NULL, 0, FALSE, &r);
  ck_assert(!w0);
  double capacity = r.req_s;
  double ttft[2];
  p.rate = 2 * capacity;
  for (int k = 0; k < 2; k++) {
    p.requests = k ? 8000 : 1000;
    simulate_ok(&p, &e, 1, &r);
    ck_assert_msg(r.unstable, "%d requests: backlog grew by %d over %u arrivals", p.requests, r.backlog_growth,
                  r.arrivals);
    ttft[k] = r.ttft[0];
  }
  ck_assert(ttft[1] > 2 * ttft[0]); /* the median TTFT is only the run's length */
  p.rate = capacity / 2;
  g_autofree char *w1 = serving_simulate(&p, &e, 1, NULL, 0, FALSE, &r);
  ck_assert_msg(!w1 && !r.unstable, "backlog grew by %d over %u arrivals", r.backlog_growth, r.arrivals);
  profile_clear(&prof);
}
END_TEST

/* The load against the ceilings (predict_judge_load), on Llama 70B on one 8-GPU H200 engine whose
 * batch cap (256) binds before its KV room (thousands of 1k + 256-token sequences): 200 closed-loop
 * users run at once, 300 leave 44 waiting for a slot, whatever method predicted them. An open loop
 * offered 1,000 req/s whose 100 requests all arrive before the window opens (a tenth of them done)
 * cannot be judged by its queue's trend: the offer against the steady state's saturated rate
 * decides. */
START_TEST(judge_load)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  SimConfig p = params(c, ARRIVAL_CLOSED);
  Deployment d = { .framework = FW_TRTLLM, .decode = llama_h200(c, &prof), .dec_workers = 1, .sim = &p,
                   .load = { .isl = 1024, .osl = 256, .max_batch = 256, .chunk = 8192 } };
  Ceilings ceil;
  predict_ceilings(&d, &ceil);
  ck_assert(ceil.known);
  ck_assert_close(ceil.slots, 256, 1e-12);
  ck_assert(ceil.max_seqs > 1000 && ceil.capacity_req_s > 0);
  double capacity = ceil.capacity_req_s;
  for (int k = 0; k < 2; k++) {
    Outcome o;
    p.users = k ? 300 : 200;
    d.load.users = p.users;
    predict(&d, METHOD_STEADY, &o);
    predict_judge_load(&d, &ceil, &o);
    ck_assert_int_eq(o.kind, k ? OUTCOME_QUEUE_BOUND : OUTCOME_OK);
    if (k)
      ck_assert_str_eq(o.reason, "300 users in flight, 256 sequences run at once (1 engines x 256): 44 wait for a slot");
    outcome_clear(&o);
  }
  p = params(c, ARRIVAL_POISSON);
  p.requests = 100;
  d.load.users = 0;
  for (int k = 0; k < 2; k++) {
    Outcome o;
    p.rate = k ? 1000 : 0.2 * capacity;
    predict(&d, METHOD_DES, &o);
    predict_judge_load(&d, &ceil, &o);
    ck_assert_int_eq(o.kind, k ? OUTCOME_UNSTABLE : OUTCOME_OK);
    if (k)
      ck_assert_msg(!o.backlog_judged && g_str_has_prefix(o.reason, "1e+03 req/s offered, the deployment serves at most"),
                    "%s", o.reason);
    outcome_clear(&o);
  }
  profile_clear(&prof);
}
END_TEST

/* A trace: three requests at given times on an idle engine. The third arrives long after the
 * others finish, so its latency is the unloaded one. */
START_TEST(trace_replay)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  prof.stack[STACK_TRTLLM].request_overhead = 0;
  Engine e = llama_h200(c, &prof);
  g_autofree char *dir = test_tmpdir();
  g_autofree char *path = g_build_filename(dir, "t.csv", NULL);
  ck_assert(g_file_set_contents(path, "arrival_s,input_tokens,output_tokens\n0,512,64\n0.01,512,64\n100,512,64\n", -1, NULL));
  SimConfig p = params(c, ARRIVAL_TRACE);
  p.trace = path;
  p.warmup = 50; /* measure the third only */
  SimResult sr;
  simulate_ok(&p, &e, 1, &sr);
  ck_assert_uint_eq(sr.measured, 1);
  /* alone on the engine: TTFT is one prefill step, then 63 decode steps of one sequence */
  double prefill = step_time_prefill(&e, 1, 512);
  ck_assert_close(sr.ttft[0], prefill, 1e-6);
  ck_assert_close(sr.e2e[0] - sr.ttft[0], 63 * step_time_decode(&e, 1, 512 + 32), 0.02);
  /* a bad trace is refused with its line */
  ck_assert(g_file_set_contents(path, "0,512,64\n1,abc,64\n", -1, NULL));
  g_autofree char *why2 = serving_simulate(&p, &e, 1, NULL, 0, FALSE, &sr);
  ck_assert_msg(why2 && strstr(why2, "t.csv:2:2: expected arrival_s,input_tokens,output_tokens"), "%s", why2 ? why2 : "");
  p.trace = NULL;
  profile_clear(&prof);
}
END_TEST

/* The median TTFT of the requests of a trace (CSV text) arriving after WARMUP s on engine E; MEASURED
 * of them must be. */
static double trace_ttft(const Catalog *c, const Engine *e, const char *text, double warmup, guint measured)
{
  g_autofree char *dir = test_tmpdir();
  g_autofree char *path = g_build_filename(dir, "t.csv", NULL);
  ck_assert(g_file_set_contents(path, text, -1, NULL));
  SimConfig p = params(c, ARRIVAL_TRACE);
  p.trace = path;
  p.warmup = warmup;
  SimResult sr;
  simulate_ok(&p, e, 1, &sr);
  ck_assert_uint_eq(sr.measured, measured);
  return sr.ttft[0];
}

/* SGLang's receive interval: a busy engine without attention-DP looks for new requests every N
 * decode steps (or after a step with prompt work). One user decodes a long answer; short requests
 * arrive every 0.3719 s, out of step with the ~50 decode steps between them, so each meets the
 * interval at a random phase and waits half of it on average: the median TTFT rises by about
 * N / 2 = 15 decode steps over the same run looking every step (14.5; bounds 11 to 17). A look
 * that fell in step with the arrivals (the count restarted where a run of decode steps ends,
 * which is where an arrival stops it) makes it 19. */
START_TEST(receive_interval_waits_half)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  prof.stack[STACK_SGLANG].request_overhead = 0;
  Engine e = llama_h200(c, &prof);
  e.stack = STACK_SGLANG;
  g_autoptr(GString) csv = g_string_new("arrival_s,input_tokens,output_tokens\n0,512,3000\n");
  for (int k = 0; k < 40; k++)
    g_string_append_printf(csv, "%.4f,64,2\n", 1 + 0.3719 * k);
  double ttft[2];
  for (int look = 0; look < 2; look++) {
    prof.stack[STACK_SGLANG].recv_interval = look ? 30 : 1;
    ttft[look] = trace_ttft(c, &e, csv->str, 0.5, 40); /* the short requests only */
  }
  double steps = (ttft[1] - ttft[0]) / step_time_decode(&e, 1, 512 + 1000);
  ck_assert_msg(steps > 11 && steps < 17, "the interval added %.1f decode steps", steps);
  profile_clear(&prof);
}
END_TEST

/* The overlap scheduler: a request that reaches a busy engine misses the batch the host already
 * formed for the next step and joins the one after. One user decodes a long answer; a second
 * request arrives mid-step. Without overlap its TTFT is the rest of the step under way plus the
 * step carrying its prompt; with it, one decode step of the first user more (the two runs are the
 * same up to the arrival; the context then is 512 + ~170 tokens, and a decode step hardly depends
 * on it). An idle engine takes a request at once either way (the trace test above). */
START_TEST(overlap_scheduler_lag)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  prof.stack[STACK_TRTLLM].request_overhead = 0;
  Engine e = llama_h200(c, &prof);
  double ttft[2];
  for (int overlap = 0; overlap < 2; overlap++) {
    prof.stack[STACK_TRTLLM].overlap_scheduler = overlap;
    ttft[overlap] = trace_ttft(c, &e, "arrival_s,input_tokens,output_tokens\n0,512,2000\n1.0031,512,64\n", 0.5, 1);
  }
  double td = step_time_decode(&e, 1, 512 + 170);
  ck_assert_msg(fabs(ttft[1] - ttft[0] - td) < 0.02 * td, "TTFT %.3f ms with overlap, %.3f without, a step %.3f ms",
                ttft[1] * 1e3, ttft[0] * 1e3, td * 1e3);
  profile_clear(&prof);
}
END_TEST

/* A benchmark client: all users send at t = 0, exactly the requests asked for, every one counted
 * (vLLM's benchmark_serving with --request-rate inf, as InferenceX runs it). Against the steady
 * window, which leaves out the first tenth of the requests, it counts them all, and its figures
 * cover the whole run: tokens / (last completion - 0). */
START_TEST(benchmark_client_window)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  SimConfig p = params(c, ARRIVAL_CLOSED);
  p.users = 4, p.requests = 40, p.output.mean = 64;
  p.start = START_TOGETHER, p.window = WINDOW_ALL;
  SimResult all, steady;
  simulate_ok(&p, &e, 1, &all);
  ck_assert_uint_eq(all.measured, 40);
  ck_assert_close(all.out_tok_s * all.window, 40 * 64, 1e-9);
  ck_assert_close(all.req_s * all.window, 40, 1e-9);
  p.window = WINDOW_STEADY;
  simulate_ok(&p, &e, 1, &steady);
  ck_assert_uint_lt(steady.measured, 40);
  profile_clear(&prof);
}
END_TEST

/* TensorRT-LLM's attention-DP balancing holds a new prompt until every rank of the engine has one,
 * or until its step counter reaches the timeout (50 steps), then the batching wait (10 steps) when
 * every rank has a prompt. With 64 users on 8 ranks a prompt arrives every few steps, too seldom to
 * fill 8 ranks before the timeout, so prompts leave with the balancer's cycle: TTFT grows by tens
 * of steps (InferenceX's B200 rows at 64 users show about 50), never by more than the timeout plus
 * the batching wait plus the prompt's own step. */
START_TEST(attention_dp_balancing)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = deepseek(c, "b200-hgx8", 8, &prof);
  SimConfig p = params(c, ARRIVAL_CLOSED);
  p.users = 64, p.requests = 2000;
  varied_lengths(&p);
  SimResult on, off;
  simulate_ok(&p, &e, 1, &on);
  prof.stack[STACK_TRTLLM].adp_balance_timeout = 0;
  simulate_ok(&p, &e, 1, &off);
  double added = on.ttft[0] - off.ttft[0], step = off.tpot[0];
  ck_assert_msg(added > 10 * step && added < 61 * step, "balancing added %.1f steps", added / step);
  profile_clear(&prof);
}
END_TEST

/* An attention-DP engine places whole prompts on its ranks, and a prompt step waits for the rank
 * that holds the most prompt tokens. DeepSeek-R1 FP4 on 8 B200s, attention DP, no balancing hold,
 * no overlap scheduler; N users send 1,000-token prompts together (2-token answers). The engine
 * takes the first request alone (it is idle when it arrives) and the other N - 1 prompts in its
 * second step, beside that request's one decode, where their median user's first token comes.
 * Nine users put one new prompt on each rank; ten put two, 2,000 tokens, on one of them. The two
 * runs' TTFTs differ by those second steps, as the step model has them with that placement
 * (StepBatch.prefill_rank_tokens): 9 prompts whose busiest rank holds 2,000 tokens against 8 of
 * 1,000 each, one sequence decoding at 1,000 tokens of context in both, ~25 ms; spread by their
 * count (1,125 a rank) the ninth prompt would add less than half of that. */
START_TEST(attention_dp_whole_prompts)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  prof.stack[STACK_TRTLLM].adp_balance_timeout = 0;
  prof.stack[STACK_TRTLLM].overlap_scheduler = FALSE;
  Engine e = deepseek(c, "b200-hgx8", 8, &prof);
  SimConfig p = params(c, ARRIVAL_CLOSED);
  p.input.dist = DIST_FIXED, p.input.mean = 1000;
  p.output.dist = DIST_FIXED, p.output.mean = 2;
  p.start = START_TOGETHER, p.window = WINDOW_ALL;
  SimResult r8, r9;
  p.users = p.requests = 9;
  simulate_ok(&p, &e, 1, &r8);
  p.users = p.requests = 10;
  simulate_ok(&p, &e, 1, &r9);
  StepBatch eight = { .decode_seqs = 1, .decode_ctx = 1000, .prefill_tokens = 8000, .prefill_seqs = 8, .prefill_ctx = 500 };
  StepBatch nine = eight, spread = eight;
  nine.prefill_tokens = spread.prefill_tokens = 9000, nine.prefill_seqs = spread.prefill_seqs = 9;
  nine.prefill_rank_tokens = 2000; /* the busiest rank's prompt tokens (the decode's share is added) */
  StepTime t8, t9, ts;
  step_time(&e, &eight, &t8);
  step_time(&e, &nine, &t9);
  step_time(&e, &spread, &ts);
  double added = r9.ttft[0] - r8.ttft[0];
  ck_assert_msg(fabs(added - (t9.total - t8.total)) < 1e-6, "TTFT %.3f -> %.3f ms, steps %.3f -> %.3f ms",
                r8.ttft[0] * 1e3, r9.ttft[0] * 1e3, t8.total * 1e3, t9.total * 1e3);
  ck_assert(ts.total - t8.total < 0.5 * added);
  profile_clear(&prof);
}
END_TEST

/* TensorRT-LLM's batch waiting on an engine without attention-DP: 64 users of Llama-3.3-70B on
 * 8 H200s, ~922-token prompts, ~256-token answers, a budget of 8192 tokens per step. Waiting for
 * 80% of it (6554 tokens: about 7 prompts, at ~0.3 prompts per step some 20 steps of gathering)
 * within 40 steps holds a prompt for what is left of its gathering and then runs it in a step
 * carrying ~7 prompts: it adds some 10-20 steps to TTFT (~18); a share every step reaches (0)
 * holds nothing. */
START_TEST(batch_waiting)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  SimConfig p = params(c, ARRIVAL_CLOSED);
  p.users = 64, p.requests = 2000;
  p.agg.chunked_prefill = 8192;
  varied_lengths(&p);
  SimResult off, on, none;
  simulate_ok(&p, &e, 1, &off);
  prof.stack[STACK_TRTLLM].batch_wait_timeout = 40;
  prof.stack[STACK_TRTLLM].batch_wait_tokens = 0.8;
  simulate_ok(&p, &e, 1, &on);
  prof.stack[STACK_TRTLLM].batch_wait_tokens = 0;
  simulate_ok(&p, &e, 1, &none);
  double added = on.ttft[0] - off.ttft[0], step = off.tpot[0];
  ck_assert_msg(added > 4 * step && added < 40 * step, "batch waiting added %.1f steps", added / step);
  ck_assert_close(none.ttft[0], off.ttft[0], 1e-9);
  profile_clear(&prof);
}
END_TEST

/* Closed-loop disaggregated serving inside a GB200 NVL72: prefill engines of 4 GPUs (*E), decode
 * engines of 16 (*D). */
static SimConfig gb200_pools(const Catalog *c, const Profile *prof, Engine *e, Engine *d)
{
  *e = deepseek(c, "gb200-nvl72", 4, prof);
  *d = deepseek(c, "gb200-nvl72", 16, prof);
  SimConfig p = params(c, ARRIVAL_CLOSED);
  p.decode.max_batch = 1024;
  return p;
}

/* Disaggregated: prefill and decode pools; TTFT includes the KV transfer; more decode engines
 * serve more users at the same speed. */
START_TEST(disaggregated_pools)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e, d;
  SimConfig p = gb200_pools(c, &prof, &e, &d);
  p.users = 64;
  SimResult one, two;
  g_autofree char *w1 = serving_simulate(&p, &e, 2, &d, 1, TRUE, &one);
  ck_assert_msg(!w1, "%s", w1);
  p.users = 128;
  g_autofree char *w2 = serving_simulate(&p, &e, 4, &d, 2, TRUE, &two);
  ck_assert_msg(!w2, "%s", w2);
  ck_assert_close(two.out_tok_s, 2 * one.out_tok_s, 0.05);
  ck_assert_close(two.tpot[0], one.tpot[0], 0.05);
  ck_assert_close(one.gpus, 2 * 4 + 16, 1e-12);
  profile_clear(&prof);
}
END_TEST

/* GB200 pools with the built-in profile and varied lengths: where the handoff tests run. */
static SimConfig handoff_pools(const Catalog *c, Profile *prof, Engine *e, Engine *d)
{
  profile_defaults(prof);
  SimConfig p = gb200_pools(c, prof, e, d);
  varied_lengths(&p);
  return p;
}

/* The handoff between the pools (second hop, worker handshake) comes before the KV transfer:
 * every first token moves by it, and nothing else does. One user, so that the decode batch is
 * the same whatever the handoff (with a few, a longer wait between a user's requests changes
 * how many decode together, and the step's time with it). */
START_TEST(disaggregated_handoff)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  Engine e, d;
  SimConfig p = handoff_pools(c, &prof, &e, &d);
  p.users = 1;
  p.requests = 200;
  SimResult r[2];
  double handoff[2] = { 0, 0.25 };
  for (int k = 0; k < 2; k++) {
    prof.stack[STACK_TRTLLM].handoff_overhead = handoff[k];
    g_autofree char *why = serving_simulate(&p, &e, 1, &d, 1, TRUE, &r[k]);
    ck_assert_msg(!why, "%s", why);
  }
  ck_assert_close(r[1].ttft[0] - r[0].ttft[0], 0.25, 0.05);
  ck_assert_close(r[1].tpot[0], r[0].tpot[0], 1e-9);
  profile_clear(&prof);
}
END_TEST

/* The decode engine's scheduler takes a handed-over request in after handoff_steps of its steps
 * when it is decoding others' sequences, at once when idle. One user: nothing else decodes when
 * its KV cache arrives, TTFT is the same with 3 steps as with none. 16 users: the engine is always
 * decoding, and the median TTFT grows by about 3 of its steps (3 x the median TPOT: no drafts, a
 * token a step; 136 -> 169 ms at a 10.9 ms TPOT), the batch moving a little with the longer
 * wait. */
START_TEST(disaggregated_handoff_steps)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  Engine e, d;
  SimConfig p = handoff_pools(c, &prof, &e, &d);
  p.requests = 400;
  int users[2] = { 1, 16 };
  double steps[2] = { 0, 3 };
  SimResult r[2][2];
  for (int u = 0; u < 2; u++)
    for (int k = 0; k < 2; k++) {
      p.users = users[u];
      prof.stack[STACK_TRTLLM].handoff_steps = steps[k];
      g_autofree char *why = serving_simulate(&p, &e, 1, &d, 1, TRUE, &r[u][k]);
      ck_assert_msg(!why, "%s", why);
    }
  ck_assert_close(r[0][1].ttft[0], r[0][0].ttft[0], 1e-12);
  ck_assert_close(r[1][1].ttft[0] - r[1][0].ttft[0], 3 * r[1][1].tpot[0], 0.05);
  profile_clear(&prof);
}
END_TEST

/* Green Contexts: prompts on 30% of the SMs, decode on 70%, as two streams. Under a Poisson chat
 * load, decode steps no longer carry prompt chunks, so the slowest tokens (TPOT p99) come faster
 * than with one stream, while each prompt takes longer on its share of the SMs. */
START_TEST(green_contexts)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  SimConfig p = params(c, ARRIVAL_POISSON);
  p.rate = 6;
  p.input = (LengthSpec){ .dist = DIST_UNIFORM, .mean = 2048, .min = 1024, .max = 3072 };
  SimResult one, two;
  g_autofree char *w1 = serving_simulate(&p, &e, 1, NULL, 0, FALSE, &one);
  p.green_prefill_sms = 0.3;
  g_autofree char *w2 = serving_simulate(&p, &e, 1, NULL, 0, FALSE, &two);
  ck_assert_msg(!w1 && !w2, "%s %s", w1 ? w1 : "", w2 ? w2 : "");
  ck_assert_close(two.req_s, one.req_s, 0.05); /* below saturation both keep up */
  ck_assert_msg(two.tpot[2] < one.tpot[2], "TPOT p99 %.2f ms with, %.2f ms without", two.tpot[2] * 1e3, one.tpot[2] * 1e3);
  ck_assert(two.ttft[0] > one.ttft[0]);
  profile_clear(&prof);
}
END_TEST

/* The planner: chat, then long (24k-token) prompts at t = 300 s. Fixed pools drown in prompts; the
 * planner moves decode engines to prefill, so TTFT stays short and more tokens come out. */
START_TEST(planner_rebalances)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = deepseek(c, "gb200-nvl72", 4, &prof);
  SimConfig p = params(c, ARRIVAL_POISSON);
  p.rate = 8;
  p.requests = 6000;
  p.input = (LengthSpec){ .dist = DIST_UNIFORM, .mean = 1024, .min = 820, .max = 1228 };
  p.output = (LengthSpec){ .dist = DIST_UNIFORM, .mean = 2048, .min = 1640, .max = 2456 };
  p.shift_at = 300, p.shift_input = 24576, p.shift_output = 256;
  p.prefill.chunked_prefill = 16384;
  p.decode.max_batch = 4096;
  SimResult fixed, planned;
  g_autofree char *w1 = serving_simulate(&p, &e, 2, &e, 6, TRUE, &fixed);
  p.planner = TRUE;
  g_autofree char *w2 = serving_simulate(&p, &e, 2, &e, 6, TRUE, &planned);
  ck_assert_msg(!w1 && !w2, "%s %s", w1 ? w1 : "", w2 ? w2 : "");
  ck_assert_uint_eq(fixed.moves, 0);
  ck_assert_uint_ge(planned.moves, 1);
  ck_assert_msg(planned.ttft[0] < fixed.ttft[0] / 10, "TTFT p50 %.1f s planned, %.1f s fixed", planned.ttft[0], fixed.ttft[0]);
  ck_assert_msg(planned.out_tok_s > fixed.out_tok_s, "%.0f tok/s planned, %.0f fixed", planned.out_tok_s, fixed.out_tok_s);
  /* pools of different engines cannot trade them */
  Engine big = deepseek(c, "gb200-nvl72", 8, &prof);
  g_autofree char *w3 = serving_simulate(&p, &e, 2, &big, 3, TRUE, &planned);
  ck_assert_msg(w3 && strstr(w3, "the planner moves engines between the pools"), "%s", w3 ? w3 : "");
  profile_clear(&prof);
}
END_TEST

/* Disaggregated, Poisson at 20 req/s, 6k-10k-token prompts: KV transfers heavy enough (~290 MB
 * each) for the network to show in TTFT. */
static SimConfig kv_heavy(const Catalog *c)
{
  SimConfig p = params(c, ARRIVAL_POISSON);
  p.rate = 20;
  p.input = (LengthSpec){ .dist = DIST_UNIFORM, .mean = 8192, .min = 6000, .max = 10000 };
  p.decode.max_batch = 2048;
  return p;
}

/* Across racks, KV caches cross the NICs; an oversubscribed fabric (64:1 here, to make it show at
 * this load) makes transfers share a core link with 1/64 of the NICs' bandwidth: each 8k-token
 * cache (288 MB) takes ~7 ms instead of ~1 ms, and first tokens come later. */
START_TEST(fabric_oversubscription)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = deepseek(c, "b200-hgx8", 8, &prof);
  SimConfig p = kv_heavy(c);
  SimResult flat, over;
  p.oversubscription = 1;
  g_autofree char *w1 = serving_simulate(&p, &e, 4, &e, 4, FALSE, &flat);
  p.oversubscription = 64;
  g_autofree char *w2 = serving_simulate(&p, &e, 4, &e, 4, FALSE, &over);
  ck_assert_msg(!w1 && !w2, "%s %s", w1 ? w1 : "", w2 ? w2 : "");
  ck_assert_msg(over.ttft[0] > flat.ttft[0], "TTFT p50 %.1f ms at 64:1, %.1f ms non-blocking", over.ttft[0] * 1e3,
                flat.ttft[0] * 1e3);
  profile_clear(&prof);
}
END_TEST

static void assert_backends_agree(const SimResult *n, const SimResult *g)
{
  ck_assert_close(g->measured, n->measured, 0.01);
  ck_assert_close(g->out_tok_s, n->out_tok_s, 0.01);
  ck_assert_close(g->ttft[0], n->ttft[0], 0.01);
  /* the p99 of a loaded run's TTFT moves by a request's rank when two transfers end in the other
   * order: 2% */
  ck_assert_close(g->ttft[2], n->ttft[2], 0.02);
  ck_assert_close(g->tpot[0], n->tpot[0], 0.01);
  ck_assert_close(g->e2e[0], n->e2e[0], 0.01);
}

/* The SimGrid backend (CM02, no TCP effects) moves the same KV caches over the same links as the
 * native max-min network. Three deployments: aggregated on 8 GPUs (no transfers: one simulation),
 * disaggregated inside one GB200 NVL72 (NVLink), and disaggregated across B200 racks over the NICs,
 * non-blocking and through a 64:1 oversubscribed core where the transfers contend. The two agree
 * within 1% on throughput and on TTFT, TPOT and end-to-end latency. */
START_TEST(simgrid_agrees_with_native)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine a = llama_h200(c, &prof);
  SimConfig q = params(c, ARRIVAL_POISSON);
  q.rate = 2;
  q.requests = 600;
  SimResult n, g;
  g_autofree char *w1 = serving_simulate(&q, &a, 1, NULL, 0, FALSE, &n);
  g_autofree char *w2 = simgrid_simulate(&q, &a, 1, NULL, 0, FALSE, &g);
  ck_assert_msg(!w1 && !w2, "%s %s", w1 ? w1 : "", w2 ? w2 : "");
  assert_backends_agree(&n, &g);
  ck_assert_close(g.e2e[1], n.e2e[1], 1e-9);
  ck_assert_uint_eq(g.steps, n.steps);

  SimConfig p = kv_heavy(c);
  p.requests = 600;
  const struct { const char *sys; int gpus; gboolean same; double over; } cases[] = {
    { "gb200-nvl72", 4, TRUE, 1 }, { "b200-hgx8", 8, FALSE, 1 }, { "b200-hgx8", 8, FALSE, 64 },
  };
  for (guint k = 0; k < G_N_ELEMENTS(cases); k++) {
    Engine e = deepseek(c, cases[k].sys, cases[k].gpus, &prof);
    p.oversubscription = cases[k].over;
    g_autofree char *w3 = serving_simulate(&p, &e, 4, &e, 4, cases[k].same, &n);
    g_autofree char *w4 = simgrid_simulate(&p, &e, 4, &e, 4, cases[k].same, &g);
    ck_assert_msg(!w3 && !w4, "%s %s", w3 ? w3 : "", w4 ? w4 : "");
    assert_backends_agree(&n, &g);
  }
  profile_clear(&prof);
}
END_TEST

/* The platform mirrors the simulation's links: across racks, e0 -> e2 leaves by e0's NIC, enters
 * by e2's and crosses the oversubscribed core (link 12: 3 engines x 4 links before it). */
START_TEST(simgrid_platform)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = deepseek(c, "b200-hgx8", 8, &prof);
  SimConfig p = params(c, ARRIVAL_POISSON);
  p.oversubscription = 4;
  g_autofree char *why = NULL;
  Sim *s = sim_new(&p, &e, 2, &e, 1, FALSE, &why);
  ck_assert_msg(s, "%s", why);
  g_autofree char *xml = simgrid_platform_xml(s, &why);
  ck_assert_ptr_nonnull(xml);
  ck_assert_ptr_nonnull(strstr(xml, "<route src=\"e0\" dst=\"e2\" symmetrical=\"NO\"><link_ctn id=\"l2\"/>"
                                    "<link_ctn id=\"l11\"/><link_ctn id=\"l12\"/></route>"));
  ck_assert_ptr_null(strstr(xml, "id=\"l13\""));
  sim_free(s);
  profile_clear(&prof);
}
END_TEST

/* The prefix cache by hand: block 16, a group of 100 shared tokens and a session behind it.
 * Hits count whole blocks: 100 shared -> 96; with 250 of history cached, 350 -> 336. */
START_TEST(prefix_cache_by_hand)
{
  g_autoptr(PrefixCache) c = prefix_cache_new(16);
  gboolean gh;
  ck_assert_double_eq(prefix_cache_match(c, 0, 100, 7, 250, 1e9, &gh, NULL), 0);
  ck_assert(!gh);
  prefix_cache_put(c, 0, 100, 7, 250, 1); /* a finished turn: the group's 100, the session's 250 */
  ck_assert_double_eq(prefix_cache_tokens(c), 350);
  ck_assert_double_eq(prefix_cache_match(c, 0, 100, 7, 250, 1e9, &gh, NULL), 336); /* floor(350 / 16) x 16 */
  ck_assert(gh);
  ck_assert_double_eq(prefix_cache_match(c, 0, 100, 8, 250, 1e9, &gh, NULL), 96); /* another session: the group */
  ck_assert_double_eq(prefix_cache_match(c, 1, 100, 7, 250, 1e9, &gh, NULL), 0);  /* another group: nothing */
  ck_assert_double_eq(prefix_cache_match(c, 0, 100, 7, 120, 1e9, &gh, NULL), 208); /* history 120: 220 -> 208 */
  ck_assert_double_eq(prefix_cache_match(c, 0, 100, 7, 250, 200, &gh, NULL), 192); /* at most the limit, in blocks */
  /* taking the hit: the session's 250 leave with the request, the group's 100 stay, pinned */
  gboolean pinned;
  ck_assert_double_eq(prefix_cache_take(c, 0, 7, 2, &pinned), 250);
  ck_assert(pinned);
  ck_assert_double_eq(prefix_cache_tokens(c), 100);
  ck_assert_double_eq(prefix_cache_evict(c, 0), 100); /* pinned: it stays */
  prefix_cache_unpin(c, 0);
  /* LRU: three sessions of group 0 put at stamps 3, 4, 5; evicting to 100 + 2 x 50 drops the oldest */
  prefix_cache_put(c, 0, 100, 1, 50, 3);
  prefix_cache_put(c, 0, 100, 2, 50, 4);
  prefix_cache_put(c, 0, 100, 3, 50, 5);
  ck_assert_double_eq(prefix_cache_tokens(c), 250);
  ck_assert_double_eq(prefix_cache_evict(c, 200), 200);
  ck_assert_double_eq(prefix_cache_match(c, 0, 100, 1, 50, 1e9, &gh, NULL), 96);  /* session 1 gone */
  ck_assert_double_eq(prefix_cache_match(c, 0, 100, 2, 50, 1e9, &gh, NULL), 144); /* 150 -> 144 */
  /* each put refreshed the group's entry (stamp 5, as session 3's): at a tie the session goes first,
   * a prefix after what hangs on it. Down to 120: session 2 (200 -> 150, still above), then session
   * 3 (-> 100); the group stays */
  ck_assert_double_eq(prefix_cache_evict(c, 120), 100);
  ck_assert_double_eq(prefix_cache_evict(c, 0), 0); /* then the group */
  ck_assert_double_eq(prefix_cache_match(c, 0, 100, 3, 50, 1e9, &gh, NULL), 0);
}
END_TEST

/* Sessions on one engine with room for every session: the event simulation finds cached what the
 * workload resends. 8 turns of 256 new tokens and 128-token answers behind a 2,048-token prefix
 * (4 groups): turn t resends S + t (U + O), so the share of prompt tokens reused is
 * (S + (N-1)/2 (U+O)) / (S + U + (N-1)/2 (U+O)) = (2048 + 3.5 x 384) / (2048 + 256 + 3.5 x 384)
 * = 3392 / 3648 = 0.9298 (blocks of 1 token here; the groups' first uses are the misses). */
START_TEST(sessions_hit_what_they_resend)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  SimConfig p = params(c, ARRIVAL_CLOSED);
  p.users = 16, p.requests = 4000;
  p.input.mean = 256, p.output.mean = 128;
  p.turns = 8, p.shared_prefix = 2048, p.prefix_groups = 4, p.cache_block = 1;
  ck_assert_close(workload_mean_prompt(&p), 3648, 1e-12);
  ck_assert_close(workload_reuse(&p, FALSE), 3392.0 / 3648, 1e-12);
  SimResult on, off;
  simulate_ok(&p, &e, 1, &on);
  ck_assert_msg(fabs(on.cache_hit_rate - 3392.0 / 3648) < 0.005, "hit rate %g", on.cache_hit_rate);
  p.prefix_cache = FALSE;
  simulate_ok(&p, &e, 1, &off);
  ck_assert(isnan(off.cache_hit_rate));
  /* what is found is not computed: prompts come sooner, the engine serves more */
  ck_assert_msg(on.ttft[0] < 0.5 * off.ttft[0], "TTFT %g s with reuse, %g without", on.ttft[0], off.ttft[0]);
  ck_assert_msg(on.out_tok_s > off.out_tok_s, "%g tok/s with reuse, %g without", on.out_tok_s, off.out_tok_s);
  profile_clear(&prof);
}
END_TEST

/* Four engines, ten-turn sessions over eight shared prefixes: the KV-aware router sends a turn where
 * its session is cached more often than round robin (seeded: the same draws for both), and more
 * often still when the prompt left to compute weighs more against the load (kv_overlap_weight 8). */
START_TEST(kv_aware_routing_finds_more)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  e.model = catalog_model(c, "llama-3.1-8b"), e.gpus = 1;
  double rate[3];
  for (int k = 0; k < 3; k++) {
    SimConfig p = params(c, ARRIVAL_CLOSED);
    p.users = 64, p.requests = 4000, p.seed = 7;
    p.input.mean = 512, p.output.mean = 128;
    p.turns = 10, p.shared_prefix = 1024, p.prefix_groups = 8;
    p.agg.workers = 4;
    p.router = k ? ROUTER_KV_AWARE : ROUTER_ROUND_ROBIN;
    p.kv_overlap_weight = k == 2 ? 8 : 1;
    SimResult sr;
    simulate_ok(&p, &e, 4, &sr);
    rate[k] = sr.cache_hit_rate;
  }
  ck_assert_msg(rate[1] > rate[0] + 0.05, "KV-aware %.3f, round robin %.3f", rate[1], rate[0]);
  ck_assert_msg(rate[2] > rate[1] + 0.05, "KV-aware weighted 8: %.3f, 1: %.3f", rate[2], rate[1]);
  profile_clear(&prof);
}
END_TEST

/* A partly cached prompt: one request of 4,096 tokens whose first 3,072 are a shared prefix a
 * previous request left. Its TTFT is the step of its 1,024 new tokens attending to all 4,096
 * (step_time_prefill_after), not the step of the whole prompt. */
START_TEST(partly_cached_prefill)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  prof.stack[STACK_TRTLLM].request_overhead = 0;
  Engine e = llama_h200(c, &prof);
  SimConfig p = params(c, ARRIVAL_CLOSED);
  p.users = 1, p.requests = 3, p.window = WINDOW_ALL;
  p.input.mean = 1024, p.output.mean = 2;
  p.shared_prefix = 3072, p.cache_block = 1;
  SimResult sr;
  simulate_ok(&p, &e, 1, &sr);
  /* three requests: the first computes 4,096 tokens, the next two 1,024 behind 3,072 cached; the
   * median TTFT is one of theirs */
  double cached_step = step_time_prefill_after(&e, 1, 1024, 3072), whole = step_time_prefill(&e, 1, 4096);
  ck_assert_msg(cached_step < 0.5 * whole, "1,024 new tokens %g s, the whole prompt %g s", cached_step, whole);
  ck_assert_close(sr.ttft[0], cached_step, 0.02);
  ck_assert_close(sr.cache_hit_rate, 2 * 3072.0 / (3 * 4096), 1e-9);
  profile_clear(&prof);
}
END_TEST

/* Offload tiers by hand: block 1, HBM held to what the caller allows, a host tier of 300 tokens and
 * a storage tier of 1,000. Sessions 1-3 of 200 tokens each (no shared prefix) are put at stamps
 * 1-3; HBM down to 200 sends the two oldest to the host (400 > 300: session 1 goes on to storage);
 * a hit then reports where its tokens are, and taking it brings nothing back to HBM (a session's
 * tokens become the request's). */
START_TEST(prefix_cache_tiers_by_hand)
{
  g_autoptr(PrefixCache) c = prefix_cache_new(1);
  prefix_cache_set_tiers(c, 300, 1000, 0);
  for (int k = 1; k <= 3; k++)
    prefix_cache_put(c, -1, 0, k, 200, (guint64)k);
  ck_assert_double_eq(prefix_cache_tokens(c), 600);
  ck_assert_double_eq(prefix_cache_evict(c, 200), 200); /* sessions 1 and 2 leave HBM */
  ck_assert_double_eq(prefix_cache_tier_tokens(c, CACHE_HOST), 200);    /* session 2 (1 was pushed down) */
  ck_assert_double_eq(prefix_cache_tier_tokens(c, CACHE_STORAGE), 200); /* session 1 */
  gboolean gh;
  double tier[CACHE_TIERS];
  ck_assert_double_eq(prefix_cache_match(c, -1, 0, 1, 200, 1e9, &gh, tier), 200);
  ck_assert_double_eq(tier[CACHE_STORAGE], 200);
  ck_assert_double_eq(prefix_cache_match(c, -1, 0, 2, 150, 1e9, &gh, tier), 150); /* history 150 */
  ck_assert_double_eq(tier[CACHE_HOST], 150);
  ck_assert_double_eq(tier[CACHE_HBM] + tier[CACHE_STORAGE], 0);
  gboolean pinned;
  ck_assert_double_eq(prefix_cache_take(c, -1, 2, 4, &pinned), 200);
  ck_assert_double_eq(prefix_cache_tier_tokens(c, CACHE_HOST), 0);
  /* without a host tier, what leaves HBM goes to storage */
  g_autoptr(PrefixCache) d = prefix_cache_new(1);
  prefix_cache_set_tiers(d, 0, 1000, 0);
  prefix_cache_put(d, -1, 0, 1, 200, 1);
  prefix_cache_evict(d, 0);
  ck_assert_double_eq(prefix_cache_tier_tokens(d, CACHE_STORAGE), 200);
  /* and with only a remote store, there; a hit there says so */
  g_autoptr(PrefixCache) r = prefix_cache_new(1);
  prefix_cache_set_tiers(r, 0, 0, 500);
  prefix_cache_put(r, -1, 0, 1, 200, 1);
  prefix_cache_evict(r, 0);
  ck_assert_double_eq(prefix_cache_tier_tokens(r, CACHE_REMOTE), 200);
  ck_assert_double_eq(prefix_cache_match(r, -1, 0, 1, 200, 1e9, &gh, tier), 200);
  ck_assert_double_eq(tier[CACHE_REMOTE], 200);
}
END_TEST

/* 256 users of 10-turn sessions (1,024 new tokens, 256-token answers, behind one of 16 prefixes
 * of 2,048), pausing 5 s between turns: more context than four H100s hold in HBM. */
static SimConfig short_of_hbm(const Catalog *c)
{
  SimConfig p = params(c, ARRIVAL_CLOSED);
  p.users = 256, p.requests = 3000, p.think_time = 5;
  p.input.mean = 1024, p.output.mean = 256;
  p.turns = 10, p.shared_prefix = 2048, p.prefix_groups = 16;
  return p;
}

/* Reload or recompute: Llama 3.3 70B on four H100s (80 GB: 256 users' sessions do not fit in HBM),
 * what leaves HBM sits in host memory. A token's KV is 80 layers x 8 KV heads x 128 x 2 (K and V)
 * bytes of FP8 = 160 KiB, 40 KiB on each GPU of TP4: over the catalog's 55.6 GB/s host link a
 * thousand tokens come back in 0.74 ms, far sooner than their prefill: they are reloaded. Over a
 * link of 1 MB/s they would take 41 s: they are computed again, and nothing counts as reloaded. A
 * remote store of 100 GB per GPU over the 400 Gb/s NICs (50 GB/s) serves the same way. */
START_TEST(reload_or_recompute)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  SystemSpec sys = *catalog_system(c, "h100-sxm-hgx8");
  Engine e = llama_h200(c, &prof);
  e.sys = &sys, e.gpus = 4;
  double host_rate[2], hit[2];
  for (int slow = 0; slow < 2; slow++) {
    sys.host_bandwidth = slow ? 1e6 : 55.6e9;
    SimConfig p = short_of_hbm(c);
    p.cache_host = 0.5;
    SimResult sr;
    simulate_ok(&p, &e, 1, &sr);
    host_rate[slow] = sr.cache_host_rate, hit[slow] = sr.cache_hit_rate;
  }
  ck_assert_msg(host_rate[0] > 0.2, "reloaded from host memory: %g of prompt tokens", host_rate[0]);
  ck_assert_double_eq(host_rate[1], 0);
  ck_assert_msg(hit[0] > hit[1] + 0.2, "hit rate %g reloading, %g recomputing", hit[0], hit[1]);
  sys.host_bandwidth = 55.6e9;
  SimConfig p = short_of_hbm(c);
  p.cache_remote = 100e9;
  SimResult sr;
  simulate_ok(&p, &e, 1, &sr);
  ck_assert_msg(sr.cache_remote_rate > 0.2 && isnan(sr.cache_host_rate), "remote %g", sr.cache_remote_rate);
  profile_clear(&prof);
}
END_TEST

/* A trace that carries its sessions and shared prefix: three turns of session 5 ten seconds apart
 * (each done before the next), the last two resending the turn before, and a request of another
 * session sharing only the 300-token prefix of group 2. Blocks of one token: turn 2 finds its
 * history, turn 1's 1,000 + 100 = 1,100 tokens; turn 3 finds 1,300 + 100 = 1,400; the fourth
 * request finds the prefix, 300. Hit rate (0 + 1,100 + 1,400 + 300) / (1,000 + 1,300 + 1,600 + 500)
 * = 2,800 / 4,400. */
START_TEST(trace_sessions)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  g_autofree char *dir = test_tmpdir();
  g_autofree char *path = g_build_filename(dir, "s.csv", NULL);
  ck_assert(g_file_set_contents(path, "arrival_s,input_tokens,output_tokens,session,prefix_group,prefix_tokens\n"
                                      "0,1000,100,5,2,300\n10,1300,100,5,2,300\n20,1600,100,5,2,300\n"
                                      "30,500,100,6,2,300\n", -1, NULL));
  SimConfig p = params(c, ARRIVAL_TRACE);
  p.trace = path, p.window = WINDOW_ALL, p.cache_block = 1;
  SimResult sr;
  simulate_ok(&p, &e, 1, &sr);
  ck_assert_close(sr.cache_hit_rate, 2800.0 / 4400, 1e-9);
  /* a prefix as long as the prompt is refused with its place */
  ck_assert(g_file_set_contents(path, "arrival_s,input_tokens,output_tokens,prefix_tokens\n0,100,10,100\n", -1, NULL));
  g_autofree char *why2 = serving_simulate(&p, &e, 1, NULL, 0, FALSE, &sr);
  ck_assert_msg(why2 && strstr(why2, "s.csv:2:4: prefix_tokens: expected a whole number of tokens below input_tokens"),
                "%s", why2 ? why2 : "");
  p.trace = NULL;
  profile_clear(&prof);
}
END_TEST

/* Many engines: 200 identical aggregated engines behind round robin serve what one engine serves
 * with a two-hundredth of the users, 200 times over (each engine's steps come out of the heap of
 * engines in flight in the same order as alone); least-loaded routing does not herd the users onto
 * a few engines (ties take turns): within 20% of round robin's throughput. */
START_TEST(many_engines)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  e.model = catalog_model(c, "llama-3.1-8b"), e.gpus = 1;
  SimConfig p = params(c, ARRIVAL_CLOSED);
  p.users = 32, p.requests = 400;
  varied_lengths(&p);
  SimResult one, many, ll;
  simulate_ok(&p, &e, 1, &one);
  p.users = 32 * 200, p.requests = 400 * 200, p.agg.workers = 200, p.router = ROUTER_ROUND_ROBIN;
  simulate_ok(&p, &e, 200, &many);
  ck_assert_close(many.out_tok_s, 200 * one.out_tok_s, 0.05);
  ck_assert_close(many.tpot[0], one.tpot[0], 0.05);
  p.router = ROUTER_LEAST_LOADED;
  simulate_ok(&p, &e, 200, &ll);
  ck_assert_msg(ll.out_tok_s > 0.8 * many.out_tok_s, "least loaded %g tok/s, round robin %g", ll.out_tok_s, many.out_tok_s);
  profile_clear(&prof);
}
END_TEST

/* One-GPU engines of Llama 3.1 8B on H200 running one sequence at a time, fed by the queue router
 * with 16-token prompts and exponential answers of 200 tokens (REQUESTS of them, Poisson): M/M/c
 * servers (erlang_c_floor, classes_and_deadlines). */
static SimConfig one_at_a_time(const Catalog *c, const Profile *prof, Engine *e, int requests)
{
  *e = llama_h200(c, prof);
  e->model = catalog_model(c, "llama-3.1-8b"), e->gpus = 1;
  SimConfig p = params(c, ARRIVAL_POISSON);
  p.requests = requests;
  p.input = (LengthSpec){ .dist = DIST_FIXED, .mean = 16, .min = 1, .max = 16 };
  p.output = (LengthSpec){ .dist = DIST_EXPONENTIAL, .mean = 200, .min = 1, .max = 131072 };
  p.agg.max_batch = 1;
  p.router = ROUTER_QUEUE;
  return p;
}

/* The front end's time per prompt token (request_token_overhead): 2,000-token prompts, one
 * request at a time on each of 64 engines (nobody waits), 5 us a token: every request reaches its
 * engine 2,000 x 5 us = 10 ms later, so every TTFT quantile and the mean end-to-end time move by
 * exactly 10 ms, and nothing else does (the same seed draws the same requests). Served through
 * Dynamo's front end at 1 us a token the stack's 5 us are off the path: 2,000 x 1 us = 2 ms. */
START_TEST(front_end_per_prompt_token)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e;
  SimConfig p = one_at_a_time(c, &prof, &e, 2000);
  p.input = (LengthSpec){ .dist = DIST_FIXED, .mean = 2000, .min = 1, .max = 2000 };
  p.rate = 1;
  SimResult base, slower;
  simulate_ok(&p, &e, 64, &base);
  prof.stack[STACK_TRTLLM].request_token_overhead = 5e-6;
  simulate_ok(&p, &e, 64, &slower);
  for (int q = 0; q < 3; q++)
    ck_assert_msg(fabs(slower.ttft[q] - base.ttft[q] - 0.010) < 1e-9, "TTFT quantile %d: %g -> %g s", q,
                  base.ttft[q], slower.ttft[q]);
  ck_assert(fabs(slower.mean_e2e - base.mean_e2e - 0.010) < 1e-9);
  ck_assert(fabs(slower.tpot[0] - base.tpot[0]) < 1e-12);
  SimResult dynamo;
  prof.dynamo_token_overhead = 1e-6;
  e.dynamo_front = TRUE;
  simulate_ok(&p, &e, 64, &dynamo);
  for (int q = 0; q < 3; q++)
    ck_assert_msg(fabs(dynamo.ttft[q] - base.ttft[q] - 0.002) < 1e-9, "TTFT quantile %d: %g -> %g s", q,
                  base.ttft[q], dynamo.ttft[q]);
  profile_clear(&prof);
}
END_TEST

/* Erlang C: engines that run one sequence at a time, fed by a Poisson stream through the queue
 * router (one queue, the first engine free takes the oldest), with exponential answers, are an
 * M/M/c queue. c = 4 servers at utilisation 0.8 (a = lambda / mu = 3.2 erlangs):
 *   sum_{k<4} a^k/k! = 1 + 3.2 + 5.12 + 5.461 = 14.781;  a^4/4! x c/(c-a) = 4.369 x 5 = 21.845;
 *   C(4, 3.2) = 21.845 / (14.781 + 21.845) = 0.5964 (a request waits with that probability);
 *   mean wait W = C / (c mu - lambda) = 0.5964 / (0.8 mu) = 0.7455 / mu;
 *   90th percentile of the wait: P(W > t) = C e^{-(c mu - lambda) t} = 0.1 at t = ln(5.964) / (0.8 mu)
 *   = 2.232 / mu.
 * Within 5% (60,000 requests; they agree to 1%).
 * The service time 1/mu is the simulation's own: the same requests (same seed, so the same lengths)
 * on 64 engines, where nobody waits, take front end + service; the difference is the queue's. */
START_TEST(erlang_c_floor)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e;
  SimConfig p = one_at_a_time(c, &prof, &e, 60000);
  SimResult free_run, queued;
  p.rate = 1; /* a first guess; the service time does not depend on it with no queue */
  simulate_ok(&p, &e, 64, &free_run);
  double front = prof.stack[STACK_TRTLLM].request_overhead;
  double service = free_run.mean_e2e - front;
  ck_assert(service > 0.5 && service < 5);
  double mu = 1 / service;
  p.rate = 0.8 * 4 * mu;
  simulate_ok(&p, &e, 64, &free_run);
  service = free_run.mean_e2e - front; /* the same requests at the rate used below */
  simulate_ok(&p, &e, 4, &queued);
  double wait = queued.mean_e2e - free_run.mean_e2e;
  ck_assert_msg(fabs(wait / (0.7455 * service) - 1) < 0.05, "mean wait %g s, Erlang C %g s", wait, 0.7455 * service);
  /* the 90th percentile of TTFT is the front end, a 16-token prompt's step and the wait's */
  double p90 = queued.ttft[1] - free_run.ttft[1];
  ck_assert_msg(fabs(p90 / (2.232 * service) - 1) < 0.05, "p90 wait %g s, Erlang C %g s", p90, 2.232 * service);
  /* least-loaded routing sends each request to an engine at once (a queue per engine): it waits more */
  SimResult jsq;
  p.router = ROUTER_LEAST_LOADED;
  simulate_ok(&p, &e, 4, &jsq);
  ck_assert_msg(jsq.mean_e2e - free_run.mean_e2e > 1.05 * wait, "queue per engine %g s, one queue %g s",
                jsq.mean_e2e - free_run.mean_e2e, wait);
  profile_clear(&prof);
}
END_TEST

/* Failures: four one-GPU engines (Llama 3.1 8B on H200) at 4 req/s, GPUs failing at a mean of
 * 3,000 s (nodes never), repairs longer than the run. The simulation's failure stream is its own
 * (GRand seeded with seed ^ 0x5eed1e55), so the times are worked out here the same way: engine k
 * fails at t_k = -ln(1 - u_k) x 3,000 s; the engines' share of the run in service is
 * 1 - sum over t_k < T of (T - t_k) / (4 T). With retries every request is served by the engines
 * left (the failed engine's load moves to the others: served = offered, nothing lost); without,
 * the requests on it at the failure are lost, and every request is either served or lost. */
START_TEST(failure_moves_load)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  e.model = catalog_model(c, "llama-3.1-8b"), e.gpus = 1;
  SimConfig p = params(c, ARRIVAL_POISSON);
  p.seed = 2, p.rate = 4, p.duration = 1200, p.requests = 1 << 30, p.window = WINDOW_ALL;
  p.input.mean = 512, p.output.mean = 128;
  p.failures = TRUE, p.retry = TRUE, p.gpu_mtbf = 3000, p.node_mtbf = 1e15, p.repair_time = 1e6;
  GRand *r = g_rand_new_with_seed((guint32)p.seed ^ 0x5eed1e55u);
  double out = 0;
  int failed = 0;
  for (int k = 0; k < 4; k++) {
    double t = -log(1.0 - g_rand_double(r)) / (1 / 3000.0 + 1 / 1e15);
    if (t < 1200)
      out += 1200 - t, failed++;
  }
  g_rand_free(r);
  ck_assert_msg(failed >= 1 && failed <= 3, "seed 2: %d engines fail before 1,200 s (one must stay)", failed);
  SimResult res;
  simulate_ok(&p, &e, 4, &res);
  ck_assert_double_eq(res.failures, failed);
  ck_assert_close(res.availability, 1 - out / (4 * 1200), 5e-4); /* the run ends at its last event, just short of T */
  ck_assert_double_eq(res.lost, 0);
  ck_assert(res.retried >= 1);
  ck_assert(!res.unstable);
  ck_assert_close(res.req_s, 4, 0.06); /* 4,800 arrivals: 4 sd = 5.8% */
  /* without retries the failed engine's requests are lost: served + lost = offered, less the few
   * in flight at the end */
  p.retry = FALSE;
  SimResult lost;
  simulate_ok(&p, &e, 4, &lost);
  ck_assert(lost.lost >= 1 && lost.retried == 0);
  ck_assert(!lost.unstable); /* the lost leave the count in flight */
  ck_assert_int_le(abs((int)(lost.measured + lost.lost) - (int)lost.arrivals), 60);
  ck_assert_int_le(lost.measured + (guint)lost.lost, lost.arrivals);
  /* the window is the whole run (WINDOW_ALL): every lost request is in it, and the lost share is
   * lost over answered + lost; with retries none */
  ck_assert_close(lost.lost_share, lost.lost / (lost.measured + lost.lost), 1e-12);
  ck_assert_double_eq(res.lost_share, 0);
  profile_clear(&prof);
}
END_TEST

/* A mixed demand (workload.mix): classes drawn by share, each counted on its own; the queue router
 * serves the earliest deadline first. Four one-sequence engines at utilisation ~0.85 (as in
 * erlang_c_floor) and two classes of the same lengths: with limits 1 s and 60 s the 1 s class goes
 * first and waits far less (its p90 TTFT under 0.7x the other's); with equal limits the order is
 * arrival order and the two wait alike (within 20%). Shares: 30% of 40,000 requests, within 4
 * standard deviations (4 sqrt(40000 x 0.3 x 0.7) / 12,000 = 3.1%). */
START_TEST(classes_and_deadlines)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e;
  SimConfig p = one_at_a_time(c, &prof, &e, 40000);
  p.rate = 0.85 * 4 / 0.746; /* the service time erlang_c_floor measures: 0.746 s */
  SimResult urgent, alike;
  p.mix = "urgent 30% 16 200 1 s; batch 70% 16 200 60 s";
  simulate_ok(&p, &e, 4, &urgent);
  ck_assert_uint_eq(urgent.n_classes, 2);
  double share = (double)urgent.classes[0].measured / (urgent.classes[0].measured + urgent.classes[1].measured);
  ck_assert_msg(fabs(share - 0.3) < 0.031 * 0.3 * 4, "urgent share %g", share);
  ck_assert_uint_eq(urgent.classes[0].measured + urgent.classes[1].measured, urgent.measured);
  ck_assert_msg(urgent.classes[0].ttft[1] < 0.7 * urgent.classes[1].ttft[1], "urgent p90 TTFT %g s, batch %g s",
                urgent.classes[0].ttft[1], urgent.classes[1].ttft[1]);
  p.mix = "urgent 30% 16 200 30 s; batch 70% 16 200 30 s";
  simulate_ok(&p, &e, 4, &alike);
  ck_assert_close(alike.classes[0].ttft[1], alike.classes[1].ttft[1], 0.2);
  profile_clear(&prof);
}
END_TEST

/* An NVL72 domain running degraded: four TP8 engines of Llama 3.3 70B on GB200 (32 GPUs, one
 * domain), switch trays failing at a mean of 100 s each (nine of them: one in 11.1 s), engines and
 * nodes never, repairs after the run. The failure stream draws the engines' times first (four
 * draws), then the domain's first tray: t1 = -ln(1 - u5) x 100 / 9 s; from then on the domain
 * runs degraded, so the engines' share of the run degraded is (T - t1) / T, T the run's end. Trays
 * go on failing down to the last one (1/9 of the bandwidth), and the engines serve on, slower. */
START_TEST(degraded_domain)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e = llama_h200(c, &prof);
  e.sys = catalog_system(c, "gb200-nvl72");
  SimConfig p = params(c, ARRIVAL_CLOSED);
  p.users = 64, p.requests = 1 << 30, p.duration = 300, p.window = WINDOW_ALL;
  SimResult whole, degraded;
  simulate_ok(&p, &e, 4, &whole);
  p.failures = TRUE, p.retry = TRUE, p.gpu_mtbf = p.node_mtbf = 1e15, p.tray_mtbf = 100, p.repair_time = 1e6;
  simulate_ok(&p, &e, 4, &degraded);
  GRand *r = g_rand_new_with_seed((guint32)p.seed ^ 0x5eed1e55u);
  for (int k = 0; k < 4; k++)
    g_rand_double(r);
  double t1 = -log(1.0 - g_rand_double(r)) * 100 / 9;
  g_rand_free(r);
  ck_assert(t1 < 300);
  ck_assert_close(degraded.degraded, (300 - t1) / 300, 2e-3); /* T: the last event, just short of 300 s */
  ck_assert(degraded.tray_failures >= 8); /* at most 8 of 9 down: the ninth stands for the domain */
  ck_assert_double_eq(degraded.failures, 0);
  ck_assert_double_eq(degraded.availability, 1);
  ck_assert_msg(degraded.tpot[0] > 1.02 * whole.tpot[0], "TPOT %g s degraded, %g s whole", degraded.tpot[0], whole.tpot[0]);
  profile_clear(&prof);
}
END_TEST

/* One-GPU engines of Llama 3.1 8B on H200 (E), 16 slots each, at 4 req/s of exponential 200-token
 * answers for DURATION s, every request counted: a light load a few engines hold
 * (autoscaler_parks_and_wakes, maintenance_rolls_through). */
static SimConfig light_load(const Catalog *c, const Profile *prof, Engine *e, double duration)
{
  *e = llama_h200(c, prof);
  e->model = catalog_model(c, "llama-3.1-8b"), e->gpus = 1;
  SimConfig p = params(c, ARRIVAL_POISSON);
  p.rate = 4, p.duration = duration, p.requests = 1 << 30, p.window = WINDOW_ALL;
  p.output = (LengthSpec){ .dist = DIST_EXPONENTIAL, .mean = 200, .min = 1, .max = 131072 };
  p.agg.max_batch = 16;
  return p;
}

/* The autoscaler: eight one-GPU engines (Llama 3.1 8B on H200, 16 slots each) at 4 req/s of
 * 200-token answers: about 4 x 2 s = 8 requests in the system, which one engine holds at 70% of
 * its slots (8 / 11.2 < 1). Every minute it parks one more (a tenth of the serving ones, at least
 * one) as soon as it empties: the k-th parked after k minutes, seven of them over 30 minutes, so the
 * engines' share of the run parked is sum_{k=1..7} (1,800 - 60 k) / (8 x 1,800) = 10,920 / 14,400 =
 * 0.758 (a parked engine first finishes its last requests: within 1%). Every request is served; the
 * GPUs draw less. When the demand then grows eightfold it wakes engines again (after their 2 minutes
 * of loading weights): more serve at the end than the one left before. */
START_TEST(autoscaler_parks_and_wakes)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e;
  SimConfig p = light_load(c, &prof, &e, 1800);
  SimResult all, scaled;
  simulate_ok(&p, &e, 8, &all);
  p.autoscale = TRUE, p.autoscale_interval = 60, p.autoscale_target = 0.7, p.autoscale_start = 120, p.autoscale_min = 1;
  simulate_ok(&p, &e, 8, &scaled);
  ck_assert_close(scaled.parked, 10920.0 / 14400, 0.01);
  ck_assert(!scaled.unstable);
  ck_assert_close(scaled.req_s, all.req_s, 0.02);
  ck_assert_msg(scaled.gpu_activity < all.gpu_activity, "activity %g parked, %g not", scaled.gpu_activity, all.gpu_activity);
  /* then eightfold from minute 15: engines wake */
  p.curve = "1 8", p.curve_period = 900;
  g_autoptr(GArray) series = g_array_new(FALSE, FALSE, sizeof(SeriesRow));
  p.series = series, p.series_interval = 60;
  SimResult grown;
  simulate_ok(&p, &e, 8, &grown);
  double before = g_array_index(series, SeriesRow, 13).serving_engines; /* minute 14 */
  double after = g_array_index(series, SeriesRow, series->len - 1).serving_engines;
  ck_assert_msg(after > before, "%g engines serve at the end, %g before the demand grew", after, before);
  profile_clear(&prof);
}
END_TEST

/* Planned maintenance rolls through eight one-GPU engines serving 4 req/s for two hours: each is out
 * 6 minutes an hour, its turns at 3600 (k + 0.5) / 8 s (225, 675, ... 3375 s) and an hour after each
 * (drained first: seconds at this load). Fifteen turns end within the run and the sixteenth (engine 7
 * at ~6975 s) is cut at 7200 s after 225 s: 15 x 360 + 225 = 5,625 engine-seconds of 57,600, a share
 * of 0.0977 (within 2%: the drains move the turns by seconds); availability is the rest, and the
 * other engines serve what was offered. */
START_TEST(maintenance_rolls_through)
{
  g_autoptr(Catalog) c = shipped_catalog();
  Profile prof;
  profile_defaults(&prof);
  Engine e;
  SimConfig p = light_load(c, &prof, &e, 7200);
  SimResult plain, kept;
  simulate_ok(&p, &e, 8, &plain);
  ck_assert(isnan(plain.maintenance));
  p.maint_interval = 3600, p.maint_duration = 360;
  simulate_ok(&p, &e, 8, &kept);
  ck_assert_double_eq(kept.maintenances, 16);
  ck_assert_close(kept.maintenance, 5625.0 / 57600, 0.02);
  ck_assert_double_eq_tol(kept.availability, 1 - kept.maintenance, 1e-12);
  ck_assert(!kept.unstable);
  ck_assert_close(kept.req_s, plain.req_s, 0.01);
  profile_clear(&prof);
}
END_TEST

/* Past 2^21 measured requests the latencies fold into 0.1%-wide log bins: memory stays bounded and
 * the quantiles stay within 0.1%. Three million requests with TTFT k us (k = 1..3,000,000, after a
 * window opened at t = 0): the median is 1.5 s, the 90th percentile 2.7 s, the 99th 2.97 s. */
START_TEST(metrics_fold_into_histograms)
{
  MetricsConfig mc = { .start = 0, .target = 3000000 };
  g_autoptr(Metrics) m = metrics_new(&mc);
  for (int k = 1; k <= 3000000; k++) {
    metrics_arrived(m, 0);
    metrics_completed(m, 10, 0, k * 1e-6, 1);
  }
  MetricsSummary s;
  metrics_summary(m, 10, &s);
  ck_assert_uint_eq(s.measured, 3000000);
  ck_assert_close(s.ttft[0], 1.5, 1e-3);
  ck_assert_close(s.ttft[1], 2.7, 1e-3);
  ck_assert_close(s.ttft[2], 2.97, 1e-3);
  ck_assert_close(s.e2e[0], 10, 1e-3);
}
END_TEST

/* Demand over time: a base rate of 10 req/s with the curve "1 3 0" over 100 s periods gives 1,000,
 * 3,000 and no arrivals in the three periods of a cycle (a Poisson process of that rate: counts
 * within 4 standard deviations, 4 sqrt(3000) = 219), and the offered mean is 10 x 4/3 req/s. */
START_TEST(demand_curve)
{
  SimConfig p;
  sim_config_defaults(&p);
  p.arrival = ARRIVAL_POISSON, p.rate = 10, p.curve = "1 3 0", p.curve_period = 100;
  Workload w;
  g_autoptr(GError) err = NULL;
  ck_assert(workload_init(&w, &p, &err));
  int count[3] = { 0 };
  for (double t = 0; t < 300;) {
    w.now = t;
    t += workload_gap(&w);
    if (t < 300)
      count[(int)(t / 100)]++;
  }
  ck_assert_msg(abs(count[0] - 1000) < 130 && abs(count[1] - 3000) < 220 && count[2] == 0, "%d %d %d", count[0],
                count[1], count[2]);
  ck_assert_close(workload_curve_share(&p), 4.0 / 3, 1e-12);
  workload_clear(&w);
  p.curve = "1 -2";
  ck_assert(!workload_init(&w, &p, &err));
  ck_assert_msg(strstr(err->message, "got '-2'"), "%s", err->message);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("des");
  TCase *tc = tcase_create("des");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, event_order_is_deterministic);
  tcase_add_test(tc, samplers);
  tcase_add_test(tc, closed_loop_agrees_with_steady_state);
  tcase_add_test(tc, closed_loop_past_its_first_cycle);
  tcase_add_test(tc, poisson_open_loop);
  tcase_add_test(tc, metrics_by_hand);
  tcase_add_test(tc, lost_requests_miss_the_slo);
  tcase_add_test(tc, warmup_counts_the_window_s_tokens);
  tcase_add_test(tc, overload_is_unstable);
  tcase_add_test(tc, judge_load);
  tcase_add_test(tc, trace_replay);
  tcase_add_test(tc, overlap_scheduler_lag);
  tcase_add_test(tc, receive_interval_waits_half);
  tcase_add_test(tc, disaggregated_pools);
  tcase_add_test(tc, disaggregated_handoff);
  tcase_add_test(tc, disaggregated_handoff_steps);
  tcase_add_test(tc, benchmark_client_window);
  tcase_add_test(tc, attention_dp_balancing);
  tcase_add_test(tc, attention_dp_whole_prompts);
  tcase_add_test(tc, batch_waiting);
  tcase_add_test(tc, green_contexts);
  tcase_add_test(tc, planner_rebalances);
  tcase_add_test(tc, fabric_oversubscription);
  tcase_add_test(tc, simgrid_agrees_with_native);
  tcase_add_test(tc, simgrid_platform);
  tcase_add_test(tc, prefix_cache_by_hand);
  tcase_add_test(tc, sessions_hit_what_they_resend);
  tcase_add_test(tc, kv_aware_routing_finds_more);
  tcase_add_test(tc, partly_cached_prefill);
  tcase_add_test(tc, prefix_cache_tiers_by_hand);
  tcase_add_test(tc, reload_or_recompute);
  tcase_add_test(tc, trace_sessions);
  tcase_add_test(tc, many_engines);
  tcase_add_test(tc, front_end_per_prompt_token);
  tcase_add_test(tc, erlang_c_floor);
  tcase_add_test(tc, failure_moves_load);
  tcase_add_test(tc, classes_and_deadlines);
  tcase_add_test(tc, degraded_domain);
  tcase_add_test(tc, autoscaler_parks_and_wakes);
  tcase_add_test(tc, maintenance_rolls_through);
  tcase_add_test(tc, metrics_fold_into_histograms);
  tcase_add_test(tc, demand_curve);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
