/* scenario.h — a scenario file: what to simulate, and the sweep of points it spans.
 *
 * A scenario names a system and an LLM from the catalog (any of their figures may be overridden),
 * a workload, a serving configuration and a factory. Any key may be given as a list: the scenario
 * then spans the cross product of its lists, one point per combination (the last list varies
 * fastest), leaving out keys that do not apply to a combination (point_space.h). Every key is declared once, in scenario_table; loading checks every value of every
 * list up front, so a bad value deep in a sweep fails before anything runs. */
#ifndef AIF_SCENARIO_H
#define AIF_SCENARIO_H

#include "catalog.h"
#include "keytable.h"
#include "params.h"



/* One key given in the file, with the values it takes (one, or several for a sweep). */
typedef struct {
  const KtTable *table;  /* scenario_table, hardware_table or llm_table */
  const KtKey *key;
  char *group;           /* "system" or "model" for catalog overrides, else NULL */
  GArray *values;        /* int: node indices in the scenario's document (indices, not pointers:
                          * ranges and overrides add nodes, and the document's node array moves) */
  int range;             /* node index of a {from, to, step|factor} mapping still to expand; 0 none */
} Axis;

typedef struct PointSpace PointSpace;

typedef struct Scenario {
  YamlDoc *doc;
  char *dir;            /* folder of the scenario file: relative paths start there */
  GPtrArray *axes;      /* Axis *, in file order */
  PointSpace *space;    /* which combinations of the axes' values are points (point_space.h) */
  int auto_axes;        /* parallelism auto: index of its generated TP axis (EP and attention-DP
                         * follow), else -1 */
  gsize n_points;
  /* deployments sharing the floor with each point's (the scenario's deployments: list): per
   * deployment a GPtrArray of Axis *, single values laid over the point's */
  GPtrArray *deployments;
} Scenario;

/* One point of the sweep, resolved against the catalog. */
typedef struct Point {
  gsize index;
  ScenarioParams p;
  SystemSpec system;
  LlmSpec model;
  char *swept;          /* the point's values of the swept keys results have no column for,
                         * "key=value; ..." (empty when none) */
  /* the other deployments on its floor (deployments:), each the point with its keys laid over */
  struct Point *others;
  guint n_others;
} Point;

/* Most deployments on one floor: the point's and seven more. */
#define SCENARIO_MAX_DEPLOYMENTS 8

extern const KtTable scenario_table;

Scenario *scenario_load(const char *path, const Catalog *catalog, GError **error);
/* The scenario in TEXT, named NAME in messages (a scenario made in memory: `aifsim estimate`). */
Scenario *scenario_load_text(const char *name, const char *text, const Catalog *catalog, GError **error);
void scenario_free(Scenario *s);
/* workload.arrival.curve's TEXT as its multipliers (double), or NULL with *WHY (newly allocated);
 * and their mean, the share of the base rate offered over a whole cycle. */
GArray *scenario_curve_parse(const char *text, char **why);
double scenario_curve_mean(const GArray *curve);
/* workload.mix's TEXT as its classes (MixClass, shares made to add up to 1), or NULL with *WHY. */
GArray *scenario_mix_parse(const char *text, char **why);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Scenario, scenario_free)

/* Sets scenario key PATH to VALUE for every point (as if the file said so), e.g. the --seed option. */
gboolean scenario_override(Scenario *s, const char *path, const char *value, GError **error);

/* Whether the file gives scenario key PATH several values (a list or a range): a swept key. */
gboolean scenario_sweeps(const Scenario *s, const char *path);

/* Builds point INDEX (0 <= INDEX < n_points) into OUT; free with point_clear. */
void scenario_point(const Scenario *s, const Catalog *catalog, gsize index, Point *out);
void point_clear(Point *pt);

/* The scenario with every default and catalog value filled in, as YAML text. */
char *scenario_resolved_yaml(const Scenario *s, const Catalog *catalog);

#endif
