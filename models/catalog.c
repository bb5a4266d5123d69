/* catalog.c — loading the hardware and LLM catalogs (see catalog.h). */
#include "catalog.h"
#include "keytable.h"
#include "aif_error.h"

#include <string.h>

Catalog *catalog_new(void)
{
  Catalog *c = g_new0(Catalog, 1);
  c->systems = g_ptr_array_new();
  c->models = g_ptr_array_new();
  c->citations = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  return c;
}

void catalog_free(Catalog *c)
{
  if (!c)
    return;
  for (guint i = 0; i < c->systems->len; i++) {
    system_spec_clear(c->systems->pdata[i]);
    g_free(c->systems->pdata[i]);
  }
  for (guint i = 0; i < c->models->len; i++) {
    llm_spec_clear(c->models->pdata[i]);
    g_free(c->models->pdata[i]);
  }
  g_ptr_array_unref(c->systems);
  g_ptr_array_unref(c->models);
  g_hash_table_unref(c->citations);
  g_free(c);
}

typedef struct {
  void *target;
  FigureSources *fs;
  GHashTable *given; /* key paths seen */
} EntryLoad;

/* A figure is a scalar, or {value: ..., source: ..., uncertain: bool, note: ...}. */
static gboolean entry_leaf(const KtTable *t, const KtKey *key, const char *group, YamlDoc *d,
                           yaml_node_t *v, gpointer user, GError **error)
{
  EntryLoad *el = user;
  g_hash_table_add(el->given, (gpointer)key->path);
  if (v->type != YAML_MAPPING_NODE)
    return kt_assign(key, d, v, el->target, error);
  yaml_node_t *value = NULL;
  const char *source = NULL;
  gboolean uncertain = FALSE;
  for (yaml_node_pair_t *p = v->data.mapping.pairs.start; p < v->data.mapping.pairs.top; p++) {
    const char *k = yaml_doc_scalar(yaml_doc_get(d, p->key));
    yaml_node_t *pv = yaml_doc_get(d, p->value);
    if (k && strcmp(k, "value") == 0)
      value = pv;
    else if (k && strcmp(k, "source") == 0 && yaml_doc_scalar(pv))
      source = yaml_doc_scalar(pv);
    else if (k && strcmp(k, "uncertain") == 0 && yaml_doc_scalar(pv))
      uncertain = strcmp(yaml_doc_scalar(pv), "true") == 0;
    else if (!(k && strcmp(k, "note") == 0)) {
      yaml_doc_error(d, yaml_doc_get(d, p->key), error,
                     "'%s': a figure's mapping takes value, source, uncertain and note, not '%s'", key->path,
                     k ? k : "?");
      return FALSE;
    }
  }
  if (!value) {
    yaml_doc_error(d, v, error, "'%s': missing 'value' in the figure's mapping", key->path);
    return FALSE;
  }
  figure_sources_set(el->fs, key->path, source, uncertain);
  return kt_assign(key, d, value, el->target, error);
}

gboolean catalog_load_entry(const KtTable *table, const char *path, void *target, FigureSources *fs,
                            GError **error)
{
  g_autoptr(YamlDoc) d = yaml_doc_load(path, error);
  if (!d)
    return FALSE;
  kt_defaults(table, target);
  figure_sources_init(fs);
  EntryLoad el = { target, fs, g_hash_table_new(g_str_hash, g_str_equal) };
  gboolean ok = kt_walk(table, d, yaml_doc_root(d), entry_leaf, &el, error);
  for (size_t i = 0; ok && i < table->n_keys; i++) {
    const KtKey *k = &table->keys[i];
    if ((k->flags & KT_REQUIRED) && !g_hash_table_contains(el.given, k->path)) {
      yaml_doc_error(d, yaml_doc_root(d), error, "missing required %s key '%s' (%s)", table->name, k->path,
                     k->help);
      ok = FALSE;
    }
  }
  g_hash_table_unref(el.given);
  const KtKey *idk = kt_find(table, "id"), *srck = kt_find(table, "source");
  if (ok) {
    const char *id = *(char **)((char *)target + idk->offset);
    g_autofree char *base = g_path_get_basename(path);
    if (!g_str_has_suffix(base, ".yaml") || strlen(base) != strlen(id) + 5 || strncmp(base, id, strlen(id))) {
      yaml_doc_error(d, yaml_doc_lookup(d, yaml_doc_root(d), "id"), error,
                     "id '%s' must match the file name (expected %s.yaml)", id, id);
      ok = FALSE;
    }
    const char *src = *(char **)((char *)target + srck->offset);
    if (src)
      figure_sources_set(fs, "source", src, FALSE);
  }
  return ok;
}

static gint by_id_system(gconstpointer a, gconstpointer b)
{
  return strcmp((*(SystemSpec *const *)a)->id, (*(SystemSpec *const *)b)->id);
}

static gint by_id_model(gconstpointer a, gconstpointer b)
{
  return strcmp((*(LlmSpec *const *)a)->id, (*(LlmSpec *const *)b)->id);
}

