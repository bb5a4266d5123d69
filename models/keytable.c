/* keytable.c — table-driven YAML binding (see keytable.h). */
#include "keytable.h"
#include "aif_error.h"
#include "input_file.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

#define FIELD(target, key, type) ((type *)((char *)(target) + (key)->offset))

/* KT_ENUM fields are C enums written through an int: every enum of the tables is int-sized, as the
 * ABIs aifsim builds on make any enum whose values fit an int (no -fshort-enums). */
typedef enum { KT_ENUM_PROBE_ } KtEnumProbe;
G_STATIC_ASSERT(sizeof(KtEnumProbe) == sizeof(int));

const KtKey *kt_find(const KtTable *t, const char *path)
{
  for (size_t i = 0; i < t->n_keys; i++)
    if (strcmp(t->keys[i].path, path) == 0)
      return &t->keys[i];
  return NULL;
}

static size_t edit_distance(const char *a, const char *b)
{
  size_t la = strlen(a), lb = strlen(b);
  g_autofree size_t *row = g_new(size_t, lb + 1);
  for (size_t j = 0; j <= lb; j++)
    row[j] = j;
  for (size_t i = 1; i <= la; i++) {
    size_t diag = row[0];
    row[0] = i;
    for (size_t j = 1; j <= lb; j++) {
      size_t up = row[j];
      size_t cost = g_ascii_tolower(a[i - 1]) == g_ascii_tolower(b[j - 1]) ? 0 : 1;
      row[j] = MIN(MIN(row[j] + 1, row[j - 1] + 1), diag + cost);
      diag = up;
    }
  }
  return row[lb];
}

const char *kt_closest(const char *word, const char *const *candidates)
{
  const char *best = NULL;
  size_t best_d = SIZE_MAX, limit = MAX(2, strlen(word) / 3);
  for (const char *const *c = candidates; *c; c++) {
    size_t d = edit_distance(word, *c);
    if (d < best_d) {
      best_d = d;
      best = *c;
    }
  }
  return best_d <= limit ? best : NULL;
}

/* Children of PARENT ("" for the root) in T, as their last path segment. */
static GPtrArray *child_names(const KtTable *t, const char *parent)
{
  GPtrArray *names = g_ptr_array_new();
  size_t plen = strlen(parent);
  for (size_t i = 0; i < t->n_keys; i++) {
    const char *p = t->keys[i].path;
    if (plen && (strncmp(p, parent, plen) != 0 || p[plen] != '.'))
      continue;
    const char *rest = plen ? p + plen + 1 : p;
    if (!strchr(rest, '.'))
      g_ptr_array_add(names, (gpointer)rest);
  }
  g_ptr_array_add(names, NULL);
  return names;
}

/* A key of T whose last segment is NAME, or NULL. */
static const char *deeper_key(const KtTable *t, const char *name)
{
  for (size_t i = 0; i < t->n_keys; i++) {
    const char *dot = strrchr(t->keys[i].path, '.');
    if (dot && strcmp(dot + 1, name) == 0)
      return t->keys[i].path;
  }
  return NULL;
}

static void unknown_key(const KtTable *t, const KtTable *sub, const char *parent, const char *name,
                        YamlDoc *d, yaml_node_t *node, GError **error)
{
  g_autoptr(GPtrArray) names = child_names(t, parent);
  const char *near = kt_closest(name, (const char *const *)names->pdata);
  if (!near && sub) {
    g_autoptr(GPtrArray) sub_names = child_names(sub, "");
    near = kt_closest(name, (const char *const *)sub_names->pdata);
  }
  if (!near) /* the key exists elsewhere: the user put it at the wrong level */
    near = deeper_key(t, name);
  if (!near && sub)
    near = deeper_key(sub, name);
  g_autofree char *where = *parent ? g_strdup_printf(" in '%s'", parent) : g_strdup("");
  if (near)
    yaml_doc_error(d, node, error, "unknown key '%s'%s (did you mean '%s'?)", name, where, near);
  else
    yaml_doc_error(d, node, error, "unknown key '%s'%s", name, where);
}

