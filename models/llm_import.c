/* llm_import.c — a model catalog entry from a Hugging Face config.json (see llm_import.h). */
#include "llm_import.h"
#include "aif_error.h"
#include "input_file.h"
#include "keytable.h"
#include "precision.h"
#include "yaml_doc.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The config.json being read: its document and the mapping keys are looked up in. */
typedef struct {
  YamlDoc *d;
  yaml_node_t *root;
} Config;

static yaml_node_t *get(const Config *c, const char *key)
{
  yaml_node_t *n = yaml_doc_lookup(c->d, c->root, key);
  const char *s = n ? yaml_doc_scalar(n) : NULL;
  return s && strcmp(s, "null") == 0 && n->data.scalar.style == YAML_PLAIN_SCALAR_STYLE ? NULL : n;
}

/* The first of KEYS (NULL-terminated) the config has, as a whole number >= 0, in *OUT. FALSE when none
 * is there; an error when one is there but is not such a number. */
static gboolean get_int(const Config *c, const char *const *keys, int *out, gboolean *found, GError **error)
{
  *found = FALSE;
  for (; *keys; keys++) {
    yaml_node_t *n = get(c, *keys);
    if (!n)
      continue;
    const char *s = yaml_doc_scalar(n);
    char *end = NULL;
    gint64 v = s ? g_ascii_strtoll(s, &end, 10) : -1;
    if (!s || end == s || *end || v < 0 || v > G_MAXINT) {
      yaml_doc_error(c->d, n, error, "'%s': expected a whole number >= 0", *keys);
      return FALSE;
    }
    *out = (int)v, *found = TRUE;
    return TRUE;
  }
  return TRUE;
}

#define KEYS(...) ((const char *const[]){ __VA_ARGS__, NULL })

/* A figure the entry cannot do without. */
static gboolean need_int(const Config *c, const char *const *keys, int *out, GError **error)
{
  gboolean found;
  if (!get_int(c, keys, out, &found, error))
    return FALSE;
  if (!found || *out <= 0) {
    yaml_doc_error(c->d, c->root, error, "config has no '%s' (or it is 0): it is needed for a catalog entry", keys[0]);
    return FALSE;
  }
  return TRUE;
}

static const char *get_text(const Config *c, yaml_node_t *map, const char *key)
{
  yaml_node_t *n = map ? yaml_doc_lookup(c->d, map, key) : NULL;
  return n ? yaml_doc_scalar(n) : NULL;
}

/* Layers of each attention kind in layer_types (gpt-oss, Gemma 3, Qwen 3 style): sliding ones. */
static int sliding_in_layer_types(const Config *c, int *listed)
{
  yaml_node_t *lt = get(c, "layer_types");
  *listed = 0;
  if (!lt || lt->type != YAML_SEQUENCE_NODE)
    return 0;
  int sliding = 0;
  for (yaml_node_item_t *it = lt->data.sequence.items.start; it < lt->data.sequence.items.top; it++) {
    const char *s = yaml_doc_scalar(yaml_doc_get(c->d, *it));
    (*listed)++;
    sliding += s && strstr(s, "sliding") != NULL;
  }
  return sliding;
}

