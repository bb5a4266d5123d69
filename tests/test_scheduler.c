/* test_scheduler.c — the stacks' scheduler rules (sim/serving/scheduler.c) on hand-worked step
 * sequences. */
#include "test_util.h"
#include "scheduler.h"

/* Attention-DP balancing, 2 ranks, timeout 3 steps, 2 batching steps. One rank has a prompt, both
 * decode: held at steps 1 and 2, released at step 3 (the counter reaches the timeout). Then both
 * ranks have prompts and both decode: held for the 2 batching steps, released on the third. A rank
 * with nothing to decode releases at once. */
START_TEST(balancing)
{
  StackProfile sp = { .adp_balance_timeout = 3, .adp_batching_wait = 2 };
  PromptHold h = { 0 };
  int ctx_one[2] = { 1, 0 }, ctx_both[2] = { 1, 1 }, gen_both[2] = { 4, 4 }, gen_one[2] = { 4, 0 };
  ck_assert(hold_balance(&h, &sp, 2, ctx_one, gen_both));  /* adp_wait 1 */
  ck_assert(hold_balance(&h, &sp, 2, ctx_one, gen_both));  /* 2 */
  ck_assert(!hold_balance(&h, &sp, 2, ctx_one, gen_both)); /* 3 = timeout: released, counter 0 */
  ck_assert_int_eq(h.adp_wait, 0);
  ck_assert(hold_balance(&h, &sp, 2, ctx_both, gen_both));  /* batching step 1 */
  ck_assert(hold_balance(&h, &sp, 2, ctx_both, gen_both));  /* batching step 2 */
  ck_assert(!hold_balance(&h, &sp, 2, ctx_both, gen_both)); /* batched: released */
  ck_assert(!hold_balance(&h, &sp, 2, ctx_one, gen_one));   /* an idle rank: released at once */
  /* a decode-only run of 5 steps moves the counter on by 5, modulo the timeout: (0 + 5) % 3 = 2 */
  hold_balance_idle(&h, &sp, 2, gen_both, 5);
  ck_assert_int_eq(h.adp_wait, 2);
  ck_assert(!hold_balance(&h, &sp, 1, ctx_one, gen_both)); /* one rank: nothing to balance */
}
END_TEST

/* Batch waiting: timeout 2 steps, release at 80% of a 1,000-token budget. 4 sequences decoding at
 * 1 token each plus 300 prompt tokens = 304 < 800: held for 2 steps, then released by the timeout;
 * 900 tokens release at once; nobody decoding never holds. */
START_TEST(batch_waiting)
{
  StackProfile sp = { .batch_wait_timeout = 2, .batch_wait_tokens = 0.8 };
  PromptHold h = { 0 };
  ck_assert(hold_batch_wait(&h, &sp, 1000, 4, 304));
  ck_assert(hold_batch_wait(&h, &sp, 1000, 4, 304));
  ck_assert(!hold_batch_wait(&h, &sp, 1000, 4, 304));
  ck_assert(!hold_batch_wait(&h, &sp, 1000, 4, 900));
  ck_assert(!hold_batch_wait(&h, &sp, 1000, 0, 304));
}
END_TEST

/* Rank placement on 4 attention-DP ranks. A step in flight prefills one prompt on each of ranks 0
 * and 1 (ranks 2 and 3 idle, nothing decoding); four prompts arrive. TensorRT-LLM's rule (the rank
 * with the fewest sequences, the first of equals): rank 2, then 3 (2 has one now), then 0, 1 (all
 * at one, then 0 at two): counting the step in flight puts the next step's two prompts on ranks 2
 * and 3 and none on 0 and 1 once they finish. SGLang's turn, from 5: 5 % 4 = 1, then 2, 3, 0, its
 * turn then at 1, whatever the ranks hold. */
