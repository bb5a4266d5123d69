/* recipes.c — loading launch recipes and matching measured rows to them (see recipes.h). */
#include "recipes.h"
#include "aif_error.h"
#include "csv.h"
#include "units.h"
#include "yaml_doc.h"

#include <math.h>
#include <string.h>

/* What a condition reads of a row: text (any of a list), a flag, or a number in a range. */
typedef enum {
  C_SOURCE_KIND, C_MODEL, C_FRAMEWORK, C_MODE, C_SCENARIO, C_SYSTEM, C_ARCH, C_PRECISION, /* text */
  C_MTP, C_ATTENTION_DP,                                                                 /* flags */
  C_ENGINE_GPUS, C_ISL, C_OSL, C_CONCURRENCY, C_DECODE_RANK_USERS,                       /* numbers */
  C_COUNT_
} CondKey;
static const char *const cond_names[] = { "source_kind", "model", "framework", "mode", "scenario", "system",
                                          "arch", "precision", "mtp", "attention_dp", "engine_gpus", "isl",
                                          "osl", "concurrency", "decode_rank_users", NULL };

typedef struct {
  CondKey key;
  GPtrArray *any;        /* text: the values that match */
  gboolean flag;
  double min, max;       /* numbers: the range, each end closed unless *_open */
  gboolean min_open, max_open;
} Cond;

typedef enum {
  S_ADP_BALANCE, S_ADP_WAIT, S_BW_TIMEOUT, S_BW_TOKENS, S_RECV, S_OVERLAP, /* the stack's scheduler */
  S_DRAFTS, S_MAX_BATCH, S_CHUNK, S_KV, S_EXPERT_SLOTS, S_DECODE_RANK_BATCH, S_KV_FRACTION, S_EP,
  S_GRAPH_BATCHES, S_ATTENTION_DP, S_MOE_A2A, S_SLICED_MOE, S_COUNT_
} SetKey;
static const char *const set_names[] = { "adp_balance_timeout", "adp_batching_wait", "batch_wait_timeout",
                                         "batch_wait_tokens", "recv_interval", "overlap", "draft_tokens",
                                         "max_batch", "chunk", "kv_cache", "expert_slots",
                                         "decode_rank_batch", "kv_memory_fraction", "ep", "graph_batches",
                                         "attention_dp", "moe_a2a", "sliced_moe_backend", NULL };

typedef enum {
  V_NUMBER, V_STACK, V_CONCURRENCY, V_TRTLLM_TOKENS, V_GRAPH_FLOOR, V_ENGINE, V_TRTLLM_BENCH, V_LIST
} ValueKind;

typedef struct {
  SetKey key;
  ValueKind kind;
  double value;
  GraphBatches list;     /* V_LIST */
} Setting;

typedef struct {
  GArray *conds;         /* Cond */
  GArray *sets;          /* Setting */
} Recipe;

struct Recipes {
  GPtrArray *recipes;    /* Recipe * */
  GHashTable *mlperf;    /* model id (owned) -> MlperfRules * (owned) */
  GHashTable *clients;   /* source kind (owned) -> ClientRules * (owned) */
  GHashTable *offline;   /* source kind (owned) -> GArray of OfflineRun (owned) */
  char *dir;             /* the file's folder, which dataset paths are relative to */
};

static void recipe_free(gpointer p)
{
  Recipe *r = p;
  for (guint i = 0; i < r->conds->len; i++)
    g_clear_pointer(&g_array_index(r->conds, Cond, i).any, g_ptr_array_unref);
  g_array_unref(r->conds);
  g_array_unref(r->sets);
  g_free(r);
}

void recipes_free(Recipes *r)
{
  if (!r)
    return;
  g_ptr_array_unref(r->recipes);
  g_hash_table_unref(r->mlperf);
  g_hash_table_unref(r->clients);
  g_hash_table_unref(r->offline);
  g_free(r->dir);
  g_free(r);
}

static int name_index(const char *const *names, const char *s)
{
  for (int i = 0; s && names[i]; i++)
    if (strcmp(names[i], s) == 0)
      return i;
  return -1;
}

