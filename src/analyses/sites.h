/* sites.h -- the call sites of a trace as analyses and reports see them
 * (trace version 5, docs/trace-format.md "Call sites").
 *
 * The model keeps one mh_sites, fed the site records in trace order
 * (mh_sites_feed). mh_sites_resolve then symbolises the native frames from
 * their return addresses and the loaded objects the trace names (elfutils'
 * libdw: function, file and line from the object's symbols and debug
 * information, checked against the build-id the collector saw), judges
 * every site's user frame with the frame filters (util/framefilter.h: the
 * built-in list and the user's), and makes its labels: "train.py:30" and
 * the source line when the file is readable, the module or function the
 * framework ran for it, the NVTX path. Grouping by site or NVTX path
 * (`memheat analyze --group-by`) and the profile's site table read these. */
#ifndef MH_ANALYSES_SITES_H
#define MH_ANALYSES_SITES_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "memheat/err.h"
#include "memheat/trace.h"

typedef struct mh_sites_frame {
    int python;           /* 1: a Python frame */
    uint64_t pc;          /* native: return address */
    const char *object;   /* native: the object's path ("" unknown) */
    const char *function; /* symbolised or Python function, "" unknown */
    const char *file;     /* source file, "" unknown */
    uint32_t line;        /* 0 = unknown */
    int launch_wrapper;   /* 1: nvcc's host function that calls __device_stub__<kernel>, never the user's */
} mh_sites_frame;

typedef struct mh_sites_site {
    uint32_t id;
    uint32_t flags;         /* MH_SITE_* of the trace */
    uint32_t n_native, n_python, n_nvtx;
    mh_sites_frame *frames; /* n_native native frames, then n_python Python ones, innermost first */
    char **nvtx;            /* outermost first */
    uint32_t collector_user; /* the collector's judgement (MH_SITE_NONE none) */
    int64_t user;           /* after mh_sites_resolve: the user's frame index, -1 = none */
    char *where;            /* "train.py:30", "" none (basename of the file) */
    char *code;             /* the user's source line, trimmed, "" when not readable */
    char *scope;            /* what the framework ran for it: the innermost nn.Module
                             * forward, else the frame the user called, "" none */
    char *nvtx_path;        /* "a > b > c", "" none */
    char *label;            /* one line: "train.py:30 `out = head(model(x))` -> Linear.forward" */
    uint64_t launches;      /* every launch from it (SITE_STATS), 0 when the trace has none */
} mh_sites_site;

typedef struct mh_sites_config {
    uint32_t site;
    char *name;
    mh_dim3 grid, block;
    uint32_t dyn_smem;
    uint64_t launches;
} mh_sites_config;

typedef struct mh_sites {
    mh_site_object *objs;   /* strings owned */
    size_t nobjs, capobjs;
    mh_sites_site *v;
    size_t n, cap;
    uint32_t *launch_ids, *launch_sites; /* traced launch -> site id, in trace order */
    size_t nlaunch, caplaunch;
    mh_sites_config *configs;
    size_t nconfigs, capconfigs;
    int resolved;
    uint64_t unresolved_objects; /* objects whose file was missing or changed (build-id) */
} mh_sites;

/* Takes SITE_OBJECT, SITE, LAUNCH_SITE and SITE_STATS records (others: MH_OK, ignored). */
int mh_sites_feed(mh_sites *s, const mh_record *rec, mh_err *err);
/* Symbolises and judges every site (idempotent). extra = the user's frame
 * filters (NULL: $MEMHEAT_FRAME_FILTER). */
int mh_sites_resolve(mh_sites *s, const char *extra, mh_err *err);
/* The site of a traced launch (NULL: none recorded). */
const mh_sites_site *mh_sites_of_launch(const mh_sites *s, uint32_t launch);
const mh_sites_site *mh_sites_get(const mh_sites *s, uint32_t id);
void mh_sites_free(mh_sites *s);
/* [{"id", "label", "where", "code", "scope", "nvtx", "launches", "forward",
 *   "user" (frame index or null), "frames": [{"kind": "native"|"python", "pc",
 *   "object", "function", "file", "line"}]}] (a new reference). */
json_t *mh_sites_json(const mh_sites *s);

#endif
