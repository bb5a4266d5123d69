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

void refine_users(const Point *pt, const Profile *prof, int lo, int hi, Refine *out)
{
  memset(out, 0, sizeof *out);
  result_row_init(&out->row, pt->index);
  out->row.status = OUTCOME_UNSUPPORTED;
  out->users = lo;
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