static gboolean bad(YamlDoc *d, yaml_node_t *n, GError **error, const char *what)
{
  yaml_doc_error(d, n, error, "%s", what);
  return FALSE;
}

/* N as a plain number; else WANT said at N. */
static gboolean number(YamlDoc *d, yaml_node_t *n, double *out, const char *want, GError **error)
{
  const char *s = yaml_doc_scalar(n), *why = NULL;
  if (!s || !units_parse(s, DIM_NONE, out, &why))
    return bad(d, n, error, want);
  return TRUE;
}

/* A range {min, max, above, below} or a single number. */
static gboolean parse_range(YamlDoc *d, yaml_node_t *n, Cond *c, GError **error)
{
  c->min = -INFINITY, c->max = INFINITY;
  if (n->type == YAML_SCALAR_NODE) {
    if (!number(d, n, &c->min, "expected a number", error))
      return FALSE;
    c->max = c->min;
    return TRUE;
  }
  if (n->type != YAML_MAPPING_NODE)
    return bad(d, n, error, "expected a number or a range {min, max, above, below}");
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    const char *k = yaml_doc_scalar(yaml_doc_get(d, p->key));
    yaml_node_t *v = yaml_doc_get(d, p->value);
    double x;
    if (!k || !number(d, v, &x, "expected a number", error))
      return k ? FALSE : bad(d, yaml_doc_get(d, p->key), error, "expected min, max, above or below");
    if (strcmp(k, "min") == 0 || strcmp(k, "above") == 0)
      c->min = x, c->min_open = strcmp(k, "above") == 0;
    else if (strcmp(k, "max") == 0 || strcmp(k, "below") == 0)
      c->max = x, c->max_open = strcmp(k, "below") == 0;
    else
      return bad(d, yaml_doc_get(d, p->key), error, "a range takes min, max, above and below");
  }
  return TRUE;
}

static gboolean parse_cond(YamlDoc *d, yaml_node_t *kn, yaml_node_t *v, Cond *c, GError **error)
{
  int k = name_index(cond_names, yaml_doc_scalar(kn));
  if (k < 0) {
    g_autofree char *all = g_strjoinv(", ", (char **)cond_names);
    yaml_doc_error(d, kn, error, "unknown condition '%s' (expected one of %s)", yaml_doc_scalar(kn), all);
    return FALSE;
  }
  c->key = (CondKey)k;
  if (c->key <= C_PRECISION) {
    c->any = g_ptr_array_new_with_free_func(g_free); /* copies: the document goes after loading */
    if (v->type == YAML_SCALAR_NODE)
      g_ptr_array_add(c->any, g_strdup(yaml_doc_scalar(v)));
    for (yaml_node_item_t *it = v->type == YAML_SEQUENCE_NODE ? v->data.sequence.items.start : NULL;
         it && it < v->data.sequence.items.top; it++) {
      const char *s = yaml_doc_scalar(yaml_doc_get(d, *it));
      if (!s)
        return bad(d, yaml_doc_get(d, *it), error, "expected a value");
      g_ptr_array_add(c->any, g_strdup(s));
    }
    return c->any->len > 0 ? TRUE : bad(d, v, error, "expected a value or a list of values");
  }
  if (c->key <= C_ATTENTION_DP) {
    const char *s = yaml_doc_scalar(v);
    if (!s || (strcmp(s, "true") && strcmp(s, "false")))
      return bad(d, v, error, "expected true or false");
    c->flag = strcmp(s, "true") == 0;
    return TRUE;
  }
  return parse_range(d, v, c, error);
}

