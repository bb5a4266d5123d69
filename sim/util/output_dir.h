/* output_dir.h — where aifsim writes: safe folder names, one writer per folder, files replaced
 * whole, and never a write through a symlink planted in the folder.
 *
 * Every file a command writes goes through atomic_file_write: an exclusive temporary file
 * (O_CREAT | O_EXCL, so never through a link) in the same folder, then a rename over the final name
 * (which replaces a link rather than following it). A reader sees the old file or the new one,
 * never half of one. The commands that fill a folder (run, plan, merge) hold a lock on it, so a
 * second run into the same folder refuses at once instead of interleaving with the first. */
#ifndef AIF_OUTPUT_DIR_H
#define AIF_OUTPUT_DIR_H

#include <glib.h>
#include <stdio.h>

/* Writes LEN bytes of TEXT (-1: up to its NUL) to PATH through a temporary file and a rename.
 * Failures are AIF_ERROR_RUN. */
gboolean atomic_file_write(const char *path, const char *text, gssize len, GError **error);
/* The same for a file written piece by piece: open, write to its stream, commit (renamed into
 * place; freed either way) or abort (the temporary file removed). */
typedef struct AtomicFile AtomicFile;
AtomicFile *atomic_file_open(const char *path, GError **error);
FILE *atomic_file_stream(AtomicFile *a);
gboolean atomic_file_commit(AtomicFile *a, GError **error);
void atomic_file_abort(AtomicFile *a);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(AtomicFile, atomic_file_abort)

/* "results/NAME" with NAME made a safe single folder name: letters, digits, '.', '_' and '-' kept,
 * anything else (a '/', a space) as '_', no leading dot ("..", "." and "" cannot result), at most
 * 128 bytes; "scenario" when nothing is left. */
char *output_dir_default(const char *name);

/* Creates PATH (and its parents) if needed and locks it for this process. A folder another aifsim
 * holds is an AIF_ERROR_RUN that says so. The lock ends with output_dir_unlock or the process. */
typedef struct OutputDir OutputDir;
OutputDir *output_dir_lock(const char *path, GError **error);
void output_dir_unlock(OutputDir *od);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(OutputDir, output_dir_unlock)

/* Creates the folder SUB ("catalog/hardware") inside DIR, one level at a time; a level that exists
 * must be a real folder, not a symlink (AIF_ERROR_RUN otherwise). */
gboolean output_dir_mkdir(const char *dir, const char *sub, GError **error);

/* Opens DIR/NAME for appending without following a symlink (O_NOFOLLOW): fresh (any old file
 * replaced by a new, exclusively created one) or, with APPEND, the existing file. Returns the file
 * descriptor or -1 with ERROR set (AIF_ERROR_RUN). */
int output_dir_open_append(const char *dir, const char *name, gboolean append, GError **error);

#endif
