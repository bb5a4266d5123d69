/* catalog.h — the systems and LLMs aifsim knows, loaded from YAML at run time.
 *
 * A catalog directory holds hardware/<id>.yaml, llm/<id>.yaml and optionally sources.yaml (source
 * keys -> full citations). The shipped catalog is loaded first; each --catalog DIR after it may add
 * entries or replace shipped ones with the same id. */
#ifndef AIF_CATALOG_H
#define AIF_CATALOG_H

#include "hardware.h"
#include "llm.h"

typedef struct {
  GPtrArray *systems;      /* SystemSpec *, owned, in id order */
  GPtrArray *models;       /* LlmSpec *, owned, in id order */
  GHashTable *citations;   /* source key -> citation text */
} Catalog;

Catalog *catalog_new(void);
void catalog_free(Catalog *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Catalog, catalog_free)

/* Loads every entry under DIR; any bad file is an AIF_ERROR_INPUT naming file:line:col. */
gboolean catalog_load_dir(Catalog *c, const char *dir, GError **error);

const SystemSpec *catalog_system(const Catalog *c, const char *id);
const LlmSpec *catalog_model(const Catalog *c, const char *id);
/* The citation of a source key, or the text itself when it is not a key. */
const char *catalog_citation(const Catalog *c, const char *source);
/* NULL-terminated array of ids (the strings belong to the catalog). */
GPtrArray *catalog_system_ids(const Catalog *c);
GPtrArray *catalog_model_ids(const Catalog *c);

/* Loads one entry file against TABLE into TARGET (defaults first), recording sources in FS. */
gboolean catalog_load_entry(const KtTable *table, const char *path, void *target, FigureSources *fs,
                            GError **error);

#endif
