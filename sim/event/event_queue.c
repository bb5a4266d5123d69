/* event_queue.c — binary heap on (time, seq) (see event_queue.h). */
#include "event_queue.h"

static gboolean before(const Event *a, const Event *b)
{
  return a->time < b->time || (a->time == b->time && a->seq < b->seq);
}

void event_queue_init(EventQueue *q)
{
  q->heap = g_array_new(FALSE, FALSE, sizeof(Event));
  q->next_seq = 0;
}

void event_queue_clear(EventQueue *q) { g_clear_pointer(&q->heap, g_array_unref); }

guint event_queue_size(const EventQueue *q) { return q->heap->len; }

/* Both sifts move a hole rather than swap pairs: one copy per level instead of three (the queue's
 * pops are the event simulation's largest single cost). */
void event_queue_push(EventQueue *q, double time, int kind, int who)
{
  Event e = { time, q->next_seq++, kind, who };
  g_array_set_size(q->heap, q->heap->len + 1);
  Event *h = (Event *)q->heap->data;
  guint i = q->heap->len - 1;
  while (i > 0) { /* sift the hole up to where E belongs */
    guint parent = (i - 1) / 2;
    if (!before(&e, &h[parent]))
      break;
    h[i] = h[parent];
    i = parent;
  }
  h[i] = e;
}

gboolean event_queue_pop(EventQueue *q, Event *out)
{
  if (q->heap->len == 0)
    return FALSE;
  Event *h = (Event *)q->heap->data;
  *out = h[0];
  guint n = q->heap->len - 1;
  Event last = h[n];
  g_array_set_size(q->heap, n);
  guint i = 0;
  for (;;) { /* sift the hole down to where the last event belongs */
    guint c = 2 * i + 1;
    if (c >= n)
      break;
    if (c + 1 < n && before(&h[c + 1], &h[c]))
      c++;
    if (!before(&h[c], &last))
      break;
    h[i] = h[c];
    i = c;
  }
  if (n > 0)
    h[i] = last;
  return TRUE;
}