/* The precision the weights were released in: quantization_config first, then torch_dtype. */
static int released_precision(const Config *c, int *fp8_block, GString *notes)
{
  yaml_node_t *q = get(c, "quantization_config");
  *fp8_block = 0;
  if (q && q->type == YAML_MAPPING_NODE) {
    const char *method = get_text(c, q, "quant_method"), *algo = get_text(c, q, "quant_algo");
    g_autofree char *m = g_ascii_strdown(method ? method : "", -1), *a = g_ascii_strdown(algo ? algo : "", -1);
    if (strstr(m, "fp4") || strstr(a, "fp4") || strcmp(m, "mxfp4") == 0)
      return PREC_FP4;
    if (strcmp(m, "fp8") == 0 || strstr(a, "fp8")) {
      yaml_node_t *b = yaml_doc_lookup(c->d, q, "weight_block_size");
      if (b && b->type == YAML_SEQUENCE_NODE && b->data.sequence.items.top > b->data.sequence.items.start) {
        const char *s = yaml_doc_scalar(yaml_doc_get(c->d, *b->data.sequence.items.start));
        *fp8_block = s ? atoi(s) : 0;
      }
      return PREC_FP8;
    }
    g_string_append_printf(notes, "quantization_config.quant_method '%s' is not one aifsim models: taken as "
                                  "bf16 weights\n", method ? method : "?");
  }
  const char *dtype = get_text(c, c->root, "torch_dtype");
  if (!dtype)
    dtype = get_text(c, c->root, "dtype");
  if (dtype && strstr(dtype, "float8"))
    return PREC_FP8;
  if (dtype && strcmp(dtype, "float16") == 0)
    g_string_append(notes, "torch_dtype float16: taken as bf16 (same bytes per weight)\n");
  return PREC_BF16;
}

static gboolean read_attention(const Config *c, LlmSpec *m, GString *notes, GError **error)
{
  gboolean found;
  if (!need_int(c, KEYS("num_attention_heads", "n_head", "num_heads"), &m->heads, error))
    return FALSE;
  if (!get_int(c, KEYS("kv_lora_rank"), &m->kv_lora_rank, &found, error))
    return FALSE;
  if (found && m->kv_lora_rank > 0) { /* multi-head latent attention (DeepSeek V2/V3, Kimi K2) */
    m->attn_kind = ATTN_MLA;
    return get_int(c, KEYS("q_lora_rank"), &m->q_lora_rank, &found, error) &&
           need_int(c, KEYS("qk_nope_head_dim"), &m->qk_nope_head_dim, error) &&
           need_int(c, KEYS("qk_rope_head_dim"), &m->qk_rope_head_dim, error) &&
           need_int(c, KEYS("v_head_dim"), &m->v_head_dim, error);
  }
  m->attn_kind = ATTN_GQA;
  if (!get_int(c, KEYS("num_key_value_heads", "n_kv_heads", "num_kv_heads"), &m->kv_heads, &found, error))
    return FALSE;
  if (!found) {
    m->kv_heads = m->heads;
    g_string_append(notes, "no num_key_value_heads: multi-head attention (one KV head per query head)\n");
  } else if (m->kv_heads == 0 || m->heads % m->kv_heads != 0) {
    yaml_doc_error(c->d, c->root, error, "%d query heads do not share out over %d KV heads", m->heads, m->kv_heads);
    return FALSE;
  }
  if (!get_int(c, KEYS("head_dim"), &m->head_dim, &found, error))
    return FALSE;
  if (!found || m->head_dim == 0) {
    if (m->hidden % m->heads) {
      yaml_doc_error(c->d, c->root, error, "no head_dim, and hidden_size %d is not a multiple of %d heads",
                     m->hidden, m->heads);
      return FALSE;
    }
    m->head_dim = m->hidden / m->heads;
  }
  int window = 0, listed = 0;
  if (!get_int(c, KEYS("sliding_window"), &window, &found, error))
    return FALSE;
  yaml_node_t *use = get(c, "use_sliding_window");
  gboolean off = use && yaml_doc_scalar(use) && strcmp(yaml_doc_scalar(use), "false") == 0;
  if (found && window > 0 && !off) {
    m->sliding_window = window;
    m->sliding_layers = sliding_in_layer_types(c, &listed);
    if (!listed) {
      m->sliding_layers = m->layers;
      g_string_append(notes, "sliding_window without layer_types: every layer taken as windowed (Mistral's rule)\n");
    }
    if (m->sliding_layers == 0)
      m->sliding_window = 0;
  }
  return TRUE;
}