/* graph_batches: a list of batch sizes, whole, ascending, from 1 up to 1,048,576. */
static gboolean parse_graph_batches(YamlDoc *d, yaml_node_t *v, Setting *s, GError **error)
{
  s->kind = V_LIST;
  if (v->type != YAML_SEQUENCE_NODE || v->data.sequence.items.top == v->data.sequence.items.start)
    return bad(d, v, error, "expected a list of batch sizes, e.g. [1, 2, 4, 8]");
  for (yaml_node_item_t *it = v->data.sequence.items.start; it < v->data.sequence.items.top; it++) {
    yaml_node_t *n = yaml_doc_get(d, *it);
    double x;
    if (s->list.n >= GRAPH_BATCHES_MAX)
      return bad(d, n, error, "expected at most 64 batch sizes");
    if (!number(d, n, &x, "expected a batch size", error))
      return FALSE;
    if (!(x >= 1 && x <= 1 << 20) || x != floor(x) || (s->list.n > 0 && x <= s->list.size[s->list.n - 1]))
      return bad(d, n, error, "expected whole batch sizes from 1 to 1048576, each above the one before");
    s->list.size[s->list.n++] = x;
  }
  return TRUE;
}

static gboolean parse_setting(YamlDoc *d, yaml_node_t *kn, yaml_node_t *v, Setting *s, GError **error)
{
  int k = name_index(set_names, yaml_doc_scalar(kn));
  if (k < 0) {
    g_autofree char *all = g_strjoinv(", ", (char **)set_names);
    yaml_doc_error(d, kn, error, "unknown setting '%s' (expected one of %s)", yaml_doc_scalar(kn), all);
    return FALSE;
  }
  s->key = (SetKey)k;
  if (s->key == S_GRAPH_BATCHES)
    return parse_graph_batches(d, v, s, error);
  const char *t = yaml_doc_scalar(v);
  if (!t)
    return bad(d, v, error, "expected a value");
  s->kind = V_NUMBER;
  if (strcmp(t, "stack") == 0 && s->key <= S_OVERLAP)
    return (s->kind = V_STACK), TRUE;
  if (s->key == S_OVERLAP && (!strcmp(t, "true") || !strcmp(t, "false")))
    return (s->value = strcmp(t, "true") == 0), TRUE;
  if (s->key == S_MAX_BATCH && strcmp(t, "concurrency") == 0)
    return (s->kind = V_CONCURRENCY), TRUE;
  if (s->key == S_DECODE_RANK_BATCH && strcmp(t, "graph-floor") == 0)
    return (s->kind = V_GRAPH_FLOOR), TRUE;
  if (s->key == S_CHUNK && strcmp(t, "trtllm-max-num-tokens") == 0)
    return (s->kind = V_TRTLLM_TOKENS), TRUE;
  if ((s->key == S_CHUNK || s->key == S_MAX_BATCH) && strcmp(t, "trtllm-bench") == 0)
    return (s->kind = V_TRTLLM_BENCH), TRUE;
  if (s->key == S_EP)
    return strcmp(t, "engine") == 0 ? ((s->kind = V_ENGINE), TRUE) : bad(d, v, error, "expected engine");
  if (s->key == S_ATTENTION_DP) {
    if (strcmp(t, "true") && strcmp(t, "false"))
      return bad(d, v, error, "expected true or false");
    s->value = strcmp(t, "true") == 0;
    return TRUE;
  }
  if (s->key == S_MOE_A2A) {
    if (strcmp(t, "deepep") && strcmp(t, "none"))
      return bad(d, v, error, "expected deepep or none");
    s->value = strcmp(t, "deepep") == 0;
    return TRUE;
  }
  if (s->key == S_SLICED_MOE) {
    if (strcmp(t, "trtllm") && strcmp(t, "deepgemm"))
      return bad(d, v, error, "expected trtllm or deepgemm");
    s->value = strcmp(t, "trtllm") == 0;
    return TRUE;
  }
  if (s->key == S_KV) {
    int p = name_index(precision_names, t);
    return p < 0 ? bad(d, v, error, "expected a precision: bf16, fp8 or fp4") : ((s->value = p), TRUE);
  }
  const char *want = s->key <= S_OVERLAP              ? "expected a number >= 0 or stack"
                     : s->key == S_DECODE_RANK_BATCH ? "expected a number >= 0 or graph-floor"
                     : s->key == S_MAX_BATCH         ? "expected a number >= 0, concurrency or trtllm-bench"
                     : s->key == S_CHUNK ? "expected a number >= 0, trtllm-max-num-tokens or trtllm-bench"
                                         : "expected a number >= 0";
  if (!number(d, v, &s->value, want, error))
    return FALSE;
  if (s->value < 0)
    return bad(d, v, error, want);
  if (s->key == S_KV_FRACTION && !(s->value > 0 && s->value <= 1))
    return bad(d, v, error, "expected a fraction above 0, up to 1");
  if (s->key == S_EXPERT_SLOTS && s->value > 1 << 20)
    return bad(d, v, error, "expected expert slots up to 1048576");
  return TRUE;
}

