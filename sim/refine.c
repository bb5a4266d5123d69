/* refine.c — the most users a point's configuration holds within its limits (see refine.h). */
#include "refine.h"

#include <math.h>
#include <string.h>

/* PT with USERS users evaluated into ROW (initialised here); whether it meets PT's limits. */
static gboolean try_users(const Point *pt, const Profile *prof, int users, ResultRow *row)
{
  Point at = *pt; /* numbers changed, nothing owned */
  at.p.workload.users = users;
  result_row_init(row, pt->index);
  evaluate_point(&at, prof, row);
  return row->status == OUTCOME_OK;
}

/* OUT with no count above LO found yet, searching up to TOP users. */
static void refine_start(const Point *pt, int lo, int top, Refine *out)
{
  memset(out, 0, sizeof *out);
  result_row_init(&out->row, pt->index);
  out->row.status = OUTCOME_UNSUPPORTED;
  out->users = lo;
  out->top = top;
}

/* Bisects (LO, HI) into OUT (started by refine_start), LO having met the limits and HI not. */
static void bisect(const Point *pt, const Profile *prof, int lo, int hi, Refine *out)
{
  while (hi - lo > MAX(1.0, floor(lo * REFINE_RESOLUTION))) {
    int mid = lo + (hi - lo) / 2;
    ResultRow row;
    out->tries++;
    if (try_users(pt, prof, mid, &row)) {
      lo = mid;
      result_row_clear(&out->row);
      out->row = row;
      out->users = mid;
    } else {
      hi = mid;
      result_row_clear(&row);
    }
  }
}

void refine_users(const Point *pt, const Profile *prof, int lo, int hi, Refine *out)
{
  refine_start(pt, lo, hi - 1, out);
  bisect(pt, prof, lo, hi, out);
}

void refine_past_sweep(const Point *pt, const Profile *prof, int lo, Refine *out)
{
  int hi = lo > G_MAXINT / 2 ? G_MAXINT : 2 * lo;
  refine_start(pt, lo, hi, out);
  ResultRow row;
  out->tries++;
  if (try_users(pt, prof, hi, &row)) {
    result_row_clear(&out->row);
    out->row = row;
    out->users = hi;
    return;
  }
  result_row_clear(&row);
  bisect(pt, prof, lo, hi, out);
}
