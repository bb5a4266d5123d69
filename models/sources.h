/* sources.h — where each figure of a catalog entry comes from.
 *
 * A catalog figure is written either plainly or as {value: ..., source: ..., uncertain: true}. The
 * source is a key of the catalog's sources.yaml (expanded when shown) or free text; `uncertain`
 * marks estimates, conflicting figures and roadmap numbers. An entry-wide `source:` covers the
 * figures that name none. */
#ifndef AIF_SOURCES_H
#define AIF_SOURCES_H

#include <glib.h>

typedef struct {
  GHashTable *by_key;    /* key path -> source text (owned strings) */
  GHashTable *uncertain; /* key path -> "" for figures marked uncertain */
} FigureSources;

void figure_sources_init(FigureSources *fs);
void figure_sources_clear(FigureSources *fs);
void figure_sources_copy(FigureSources *dst, const FigureSources *src);
void figure_sources_set(FigureSources *fs, const char *path, const char *source, gboolean uncertain);
/* The source of PATH, or of the whole entry (key "source"), or NULL. */
const char *figure_sources_get(const FigureSources *fs, const char *path);
gboolean figure_sources_uncertain(const FigureSources *fs, const char *path);

#endif
