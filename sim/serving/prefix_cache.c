/* prefix_cache.c — an engine's KV cache that outlives its requests (see prefix_cache.h). */
#include "prefix_cache.h"

#include <math.h>

typedef struct {
  int group, session;  /* session < 0: the group's shared prefix */
  double tokens;
  guint64 stamp;       /* last use */
  int pins;            /* running requests using a group entry */
} Entry;

struct PrefixCache {
  int block;
  double tokens;       /* held, pinned or not */
  GHashTable *entries; /* key -> Entry * */
};

/* One key per (group, session): groups and sessions are small counts of the simulation. */
static guint64 key_of(int group, int session)
{
  return ((guint64)(guint32)(group + 1) << 32) | (guint32)(session + 1);
}

static Entry *lookup(const PrefixCache *c, int group, int session)
{
  guint64 k = key_of(group, session);
  return g_hash_table_lookup(c->entries, &k);
}

PrefixCache *prefix_cache_new(int block)
{
  PrefixCache *c = g_new0(PrefixCache, 1);
  c->block = MAX(block, 1);
  c->entries = g_hash_table_new_full(g_int64_hash, g_int64_equal, g_free, g_free);
  return c;
}

void prefix_cache_free(PrefixCache *c)
{
  if (!c)
    return;
  g_hash_table_unref(c->entries);
  g_free(c);
}

double prefix_cache_match(const PrefixCache *c, int group, double shared, int session, double history,
                          double limit, gboolean *group_hit)
{
  *group_hit = FALSE;
  double hit = 0;
  if (group >= 0 && shared > 0) {
    const Entry *g = lookup(c, group, -1);
    if (!g || g->tokens < shared)
      return 0; /* the session's tokens sit behind the group's: nothing matches past a miss */
    *group_hit = TRUE;
    hit = shared;
  }
  if (session >= 0) {
    const Entry *s = lookup(c, group, session);
    if (s)
      hit += MIN(s->tokens, history);
  }
  hit = MIN(hit, limit);
  return floor(hit / c->block) * c->block; /* whole blocks only */
}

double prefix_cache_take(PrefixCache *c, int group, int session, guint64 stamp, gboolean *pinned)
{
  Entry *g = group >= 0 ? lookup(c, group, -1) : NULL;
  *pinned = g != NULL;
  if (g) {
    g->pins++;
    g->stamp = stamp;
  }
  guint64 k = key_of(group, session);
  Entry *s = session >= 0 ? g_hash_table_lookup(c->entries, &k) : NULL;
  double tokens = s ? s->tokens : 0;
  if (s) {
    c->tokens -= s->tokens;
    g_hash_table_remove(c->entries, &k);
  }
  return tokens;
}

void prefix_cache_unpin(PrefixCache *c, int group)
{
  Entry *g = group >= 0 ? lookup(c, group, -1) : NULL;
  if (g && g->pins > 0)
    g->pins--;
}

static void put_entry(PrefixCache *c, int group, int session, double tokens, guint64 stamp)
{
  guint64 k = key_of(group, session);
  Entry *e = g_hash_table_lookup(c->entries, &k);
  if (!e) {
    e = g_new0(Entry, 1);
    e->group = group, e->session = session;
    guint64 *kk = g_new(guint64, 1);
    *kk = k;
    g_hash_table_insert(c->entries, kk, e);
  }
  c->tokens += tokens - e->tokens;
  e->tokens = tokens;
  e->stamp = stamp;
}

void prefix_cache_put(PrefixCache *c, int group, double shared, int session, double tokens, guint64 stamp)
{
  if (group >= 0 && shared > 0) {
    Entry *g = lookup(c, group, -1);
    if (!g || g->tokens < shared)
      put_entry(c, group, -1, shared, stamp);
    else
      g->stamp = stamp;
  }
  if (session >= 0 && tokens > 0)
    put_entry(c, group, session, tokens, stamp);
}

double prefix_cache_tokens(const PrefixCache *c) { return c->tokens; }

/* The least recently used entry no running request pins, or NULL. Ties go to a session before its
 * group (a radix cache evicts leaves first: a prefix is used whenever what hangs on it is), then to
 * the lower key, so the order never depends on the table's. */
static Entry *victim(const PrefixCache *c)
{
  Entry *best = NULL;
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, c->entries);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    Entry *e = v;
    if (e->pins > 0)
      continue;
    gboolean leaf = e->session >= 0, best_leaf = best && best->session >= 0;
    if (!best || e->stamp < best->stamp || (e->stamp == best->stamp && leaf && !best_leaf) ||
        (e->stamp == best->stamp && leaf == best_leaf &&
         key_of(e->group, e->session) < key_of(best->group, best->session)))
      best = e;
  }
  return best;
}

static void drop(PrefixCache *c, Entry *e)
{
  guint64 k = key_of(e->group, e->session);
  c->tokens -= e->tokens;
  g_hash_table_remove(c->entries, &k);
}

double prefix_cache_evict(PrefixCache *c, double limit)
{
  while (c->tokens > limit) {
    Entry *e = victim(c);
    if (!e)
      break;
    if (e->session < 0) { /* the group's prefix goes: its sessions' entries can match nothing */
      int group = e->group;
      drop(c, e);
      GHashTableIter it;
      gpointer k, v;
      g_hash_table_iter_init(&it, c->entries);
      while (g_hash_table_iter_next(&it, &k, &v)) {
        Entry *s = v;
        if (s->group == group && s->session >= 0) {
          c->tokens -= s->tokens;
          g_hash_table_iter_remove(&it);
        }
      }
    } else {
      drop(c, e);
    }
  }
  if (c->tokens < 1e-9 && g_hash_table_size(c->entries) == 0)
    c->tokens = 0; /* no drift from sums of doubles */
  return c->tokens;
}
