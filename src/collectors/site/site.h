/* site.h -- call sites: where in the host program each launch was made
 * (issue 43), captured inside the profiled process by any collector.
 *
 * At a launch's API entry the collector calls mh_site_capture(): the native
 * return addresses of the calling thread (glibc backtrace()), its Python
 * frames when the process runs CPython (site_py.c: read without the GIL,
 * never blocking), and the NVTX ranges open on the thread and in the process
 * (site_nvtx.c: memheat serves NVTX's injection interface). The three are
 * hashed and looked up in a table of the sites seen so far: a repeat costs
 * the unwind and a lookup; a new site is copied (Python strings read while
 * the frames are alive) and queued. Nothing is symbolised here: memheat does
 * that at import from the return addresses and the loaded objects (path,
 * load bias, build-id) written beside them (trace records SITE_OBJECT,
 * SITE; docs/trace-format.md "Call sites").
 *
 *   mh_site_state *s;  mh_site_open(&s, &err);        once per process
 *   uint32_t site = mh_site_capture(s, 1);            any thread, per launch
 *   mh_site_count(s, site, &cfg_key);                 per launch (SITE_STATS)
 *   under the collector's writer lock, before a record naming a site:
 *   mh_site_write_new(s, w, &err);  mh_trace_write_launch_site(w, ...)
 *   at close: mh_site_write_stats(s, w, &err);  mh_site_close(s);
 *
 * Thread safety: every call may come from any thread; the state has a mutex
 * of its own, held for the lookup only (never across the unwind, the Python
 * walk or a write). MEMHEAT_SITES=0 turns capture off (mh_site_capture then
 * returns MH_SITE_NONE at once). The NVTX callbacks and the Python reader
 * find the state through one process-wide pointer (site_nvtx.c), as NVTX
 * calls its injection with no context of the caller's. */
#ifndef MH_COLLECTORS_SITE_H
#define MH_COLLECTORS_SITE_H

#include <stddef.h>
#include <stdint.h>

#include "memheat/collect.h"
#include "memheat/err.h"
#include "memheat/trace.h"

typedef struct mh_site_state mh_site_state;

/* Native frames unwound per launch (the innermost; the rest are cut). */
#define MH_SITE_NATIVE_DEPTH 64
/* Python frames read per launch. */
#define MH_SITE_PY_DEPTH 64

/* Creates the state and makes it the process's (the NVTX injection and the
 * Python reader report to it). Reads MEMHEAT_SITES (0 = off) and
 * MEMHEAT_FRAME_FILTER (util/framefilter.h). */
int mh_site_open(mh_site_state **s, mh_err *err);
void mh_site_close(mh_site_state *s);

/* The calling thread's call site, deduplicated: the id of the site (new or
 * seen before), MH_SITE_NONE when capture is off or out of memory. skip =
 * innermost native frames to leave out (the collector's own). */
uint32_t mh_site_capture(mh_site_state *s, unsigned skip);

/* Counts one launch of a configuration at a site (every launch, traced or
 * not): written as SITE_STATS by mh_site_write_stats. */
void mh_site_count(mh_site_state *s, uint32_t site, const mh_collect_launch *l);

/* Writes the loaded objects and sites not written yet, in that order; call
 * under the writer's lock before a record that names a site. */
int mh_site_write_new(mh_site_state *s, mh_trace_writer *w, mh_err *err);
/* Writes every (site, configuration) count (after mh_site_write_new). */
int mh_site_write_stats(mh_site_state *s, mh_trace_writer *w, mh_err *err);

/* For tests and the collectors' debug lines: captures, distinct sites, and
 * the CPU time spent in mh_site_capture (ns, summed over threads). */
typedef struct mh_site_counts {
    uint64_t captures, sites, objects, py_unreadable;
    uint64_t capture_ns;
} mh_site_counts;
void mh_site_counts_get(mh_site_state *s, mh_site_counts *c);

/* ---- between the files of the capture (site_py.c, site_nvtx.c) ---- */

/* One Python frame as read: its code object and instruction, the identity a
 * stack is deduplicated by (strings are read only for a new stack). */
typedef struct mh_site_pykey {
    uintptr_t code;
    uintptr_t instr;
} mh_site_pykey;

/* A Python stack read off a thread: keys innermost first, n of them. */
typedef struct mh_site_pystack {
    mh_site_pykey key[MH_SITE_PY_DEPTH];
    uintptr_t frame[MH_SITE_PY_DEPTH]; /* the interpreter's frames (for their lines) */
    uint32_t n;
    int cut;
} mh_site_pystack;

/* site_py.c: 1 when this process runs a CPython the reader knows (found by
 * dlsym); reads the calling thread's frames into st (0 when the thread has
 * none or they cannot be read); resolves frame i of st into strings
 * (file/function malloc'ed, the caller frees), valid only while the frames
 * are alive (the thread has not returned to Python). */
int mh_site_py_init(void);
int mh_site_py_read(mh_site_pystack *st);
int mh_site_py_resolve(const mh_site_pystack *st, uint32_t i, mh_site_pyframe *out);
const char *mh_site_py_version(void);

/* pystacks.c: the id of the calling thread's Python stack as the site table
 * keeps it (site_nvtx.c ties a forward op's NVTX sequence number to it);
 * MH_SITE_NONE without Python frames. */
uint32_t mh_site_pystack_here(mh_site_state *s);

/* site_nvtx.c: the NVTX ranges open on the calling thread (push/pop, every
 * domain, outermost first) and in the process (start/end), as ids of
 * interned names, into ids (cap); returns the count. *fwd receives the
 * Python stack of the forward op whose sequence number a range of this
 * thread carries (PyTorch's emit_nvtx: the autograd engine's threads have
 * no Python frames of their own), MH_SITE_NONE without one.
 * A named domain's push/pop range (a library's: NCCL, cuBLAS, a program's
 * own nvtx3 domain) counts as open at a launch only while the object that
 * pushed it has a frame among the launch's return addresses pc[n] (innermost
 * first; `cut`: the stack was cut, every range counts). NCCL pushes
 * `ncclCommInitRankConfig` and never pops it: without this rule every later
 * launch of that thread would sit under it. The default domain's ranges
 * (PyTorch's, `torch.cuda.nvtx.range_push`, nvtxRangePushA) always count. */
uint32_t mh_site_nvtx_stack(uint32_t *ids, uint32_t cap, uint32_t *fwd, const uint64_t *pc, uint32_t n, int cut);
/* The name of an interned range id (valid for the process's life). */
const char *mh_site_nvtx_name(uint32_t id);
/* Makes s the state NVTX and its sequence numbers report to (NULL: none). */
void mh_site_nvtx_attach(mh_site_state *s);

#endif