static gboolean parse_recipe(YamlDoc *d, yaml_node_t *n, Recipe *r, GError **error)
{
  if (n->type != YAML_MAPPING_NODE)
    return bad(d, n, error, "expected a recipe: {id, source, when, set}");
  gboolean has_source = FALSE;
  for (yaml_node_pair_t *p = n->data.mapping.pairs.start; p < n->data.mapping.pairs.top; p++) {
    yaml_node_t *kn = yaml_doc_get(d, p->key), *v = yaml_doc_get(d, p->value);
    const char *k = yaml_doc_scalar(kn);
    gboolean when = k && strcmp(k, "when") == 0, set = k && strcmp(k, "set") == 0;
    if (k && (strcmp(k, "id") == 0 || strcmp(k, "source") == 0)) {
      has_source |= strcmp(k, "source") == 0 && yaml_doc_scalar(v) && *yaml_doc_scalar(v);
      continue;
    }
    if (!when && !set)
      return bad(d, kn, error, "a recipe takes id, source, when and set");
    if (v->type != YAML_MAPPING_NODE)
      return bad(d, v, error, when ? "expected a mapping of conditions" : "expected a mapping of settings");
    for (yaml_node_pair_t *q = v->data.mapping.pairs.start; q < v->data.mapping.pairs.top; q++) {
      yaml_node_t *qk = yaml_doc_get(d, q->key), *qv = yaml_doc_get(d, q->value);
      if (when) {
        Cond c = { 0 };
        gboolean ok = parse_cond(d, qk, qv, &c, error);
        g_array_append_val(r->conds, c); /* freed with the recipe, even half-parsed */
        if (!ok)
          return FALSE;
      } else {
        Setting s = { 0 };
        if (!parse_setting(d, qk, qv, &s, error))
          return FALSE;
        g_array_append_val(r->sets, s);
      }
    }
  }
  return has_source ? TRUE : bad(d, n, error, "a recipe names its source");
}

static gboolean parse_limits(YamlDoc *d, yaml_node_t *n, double *tpot, double *ttft, GError **error)
{
  const char *a = yaml_doc_scalar(yaml_doc_lookup(d, n, "tpot")), *b = yaml_doc_scalar(yaml_doc_lookup(d, n, "ttft"));
  const char *why = NULL;
  if (!a || !b || !units_parse(a, DIM_TIME, tpot, &why) || !units_parse(b, DIM_TIME, ttft, &why) ||
      !(*tpot > 0) || !(*ttft > 0))
    return bad(d, n, error, "expected {tpot: TIME, ttft: TIME}, e.g. {tpot: 100 ms, ttft: 2 s}");
  return TRUE;
}

/* The mean of PATH's input_length column: a benchmark dataset's prompt lengths in the model's
 * tokens, one prompt a row (calibration/measured/datasets/README.md). */
static gboolean dataset_mean_isl(const char *path, double *mean, GError **error)
{
  if (!g_file_test(path, G_FILE_TEST_IS_REGULAR)) { /* never a device or a pipe, which could block */
    g_set_error(error, AIF_ERROR, AIF_ERROR_RUN, "%s: not a regular file", path);
    return FALSE;
  }
  g_autoptr(CsvFile) csv = csv_read(path, error);
  if (!csv)
    return FALSE;
  int col = csv_column(csv, "input_length");
  if (col < 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:1:1: expected a header with input_length", path);
    return FALSE;
  }
  if (csv->rows->len == 0) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:2:1: expected at least one prompt length", path);
    return FALSE;
  }
  double sum = 0;
  for (guint r = 0; r < csv->rows->len; r++) {
    const char *s = csv_field(csv, r, col);
    char *end;
    double v = g_ascii_strtod(s, &end);
    if (!*s || *end || !(v >= 1 && v <= 1e7) || v != floor(v)) {
      const GPtrArray *f = csv->rows->pdata[r];
      int at = csv_field_start((char *const *)f->pdata, MIN(col, (int)f->len));
      g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%d:%d: expected a prompt length in tokens (a whole "
                  "number from 1 to 1e7), got '%s'", path, g_array_index(csv->lines, int, r), at, s);
      return FALSE;
    }
    sum += v;
  }
  *mean = sum / csv->rows->len;
  return TRUE;
}

