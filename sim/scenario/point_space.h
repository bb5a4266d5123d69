/* point_space.h — which combinations of a scenario's values are points.
 *
 * A scenario spans the cross product of its lists, except that a key which does not apply to a
 * combination is not multiplied into it: the disaggregated pools' keys do not apply to an
 * aggregated point (nor the aggregated engine's to a disaggregated one, unless parallelism: auto
 * shapes the decode pool with them), the users of a closed loop not to an open one, the rate not to
 * a closed loop, speculative decoding's keys not without it, the planner's not with the planner
 * off. The keys that decide (the selectors: serving.mode, workload.arrival.kind, ...) are swept
 * outermost; within each combination of their values, the keys that apply vary as in the plain
 * product (the last list fastest) and the others keep their first value. A scenario without such
 * keys numbers its points exactly as the plain product. */
#ifndef AIF_POINT_SPACE_H
#define AIF_POINT_SPACE_H

#include <glib.h>

typedef struct Scenario Scenario;
typedef struct PointSpace PointSpace;

/* The space of S's points as its axes stand now (call again after an override). */
PointSpace *point_space_new(const Scenario *s);
void point_space_free(PointSpace *ps);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PointSpace, point_space_free)

/* Points in the space (saturates at G_MAXSIZE: the caller bounds it). */
gsize point_space_size(const PointSpace *ps);
/* The value index of every axis for point INDEX (< point_space_size) into DIGITS (one per axis). */
void point_space_digits(const PointSpace *ps, gsize index, guint *digits);
/* Whether axis I varies in at least one of the space's combinations: a sweep that goes nowhere is
 * worth a warning. */
gboolean point_space_axis_varies(const PointSpace *ps, guint i);

#endif
