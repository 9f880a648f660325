/* datadir.h -- the one place memheat keeps what it measures about a device
 * (bandwidth calibration, camping models): one folder, overridable per file.
 * docs/cli.md ("Files") lists the paths. */
#ifndef MH_UTIL_DATADIR_H
#define MH_UTIL_DATADIR_H

#include <stddef.h>

/* Path of `name` in memheat's data folder: $MEMHEAT_DATA_DIR, else
 * $XDG_DATA_HOME/memheat, else $HOME/.local/share/memheat; `name` "" gives
 * the folder itself. A non-empty environment variable `override` (e.g.
 * MEMHEAT_CALIBRATION) wins over all of that. 0 on success, -1 when no
 * folder can be named (no HOME) or the path does not fit in cap bytes. */
int mh_data_path(const char *override, const char *name, char *out, size_t cap);

#endif