static gboolean read_ffn(const Config *c, LlmSpec *m, GString *notes, GError **error)
{
  gboolean found, has_moe_width;
  if (!get_int(c, KEYS("n_routed_experts", "num_local_experts", "num_experts"), &m->experts, &found, error) ||
      !get_int(c, KEYS("intermediate_size", "ffn_dim"), &m->intermediate, &found, error) ||
      !get_int(c, KEYS("moe_intermediate_size"), &m->expert_intermediate, &has_moe_width, error))
    return FALSE;
  if (m->experts <= 1) { /* dense */
    m->experts = 0;
    m->dense_layers = m->layers;
    return need_int(c, KEYS("intermediate_size", "ffn_dim"), &m->intermediate, error);
  }
  if (!need_int(c, KEYS("num_experts_per_tok", "experts_per_token", "moe_topk"), &m->experts_per_token, error) ||
      !get_int(c, KEYS("n_shared_experts", "num_shared_experts"), &m->shared_experts, &found, error))
    return FALSE;
  if (!has_moe_width) { /* Mixtral, gpt-oss: intermediate_size is the experts' width, no dense FFN */
    m->expert_intermediate = m->intermediate;
    m->intermediate = 0;
  }
  int shared_width = 0;
  if (!get_int(c, KEYS("shared_expert_intermediate_size"), &shared_width, &found, error))
    return FALSE;
  if (found && shared_width > 0 && m->expert_intermediate > 0) { /* Qwen-MoE: one wide shared expert */
    m->shared_experts = (int)lround((double)shared_width / m->expert_intermediate);
    g_string_append_printf(notes, "shared expert of width %d: counted as %d experts of width %d\n", shared_width,
                           m->shared_experts, m->expert_intermediate);
  }
  if (!get_int(c, KEYS("first_k_dense_replace"), &m->dense_layers, &found, error))
    return FALSE;
  int step = 1;
  gboolean has_step;
  if (!get_int(c, KEYS("decoder_sparse_step", "moe_layer_freq"), &step, &has_step, error))
    return FALSE;
  if (has_step && step > 1) { /* every step-th layer is MoE, the rest dense */
    m->dense_layers = m->layers - m->layers / step;
    g_string_append_printf(notes, "MoE on every %d layers: %d dense layers\n", step, m->dense_layers);
  }
  if (m->dense_layers > 0 && m->intermediate <= 0) {
    yaml_doc_error(c->d, c->root, error, "%d dense layers but no intermediate_size", m->dense_layers);
    return FALSE;
  }
  if (m->dense_layers > m->layers || m->experts_per_token > m->experts || m->expert_intermediate <= 0) {
    yaml_doc_error(c->d, c->root, error, "the MoE figures do not add up (%d of %d layers dense, top-%d of %d experts, "
                   "expert width %d)", m->dense_layers, m->layers, m->experts_per_token, m->experts,
                   m->expert_intermediate);
    return FALSE;
  }
  m->load_cv = 0.5;
  g_string_append(notes, "moe.load_cv 0.5 (uneven expert popularity): an estimate, as for the shipped MoE models\n");
  return TRUE;
}

