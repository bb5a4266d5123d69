/* fd_io.h — whole-buffer reads and writes on file descriptors (pipes between forked processes:
 * sweep workers, the SimGrid child), retried across short transfers and EINTR. */
#ifndef AIF_FD_IO_H
#define AIF_FD_IO_H

#include <glib.h>

/* Writes LEN bytes of BUF; FALSE on an error. */
gboolean fd_write_all(int fd, const void *buf, gsize len);
/* Reads exactly LEN bytes into BUF; FALSE on an error or an early end of file. */
gboolean fd_read_all(int fd, void *buf, gsize len);

#endif
