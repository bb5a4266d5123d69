/* datadir.c — locating shipped data (see datadir.h). */
#include "config.h"
#include "datadir.h"

#include <glib.h>

/* Whether this aifsim runs from the build tree (not installed). */
static gboolean in_build_tree(void)
{
  g_autofree char *exe = g_file_read_link("/proc/self/exe", NULL);
  g_autofree char *dir = exe ? g_path_get_dirname(exe) : NULL;
  g_autofree char *build = g_canonicalize_filename(AIF_BUILDDIR, NULL);
  return dir && (g_strcmp0(dir, build) == 0 || g_str_has_prefix(dir, build));
}

static char *data_root(void)
{
  const char *env = g_getenv("AIFSIM_DATADIR");
  if (env && *env)
    return g_strdup(env);
  return g_strdup(in_build_tree() ? AIF_SRCDIR : AIF_PKGDATADIR);
}

char *datadir_path(const char *rel)
{
  g_autofree char *root = data_root();
  return g_build_filename(root, rel, NULL);
}

char *datadir_program(const char *dir, const char *name)
{
  return in_build_tree() ? g_build_filename(AIF_BUILDDIR, dir, name, NULL) : g_build_filename(AIF_PKGLIBEXECDIR, name, NULL);
}
