/* trace.h — request traces: a CSV of arrival_s,input_tokens,output_tokens (with or without that
 * header line), one request a row, in arrival order. With a header, optional columns say what a
 * prompt shares with others: session (the conversation it continues: its prompt starts with that
 * session's previous prompt and answer), prefix_group and prefix_tokens (it opens with that many
 * tokens shared by its group: a system prompt, a document).
 *
 * Read once when the scenario is loaded (a bad trace is the scenario's bad input: exit 2 with
 * file:line:col) and again by each point's workload. */
#ifndef AIF_TRACE_H
#define AIF_TRACE_H

#include <glib.h>

typedef struct {
  double arrival; /* s */
  int isl, osl;
  int session;    /* -1: none */
  int group;      /* of the shared prefix; -1: none */
  int prefix;     /* tokens of the shared prefix (0: none), fewer than isl */
} TraceRow;

/* Reads PATH into a new array of TraceRow: at least one row; times finite, >= 0 and in order;
 * token counts whole, >= 1 and within LIMIT_TOKENS; rows within LIMIT_REQUESTS (input_file.h). */
GArray *trace_read(const char *path, GError **error);

#endif