gboolean llm_import_config(const char *path, const char *id, const char *source, LlmSpec *out, GString *notes,
                           GError **error)
{
  *out = (LlmSpec){ 0 };
  kt_defaults(&llm_table, out);
  figure_sources_init(&out->sources);
  g_autofree char *text = NULL;
  gsize len = 0;
  if (!input_file_read(path, &text, &len, error))
    return FALSE;
  /* JSON's tabs are whitespace; YAML's indentation may not be a tab (a tab inside a JSON string is
   * written \t, so every raw tab is whitespace) */
  g_strdelimit(text, "\t", ' ');
  g_autoptr(YamlDoc) d = yaml_doc_parse(path, text, len, error);
  if (!d)
    return FALSE;
  Config c = { d, yaml_doc_root(d) };
  if (c.root->type != YAML_MAPPING_NODE) {
    yaml_doc_error(d, c.root, error, "expected a JSON object (a model's config.json)");
    return FALSE;
  }
  /* multimodal configs keep the language model's figures in text_config */
  yaml_node_t *tc = yaml_doc_lookup(d, c.root, "text_config");
  if (tc && tc->type == YAML_MAPPING_NODE && !get(&c, "num_hidden_layers"))
    c.root = tc;
  gboolean found;
  if (!need_int(&c, KEYS("num_hidden_layers", "n_layer", "num_layers"), &out->layers, error) ||
      !need_int(&c, KEYS("hidden_size", "d_model", "n_embd"), &out->hidden, error) ||
      !need_int(&c, KEYS("vocab_size"), &out->vocab, error) ||
      !get_int(&c, KEYS("max_position_embeddings", "max_seq_len", "seq_length"), &out->max_context, &found, error) ||
      !read_attention(&c, out, notes, error) || !read_ffn(&c, out, notes, error) ||
      !get_int(&c, KEYS("num_nextn_predict_layers"), &out->mtp_layers, &found, error))
    return FALSE;
  if (out->max_context <= 0) {
    out->max_context = 4096;
    g_string_append(notes, "no max_position_embeddings: max_context 4096 assumed\n");
  }
  yaml_node_t *tied = get(&c, "tie_word_embeddings");
  out->tied_embeddings = tied && yaml_doc_scalar(tied) && strcmp(yaml_doc_scalar(tied), "true") == 0;
  out->native_precision = released_precision(&c, &out->fp8_block, notes);
  llm_param_count(out, &out->params_total, &out->params_active);
  g_string_append_printf(notes, "params.total %.4g and params.active %.4g: counted from the architecture "
                                "(embeddings, attention, FFNs, experts, routers; norms and biases left out)\n",
                         out->params_total, out->params_active);
  const char *name = get_text(&c, c.root, "_name_or_path");
  out->id = g_strdup(id);
  out->name = g_strdup(name && *name ? name : id);
  g_autofree char *base = g_path_get_basename(path);
  out->source = g_strdup_printf("%s (aifsim catalog import)", source ? source : strcmp(path, "-") ? base : "config.json");
  return TRUE;
}

/* Leaves out what does not apply: the other attention kind's keys, a dense model's MoE group, zero
 * optional figures; marks the estimate of the experts' spread. */
static char *entry_text(const KtKey *k, gpointer user, gboolean *skip)
{
  const LlmSpec *m = user;
  const char *p = k->path;
  static const char *const mla[] = { "attention.q_lora_rank", "attention.kv_lora_rank", "attention.qk_nope_head_dim",
                                     "attention.qk_rope_head_dim", "attention.v_head_dim", NULL };
  static const char *const gqa[] = { "attention.kv_heads", "attention.head_dim", "attention.sliding_window",
                                     "attention.sliding_layers", NULL };
  if (g_strv_contains(m->attn_kind == ATTN_MLA ? gqa : mla, p) ||
      ((g_str_has_prefix(p, "moe.") || strcmp(p, "moe") == 0) && m->experts == 0) ||
      ((strcmp(p, "attention.sliding_window") == 0 || strcmp(p, "attention.sliding_layers") == 0) && !m->sliding_window) ||
      (strcmp(p, "fp8_block") == 0 && !m->fp8_block) || (strcmp(p, "mtp_layers") == 0 && !m->mtp_layers) ||
      (strcmp(p, "ffn.intermediate") == 0 && !m->intermediate) || (strcmp(p, "moe.shared_experts") == 0 && !m->shared_experts)) {
    *skip = TRUE;
    return NULL;
  }
  if (strcmp(p, "moe.load_cv") == 0)
    return g_strdup_printf("{value: %g, source: estimate, uncertain: true}", m->load_cv);
  return NULL;
}

char *llm_import_yaml(const LlmSpec *m, const char *notes)
{
  GString *out = g_string_new(NULL);
  g_string_append_printf(out, "# %s: made by `aifsim catalog import` from its config.json. Check before use:\n", m->name);
  g_auto(GStrv) lines = g_strsplit(notes ? notes : "", "\n", -1);
  for (char **l = lines; *l; l++)
    if (**l)
      g_string_append_printf(out, "# - %s\n", *l);
  kt_emit_yaml(&llm_table, m, out, 0, entry_text, (gpointer)m);
  return g_string_free(out, FALSE);
}
