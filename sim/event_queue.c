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

void event_queue_push(EventQueue *q, double time, int kind, int who)
{
  Event e = { time, q->next_seq++, kind, who };
  g_array_append_val(q->heap, e);
  Event *h = (Event *)q->heap->data;
  for (guint i = q->heap->len - 1; i > 0;) { /* sift up */
    guint parent = (i - 1) / 2;
    if (!before(&h[i], &h[parent]))
      break;
    Event t = h[i];
    h[i] = h[parent], h[parent] = t;
    i = parent;
  }
}

gboolean event_queue_pop(EventQueue *q, Event *out)
{
  if (q->heap->len == 0)
    return FALSE;
  Event *h = (Event *)q->heap->data;
  *out = h[0];
  h[0] = h[q->heap->len - 1];
  g_array_set_size(q->heap, q->heap->len - 1);
  guint n = q->heap->len;
  for (guint i = 0;;) { /* sift down */
    guint l = 2 * i + 1, r = l + 1, m = i;
    if (l < n && before(&h[l], &h[m]))
      m = l;
    if (r < n && before(&h[r], &h[m]))
      m = r;
    if (m == i)
      break;
    Event t = h[i];
    h[i] = h[m], h[m] = t;
    i = m;
  }
  return TRUE;
}