static gboolean load_citations(Catalog *c, const char *file, GError **error)
{
  g_autoptr(YamlDoc) d = yaml_doc_load(file, error);
  if (!d)
    return FALSE;
  yaml_node_t *root = yaml_doc_root(d);
  if (root->type != YAML_MAPPING_NODE) {
    yaml_doc_error(d, root, error, "expected a mapping of source keys to citations");
    return FALSE;
  }
  for (yaml_node_pair_t *p = root->data.mapping.pairs.start; p < root->data.mapping.pairs.top; p++) {
    const char *k = yaml_doc_scalar(yaml_doc_get(d, p->key)), *v = yaml_doc_scalar(yaml_doc_get(d, p->value));
    if (!k || !v) {
      yaml_doc_error(d, yaml_doc_get(d, p->value), error, "expected 'key: citation text'");
      return FALSE;
    }
    g_hash_table_insert(c->citations, g_strdup(k), g_strdup(v));
  }
  return TRUE;
}

static gint cmp_strp(gconstpointer a, gconstpointer b)
{
  return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted *.yaml names in DIR/SUB, or NULL when the folder does not exist. */
static GPtrArray *yaml_files(const char *dir, const char *sub, GError **error)
{
  g_autofree char *path = g_build_filename(dir, sub, NULL);
  if (!g_file_test(path, G_FILE_TEST_IS_DIR))
    return NULL;
  g_autoptr(GError) io = NULL;
  g_autoptr(GDir) gd = g_dir_open(path, 0, &io);
  if (!gd) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: cannot read catalog folder: %s", path, io->message);
    return NULL;
  }
  GPtrArray *files = g_ptr_array_new_with_free_func(g_free);
  for (const char *n; (n = g_dir_read_name(gd));)
    if (g_str_has_suffix(n, ".yaml"))
      g_ptr_array_add(files, g_build_filename(path, n, NULL));
  g_ptr_array_sort(files, cmp_strp);
  return files;
}

static void replace_or_add(GPtrArray *arr, gpointer entry, const char *id, void (*clear)(gpointer))
{
  for (guint i = 0; i < arr->len; i++)
    if (strcmp(*(char **)arr->pdata[i], id) == 0) { /* id is the first field of both specs */
      clear(arr->pdata[i]);
      g_free(arr->pdata[i]);
      arr->pdata[i] = entry;
      return;
    }
  g_ptr_array_add(arr, entry);
}

gboolean catalog_load_dir(Catalog *c, const char *dir, GError **error)
{
  if (!g_file_test(dir, G_FILE_TEST_IS_DIR)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: catalog folder not found", dir);
    return FALSE;
  }
  g_autofree char *cites = g_build_filename(dir, "hardware", "sources.yaml", NULL);
  if (g_file_test(cites, G_FILE_TEST_EXISTS) && !load_citations(c, cites, error))
    return FALSE;
  GError *err = NULL;
  g_autoptr(GPtrArray) hw = yaml_files(dir, "hardware", &err);
  if (err)
    return g_propagate_error(error, err), FALSE;
  for (guint i = 0; hw && i < hw->len; i++) {
    if (g_str_has_suffix(hw->pdata[i], "/sources.yaml"))
      continue;
    SystemSpec *s = g_new0(SystemSpec, 1);
    if (!catalog_load_entry(&hardware_table, hw->pdata[i], s, &s->sources, error)) {
      system_spec_clear(s);
      g_free(s);
      return FALSE;
    }
    /* what the nameplate covers is the entry's, fixed here: a scenario that overrides the NVLink
     * domain (a what-if) must not divide a rack's power by a server's GPUs */
    if (s->system_power_gpus <= 0)
      s->system_power_gpus = system_power_unit(s);
    replace_or_add(c->systems, s, s->id, (void (*)(gpointer))system_spec_clear);
  }
  g_autoptr(GPtrArray) llm = yaml_files(dir, "llm", &err);
  if (err)
    return g_propagate_error(error, err), FALSE;
  for (guint i = 0; llm && i < llm->len; i++) {
    LlmSpec *m = g_new0(LlmSpec, 1);
    if (!catalog_load_entry(&llm_table, llm->pdata[i], m, &m->sources, error)) {
      llm_spec_clear(m);
      g_free(m);
      return FALSE;
    }
    replace_or_add(c->models, m, m->id, (void (*)(gpointer))llm_spec_clear);
  }
  if (!hw && !llm) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: not a catalog folder (expected hardware/ or llm/ in it)",
                dir);
    return FALSE;
  }
  g_ptr_array_sort(c->systems, by_id_system);
  g_ptr_array_sort(c->models, by_id_model);
  return TRUE;
}

const SystemSpec *catalog_system(const Catalog *c, const char *id)
{
  for (guint i = 0; i < c->systems->len; i++)
    if (strcmp(((SystemSpec *)c->systems->pdata[i])->id, id) == 0)
      return c->systems->pdata[i];
  return NULL;
}

const LlmSpec *catalog_model(const Catalog *c, const char *id)
{
  for (guint i = 0; i < c->models->len; i++)
    if (strcmp(((LlmSpec *)c->models->pdata[i])->id, id) == 0)
      return c->models->pdata[i];
  return NULL;
}

const char *catalog_citation(const Catalog *c, const char *source)
{
  const char *t = source ? g_hash_table_lookup(c->citations, source) : NULL;
  return t ? t : source;
}

static GPtrArray *ids(GPtrArray *entries)
{
  GPtrArray *out = g_ptr_array_new();
  for (guint i = 0; i < entries->len; i++)
    g_ptr_array_add(out, *(char **)entries->pdata[i]);
  g_ptr_array_add(out, NULL);
  return out;
}

GPtrArray *catalog_system_ids(const Catalog *c) { return ids(c->systems); }
GPtrArray *catalog_model_ids(const Catalog *c) { return ids(c->models); }
