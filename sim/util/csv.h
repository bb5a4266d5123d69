/* csv.h — reading CSV files (RFC 4180: quoted fields, doubled quotes, newlines inside quotes) into
 * rows of strings, with the header mapped to column numbers. */
#ifndef AIF_CSV_H
#define AIF_CSV_H

#include <glib.h>

typedef struct {
  char *path;
  GPtrArray *header;  /* char * */
  GPtrArray *rows;    /* GPtrArray * of char * per data row */
  GArray *lines;      /* int: the file line each data row starts on */
} CsvFile;

/* Reads PATH (within the input limits, input_file.h). */
CsvFile *csv_read(const char *path, GError **error);
/* Parses TEXT (LEN bytes); PATH names it in messages. */
CsvFile *csv_parse(const char *path, const char *text, gsize len, GError **error);
void csv_free(CsvFile *c);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CsvFile, csv_free)

/* Column number of NAME, or -1. */
int csv_column(const CsvFile *c, const char *name);
/* Field COL of row R ("" when the row is short or COL is -1). */
const char *csv_field(const CsvFile *c, guint r, int col);

/* The same one record at a time, from a file of any size (memory bounded by the longest record). */
typedef struct CsvReader CsvReader;
CsvReader *csv_reader_open(const char *path, GError **error);
/* A reader over TEXT (LEN bytes, borrowed); PATH names it in messages. */
CsvReader *csv_reader_new(const char *path, const char *text, gsize len);
void csv_reader_free(CsvReader *r);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(CsvReader, csv_reader_free)
const char *csv_reader_path(const CsvReader *r);
/* Skips lines that start with '#' (a journal's digest line); FALSE when the file ends there. */
gboolean csv_reader_skip_comments(CsvReader *r);
/* The next record's fields into FIELDS (char *, owned by FIELDS: give it g_free) and the line it
 * starts on; FALSE at the end, or with *ERROR set on a broken record (an unclosed quote, a record
 * over 16 MiB). Blank lines are skipped. */
gboolean csv_reader_next(CsvReader *r, GPtrArray *fields, int *line, GError **error);

/* The 1-based character column where field I of a record starts, for file:line:col messages: the
 * widths of FIELDS[0..I-1] and a comma after each (a quoted field counts its content). */
int csv_field_start(char *const *fields, int i);

/* Appends S to OUT as one CSV field, quoted when it holds a comma, quote or line break (NULL: empty). */
void csv_append_field(GString *out, const char *s);
/* The same, always quoted (its quotes doubled; NULL: ""). */
void csv_append_quoted(GString *out, const char *s);

#endif