/* The dataset's mean prompt length: given (dataset_isl) or the mean of the file it names (dataset,
 * relative to the recipes file), one of the two. */
static gboolean parse_dataset_isl(YamlDoc *d, yaml_node_t *n, const Recipes *out, double *isl, GError **error)
{
  yaml_node_t *given = yaml_doc_lookup(d, n, "dataset_isl"), *file = yaml_doc_lookup(d, n, "dataset");
  if (!given == !file)
    return bad(d, n, error, "expected one of dataset_isl (tokens) and dataset (a file of prompt lengths)");
  if (given)
    return number(d, given, isl, "expected a number", error) && (*isl >= 1 || bad(d, given, error, "expected a prompt length >= 1"));
  const char *name = yaml_doc_scalar(file);
  if (!name || !*name)
    return bad(d, file, error, "expected a file name");
  g_autofree char *path = g_path_is_absolute(name) ? g_strdup(name) : g_build_filename(out->dir, name, NULL);
  g_autoptr(GError) e = NULL;
  if (!dataset_mean_isl(path, isl, &e)) {
    if (e->code == AIF_ERROR_INPUT) { /* the file's own position says where */
      g_propagate_error(error, g_steal_pointer(&e));
      return FALSE;
    }
    g_autofree char *what = g_strdup_printf("cannot read the dataset (%s)", e->message);
    return bad(d, file, error, what);
  }
  return TRUE;
}

static gboolean parse_mlperf(YamlDoc *d, yaml_node_t *n, Recipes *out, GError **error)
{
  const char *model = yaml_doc_scalar(yaml_doc_lookup(d, n, "model"));
  yaml_node_t *server = yaml_doc_lookup(d, n, "server");
  yaml_node_t *inter = yaml_doc_lookup(d, n, "interactive");
  g_autofree MlperfRules *m = g_new0(MlperfRules, 1);
  if (!model || !server || !inter || !yaml_doc_scalar(yaml_doc_lookup(d, n, "source")))
    return bad(d, n, error, "expected {model, source, dataset_isl or dataset, server: {tpot, ttft}, interactive: {tpot, ttft}}");
  if (!parse_dataset_isl(d, n, out, &m->dataset_isl, error) ||
      !parse_limits(d, server, &m->server_tpot, &m->server_ttft, error) ||
      !parse_limits(d, inter, &m->interactive_tpot, &m->interactive_ttft, error))
    return FALSE;
  g_hash_table_insert(out->mlperf, g_strdup(model), g_steal_pointer(&m));
  return TRUE;
}

static gboolean parse_client(YamlDoc *d, yaml_node_t *n, Recipes *out, GError **error)
{
  const char *kind = yaml_doc_scalar(yaml_doc_lookup(d, n, "source_kind"));
  yaml_node_t *range = yaml_doc_lookup(d, n, "length_range"), *prompts = yaml_doc_lookup(d, n, "prompts_per_user");
  g_autofree ClientRules *c = g_new0(ClientRules, 1);
  if (!kind || !range || !prompts || !yaml_doc_scalar(yaml_doc_lookup(d, n, "source")))
    return bad(d, n, error, "expected {source_kind, source, length_range, prompts_per_user}");
  if (!number(d, range, &c->length_range, "expected a number", error) || !(c->length_range > 0 && c->length_range <= 1))
    return (error && *error) ? FALSE : bad(d, range, error, "expected a length range in (0, 1]");
  if (!number(d, prompts, &c->prompts_per_user, "expected a number", error) ||
      !(c->prompts_per_user >= 1 && c->prompts_per_user <= 1000))
    return (error && *error) ? FALSE : bad(d, prompts, error, "expected prompts per user from 1 to 1000");
  g_hash_table_insert(out->clients, g_strdup(kind), g_steal_pointer(&c));
  return TRUE;
}

