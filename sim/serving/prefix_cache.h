/* prefix_cache.h — an engine's KV cache that outlives its requests (prefix caching).
 *
 * The stacks keep a finished request's KV blocks and hand them to a later prompt that starts with
 * the same tokens (SGLang's radix cache, vLLM's and TensorRT-LLM's block reuse), evicting the least
 * recently used when running requests need the room. A prompt here is a shared prefix (a system
 * prompt or document of a group of requests, GROUP's SHARED tokens), then its session's history
 * (the earlier turns' prompts and answers), then new tokens: a two-level prefix tree. A group entry
 * is shared by every running request of the group (pinned while any uses it); a session entry
 * belongs to one conversation, and a hit hands its tokens to the request (the request's own KV from
 * then on), which gives them back, grown by its new prompt and answer, when it finishes. Hits count
 * whole blocks only, and a session's tokens only behind its group's. With offload tiers (host memory,
 * local storage, a remote store over the network: Dynamo's KV block manager, LMCache), what leaves
 * HBM goes down a tier while that
 * has room, and a hit there is reloaded (or recomputed: the caller weighs the two). Tokens are
 * doubles (KV room is counted in tokens by the event simulation); nothing here allocates per token. */
#ifndef AIF_PREFIX_CACHE_H
#define AIF_PREFIX_CACHE_H

#include <glib.h>

typedef struct PrefixCache PrefixCache;

enum { CACHE_HBM, CACHE_HOST, CACHE_STORAGE, CACHE_REMOTE, CACHE_TIERS };

/* A cache whose hits are whole blocks of BLOCK tokens (>= 1). */
PrefixCache *prefix_cache_new(int block);
void prefix_cache_free(PrefixCache *c);
/* Room of the offload tiers, tokens (0: none). HBM's room is what the running requests leave:
 * the caller's, through prefix_cache_evict. */
void prefix_cache_set_tiers(PrefixCache *c, double host, double storage, double remote);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(PrefixCache, prefix_cache_free)

/* What a prompt of GROUP (SHARED tokens; GROUP < 0: none) and SESSION (its HISTORY tokens after the
 * shared ones; SESSION < 0: none) finds: the group's tokens when cached (*GROUP_HIT), and behind
 * them the session's, the whole in blocks and at most LIMIT (a prompt computes at least its last
 * token). BY_TIER (or NULL) gets the hit's tokens in each tier (the cut, when the limit or the blocks
 * cut, taken from the deepest). */
double prefix_cache_match(const PrefixCache *c, int group, double shared, int session, double history,
                          double limit, gboolean *group_hit, double *by_tier);
/* A request takes its hit at STAMP (a count that only grows, for the LRU order): the group entry,
 * when there, is pinned (its tokens stay the cache's; *PINNED says so), the session entry leaves the
 * cache for the request: its tokens are returned. A group's prefix in a lower tier comes back to HBM. */
double prefix_cache_take(PrefixCache *c, int group, int session, guint64 stamp, gboolean *pinned);
/* The request that pinned GROUP's entry is done with it. */
void prefix_cache_unpin(PrefixCache *c, int group);
/* A finished request leaves its context: GROUP's SHARED tokens (added when absent) and SESSION's
 * TOKENS (its history, prompt and answer after the shared ones; replacing an older entry). */
void prefix_cache_put(PrefixCache *c, int group, double shared, int session, double tokens, guint64 stamp);
/* Tokens the cache holds in HBM (pinned or not), and in TIER. */
double prefix_cache_tokens(const PrefixCache *c);
double prefix_cache_tier_tokens(const PrefixCache *c, int tier);
/* Evicts least recently used unpinned entries from HBM until at most LIMIT tokens are held there, or
 * only pinned ones are, each to the next tier with room (making room there the same way), else out
 * (a group's prefix takes its sessions with it: nothing matches behind it); returns the HBM tokens
 * held after. */
double prefix_cache_evict(PrefixCache *c, double limit);

#endif
