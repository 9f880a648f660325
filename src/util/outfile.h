/* outfile.h -- every file memheat writes (profile, JSON, CSV, HTML) goes
 * through here, so an output is never destroyed and never half-written.
 *
 * The data goes to a temporary file in the same folder (".NAME.tmp-XXXXXX")
 * and is renamed over NAME only once complete (mh_outfile_commit): a failed
 * or killed write (disk full, read-only folder, SIGKILL) leaves the previous
 * NAME as it was and no 0-byte file. The temporary is registered while it
 * exists: SIGTERM, SIGINT, SIGHUP or SIGQUIT (where they have their default action)
 * remove it before the process dies of the signal; only SIGKILL leaves it. Checks done before anything is written:
 * NAME exists and overwriting was not asked for, NAME is one of the inputs,
 * the folder does not exist. Errors are one line naming NAME and the cause. */
#ifndef MH_UTIL_OUTFILE_H
#define MH_UTIL_OUTFILE_H

#include <stdio.h>

#include "memheat/err.h"

#define MH_OUTFILE_FORCE 1u /* replace an existing NAME */

typedef struct mh_outfile {
    char *path; /* the final name */
    char *tmp;  /* the temporary file being written */
    FILE *f;    /* open on tmp (mh_outfile_open), else NULL */
} mh_outfile;

/* Refuses (MH_ERR_ARG) when out names the same file as in (an input). */
int mh_outfile_not_input(const char *out, const char *in, mh_err *err);
/* Creates the temporary file (0 bytes, mode 0666 & ~umask) for path; o->tmp
 * names it, for writers that open files by name (SQLite). */
int mh_outfile_begin(mh_outfile *o, const char *path, unsigned flags, mh_err *err);
/* mh_outfile_begin + a stdio stream on it in o->f. */
int mh_outfile_open(mh_outfile *o, const char *path, unsigned flags, mh_err *err);
/* Flushes and closes o->f (if any), renames tmp over path. On any
 * failure the temporary file is removed and path is untouched. Frees o. */
int mh_outfile_commit(mh_outfile *o, mh_err *err);
/* Removes the temporary file; path is untouched. Frees o; NULL-safe. */
void mh_outfile_abort(mh_outfile *o);

#endif