/* One offline run of a benchmark: {isl, osl, requests}, each at least 1. */
static gboolean parse_offline_run(YamlDoc *d, yaml_node_t *n, OfflineRun *out, GError **error)
{
  yaml_node_t *isl = yaml_doc_lookup(d, n, "isl"), *osl = yaml_doc_lookup(d, n, "osl");
  yaml_node_t *req = yaml_doc_lookup(d, n, "requests");
  if (!isl || !osl || !req)
    return bad(d, n, error, "expected {isl, osl, requests}");
  yaml_node_t *at[] = { isl, osl, req };
  double *to[] = { &out->isl, &out->osl, &out->requests };
  for (int i = 0; i < 3; i++)
    if (!number(d, at[i], to[i], "expected a number", error) || !(*to[i] >= 1 && *to[i] <= 1e7))
      return (error && *error) ? FALSE : bad(d, at[i], error, "expected a whole number from 1 to 10,000,000");
  if (out->requests != floor(out->requests))
    return bad(d, req, error, "expected a whole number of requests");
  return TRUE;
}

static gboolean parse_offline(YamlDoc *d, yaml_node_t *n, Recipes *out, GError **error)
{
  const char *kind = yaml_doc_scalar(yaml_doc_lookup(d, n, "source_kind"));
  yaml_node_t *runs = yaml_doc_lookup(d, n, "runs");
  if (!kind || !runs || runs->type != YAML_SEQUENCE_NODE || !yaml_doc_scalar(yaml_doc_lookup(d, n, "source")))
    return bad(d, n, error, "expected {source_kind, source, runs: [{isl, osl, requests}, ...]}");
  g_autoptr(GArray) list = g_array_new(FALSE, TRUE, sizeof(OfflineRun));
  for (yaml_node_item_t *it = runs->data.sequence.items.start; it < runs->data.sequence.items.top; it++) {
    OfflineRun run;
    if (!parse_offline_run(d, yaml_doc_get(d, *it), &run, error))
      return FALSE;
    g_array_append_val(list, run);
  }
  g_hash_table_insert(out->offline, g_strdup(kind), g_steal_pointer(&list));
  return TRUE;
}

/* Reads every item of LIST (none when NULL) into OUT with PARSE, stopping at the first bad one. */
static gboolean parse_each(YamlDoc *d, yaml_node_t *list, Recipes *out, GError **error,
                           gboolean (*parse)(YamlDoc *, yaml_node_t *, Recipes *, GError **))
{
  for (yaml_node_item_t *it = list ? list->data.sequence.items.start : NULL; it && it < list->data.sequence.items.top; it++)
    if (!parse(d, yaml_doc_get(d, *it), out, error))
      return FALSE;
  return TRUE;
}

/* The list under KEY in the root (NULL when absent), or FALSE when it is not a list. */
static gboolean optional_list(YamlDoc *d, yaml_node_t *root, const char *key, yaml_node_t **out)
{
  *out = yaml_doc_lookup(d, root, key);
  return !*out || (*out)->type == YAML_SEQUENCE_NODE;
}