START_TEST(rank_placement)
{
  int ctx[4] = { 1, 1, 0, 0 }, gen[4] = { 0, 0, 0, 0 }, next = 0;
  const int fewest[4] = { 2, 3, 0, 1 };
  for (int k = 0; k < 4; k++) {
    int r = rank_place(rank_policy(STACK_TRTLLM), &next, 4, ctx, gen);
    ck_assert_int_eq(r, fewest[k]);
    ctx[r]++;
  }
  ck_assert_int_eq(next, 0); /* the turn is SGLang's alone */
  next = 5;
  const int turn[4] = { 1, 2, 3, 0 };
  for (int k = 0; k < 4; k++)
    ck_assert_int_eq(rank_place(rank_policy(STACK_SGLANG), &next, 4, ctx, gen), turn[k]);
  ck_assert_int_eq(next, 1);
  ck_assert_int_eq(rank_policy(STACK_VLLM), RANKS_FEWEST);
}
END_TEST

/* SGLang's receive interval of 3 steps, no overlap: a request reaching a busy engine waits in the
 * inbox; decode steps count 1, 2 (not yet), 3 (looked: it joins the waiting queue). A step with
 * prompt work looks at once. An idle engine sees arrivals directly. */
START_TEST(receive_interval)
{
  Receiver r;
  receiver_init(&r);
  receiver_set_policy(&r, 3, FALSE);
  GQueue waiting = G_QUEUE_INIT;
  GQueue *q = receiver_arrival(&r, TRUE, &waiting);
  ck_assert_ptr_eq(q, &r.inbox);
  g_queue_push_tail(q, GINT_TO_POINTER(7));
  ck_assert_int_eq(receiver_steps_to_look(&r), 3);
  receiver_after_step(&r, FALSE, 1, FALSE, &waiting);
  receiver_after_step(&r, FALSE, 1, FALSE, &waiting);
  ck_assert(g_queue_is_empty(&waiting));
  ck_assert_int_eq(receiver_steps_to_look(&r), 1);
  receiver_after_step(&r, FALSE, 1, FALSE, &waiting);
  ck_assert_int_eq(g_queue_get_length(&waiting), 1);
  g_queue_push_tail(&r.inbox, GINT_TO_POINTER(8));
  receiver_after_step(&r, TRUE, 1, FALSE, &waiting); /* prompt work: looks at once */
  ck_assert_int_eq(g_queue_get_length(&waiting), 2);
  ck_assert_ptr_eq(receiver_arrival(&r, FALSE, &waiting), &waiting);
  g_queue_clear(&waiting);
  receiver_clear(&r);
}
END_TEST

/* The overlap scheduler: a request reaching a busy engine during step k (fresh) is deferred when
 * step k ends (the batch of step k+1 was formed when k began) and joins the batch formed when step
 * k+1 ends. */
START_TEST(overlap)
{
  Receiver r;
  receiver_init(&r);
  receiver_set_policy(&r, 1, TRUE);
  GQueue waiting = G_QUEUE_INIT;
  g_queue_push_tail(receiver_arrival(&r, TRUE, &waiting), GINT_TO_POINTER(1));
  ck_assert(receiver_lagging(&r));
  receiver_after_step(&r, FALSE, 1, FALSE, &waiting); /* step k ends: fresh -> deferred */
  ck_assert(g_queue_is_empty(&waiting));
  ck_assert_int_eq(g_queue_get_length(&r.deferred), 1);
  receiver_after_step(&r, FALSE, 1, FALSE, &waiting); /* step k+1 ends: deferred -> waiting */
  ck_assert_int_eq(g_queue_get_length(&waiting), 1);
  ck_assert(!receiver_lagging(&r));
  g_queue_push_tail(receiver_arrival(&r, TRUE, &waiting), GINT_TO_POINTER(2));
  receiver_spin(&r, &waiting); /* nothing to run: the idle loop sees it at once */
  ck_assert_int_eq(g_queue_get_length(&waiting), 2);
  g_queue_clear(&waiting);
  receiver_clear(&r);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("scheduler");
  TCase *tc = tcase_create("scheduler");
  tcase_add_test(tc, balancing);
  tcase_add_test(tc, batch_waiting);
  tcase_add_test(tc, rank_placement);
  tcase_add_test(tc, receive_interval);
  tcase_add_test(tc, overlap);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
