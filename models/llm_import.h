/* llm_import.h — a model catalog entry from a Hugging Face config.json.
 *
 * `aifsim catalog import` reads the configuration a model is published with and fills an LlmSpec
 * (llm.h): dense and MoE FFNs (Llama, Qwen, Mixtral, DeepSeek, gpt-oss key spellings), GQA and MLA
 * attention, sliding-window layers, MTP heads and the released precision from quantization_config.
 * JSON is read by libyaml (a JSON document is a YAML flow mapping), so no second parser. The
 * parameter counts a config does not carry are rebuilt from the architecture (llm_param_count) and
 * the entry says so; what the importer had to assume is listed for the user to check. */
#ifndef AIF_LLM_IMPORT_H
#define AIF_LLM_IMPORT_H

#include <glib.h>

#include "llm.h"

/* Fills OUT (cleared first; free with llm_spec_clear) from the config.json at PATH ("-": standard
 * input). ID names the entry; SOURCE (or, when NULL, PATH) is recorded as its source. Appends to
 * NOTES one line per assumption made. Bad JSON or a config without the figures an entry needs is
 * an AIF_ERROR_INPUT naming the key. */
gboolean llm_import_config(const char *path, const char *id, const char *source, LlmSpec *out, GString *notes,
                           GError **error);

/* M as a catalog entry file (models/llm/ID.yaml), with NOTES as comments at its top. */
char *llm_import_yaml(const LlmSpec *m, const char *notes);

#endif
