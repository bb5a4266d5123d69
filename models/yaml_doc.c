/* yaml_doc.c — libyaml document loading with positions (see yaml_doc.h). */
#include "yaml_doc.h"
#include "aif_error.h"
#include "input_file.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static gboolean prescan_fail(const char *path, const yaml_mark_t *m, GError **error, const char *what)
{
  g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%zu:%zu: %s", path, m->line + 1, m->column + 1, what);
  return FALSE;
}

/* One pass over the events before the document is built: one document only, nesting no deeper
 * than LIMIT_YAML_DEPTH, and no more than LIMIT_YAML_NODES nodes with every alias expanded (an
 * alias costs what its anchor holds, so "billion laughs" files stop here, not in a later walk).
 * Syntax errors are left to the loader, which reports them with their context. */
static gboolean prescan(const char *path, const char *text, gsize len, GError **error)
{
  yaml_parser_t parser;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  gint64 max_depth = input_limit(LIMIT_YAML_DEPTH), max_nodes = input_limit(LIMIT_YAML_NODES);
  g_autoptr(GHashTable) anchors = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
  g_autoptr(GArray) sizes = g_array_new(FALSE, TRUE, sizeof(gint64)); /* nodes under each open collection */
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free); /* each open collection's anchor */
  gint64 total = 0;
  int documents = 0;
  gboolean ok = TRUE, done = FALSE;
  while (ok && !done) {
    yaml_event_t ev;
    if (!yaml_parser_parse(&parser, &ev))
      break; /* the loader reports the syntax error */
    gint64 add = -1;
    const char *anchor = NULL;
    switch (ev.type) {
    case YAML_STREAM_END_EVENT: done = TRUE; break;
    case YAML_DOCUMENT_START_EVENT:
      if (++documents > 1)
        ok = prescan_fail(path, &ev.start_mark, error, "a second YAML document: expected one document per file");
      break;
    case YAML_SCALAR_EVENT: add = 1, anchor = (const char *)ev.data.scalar.anchor; break;
    case YAML_ALIAS_EVENT: {
      gpointer v = g_hash_table_lookup(anchors, ev.data.alias.anchor);
      add = v ? GPOINTER_TO_SIZE(v) : 1;
      break;
    }
    case YAML_SEQUENCE_START_EVENT:
    case YAML_MAPPING_START_EVENT: {
      if ((gint64)sizes->len >= max_depth) {
        g_autofree char *why = g_strdup_printf("nested deeper than %" G_GINT64_FORMAT " levels (raise the limit "
                                               "with %s)", max_depth, input_limit_name(LIMIT_YAML_DEPTH));
        ok = prescan_fail(path, &ev.start_mark, error, why);
        break;
      }
      gint64 zero = 0;
      g_array_append_val(sizes, zero);
      const yaml_char_t *a = ev.type == YAML_SEQUENCE_START_EVENT ? ev.data.sequence_start.anchor
                                                                  : ev.data.mapping_start.anchor;
      g_ptr_array_add(names, g_strdup((const char *)a));
      break;
    }
    case YAML_SEQUENCE_END_EVENT:
    case YAML_MAPPING_END_EVENT:
      if (sizes->len == 0)
        break;
      add = g_array_index(sizes, gint64, sizes->len - 1) + 1;
      g_array_set_size(sizes, sizes->len - 1);
      if (names->pdata[names->len - 1])
        g_hash_table_insert(anchors, g_strdup(names->pdata[names->len - 1]), GSIZE_TO_POINTER((gsize)add));
      g_ptr_array_remove_index(names, names->len - 1);
      break;
    default: break;
    }
    if (ok && add > 0) {
      if (anchor)
        g_hash_table_insert(anchors, g_strdup(anchor), GSIZE_TO_POINTER((gsize)add));
      gint64 *parent = sizes->len ? &g_array_index(sizes, gint64, sizes->len - 1) : &total;
      *parent = MIN(*parent + add, max_nodes + 1);
      if (*parent > max_nodes) {
        g_autofree char *why = g_strdup_printf("more than %" G_GINT64_FORMAT " YAML nodes with aliases expanded "
                                               "(raise the limit with %s)", max_nodes,
                                               input_limit_name(LIMIT_YAML_NODES));
        ok = prescan_fail(path, &ev.start_mark, error, why);
      }
    }
    yaml_event_delete(&ev);
  }
  yaml_parser_delete(&parser);
  return ok;
}

YamlDoc *yaml_doc_load(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!input_file_read(path, &text, &len, error))
    return NULL;
  return yaml_doc_parse(path, text, len, error);
}

YamlDoc *yaml_doc_parse(const char *path, const char *text, gsize len, GError **error)
{
  if (!prescan(path, text, len, error))
    return NULL;
  yaml_parser_t parser;
  yaml_parser_initialize(&parser);
  yaml_parser_set_input_string(&parser, (const unsigned char *)text, len);
  YamlDoc *d = g_new0(YamlDoc, 1);
  d->path = g_strdup(path);
  if (!yaml_parser_load(&parser, &d->doc)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%zu:%zu: invalid YAML: %s%s%s", path,
                parser.problem_mark.line + 1, parser.problem_mark.column + 1,
                parser.problem ? parser.problem : "syntax error",
                parser.context ? " " : "", parser.context ? parser.context : "");
    yaml_parser_delete(&parser);
    g_free(d->path);
    g_free(d);
    return NULL;
  }
  yaml_parser_delete(&parser);
  if (!yaml_document_get_root_node(&d->doc)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:1:1: the file is empty: expected a YAML mapping",
                path);
    yaml_doc_free(d);
    return NULL;
  }
  return d;
}

void yaml_doc_free(YamlDoc *d)
{
  if (!d)
    return;
  yaml_document_delete(&d->doc);
  g_free(d->path);
  g_free(d);
}

yaml_node_t *yaml_doc_root(YamlDoc *d) { return yaml_document_get_root_node(&d->doc); }

yaml_node_t *yaml_doc_get(YamlDoc *d, int index) { return yaml_document_get_node(&d->doc, index); }

const char *yaml_doc_scalar(yaml_node_t *node)
{
  return node && node->type == YAML_SCALAR_NODE ? (const char *)node->data.scalar.value : NULL;
}

yaml_node_t *yaml_doc_lookup(YamlDoc *d, yaml_node_t *node, const char *key)
{
  if (!node || node->type != YAML_MAPPING_NODE)
    return NULL;
  for (yaml_node_pair_t *p = node->data.mapping.pairs.start; p < node->data.mapping.pairs.top; p++) {
    const char *k = yaml_doc_scalar(yaml_doc_get(d, p->key));
    if (k && strcmp(k, key) == 0)
      return yaml_doc_get(d, p->value);
  }
  return NULL;
}

void yaml_doc_error(YamlDoc *d, yaml_node_t *node, GError **error, const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  g_autofree char *msg = g_strdup_vprintf(fmt, ap);
  va_end(ap);
  size_t line = node ? node->start_mark.line + 1 : 1, col = node ? node->start_mark.column + 1 : 1;
  g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s:%zu:%zu: %s", d->path, line, col, msg);
}
