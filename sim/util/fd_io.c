/* fd_io.c — whole-buffer reads and writes on file descriptors (see fd_io.h). */
#include "fd_io.h"

#include <errno.h>
#include <unistd.h>

gboolean fd_write_all(int fd, const void *buf, gsize len)
{
  const char *s = buf;
  while (len > 0) {
    ssize_t w = write(fd, s, len);
    if (w < 0 && errno == EINTR)
      continue;
    if (w <= 0)
      return FALSE;
    s += w, len -= (gsize)w;
  }
  return TRUE;
}

gboolean fd_read_all(int fd, void *buf, gsize len)
{
  char *s = buf;
  while (len > 0) {
    ssize_t r = read(fd, s, len);
    if (r < 0 && errno == EINTR)
      continue;
    if (r <= 0)
      return FALSE;
    s += r, len -= (gsize)r;
  }
  return TRUE;
}
