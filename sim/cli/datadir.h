/* datadir.h — where the shipped catalogs and scenarios are.
 *
 * Run from the build tree, aifsim reads them from the source tree (so edits show at once); once
 * installed, from the package data directory. AIFSIM_DATADIR overrides both. Helper programs (the
 * calibration kernels) are found the same way: the build tree's, or the installed ones. */
#ifndef AIF_DATADIR_H
#define AIF_DATADIR_H

/* The data file or folder REL ("scenarios/default.yaml", "models"), newly allocated. */
char *datadir_path(const char *rel);
/* The helper program NAME built in the build tree's folder DIR, or installed in the package's
 * libexec folder: the one matching this aifsim, newly allocated. */
char *datadir_program(const char *dir, const char *name);

#endif
