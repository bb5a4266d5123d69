/* prefix_cache.c — an engine's KV cache that outlives its requests (see prefix_cache.h). */
#include "prefix_cache.h"

#include <math.h>
#include <string.h>

typedef struct {
  int group, session;  /* session < 0: the group's shared prefix */
  double tokens;
  guint64 stamp;       /* last use */
  int pins;            /* running requests using a group entry */
  int tier;            /* CACHE_HBM, CACHE_HOST, CACHE_STORAGE or CACHE_REMOTE */
} Entry;

struct PrefixCache {
  int block;
  double held[CACHE_TIERS]; /* tokens in each tier (HBM's pinned or not) */
  double cap[CACHE_TIERS];  /* the offload tiers' room in tokens (HBM's is the caller's) */
  GHashTable *entries;      /* key -> Entry * */
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

void prefix_cache_set_tiers(PrefixCache *c, double host, double storage, double remote)
{
  c->cap[CACHE_HOST] = MAX(host, 0), c->cap[CACHE_STORAGE] = MAX(storage, 0), c->cap[CACHE_REMOTE] = MAX(remote, 0);
}

double prefix_cache_match(const PrefixCache *c, int group, double shared, int session, double history,
                          double limit, gboolean *group_hit, double *by_tier)
{
  double tiers[CACHE_TIERS] = { 0 };
  *group_hit = FALSE;
  if (group >= 0 && shared > 0) {
    const Entry *g = lookup(c, group, -1);
    if (!g || g->tokens < shared) {
      if (by_tier)
        memset(by_tier, 0, sizeof tiers);
      return 0; /* the session's tokens sit behind the group's: nothing matches past a miss */
    }
    *group_hit = TRUE;
    tiers[g->tier] += shared;
  }
  if (session >= 0) {
    const Entry *s = lookup(c, group, session);
    if (s)
      tiers[s->tier] += MIN(s->tokens, history);
  }
  double hit = 0;
  for (int t = 0; t < CACHE_TIERS; t++)
    hit += tiers[t];
  double whole = floor(MIN(hit, limit) / c->block) * c->block; /* whole blocks only */
  /* what the limit and the blocks cut comes off the deepest tier first: the prompt's end */
  for (int t = CACHE_TIERS - 1; t >= 0 && hit > whole; t--) {
    double cut = MIN(tiers[t], hit - whole);
    tiers[t] -= cut, hit -= cut;
  }
  if (by_tier)
    memcpy(by_tier, tiers, sizeof tiers);
  return whole;
}

/* Moves E to TIER, keeping the tiers' counts. */
static void move(PrefixCache *c, Entry *e, int tier)
{
  c->held[e->tier] -= e->tokens;
  e->tier = tier;
  c->held[tier] += e->tokens;
}

static void drop(PrefixCache *c, Entry *e)
{
  guint64 k = key_of(e->group, e->session);
  c->held[e->tier] -= e->tokens;
  g_hash_table_remove(c->entries, &k);
}

double prefix_cache_take(PrefixCache *c, int group, int session, guint64 stamp, gboolean *pinned)
{
  Entry *g = group >= 0 ? lookup(c, group, -1) : NULL;
  *pinned = g != NULL;
  if (g) {
    g->pins++;
    g->stamp = stamp;
    if (g->tier != CACHE_HBM) /* reloaded: a running request's prefix lives in HBM */
      move(c, g, CACHE_HBM);
  }
  Entry *s = session >= 0 ? lookup(c, group, session) : NULL;
  double tokens = s ? s->tokens : 0;
  if (s)
    drop(c, s);
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
    e->group = group, e->session = session, e->tier = CACHE_HBM;
    guint64 *kk = g_new(guint64, 1);
    *kk = k;
    g_hash_table_insert(c->entries, kk, e);
  }
  move(c, e, CACHE_HBM); /* what a request just used is in HBM */
  c->held[CACHE_HBM] += tokens - e->tokens;
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

double prefix_cache_tokens(const PrefixCache *c) { return c->held[CACHE_HBM]; }
double prefix_cache_tier_tokens(const PrefixCache *c, int tier) { return c->held[tier]; }

/* The least recently used entry of TIER no running request pins, or NULL. Ties go to a session
 * before its group (a radix cache evicts leaves first: a prefix is used whenever what hangs on it
 * is), then to the lower key, so the order never depends on the table's. */
static Entry *victim(const PrefixCache *c, int tier)
{
  Entry *best = NULL;
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, c->entries);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    Entry *e = v;
    if (e->pins > 0 || e->tier != tier)
      continue;
    gboolean leaf = e->session >= 0, best_leaf = best && best->session >= 0;
    if (!best || e->stamp < best->stamp || (e->stamp == best->stamp && leaf && !best_leaf) ||
        (e->stamp == best->stamp && leaf == best_leaf &&
         key_of(e->group, e->session) < key_of(best->group, best->session)))
      best = e;
  }
  return best;
}

/* E leaves the cache for good: a group's prefix takes its sessions with it (in whatever tier:
 * nothing matches behind a missing prefix). */
static void forget(PrefixCache *c, Entry *e)
{
  if (e->session >= 0) {
    drop(c, e);
    return;
  }
  int group = e->group;
  drop(c, e);
  GHashTableIter it;
  gpointer k, v;
  g_hash_table_iter_init(&it, c->entries);
  while (g_hash_table_iter_next(&it, &k, &v)) {
    Entry *s = v;
    if (s->group == group && s->session >= 0) {
      c->held[s->tier] -= s->tokens;
      g_hash_table_iter_remove(&it);
    }
  }
}

/* E leaves its tier for the next one down that has any (a storage tier without a host tier takes
 * what HBM lets go) when that has room (made by the same rule below it), else leaves the cache. */
static void demote(PrefixCache *c, Entry *e)
{
  int next = e->tier + 1;
  while (next < CACHE_TIERS && c->cap[next] <= 0)
    next++;
  if (next >= CACHE_TIERS || e->tokens > c->cap[next]) {
    forget(c, e);
    return;
  }
  while (c->held[next] + e->tokens > c->cap[next]) {
    Entry *v = victim(c, next);
    if (!v)
      break;
    demote(c, v);
  }
  if (c->held[next] + e->tokens > c->cap[next])
    forget(c, e);
  else
    move(c, e, next);
}

double prefix_cache_evict(PrefixCache *c, double limit)
{
  while (c->held[CACHE_HBM] > limit) {
    Entry *e = victim(c, CACHE_HBM);
    if (!e)
      break;
    demote(c, e);
  }
  if (g_hash_table_size(c->entries) == 0) /* no drift from sums of doubles */
    memset(c->held, 0, sizeof c->held);
  return c->held[CACHE_HBM];
}