/* What one kt_walk carries down its levels: every leaf given so far by its full path (a dotted key
 * at the root and the same key nested in its group set one value twice). */
typedef struct {
  KtLeafFunc leaf;
  gpointer user;
  GHashTable *given; /* full path (owned) -> yaml_node_t * of its key */
} Walk;

/* Calls the leaf function for KEY unless its full path was already given. */
static gboolean give_leaf(Walk *w, const KtTable *t, const KtKey *key, const char *group, YamlDoc *d,
                          yaml_node_t *kn, yaml_node_t *vn, GError **error)
{
  g_autofree char *full = group ? g_strconcat(group, ".", key->path, NULL) : g_strdup(key->path);
  yaml_node_t *first = g_hash_table_lookup(w->given, full);
  if (first) {
    yaml_doc_error(d, kn, error, "'%s' is given twice (also at line %zu)", full, first->start_mark.line + 1);
    return FALSE;
  }
  g_hash_table_insert(w->given, g_steal_pointer(&full), kn);
  return w->leaf(t, key, group, d, vn, w->user, error);
}

static gboolean walk(const KtTable *t, const char *prefix, const KtTable *root, const char *group,
                     YamlDoc *d, yaml_node_t *mapping, Walk *w, GError **error)
{
  if (mapping->type != YAML_MAPPING_NODE) {
    yaml_doc_error(d, mapping, error, "expected a mapping of %s keys", t->name);
    return FALSE;
  }
  const KtKey *parent = *prefix ? kt_find(t, prefix) : NULL;
  GHashTable *seen = g_hash_table_new(g_str_hash, g_str_equal);
  gboolean ok = TRUE;
  for (yaml_node_pair_t *p = mapping->data.mapping.pairs.start; ok && p < mapping->data.mapping.pairs.top;
       p++) {
    yaml_node_t *kn = yaml_doc_get(d, p->key), *vn = yaml_doc_get(d, p->value);
    const char *name = yaml_doc_scalar(kn);
    if (!name) {
      yaml_doc_error(d, kn, error, "expected a plain key name");
      ok = FALSE;
      break;
    }
    if (!g_hash_table_add(seen, (gpointer)name)) {
      yaml_doc_error(d, kn, error, "key '%s' given twice", name);
      ok = FALSE;
      break;
    }
    g_autofree char *path = *prefix ? g_strconcat(prefix, ".", name, NULL) : g_strdup(name);
    const KtKey *key = kt_find(t, path);
    if (!key && parent && parent->sub) { /* e.g. system: {id: ..., hbm_bandwidth: ...} */
      const KtKey *sk = kt_find(parent->sub, name);
      if (sk && sk->type == KT_GROUP) {
        ok = walk(parent->sub, name, root, prefix, d, vn, w, error);
      } else if (sk) {
        ok = give_leaf(w, parent->sub, sk, prefix, d, kn, vn, error);
      } else {
        unknown_key(t, parent->sub, prefix, name, d, kn, error);
        ok = FALSE;
      }
      continue;
    }
    if (!key) {
      unknown_key(t, parent ? parent->sub : NULL, prefix, name, d, kn, error);
      ok = FALSE;
    } else if (key->type == KT_GROUP && vn->type == YAML_MAPPING_NODE) {
      ok = walk(t, path, root, group, d, vn, w, error);
    } else if (key->type == KT_GROUP && key->shorthand) {
      g_autofree char *child = g_strconcat(path, ".", key->shorthand, NULL);
      ok = give_leaf(w, t, kt_find(t, child), group, d, kn, vn, error);
    } else if (key->type == KT_GROUP) {
      yaml_doc_error(d, vn, error, "'%s' expects a mapping of keys", path);
      ok = FALSE;
    } else {
      ok = give_leaf(w, t, key, group, d, kn, vn, error);
    }
  }
  g_hash_table_unref(seen);
  return ok;
}

