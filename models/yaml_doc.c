/* yaml_doc.c — libyaml document loading with positions (see yaml_doc.h). */
#include "yaml_doc.h"
#include "aif_error.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

YamlDoc *yaml_doc_load(const char *path, GError **error)
{
  g_autofree char *text = NULL;
  gsize len = 0;
  g_autoptr(GError) io = NULL;
  if (!g_file_get_contents(path, &text, &len, &io)) {
    g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: cannot read: %s", path, io->message);
    return NULL;
  }
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
