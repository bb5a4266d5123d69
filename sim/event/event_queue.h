/* event_queue.h — the discrete-event core: a binary heap of events ordered by (time, sequence).
 *
 * The sequence number breaks ties in insertion order, so two events at the same time always run in
 * the same order and a simulation is reproducible bit for bit. The queue holds no global state: a
 * sweep runs many simulations in one process. */
#ifndef AIF_EVENT_QUEUE_H
#define AIF_EVENT_QUEUE_H

#include <glib.h>

typedef struct {
  double time;   /* s */
  guint64 seq;   /* insertion order: the tie-break */
  int kind;      /* what happens (the simulation's own enum) */
  int who;       /* which engine, user or request it concerns */
} Event;

typedef struct {
  GArray *heap;  /* Event, a binary min-heap on (time, seq) */
  guint64 next_seq;
} EventQueue;

void event_queue_init(EventQueue *q);
void event_queue_clear(EventQueue *q);
void event_queue_push(EventQueue *q, double time, int kind, int who);
/* Removes the earliest event into *OUT; FALSE when the queue is empty. */
gboolean event_queue_pop(EventQueue *q, Event *out);
guint event_queue_size(const EventQueue *q);

#endif
