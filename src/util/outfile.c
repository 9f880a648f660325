/* outfile.c -- write to a temporary file, rename into place when complete
 * (util/outfile.h): the one place memheat replaces a file.
 *
 * A temporary file being written is registered until it is renamed or
 * removed, so SIGTERM, SIGINT, SIGHUP or SIGQUIT (a job's time limit,
 * Ctrl-C, a closed terminal, Ctrl-\) remove it before memheat dies of the
 * signal: a handler,
 * installed where the signal had its default action, unlinks the registered
 * names (and SQLite's journal beside a profile) and raises the signal again.
 * SIGKILL cannot be caught: its temporary stays (hidden, ".NAME.tmp-*"). */
#include "util/outfile.h"

#include <errno.h>
#include <signal.h>
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

/* ---- temporaries removed on a fatal signal ----
 * A signal handler can only reach static state: fixed slots (a name is
 * copied in before its slot is marked used, and unmarked after the rename or
 * unlink), so the handler never reads freed memory. */
#define MAX_TMP 32
#define TMP_CAP 4096
static char g_tmp[MAX_TMP][TMP_CAP];
static volatile sig_atomic_t g_used[MAX_TMP];
static const int g_fatal[] = {SIGTERM, SIGINT, SIGHUP, SIGQUIT};
#define NFATAL (sizeof g_fatal / sizeof g_fatal[0])

static void unlink_with(const char *path, const char *suffix) {
    char p[TMP_CAP + 16];
    size_t n = strlen(path), k = strlen(suffix);
    if (n + k + 1 > sizeof p) return;
    memcpy(p, path, n);
    memcpy(p + n, suffix, k + 1);
    unlink(p);
}

static void on_fatal(int sig) {
    int saved = errno;
    for (size_t i = 0; i < MAX_TMP; i++)
        if (g_used[i]) {
            unlink(g_tmp[i]);
            unlink_with(g_tmp[i], "-journal"); /* SQLite's, beside a profile being written */
            unlink_with(g_tmp[i], "-wal");
        }
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    errno = saved;
    raise(sig); /* delivered when the handler returns: memheat ends as the signal says */
}

static void install_cleanup(void) {
    struct sigaction cur, h = {.sa_handler = on_fatal};
    sigemptyset(&h.sa_mask);
    for (size_t i = 0; i < NFATAL; i++) sigaddset(&h.sa_mask, g_fatal[i]);
    for (size_t i = 0; i < NFATAL; i++)
        if (sigaction(g_fatal[i], NULL, &cur) == 0 && cur.sa_handler == SIG_DFL && !(cur.sa_flags & SA_SIGINFO))
            sigaction(g_fatal[i], &h, NULL); /* ignored (nohup) or handled by the caller: left alone */
}

/* Slot of a registered temporary, -1 when every slot is taken (then it is
 * only not removed on a signal). */
static int tmp_register(const char *tmp) {
    if (strlen(tmp) >= TMP_CAP) return -1;
    install_cleanup();
    for (int i = 0; i < MAX_TMP; i++)
        if (!g_used[i]) {
            memcpy(g_tmp[i], tmp, strlen(tmp) + 1);
            g_used[i] = 1;
            return i;
        }
    return -1;
}

static void tmp_unregister(const char *tmp) {
    for (int i = 0; i < MAX_TMP; i++)
        if (g_used[i] && !strcmp(g_tmp[i], tmp)) {
            g_used[i] = 0;
            return;
        }
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
    sigset_t fatal, was; /* a signal between mkstemp and the registration would leave the file */
    sigemptyset(&fatal);
    for (size_t i = 0; i < NFATAL; i++) sigaddset(&fatal, g_fatal[i]);
    sigprocmask(SIG_BLOCK, &fatal, &was);
    int fd = mkstemp(o->tmp);
    if (fd >= 0) tmp_register(o->tmp);
    sigprocmask(SIG_SETMASK, &was, NULL);
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
    if (!e) tmp_unregister(o->tmp); /* after the rename: no moment where a signal leaves it */
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
    if (o->tmp) {
        unlink(o->tmp);
        tmp_unregister(o->tmp);
    }
    free(o->tmp);
    free(o->path);
    memset(o, 0, sizeof *o);
}
