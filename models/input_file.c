/* input_file.c — bounded whole-file reads and the input limits (see input_file.h). */
#include "input_file.h"
#include "aif_error.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const struct {
  const char *env;
  gint64 def;
} limits[LIMIT_COUNT_] = {
  [LIMIT_INPUT_BYTES] = { "AIFSIM_MAX_INPUT_BYTES", G_GINT64_CONSTANT(256) << 20 },
  [LIMIT_YAML_DEPTH] = { "AIFSIM_MAX_YAML_DEPTH", 64 },
  [LIMIT_YAML_NODES] = { "AIFSIM_MAX_YAML_NODES", 1000000 },
  [LIMIT_POINTS] = { "AIFSIM_MAX_POINTS", 10000000 },
  [LIMIT_REQUESTS] = { "AIFSIM_MAX_REQUESTS", 10000000 },
  [LIMIT_USERS] = { "AIFSIM_MAX_USERS", 1000000 },
  [LIMIT_TOKENS] = { "AIFSIM_MAX_TOKENS", 1 << 20 },
};

gint64 input_limit(InputLimit which)
{
  const char *s = g_getenv(limits[which].env);
  char *end = NULL;
  gint64 v = s ? g_ascii_strtoll(s, &end, 10) : 0;
  return s && *s && !*end && v > 0 ? v : limits[which].def;
}

const char *input_limit_name(InputLimit which) { return limits[which].env; }

static gboolean fail(const char *path, const char *why, GError **error)
{
  g_set_error(error, AIF_ERROR, AIF_ERROR_INPUT, "%s: cannot read: %s", path, why);
  return FALSE;
}

gboolean input_file_read(const char *path, char **text, gsize *len, GError **error)
{
  *text = NULL, *len = 0;
  gboolean stdin_ = strcmp(path, "-") == 0; /* GNU's convention: "-" is standard input */
  int fd = stdin_ ? dup(STDIN_FILENO) : open(path, O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return fail(path, g_strerror(errno), error);
  gint64 limit = input_limit(LIMIT_INPUT_BYTES);
  g_autoptr(GByteArray) buf = g_byte_array_new();
  guint8 chunk[65536];
  for (;;) {
    ssize_t got = read(fd, chunk, sizeof chunk);
    if (got < 0 && errno == EINTR)
      continue;
    if (got < 0) {
      int e = errno;
      close(fd);
      return fail(path, g_strerror(e), error);
    }
    if (got == 0)
      break;
    if ((gint64)buf->len + got > limit) { /* /dev/zero, a wrong file, or a real one too big */
      close(fd);
      g_autofree char *why = g_strdup_printf("larger than %" G_GINT64_FORMAT " bytes (raise the limit with %s)",
                                             limit, input_limit_name(LIMIT_INPUT_BYTES));
      return fail(path, why, error);
    }
    g_byte_array_append(buf, chunk, (guint)got);
  }
  close(fd);
  *len = buf->len;
  g_byte_array_append(buf, (const guint8 *)"", 1);
  *text = (char *)g_byte_array_free(g_steal_pointer(&buf), FALSE);
  return TRUE;
}
