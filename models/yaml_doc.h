/* yaml_doc.h — a loaded YAML file that remembers where every node came from.
 *
 * Scenarios and catalogs are read through libyaml's document API. This wrapper keeps the file name
 * beside the document so that any later check can say "file:line:col: what was expected". */
#ifndef AIF_YAML_DOC_H
#define AIF_YAML_DOC_H

#include <glib.h>
#include <yaml.h>

typedef struct {
  char *path;          /* as given by the user: it prefixes every error message */
  yaml_document_t doc; /* owns every node */
} YamlDoc;

/* Loads PATH (one YAML document). Syntax errors and unreadable files give AIF_ERROR_INPUT. */
YamlDoc *yaml_doc_load(const char *path, GError **error);
/* The same for TEXT (LEN bytes) that PATH names in messages: a document made in memory. */
YamlDoc *yaml_doc_parse(const char *path, const char *text, gsize len, GError **error);
void yaml_doc_free(YamlDoc *d);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(YamlDoc, yaml_doc_free)

yaml_node_t *yaml_doc_root(YamlDoc *d);
yaml_node_t *yaml_doc_get(YamlDoc *d, int index);
/* The text of a scalar node, or NULL when NODE is not a scalar. */
const char *yaml_doc_scalar(yaml_node_t *node);
/* Looks KEY up in a mapping node; NULL when absent or NODE is not a mapping. */
yaml_node_t *yaml_doc_lookup(YamlDoc *d, yaml_node_t *node, const char *key);

/* Sets ERROR (AIF_ERROR_INPUT) to "path:line:col: message" at NODE's start. */
void yaml_doc_error(YamlDoc *d, yaml_node_t *node, GError **error, const char *fmt, ...)
    G_GNUC_PRINTF(4, 5);

#endif
