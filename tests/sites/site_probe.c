/* site_probe.c -- a library Python loads with ctypes (which releases the GIL
 * around the call, as PyTorch's ops do) to test the call-site capture from
 * inside a Python program: the Python frames read without the GIL, and the
 * dedup of sites (tests/sites/site_py.py). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collectors/site/site.h"

static mh_site_state *g_state;

/* The calling thread's Python frames, innermost first, one
 * "file:line:function" per line into out; returns how many (-1: no Python). */
int probe_frames(char *out, int cap) {
    mh_site_pystack st;
    out[0] = '\0';
    if (!mh_site_py_read(&st)) return -1;
    size_t k = 0;
    for (uint32_t i = 0; i < st.n; i++) {
        mh_site_pyframe f;
        if (!mh_site_py_resolve(&st, i, &f)) return -2;
        int w = snprintf(out + k, (size_t)cap - k, "%s:%u:%s\n", f.file, f.line, f.function);
        free((char *)f.file);
        free((char *)f.function);
        if (w < 0 || (size_t)w >= (size_t)cap - k) break;
        k += (size_t)w;
    }
    return (int)st.n;
}

/* The deduplicated site of the call (a new state at the first call). */
long probe_site(void) {
    if (!g_state) {
        mh_err err;
        if (mh_site_open(&g_state, &err) != MH_OK) return -1;
    }
    uint32_t s = mh_site_capture(g_state, 0);
    return s == MH_SITE_NONE ? -1 : (long)s;
}

/* How many distinct sites so far. */
long probe_sites(void) {
    mh_site_counts c;
    mh_site_counts_get(g_state, &c);
    return (long)c.sites;
}
