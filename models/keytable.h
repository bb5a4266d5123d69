/* keytable.h — declare every YAML key once, in a table, and bind YAML to C structs through it.
 *
 * Scenarios and catalog entries are C structs. Each of their YAML keys is one KtKey row: dotted path,
 * type, unit, default, one-line help, and the offset of the field it fills. The loader, the
 * did-you-mean suggestions, `aifsim help keys` and the reference in docs/scenarios.md all read these
 * rows, so they cannot drift apart (SimGrid declares its flags the same way). */
#ifndef AIF_KEYTABLE_H
#define AIF_KEYTABLE_H

#include <glib.h>
#include <stddef.h>

#include "units.h"
#include "yaml_doc.h"

typedef enum {
  KT_GROUP,  /* a mapping of further keys */
  KT_INT,    /* int */
  KT_NUMBER, /* double in SI, with a unit of key->dim */
  KT_STRING, /* char *, owned by the struct */
  KT_ENUM,   /* an enum field (int-sized: checked in keytable.c), the index into key->choices */
  KT_BOOL,   /* gboolean */
} KtType;

enum {
  KT_REQUIRED = 1u << 0, /* no default: the YAML must give it */
  KT_NOSWEEP = 1u << 1,  /* a list is not a sweep here */
  KT_POSITIVE = 1u << 2, /* > 0 */
  KT_NONNEG = 1u << 3,   /* >= 0 */
  KT_NULLABLE = 1u << 4, /* "null" allowed: the figure does not exist (stored as 0) */
};

typedef struct KtTable KtTable;

typedef struct {
  const char *path;            /* dotted, relative to the table root */
  KtType type;
  UnitDim dim;                 /* KT_NUMBER only */
  const char *def;             /* default as YAML text; NULL: none */
  const char *help;            /* one line */
  size_t offset;               /* field in the bound struct; unused for KT_GROUP */
  const char *const *choices;  /* KT_ENUM: NULL-terminated */
  unsigned flags;
  const char *shorthand;       /* KT_GROUP: the child a plain scalar given for the group sets */
  const KtTable *sub;          /* KT_GROUP: further keys of the group come from this table */
  double max;                  /* KT_INT, KT_NUMBER: the largest value (0: none) */
  int limit;                   /* or an input limit that bounds it (InputLimit + 1: raised by its
                                * environment variable, input_file.h; 0: none) */
} KtKey;

struct KtTable {
  const char *name; /* for messages: "scenario", "hardware", "model" */
  const KtKey *keys;
  size_t n_keys;
};

/* Called for each leaf met by kt_walk. TABLE is the table KEY belongs to and GROUP the path of the
 * group that switched to it (NULL for the walk's own table). VALUE may be a sequence (a sweep). */
typedef gboolean (*KtLeafFunc)(const KtTable *table, const KtKey *key, const char *group, YamlDoc *d,
                               yaml_node_t *value, gpointer user, GError **error);

const KtKey *kt_find(const KtTable *t, const char *path);
/* Walks a YAML mapping, checking every key against the table (unknown keys get a did-you-mean). */
gboolean kt_walk(const KtTable *t, YamlDoc *d, yaml_node_t *mapping, KtLeafFunc leaf, gpointer user,
                 GError **error);
/* Parses NODE (a scalar) as KEY's value into TARGET; range and type errors point at NODE. */
gboolean kt_assign(const KtKey *key, YamlDoc *d, yaml_node_t *node, void *target, GError **error);

void kt_defaults(const KtTable *t, void *target);
void kt_clear(const KtTable *t, void *target);             /* frees owned strings */
void kt_copy(const KtTable *t, void *dst, const void *src); /* *dst = *src with strings duplicated */
/* The value as YAML text (with a unit), newly allocated; NULL for groups. */
char *kt_value_text(const KtKey *key, const void *target);
/* The closest of CANDIDATES (NULL-terminated) to WORD, or NULL when none is close. */
const char *kt_closest(const char *word, const char *const *candidates);



/* Writes TARGET's keys as nested YAML (groups as mappings) at INDENT spaces. TEXT, when given,
 * may return replacement text for a key's value (newly allocated), or NULL to use the value; it
 * sets *skip to leave the key (or a whole group) out. */
typedef char *(*KtTextFunc)(const KtKey *key, gpointer user, gboolean *skip);
void kt_emit_yaml(const KtTable *t, const void *target, GString *out, int indent, KtTextFunc text,
                  gpointer user);
/* The text quoted for YAML when it needs to be (always for the null words: "null" as text). */
char *kt_yaml_quote(const char *s);
/* KEY's value in TARGET as YAML: a text quoted as needed or null when absent, a number with the
 * digits that read back to the bit (units_format_exact), anything else as kt_value_text writes it. */
char *kt_value_yaml(const KtKey *key, const void *target);
/* Sets every number of TARGET to what its 6-digit text (kt_value_text) reads back as: a file of
 * fitted figures written after it stays short and reads back as the figures in use. */
void kt_round_numbers(const KtTable *t, void *target);
/* A scalar NODE as YAML that reads back the same: null for a plain null, else the text quoted. */
char *kt_yaml_node(const yaml_node_t *node);

#endif