Recipes *recipes_load(const char *path, GError **error)
{
  g_autoptr(YamlDoc) d = yaml_doc_load(path, error);
  if (!d)
    return NULL;
  g_autoptr(Recipes) out = g_new0(Recipes, 1);
  out->recipes = g_ptr_array_new_with_free_func(recipe_free);
  out->mlperf = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  out->clients = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  out->offline = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_array_unref);
  out->dir = g_path_get_dirname(path);
  yaml_node_t *root = yaml_doc_root(d), *list = yaml_doc_lookup(d, root, "recipes"), *ml, *cl, *off;
  if (!list || list->type != YAML_SEQUENCE_NODE || !optional_list(d, root, "mlperf", &ml) ||
      !optional_list(d, root, "clients", &cl) || !optional_list(d, root, "offline", &off)) {
    bad(d, root, error, "expected 'recipes:' (and 'mlperf:', 'clients:', 'offline:') lists");
    return NULL;
  }
  for (yaml_node_item_t *it = list->data.sequence.items.start; it < list->data.sequence.items.top; it++) {
    Recipe *r = g_new0(Recipe, 1);
    r->conds = g_array_new(FALSE, TRUE, sizeof(Cond));
    r->sets = g_array_new(FALSE, TRUE, sizeof(Setting));
    g_ptr_array_add(out->recipes, r);
    if (!parse_recipe(d, yaml_doc_get(d, *it), r, error))
      return NULL;
  }
  if (!parse_each(d, ml, out, error, parse_mlperf) || !parse_each(d, cl, out, error, parse_client) ||
      !parse_each(d, off, out, error, parse_offline))
    return NULL;
  return g_steal_pointer(&out);
}

static gboolean matches(const Cond *c, const RecipeRow *row)
{
  const char *text[] = { row->source_kind, row->model, row->framework, row->mode, row->scenario, row->system,
                         row->arch, row->precision };
  double num[] = { row->engine_gpus, row->isl, row->osl, row->concurrency, row->decode_rank_users };
  if (c->key <= C_PRECISION) {
    for (guint i = 0; i < c->any->len; i++)
      if (g_strcmp0(text[c->key], c->any->pdata[i]) == 0)
        return TRUE;
    return FALSE;
  }
  if (c->key <= C_ATTENTION_DP)
    return (c->key == C_MTP ? row->mtp : row->attention_dp) == c->flag;
  double x = num[c->key - C_ENGINE_GPUS];
  return (c->min_open ? x > c->min : x >= c->min) && (c->max_open ? x < c->max : x <= c->max);
}

double recipes_graph_floor(double users)
{
  if (users >= 512)
    return floor(users / 256) * 256;
  double b = 1;
  while (b * 2 <= users)
    b *= 2;
  return b;
}

void recipes_apply(const Recipes *r, const RecipeRow *row, RecipeSettings *out)
{
  *out = (RecipeSettings){ .adp_balance_timeout = NAN, .adp_batching_wait = NAN, .batch_wait_timeout = NAN,
                           .batch_wait_tokens = NAN, .recv_interval = NAN, .overlap = NAN, .draft_tokens = -1,
                           .max_batch = NAN, .chunk = NAN, .kv_cache = -1, .expert_slots = -1,
                           .decode_rank_batch = NAN, .kv_memory_fraction = NAN, .ep_engine = FALSE,
                           .attention_dp = -1, .deepep = -1, .sliced_trtllm_gen = -1 };
  double *sched[] = { &out->adp_balance_timeout, &out->adp_batching_wait, &out->batch_wait_timeout,
                      &out->batch_wait_tokens, &out->recv_interval, &out->overlap };
  gboolean trtllm_tokens = FALSE;
  for (guint i = 0; i < r->recipes->len; i++) {
    const Recipe *rc = r->recipes->pdata[i];
    gboolean all = TRUE;
    for (guint k = 0; k < rc->conds->len && all; k++)
      all = matches(&g_array_index(rc->conds, Cond, k), row);
    for (guint k = 0; all && k < rc->sets->len; k++) {
      const Setting *s = &g_array_index(rc->sets, Setting, k);
      if (s->key <= S_OVERLAP) {
        out->launched = TRUE;
        *sched[s->key] = s->kind == V_STACK ? NAN : s->value;
      } else if (s->key == S_DRAFTS && row->mtp) { /* drafts only where the row drafted */
        out->draft_tokens = (int)s->value;
      } else if (s->key == S_MAX_BATCH) {
        out->bench_max_batch = s->kind == V_TRTLLM_BENCH;
        out->max_batch = s->kind == V_CONCURRENCY ? row->concurrency : s->kind == V_TRTLLM_BENCH ? NAN : s->value;
      } else if (s->key == S_CHUNK) {
        trtllm_tokens = s->kind == V_TRTLLM_TOKENS;
        out->bench_chunk = s->kind == V_TRTLLM_BENCH;
        out->chunk = out->bench_chunk ? NAN : s->value;
      } else if (s->key == S_GRAPH_BATCHES) {
        out->graphs = s->list;
      } else if (s->key == S_KV) {
        out->kv_cache = (int)s->value;
      } else if (s->key == S_EXPERT_SLOTS) {
        out->expert_slots = (int)s->value;
      } else if (s->key == S_KV_FRACTION) {
        out->kv_memory_fraction = s->value;
      } else if (s->key == S_EP) {
        out->ep_engine = TRUE;
      } else if (s->key == S_ATTENTION_DP) {
        out->attention_dp = (int)s->value;
      } else if (s->key == S_MOE_A2A) {
        out->deepep = (int)s->value;
      } else if (s->key == S_SLICED_MOE) {
        out->sliced_trtllm_gen = (int)s->value;
      } else if (s->key == S_DECODE_RANK_BATCH) {
        out->decode_rank_batch = s->kind == V_GRAPH_FLOOR ? recipes_graph_floor(row->decode_rank_users) : s->value;
      }
    }
  }
  if (trtllm_tokens) { /* the budget depends on the drafts, whichever recipe set them */
    double conc = row->concurrency, ranks = row->attention_dp ? row->engine_gpus : 1;
    int d = row->mtp ? MAX(out->draft_tokens, 0) : 0;
    out->chunk = d > 0 ? ceil(((d + 1) * ceil(conc / ranks) + row->isl + 64) / 64) * 64
                       : MAX(8192, ceil((conc + row->isl + 64) / 64) * 64);
  }
}

