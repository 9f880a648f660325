/* outfile.c -- write to a temporary file, rename into place when complete
 * (util/outfile.h): the one place memheat replaces a file. */
#include "util/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int mh_outfile_not_input(const char *out, const char *in, mh_err *err) {
    struct stat a, b;
    if (stat(out, &a) == 0 && stat(in, &b) == 0 && a.st_dev == b.st_dev && a.st_ino == b.st_ino)
        return mh_err_set(err, MH_ERR_ARG, "%s is an input: refusing to overwrite it with an output", out);
    return MH_OK;
}

/* "cannot write PATH: folder DIR does not exist" and the like. */
static int fail(const char *path, int e, mh_err *err) {
    if (e == ENOENT || e == ENOTDIR) {
        const char *slash = strrchr(path, '/');
        int n = slash ? (int)(slash - path) : 1;
        return mh_err_set(err, MH_ERR_IO, "cannot write %s: folder %.*s does not exist", path, n,
                          slash ? path : ".");
    }
    return mh_err_set(err, MH_ERR_IO, "cannot write %s: %s", path, strerror(e));
}

int mh_outfile_begin(mh_outfile *o, const char *path, unsigned flags, mh_err *err) {
    memset(o, 0, sizeof *o);
    struct stat sb;
    if (!path || !*path) return mh_err_set(err, MH_ERR_ARG, "empty output file name");
    if (stat(path, &sb) == 0) {
        if (S_ISDIR(sb.st_mode)) return mh_err_set(err, MH_ERR_ARG, "cannot write %s: it is a folder", path);
        if (!(flags & MH_OUTFILE_FORCE))
            return mh_err_set(err, MH_ERR_ARG, "%s already exists (use -f/--force to replace it)", path);
    }
    size_t n = strlen(path);
    const char *slash = strrchr(path, '/');
    size_t dirlen = slash ? (size_t)(slash - path) + 1 : 0;
    o->path = strdup(path);
    o->tmp = malloc(n + 16);
    if (!o->path || !o->tmp) {
        mh_outfile_abort(o);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    /* same folder (rename stays atomic), hidden, unique */
    snprintf(o->tmp, n + 16, "%.*s.%s.tmp-XXXXXX", (int)dirlen, path, path + dirlen);
    int fd = mkstemp(o->tmp);
    if (fd < 0) {
        int e = errno;
        free(o->tmp);
        o->tmp = NULL;
        mh_outfile_abort(o);
        return fail(path, e, err);
    }
    mode_t um = umask(0);
    umask(um);
    int ignored = fchmod(fd, 0666 & ~um); /* mkstemp's 0600 suits a temporary, not the output */
    (void)ignored;
    close(fd);
    return MH_OK;
}

int mh_outfile_open(mh_outfile *o, const char *path, unsigned flags, mh_err *err) {
    int rc = mh_outfile_begin(o, path, flags, err);
    if (rc) return rc;
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        int e = errno;
        mh_outfile_abort(o);
        return fail(path, e, err);
    }
    return MH_OK;
}

int mh_outfile_commit(mh_outfile *o, mh_err *err) {
    int e = 0;
    if (o->f) {
        errno = 0;
        if (fflush(o->f) != 0 || ferror(o->f)) e = errno ? errno : EIO;
        /* no fsync: the rename guards against a failed or killed writer, which
         * is the point here; an fsync per CSV made `heatmap -o` 10x slower */
        if (fclose(o->f) != 0 && !e) e = errno ? errno : EIO;
        o->f = NULL;
    }
    if (!e && rename(o->tmp, o->path) != 0) e = errno;
    if (e) {
        int rc = mh_err_set(err, MH_ERR_IO, "write error on %s: %s", o->path, strerror(e));
        mh_outfile_abort(o);
        return rc;
    }
    free(o->tmp);
    o->tmp = NULL;
    mh_outfile_abort(o);
    return MH_OK;
}

void mh_outfile_abort(mh_outfile *o) {
    if (!o) return;
    if (o->f) fclose(o->f);
    if (o->tmp) unlink(o->tmp);
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
