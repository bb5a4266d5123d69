/* test_frontier.c — the Pareto frontier on hand-made point sets: dominated points, ties on one
 * axis, exact duplicates, per-system groups, rows that do not take part. */
#include "test_util.h"
#include "frontier.h"

static ResultRow *row(GPtrArray *rows, const char *system, double user, double mw, OutcomeKind status)
{
  ResultRow *r = g_new(ResultRow, 1);
  result_row_init(r, rows->len);
  r->system = g_strdup(system);
  r->status = status;
  r->tok_s_per_user = user;
  r->tok_s_per_mw = mw;
  g_ptr_array_add(rows, r);
  return r;
}

static void free_rows(GPtrArray *rows)
{
  for (guint i = 0; i < rows->len; i++) {
    result_row_clear(rows->pdata[i]);
    g_free(rows->pdata[i]);
  }
  g_ptr_array_unref(rows);
}

START_TEST(dominated_ties_duplicates)
{
  GPtrArray *rows = g_ptr_array_new();
  ResultRow *a = row(rows, "s", 10, 100, OUTCOME_OK);  /* the fastest per MW */
  ResultRow *b = row(rows, "s", 20, 80, OUTCOME_OK);   /* a trade-off: on */
  ResultRow *c = row(rows, "s", 15, 70, OUTCOME_OK);   /* b beats it on both: off */
  ResultRow *d = row(rows, "s", 20, 60, OUTCOME_OK);   /* same x as b, lower y: off */
  ResultRow *e = row(rows, "s", 30, 80, OUTCOME_OK);   /* same y as b, larger x: on, and b is now dominated */
  ResultRow *f = row(rows, "s", 30, 80, OUTCOME_OK);   /* an exact duplicate of e: on as well */
  ResultRow *g = row(rows, "s", 40, 10, OUTCOME_OK);   /* the most interactive: on */
  ResultRow *h = row(rows, "s", 50, 90, OUTCOME_INFEASIBLE); /* does not take part */
  ResultRow *i = row(rows, "s", NAN, 500, OUTCOME_OK); /* unknown x: does not take part */
  g_autoptr(GError) err = NULL;
  ck_assert(frontier_mark(rows, "tok_s_per_user", "tok_s_per_mw", TRUE, &err));
  ck_assert_int_eq(a->on_frontier, 1);
  ck_assert_int_eq(b->on_frontier, 0);
  ck_assert_int_eq(c->on_frontier, 0);
  ck_assert_int_eq(d->on_frontier, 0);
  ck_assert_int_eq(e->on_frontier, 1);
  ck_assert_int_eq(f->on_frontier, 1);
  ck_assert_int_eq(g->on_frontier, 1);
  ck_assert_int_eq(h->on_frontier, -1);
  ck_assert_int_eq(i->on_frontier, -1);
  free_rows(rows);
}
END_TEST

START_TEST(per_system_or_all)
{
  GPtrArray *rows = g_ptr_array_new();
  ResultRow *h = row(rows, "hopper", 10, 10, OUTCOME_OK);
  ResultRow *b = row(rows, "blackwell", 20, 100, OUTCOME_OK);
  g_autoptr(GError) err = NULL;
  ck_assert(frontier_mark(rows, "tok_s_per_user", "tok_s_per_mw", TRUE, &err));
  ck_assert_int_eq(h->on_frontier, 1); /* best of its own system */
  ck_assert_int_eq(b->on_frontier, 1);
  ck_assert(frontier_mark(rows, "tok_s_per_user", "tok_s_per_mw", FALSE, &err));
  ck_assert_int_eq(h->on_frontier, 0); /* dominated once systems compete */
  ck_assert_int_eq(b->on_frontier, 1);
  /* any two numeric columns; a text column is refused */
  ck_assert(frontier_mark(rows, "tok_s_per_mw", "tok_s_per_user", FALSE, &err));
  ck_assert(!frontier_mark(rows, "system", "tok_s_per_user", FALSE, &err));
  ck_assert_str_eq(err->message, "no numeric result column 'system' (see docs/results.md)");
  free_rows(rows);
}
END_TEST

/* The sort-based frontier agrees with the definition (no other point at least as good on both and
 * better on one) on a few thousand random points with many ties. */
START_TEST(matches_brute_force)
{
  GPtrArray *rows = g_ptr_array_new();
  GRand *rnd = g_rand_new_with_seed(7);
  for (int k = 0; k < 3000; k++)
    row(rows, k % 3 ? "x" : "y", g_rand_int_range(rnd, 0, 60), g_rand_int_range(rnd, 0, 60), OUTCOME_OK);
  g_rand_free(rnd);
  ck_assert(frontier_mark(rows, "tok_s_per_user", "tok_s_per_mw", TRUE, NULL));
  for (guint p = 0; p < rows->len; p++) {
    const ResultRow *a = rows->pdata[p];
    gboolean dominated = FALSE;
    for (guint q = 0; q < rows->len && !dominated; q++) {
      const ResultRow *o = rows->pdata[q];
      dominated = g_strcmp0(o->system, a->system) == 0 && o->tok_s_per_user >= a->tok_s_per_user &&
                  o->tok_s_per_mw >= a->tok_s_per_mw &&
                  (o->tok_s_per_user > a->tok_s_per_user || o->tok_s_per_mw > a->tok_s_per_mw);
    }
    ck_assert_int_eq(a->on_frontier, !dominated);
  }
  free_rows(rows);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("frontier");
  TCase *tc = tcase_create("frontier");
  tcase_add_test(tc, dominated_ties_duplicates);
  tcase_add_test(tc, per_system_or_all);
  tcase_add_test(tc, matches_brute_force);
  suite_add_tcase(s, tc);
  return run_suite(s);
}
