/* datadir.h — where the shipped catalogs and scenarios are.
 *
 * Run from the build tree, aifsim reads them from the source tree (so edits show at once); once
 * installed, from the package data directory. AIFSIM_DATADIR overrides both. */
#ifndef AIF_DATADIR_H
#define AIF_DATADIR_H

/* The data file or folder REL ("scenarios/default.yaml", "models"), newly allocated. */
char *datadir_path(const char *rel);

#endif
