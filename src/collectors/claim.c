/* claim.c -- one output file per process (include/memheat/collect.h,
 * mh_collect_claim): a job of several processes that all inherit the same
 * MEMHEAT_TRACE or MEMHEAT_TIMING_OUT must not write one file together.
 *
 * Only libc and err.c, so the CUPTI library (which carries no other memheat
 * code) can build it in. Race-free on a local file system: O_EXCL decides
 * who gets the plain name, and a manifest line is one write(2) of less than
 * PIPE_BUF bytes to a file opened O_APPEND. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "memheat/collect.h"

static int create_excl(const char *path) {
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (fd < 0) return errno;
    close(fd);
    return 0;
}

static int manifest_add(const char *path, const char *got, mh_err *err) {
    char man[4200];
    if ((size_t)snprintf(man, sizeof man, "%s.procs", path) >= sizeof man)
        return mh_err_set(err, MH_ERR_ARG, "output path too long: %s", path);
    const char *base = strrchr(got, '/');
    base = base ? base + 1 : got;
    char line[1024];
    int n = snprintf(line, sizeof line, "%ld %s\n", (long)getpid(), base);
    if (n < 0 || (size_t)n >= sizeof line) return mh_err_set(err, MH_ERR_ARG, "output name too long: %s", got);
    int fd = open(man, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) return mh_err_set(err, MH_ERR_IO, "cannot open the process list %s: %s", man, strerror(errno));
    ssize_t k;
    do k = write(fd, line, (size_t)n);
    while (k < 0 && errno == EINTR);
    int e = errno;
    close(fd);
    if (k != n) return mh_err_set(err, MH_ERR_IO, "cannot write the process list %s: %s", man, strerror(e));
    return MH_OK;
}

int mh_collect_claim(const char *path, char *got, size_t cap, mh_err *err) {
    int e = create_excl(path);
    if (e == 0) {
        if ((size_t)snprintf(got, cap, "%s", path) >= cap)
            return mh_err_set(err, MH_ERR_ARG, "path too long: %s", path);
        return manifest_add(path, got, err);
    }
    if (e != EEXIST) return mh_err_set(err, MH_ERR_IO, "cannot create %s: %s", path, strerror(e));
    /* another process of the run has the plain name: <stem>.<pid><ext> */
    const char *slash = strrchr(path, '/');
    const char *dot = strrchr(slash ? slash + 1 : path, '.');
    size_t stem = dot && dot != (slash ? slash + 1 : path) ? (size_t)(dot - path) : strlen(path);
    const char *ext = path + stem;
    long pid = (long)getpid();
    for (unsigned n = 0; n < 1000; n++) {
        int k = n ? snprintf(got, cap, "%.*s.%ld-%u%s", (int)stem, path, pid, n, ext)
                  : snprintf(got, cap, "%.*s.%ld%s", (int)stem, path, pid, ext);
        if (k < 0 || (size_t)k >= cap) return mh_err_set(err, MH_ERR_ARG, "path too long: %s", path);
        e = create_excl(got);
        if (e == 0) return manifest_add(path, got, err);
        if (e != EEXIST) return mh_err_set(err, MH_ERR_IO, "cannot create %s: %s", got, strerror(e));
    }
    return mh_err_set(err, MH_ERR_IO, "cannot find a free name beside %s", path);
}