gboolean kt_walk(const KtTable *t, YamlDoc *d, yaml_node_t *mapping, KtLeafFunc leaf, gpointer user,
                 GError **error)
{
  Walk w = { leaf, user, g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL) };
  gboolean ok = walk(t, "", t, NULL, d, mapping, &w, error);
  g_hash_table_unref(w.given);
  return ok;
}

static gboolean is_null_word(const char *s)
{
  return strcmp(s, "null") == 0 || strcmp(s, "~") == 0 || strcmp(s, "Null") == 0 || strcmp(s, "NULL") == 0;
}

/* A YAML null: the word unquoted ("null" in quotes is the text null, as YAML has it). */
static gboolean node_is_null(const yaml_node_t *node, const char *s)
{
  gboolean quoted = node->type == YAML_SCALAR_NODE && (node->data.scalar.style == YAML_SINGLE_QUOTED_SCALAR_STYLE ||
                                                       node->data.scalar.style == YAML_DOUBLE_QUOTED_SCALAR_STYLE);
  return !quoted && is_null_word(s);
}

static gboolean parse_bool(const char *s, gboolean *out)
{
  static const char *const yes[] = { "true", "True", "yes", "on", NULL }, *const no[] = { "false", "False", "no", "off", NULL };
  for (int i = 0; yes[i]; i++)
    if (strcmp(s, yes[i]) == 0)
      return (*out = TRUE), TRUE;
  for (int i = 0; no[i]; i++)
    if (strcmp(s, no[i]) == 0)
      return (*out = FALSE), TRUE;
  return FALSE;
}

static gboolean check_range(const KtKey *key, double v, YamlDoc *d, yaml_node_t *node, GError **error)
{
  /* counts of work a run does: an absurd value is an endless run, not a bad answer */
  double max = key->limit ? (double)input_limit((InputLimit)(key->limit - 1)) : key->max;
  if (max > 0 && v > max) {
    if (key->limit)
      yaml_doc_error(d, node, error, "'%s' is above the limit of %.0f (raise it with %s=N)", key->path, max,
                     input_limit_name((InputLimit)(key->limit - 1)));
    else
      yaml_doc_error(d, node, error, "'%s' must be at most %.0f", key->path, max);
    return FALSE;
  }
  if ((key->flags & KT_POSITIVE) && !(v > 0)) {
    yaml_doc_error(d, node, error, "'%s' must be greater than zero", key->path);
    return FALSE;
  }
  if ((key->flags & KT_NONNEG) && v < 0) {
    yaml_doc_error(d, node, error, "'%s' must not be negative", key->path);
    return FALSE;
  }
  if (key->type == KT_NUMBER && key->dim == DIM_FRACTION && (v < 0 || v > 1)) {
    yaml_doc_error(d, node, error, "'%s' must be a fraction between 0 and 1 (or 0%%..100%%)", key->path);
    return FALSE;
  }
  return TRUE;
}

