/* input_file.h — reading a file a user gave us, whole, within limits.
 *
 * Every loader (scenarios, catalogs, profiles, measured results, traces, results, calibration runs)
 * reads its file through input_file_read, so no input can make aifsim read without end (/dev/zero),
 * and the limits a hostile or mistaken input meets are in one place. Each limit has a default and
 * an environment variable that raises it (docs/scenarios.md, "Limits"); the value is read when the
 * limit is checked, so nothing global is kept. */
#ifndef AIF_INPUT_FILE_H
#define AIF_INPUT_FILE_H

#include <glib.h>

typedef enum {
  LIMIT_INPUT_BYTES, /* AIFSIM_MAX_INPUT_BYTES: largest file read (default 256 MiB) */
  LIMIT_YAML_DEPTH,  /* AIFSIM_MAX_YAML_DEPTH: deepest nesting of YAML mappings and lists (64) */
  LIMIT_YAML_NODES,  /* AIFSIM_MAX_YAML_NODES: YAML nodes with aliases expanded (1,000,000) */
  LIMIT_POINTS,      /* AIFSIM_MAX_POINTS: points in one sweep (10,000,000) */
  LIMIT_REQUESTS,    /* AIFSIM_MAX_REQUESTS: requests simulated at one point (10,000,000) */
  LIMIT_USERS,       /* AIFSIM_MAX_USERS: closed-loop users at one point (1,000,000) */
  LIMIT_TOKENS,      /* AIFSIM_MAX_TOKENS: tokens in one request's prompt or output (1,048,576: each
                      * output token is a decode step of the event simulation) */
  LIMIT_COUNT_
} InputLimit;

/* The limit in force (the environment variable when it holds a positive whole number, else the
 * default), and the variable's name for messages. */
gint64 input_limit(InputLimit which);
const char *input_limit_name(InputLimit which);

/* Reads PATH ("-": standard input) whole into *TEXT (NUL-terminated; free with g_free) and *LEN. A file that cannot be
 * read, or is larger than LIMIT_INPUT_BYTES, is an AIF_ERROR_INPUT naming the path. */
gboolean input_file_read(const char *path, char **text, gsize *len, GError **error);

#endif
