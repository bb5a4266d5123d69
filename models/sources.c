/* sources.c — per-figure provenance of catalog entries (see sources.h). */
#include "sources.h"

void figure_sources_init(FigureSources *fs)
{
  fs->by_key = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
  fs->uncertain = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
}

void figure_sources_clear(FigureSources *fs)
{
  g_clear_pointer(&fs->by_key, g_hash_table_unref);
  g_clear_pointer(&fs->uncertain, g_hash_table_unref);
}

static void copy_into(GHashTable *dst, GHashTable *src)
{
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, src);
  while (g_hash_table_iter_next(&it, &k, &v))
    g_hash_table_insert(dst, g_strdup(k), g_strdup(v));
}

void figure_sources_copy(FigureSources *dst, const FigureSources *src)
{
  figure_sources_init(dst);
  if (src->by_key) {
    copy_into(dst->by_key, src->by_key);
    copy_into(dst->uncertain, src->uncertain);
  }
}

void figure_sources_set(FigureSources *fs, const char *path, const char *source, gboolean uncertain)
{
  if (source)
    g_hash_table_insert(fs->by_key, g_strdup(path), g_strdup(source));
  if (uncertain)
    g_hash_table_insert(fs->uncertain, g_strdup(path), g_strdup(""));
}

const char *figure_sources_get(const FigureSources *fs, const char *path)
{
  if (!fs->by_key)
    return NULL;
  const char *s = g_hash_table_lookup(fs->by_key, path);
  return s ? s : g_hash_table_lookup(fs->by_key, "source");
}

gboolean figure_sources_uncertain(const FigureSources *fs, const char *path)
{
  return fs->uncertain && g_hash_table_contains(fs->uncertain, path);
}