static gboolean assign_scalar(const KtKey *key, YamlDoc *d, yaml_node_t *node, const char *s, void *target,
                              GError **error)
{
  switch (key->type) {
  case KT_INT: {
    char *end = NULL;
    gint64 v = g_ascii_strtoll(s, &end, 10);
    if (end == s || *end || v < G_MININT || v > G_MAXINT) {
      yaml_doc_error(d, node, error, "'%s' expects a whole number, got '%s'", key->path, s);
      return FALSE;
    }
    if (!check_range(key, (double)v, d, node, error))
      return FALSE;
    *FIELD(target, key, int) = (int)v;
    return TRUE;
  }
  case KT_NUMBER: {
    double v;
    const char *why;
    if ((key->flags & KT_NULLABLE) && node_is_null(node, s)) {
      *FIELD(target, key, double) = 0;
      return TRUE;
    }
    if (!units_parse(s, key->dim, &v, &why)) {
      yaml_doc_error(d, node, error, "'%s' expects %s like '%s', got '%s'", key->path, why,
                     units_example(key->dim), s);
      return FALSE;
    }
    if (!check_range(key, v, d, node, error))
      return FALSE;
    *FIELD(target, key, double) = v;
    return TRUE;
  }
  case KT_STRING: {
    char **f = FIELD(target, key, char *);
    if ((key->flags & KT_REQUIRED) && node_is_null(node, s)) {
      yaml_doc_error(d, node, error, "'%s' is required: expected a value, not null", key->path);
      return FALSE;
    }
    g_free(*f);
    *f = node_is_null(node, s) ? NULL : g_strdup(s);
    return TRUE;
  }
  case KT_ENUM:
    for (int i = 0; key->choices[i]; i++)
      if (strcmp(key->choices[i], s) == 0) {
        *FIELD(target, key, int) = i;
        return TRUE;
      }
    {
      g_autofree char *all = g_strjoinv(", ", (char **)key->choices);
      const char *near = kt_closest(s, key->choices);
      if (near)
        yaml_doc_error(d, node, error, "'%s' expects one of %s, got '%s' (did you mean '%s'?)", key->path,
                       all, s, near);
      else
        yaml_doc_error(d, node, error, "'%s' expects one of %s, got '%s'", key->path, all, s);
    }
    return FALSE;
  case KT_BOOL:
    if (!parse_bool(s, FIELD(target, key, gboolean))) {
      yaml_doc_error(d, node, error, "'%s' expects true or false, got '%s'", key->path, s);
      return FALSE;
    }
    return TRUE;
  case KT_GROUP:
    break;
  }
  yaml_doc_error(d, node, error, "'%s' expects a mapping", key->path);
  return FALSE;
}

gboolean kt_assign(const KtKey *key, YamlDoc *d, yaml_node_t *node, void *target, GError **error)
{
  const char *s = yaml_doc_scalar(node);
  if (!s) {
    yaml_doc_error(d, node, error, "'%s' expects a single value, not a %s", key->path,
                   node->type == YAML_SEQUENCE_NODE ? "list" : "mapping");
    return FALSE;
  }
  if (*s == '\0' && key->type != KT_STRING) {
    yaml_doc_error(d, node, error, "'%s' has no value", key->path);
    return FALSE;
  }
  return assign_scalar(key, d, node, s, target, error);
}

void kt_defaults(const KtTable *t, void *target)
{
  for (size_t i = 0; i < t->n_keys; i++) {
    const KtKey *k = &t->keys[i];
    if (k->type == KT_GROUP || !k->def)
      continue;
    g_autoptr(GError) err = NULL;
    /* A default is program text: a bad one is a programming error, caught by the key-table test. */
    YamlDoc fake = { .path = (char *)"<default>" };
    yaml_node_t node = { .type = YAML_SCALAR_NODE };
    if (!assign_scalar(k, &fake, &node, k->def, target, &err))
      g_error("bad default for %s.%s: %s", t->name, k->path, err->message);
  }
}

void kt_clear(const KtTable *t, void *target)
{
  for (size_t i = 0; i < t->n_keys; i++)
    if (t->keys[i].type == KT_STRING)
      g_clear_pointer(FIELD(target, &t->keys[i], char *), g_free);
}

void kt_copy(const KtTable *t, void *dst, const void *src)
{
  for (size_t i = 0; i < t->n_keys; i++)
    if (t->keys[i].type == KT_STRING) {
      char **df = FIELD(dst, &t->keys[i], char *);
      *df = g_strdup(*FIELD(src, &t->keys[i], char *));
    }
}

/* KEY's number in TARGET as FORMAT writes it, or null for an absent figure. */
static char *number_text(const KtKey *key, const void *target, char *(*format)(double, UnitDim))
{
  double v = *FIELD(target, key, double);
  if (v == 0 && (key->flags & KT_NULLABLE))
    return g_strdup("null");
  return format(v, key->dim);
}