const MlperfRules *recipes_mlperf(const Recipes *r, const char *model)
{
  return model ? g_hash_table_lookup(r->mlperf, model) : NULL;
}

const ClientRules *recipes_client(const Recipes *r, const char *source_kind)
{
  return source_kind ? g_hash_table_lookup(r->clients, source_kind) : NULL;
}

double recipes_offline_requests(const Recipes *r, const char *source_kind, double isl, double osl)
{
  GArray *runs = source_kind ? g_hash_table_lookup(r->offline, source_kind) : NULL;
  for (guint i = 0; runs && i < runs->len; i++) {
    const OfflineRun *run = &g_array_index(runs, OfflineRun, i);
    if (run->isl == isl && run->osl == osl)
      return run->requests;
  }
  return 0;
}

/* Rounds X up to a multiple of STEP. */
static double round_up(double x, double step) { return ceil(x / step) * step; }

gboolean recipes_trtllm_bench_limits(const BenchEngine *b, double *max_batch, double *max_tokens)
{
  double room = b->gpu_memory * b->gpus - b->weights, seq = b->isl + b->osl;
  if (!(room > 0) || !(b->kv_token > 0) || !(seq > 0) || !(b->pp >= 1))
    return FALSE;
  double requests = room * b->kv_fraction / (b->kv_token * seq);
  double raw_batch = MIN(requests, 4096) / b->pp, raw_tokens = MIN(raw_batch * (1 + b->isl / b->osl), 32768);
  *max_batch = raw_batch < 256    ? MAX(64, round_up(raw_batch, 32))
               : raw_batch < 1024 ? round_up(raw_batch, 128)
                                  : round_up(raw_batch, 256);
  *max_tokens = raw_tokens < 4096   ? MAX(2048, round_up(raw_tokens, 256))
                : raw_tokens < 8192 ? round_up(raw_tokens, 512)
                                    : round_up(raw_tokens, 1024);
  return TRUE;
}

void recipes_trtllm_graphs(const GraphBatches *list, double max_batch, double max_tokens, int drafts,
                           GraphBatches *out)
{
  double bound = MIN(max_batch, floor(max_tokens / (1 + drafts)));
  out->n = 0;
  for (int i = 0; i < list->n; i++) {
    if (list->size[i] <= bound) {
      out->size[out->n++] = list->size[i];
    } else {
      if (bound >= 1 && (out->n == 0 || out->size[out->n - 1] < bound))
        out->size[out->n++] = bound;
      break;
    }
  }
}