char *kt_value_text(const KtKey *key, const void *target)
{
  switch (key->type) {
  case KT_INT:
    return g_strdup_printf("%d", *FIELD(target, key, int));
  case KT_NUMBER:
    return number_text(key, target, units_format);
  case KT_STRING: {
    const char *s = *FIELD(target, key, char *);
    return g_strdup(s ? s : "");
  }
  case KT_ENUM:
    return g_strdup(key->choices[*FIELD(target, key, int)]);
  case KT_BOOL:
    return g_strdup(*FIELD(target, key, gboolean) ? "true" : "false");
  case KT_GROUP:
    break;
  }
  return NULL;
}

char *kt_value_yaml(const KtKey *key, const void *target)
{
  if (key->type == KT_NUMBER)
    return number_text(key, target, units_format_exact);
  if (key->type != KT_STRING) /* null figures, enum names, booleans: plain */
    return kt_value_text(key, target);
  const char *s = *FIELD(target, key, char *);
  return s ? kt_yaml_quote(s) : g_strdup("null"); /* an empty text is "" */
}

void kt_round_numbers(const KtTable *t, void *target)
{
  for (size_t i = 0; i < t->n_keys; i++) {
    const KtKey *key = &t->keys[i];
    if (key->type != KT_NUMBER)
      continue;
    double *v = FIELD(target, key, double);
    g_autofree char *text = units_format(*v, key->dim);
    double back;
    const char *why;
    if (isfinite(*v) && units_parse(text, key->dim, &back, &why))
      *v = back;
  }
}

char *kt_yaml_node(const yaml_node_t *node)
{
  const char *s = (const char *)node->data.scalar.value;
  return node_is_null(node, s) ? g_strdup("null") : kt_yaml_quote(s);
}

char *kt_yaml_quote(const char *s)
{
  gboolean plain = *s && !strchr(":#{}[],&*!|>'\"%@`", *s) && !g_ascii_isspace(*s) &&
                   !((*s == '-' || *s == '?') && (s[1] == ' ' || !s[1])); /* "- x" would be a list */
  for (const char *c = s; plain && *c; c++)
    if ((*c == ':' && (c[1] == ' ' || !c[1])) || (*c == ' ' && c[1] == '#') || *c == '"' || (unsigned char)*c < 0x20 ||
        *c == 0x7f)
      plain = FALSE;
  if (plain && !g_str_has_suffix(s, " ") && !is_null_word(s)) /* "null" as text keeps its quotes */
    return g_strdup(s);
  GString *q = g_string_new("\"");
  for (const char *c = s; *c; c++) {
    if (*c == '"' || *c == '\\')
      g_string_append_c(q, '\\');
    if (*c == '\n')
      g_string_append(q, "\\n");
    else if ((unsigned char)*c < 0x20 || *c == 0x7f) /* YAML allows no raw control characters */
      g_string_append_printf(q, "\\x%02x", (unsigned char)*c);
    else
      g_string_append_c(q, *c);
  }
  g_string_append_c(q, '"');
  return g_string_free(q, FALSE);
}

void kt_emit_yaml(const KtTable *t, const void *target, GString *out, int indent, KtTextFunc text,
                  gpointer user)
{
  for (size_t i = 0; i < t->n_keys; i++) {
    const KtKey *k = &t->keys[i];
    int depth = 0;
    for (const char *c = k->path; *c; c++)
      depth += *c == '.';
    const char *leafname = strrchr(k->path, '.');
    leafname = leafname ? leafname + 1 : k->path;
    gboolean skip = FALSE;
    g_autofree char *v = text ? text(k, user, &skip) : NULL;
    if (skip)
      continue;
    g_string_append_printf(out, "%*s%s:", indent + 2 * depth, "", leafname);
    if (k->type == KT_GROUP) {
      g_string_append_c(out, '\n');
      continue;
    }
    if (!v)
      v = kt_value_yaml(k, target);
    g_string_append_printf(out, " %s\n", v);
  }
}
