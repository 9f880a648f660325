/* sites.c -- a trace's call sites, symbolised and judged (analyses/sites.h).
 *
 * Fed the site records in order; mh_sites_resolve then reports every
 * loaded object the trace names to one libdw session (dwfl_report_elf at
 * the object's load bias, its build-id compared with the collector's: a
 * file rebuilt since the run names nothing rather than the wrong line),
 * looks each native return address up one byte back (inside the call
 * instruction: its line is the call's), demangles, and picks the user's
 * frame with util/framefilter.h; frames in an object the filters name
 * (a framework's, a CUDA library's) are not looked up, since no function
 * there can be the user's. Python frames come symbolised from the
 * collector. A missing object or debug information leaves a frame with
 * what is known (object, or object + function) and never fails the import. */
#define _GNU_SOURCE
#include "analyses/sites.h"

#include <dwarf.h>
#include <elfutils/libdw.h>
#include <elfutils/libdwfl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/demangle.h"
#include "util/framefilter.h"
#include "util/grow.h"
#include "util/utf8.h"

static char *dup(const char *s) { return strdup(s ? s : ""); }

/* ---- feeding ---- */

static int feed_object(mh_sites *s, const mh_site_object *o, mh_err *err) {
    mh_site_object *v = mh_grow(s->objs, &s->capobjs, s->nobjs + 1, sizeof *v, 16);
    if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    s->objs = v;
    v[s->nobjs] = *o;
    v[s->nobjs].path = dup(o->path);
    v[s->nobjs].build_id = dup(o->build_id);
    if (!v[s->nobjs].path || !v[s->nobjs].build_id) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    s->nobjs++;
    return MH_OK;
}

static const mh_site_object *object_by_id(const mh_sites *s, uint32_t id) {
    for (size_t i = s->nobjs; i-- > 0;) /* the newest of an id wins */
        if (s->objs[i].id == id) return &s->objs[i];
    return NULL;
}

static int feed_site(mh_sites *s, const mh_site *r, mh_err *err) {
    mh_sites_site *v = mh_grow(s->v, &s->cap, s->n + 1, sizeof *v, 16);
    if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    s->v = v;
    mh_sites_site *e = &v[s->n];
    memset(e, 0, sizeof *e);
    e->id = r->id;
    e->flags = r->flags;
    e->n_native = r->n_native;
    e->n_python = r->n_python;
    e->n_nvtx = r->n_nvtx;
    e->collector_user = r->user;
    e->user = -1;
    uint32_t nf = r->n_native + r->n_python;
    e->frames = calloc(nf ? nf : 1, sizeof *e->frames);
    e->nvtx = calloc(r->n_nvtx ? r->n_nvtx : 1, sizeof *e->nvtx);
    s->n++; /* freed with the table from here on */
    if (!e->frames || !e->nvtx) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < r->n_native; i++) {
        const mh_site_object *o = r->object[i] != MH_SITE_NONE ? object_by_id(s, r->object[i]) : NULL;
        e->frames[i] = (mh_sites_frame){.pc = r->pc[i], .object = dup(o ? o->path : ""), .function = dup(""),
                                        .file = dup("")};
    }
    for (uint32_t i = 0; i < r->n_python; i++)
        e->frames[r->n_native + i] = (mh_sites_frame){.python = 1, .object = dup(""), .function = dup(r->py[i].function),
                                                      .file = dup(r->py[i].file), .line = r->py[i].line};
    for (uint32_t i = 0; i < nf; i++)
        if (!e->frames[i].object || !e->frames[i].function || !e->frames[i].file)
            return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (uint32_t i = 0; i < r->n_nvtx; i++)
        if (!(e->nvtx[i] = dup(r->nvtx[i]))) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    return MH_OK;
}

int mh_sites_feed(mh_sites *s, const mh_record *rec, mh_err *err) {
    switch (rec->type) {
    case MH_REC_SITE_OBJECT: return feed_object(s, &rec->u.site_object, err);
    case MH_REC_SITE: return feed_site(s, &rec->u.site, err);
    case MH_REC_LAUNCH_SITE: {
        size_t c2 = s->caplaunch;
        uint32_t *a = mh_grow(s->launch_ids, &s->caplaunch, s->nlaunch + 1, sizeof *a, 64);
        if (!a) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        s->launch_ids = a;
        uint32_t *b = mh_grow(s->launch_sites, &c2, s->nlaunch + 1, sizeof *b, 64);
        if (!b) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        s->launch_sites = b;
        s->launch_ids[s->nlaunch] = rec->u.launch_site.launch;
        s->launch_sites[s->nlaunch++] = rec->u.launch_site.site;
        return MH_OK;
    }
    case MH_REC_SITE_STATS: {
        const mh_site_stats *st = &rec->u.site_stats;
        mh_sites_config *v = mh_grow(s->configs, &s->capconfigs, s->nconfigs + 1, sizeof *v, 64);
        if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        s->configs = v;
        v[s->nconfigs] = (mh_sites_config){.site = st->site, .name = dup(st->name), .grid = st->grid,
                                          .block = st->block, .dyn_smem = st->dyn_smem, .launches = st->launches};
        if (!v[s->nconfigs].name) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        s->nconfigs++;
        return MH_OK;
    }
    default: return MH_OK;
    }
}

const mh_sites_site *mh_sites_get(const mh_sites *s, uint32_t id) {
    if (id < s->n && s->v[id].id == id) return &s->v[id];
    for (size_t i = 0; i < s->n; i++)
        if (s->v[i].id == id) return &s->v[i];
    return NULL;
}

const mh_sites_site *mh_sites_of_launch(const mh_sites *s, uint32_t launch) {
    for (size_t i = s->nlaunch; i-- > 0;)
        if (s->launch_ids[i] == launch) return mh_sites_get(s, s->launch_sites[i]);
    return NULL;
}

/* ---- symbolising (libdw) ---- */

static const Dwfl_Callbacks k_dwfl_cb = {
    .find_elf = dwfl_build_id_find_elf,
    .find_debuginfo = dwfl_standard_find_debuginfo,
    .section_address = dwfl_offline_section_address,
};

static void hex_of(const unsigned char *p, int n, char *out) {
    static const char hx[] = "0123456789abcdef";
    for (int i = 0; i < n; i++) {
        out[2 * i] = hx[p[i] >> 4];
        out[2 * i + 1] = hx[p[i] & 15];
    }
    out[2 * n] = '\0';
}

/* Reports every object that exists on disk with the build-id the collector
 * saw, but those the frame filters name; returns the session (NULL: libdw
 * could not start). */
static Dwfl *report_objects(mh_sites *s, const char *extra) {
    Dwfl *d = dwfl_begin(&k_dwfl_cb);
    if (!d) return NULL;
    dwfl_report_begin(d);
    for (size_t i = 0; i < s->nobjs; i++) {
        const mh_site_object *o = &s->objs[i];
        if (!o->path[0] || o->path[0] != '/') continue; /* the vdso, a JIT region */
        mh_frame_desc od = {.object = o->path};
        if (mh_frame_filtered(&od, extra)) continue; /* never looked up (mh_sites_resolve) */
        Dwfl_Module *m = dwfl_report_elf(d, o->path, o->path, -1, o->bias, false);
        if (!m) {
            s->unresolved_objects++;
            continue;
        }
        const unsigned char *bits;
        GElf_Addr vaddr;
        int n = dwfl_module_build_id(m, &bits, &vaddr);
        if (o->build_id[0] && n > 0 && n <= 64) {
            char hex[129];
            hex_of(bits, n, hex);
            if (strcmp(hex, o->build_id) != 0) s->unresolved_objects++; /* rebuilt since the run: lines would lie */
        }
    }
    dwfl_report_end(d, NULL, NULL);
    return d;
}

/* The build-id of the module at pc matches the collector's (or none was recorded). */
static int module_trusted(const mh_sites *s, Dwfl_Module *m, const char *path) {
    const unsigned char *bits;
    GElf_Addr vaddr;
    int n = dwfl_module_build_id(m, &bits, &vaddr);
    for (size_t i = 0; i < s->nobjs; i++) {
        if (strcmp(s->objs[i].path, path) != 0) continue;
        if (!s->objs[i].build_id[0] || n <= 0 || n > 64) return 1;
        char hex[129];
        hex_of(bits, n, hex);
        return strcmp(hex, s->objs[i].build_id) == 0;
    }
    return 1;
}

static void symbolise(mh_sites *s, Dwfl *d, mh_sites_frame *f) {
    if (!d || !f->object[0]) return;
    Dwarf_Addr a = f->pc ? f->pc - 1 : 0;
    Dwfl_Module *m = dwfl_addrmodule(d, a);
    if (!m || !module_trusted(s, m, f->object)) return;
    const char *name = dwfl_module_addrname(m, a);
    if (name) {
        char *dm = mh_demangle(name);
        free((char *)f->function);
        f->function = dm ? dm : strdup(name);
    }
    Dwfl_Line *ln = dwfl_module_getsrc(m, a);
    int line = 0;
    const char *file = ln ? dwfl_lineinfo(ln, NULL, &line, NULL, NULL, NULL) : NULL;
    if (file && line > 0) {
        free((char *)f->file);
        f->file = strdup(file);
        f->line = (uint32_t)line;
    }
    if (!f->function) f->function = strdup("");
    if (!f->file) f->file = strdup("");
}

/* The outermost inlined call under die that holds pc, into *out; 1 when found. */
static int outer_inlined(Dwarf_Die *die, Dwarf_Addr pc, Dwarf_Die *out, int depth) {
    Dwarf_Die child;
    if (depth > 64 || dwarf_child(die, &child) != 0) return 0;
    do {
        int tag = dwarf_tag(&child);
        if (tag == DW_TAG_inlined_subroutine && dwarf_haspc(&child, pc) == 1) {
            *out = child;
            return 1;
        }
        /* scopes that may hold it: the function, its lexical blocks */
        if ((tag == DW_TAG_subprogram || tag == DW_TAG_lexical_block) && dwarf_haspc(&child, pc) == 1)
            return outer_inlined(&child, pc, out, depth + 1);
    } while (dwarf_siblingof(&child, &child) == 0);
    return 0;
}

/* The line of the function that holds pc when pc is in code inlined into
 * it: the outermost inlined call's file (*file) and line; 0 when pc is in
 * no inlined code or the debug information does not say. */
static uint32_t inlined_from(Dwfl *d, uint64_t pc, const char **file) {
    Dwarf_Addr a = pc ? pc - 1 : 0, bias = 0;
    Dwfl_Module *m = dwfl_addrmodule(d, a);
    Dwarf_Die *cu = m ? dwfl_module_addrdie(m, a, &bias) : NULL;
    Dwarf_Die in;
    if (!cu || !outer_inlined(cu, a - bias, &in, 0)) return 0;
    Dwarf_Attribute at;
    Dwarf_Word l = 0, fi = 0;
    Dwarf_Files *files;
    size_t nf = 0;
    if (dwarf_formudata(dwarf_attr(&in, DW_AT_call_line, &at), &l) != 0 ||
        dwarf_formudata(dwarf_attr(&in, DW_AT_call_file, &at), &fi) != 0 || dwarf_getsrcfiles(cu, &files, &nf) != 0 ||
        fi >= nf || l == 0 || l > UINT32_MAX)
        return 0;
    const char *fn = dwarf_filesrc(files, fi, NULL, NULL);
    if (!fn) return 0;
    *file = fn;
    return (uint32_t)l;
}

/* nvcc launches a kernel through a host function named like it, defined at
 * the kernel's definition, that calls __device_stub__<kernel>: the frame
 * above the stub is that function (marked, never the user's), or the
 * user's function it was inlined into (its line made the call's). */
static int launch_wrappers(Dwfl *d, mh_sites_site *e) {
    for (uint32_t j = 1; d && j < e->n_native; j++) {
        mh_sites_frame *f = &e->frames[j];
        if (strncmp(e->frames[j - 1].function, "__device_stub__", 15) || !f->line) continue;
        const char *file = NULL;
        uint32_t line = inlined_from(d, f->pc, &file);
        if (!line) {
            f->launch_wrapper = 1;
            continue;
        }
        char *c = strdup(file);
        if (!c) return MH_ERR_NOMEM;
        free((char *)f->file);
        f->file = c;
        f->line = line;
    }
    return MH_OK;
}

/* ---- judging and labels ---- */

static int64_t pick_user(const mh_sites_site *e, const char *extra) {
    for (uint32_t i = 0; i < e->n_python; i++) {
        const mh_sites_frame *f = &e->frames[e->n_native + i];
        mh_frame_desc d = {.file = f->file, .function = f->function, .python = 1};
        if (!mh_frame_filtered(&d, extra)) return e->n_native + i;
    }
    int64_t named = -1;
    for (uint32_t i = 0; i < e->n_native; i++) {
        const mh_sites_frame *f = &e->frames[i];
        mh_frame_desc d = {.object = f->object, .file = f->file, .function = f->function};
        if (!f->object[0] || f->launch_wrapper || mh_frame_filtered(&d, extra)) continue;
        if (f->line) return i; /* the program's own code has lines (-g) */
        if (named < 0 && f->function[0]) named = i;
    }
    return named;
}

static const char *base_name(const char *p) {
    const char *b = strrchr(p, '/');
    return b ? b + 1 : p;
}

/* Line `line` of file, trimmed, into out; "" when unreadable. */
static void source_line(const char *file, uint32_t line, char *out, size_t cap) {
    out[0] = '\0';
    if (!file[0] || !line) return;
    FILE *f = fopen(file, "r");
    if (!f) return;
    char buf[1024];
    uint32_t n = 0;
    while (fgets(buf, sizeof buf, f))
        if (++n == line) {
            char *p = buf;
            while (*p == ' ' || *p == '\t') p++;
            size_t k = strcspn(p, "\r\n");
            while (k > 0 && (p[k - 1] == ' ' || p[k - 1] == '\t')) k--;
            if (k >= cap) k = cap - 1;
            memcpy(out, p, k);
            out[k] = '\0';
            break;
        }
    fclose(f);
}

/* What the framework ran for the user's call: the innermost nn.Module
 * forward (Python), else the frame the user's frame called. */
static void scope_of(const mh_sites_site *e, char *out, size_t cap) {
    out[0] = '\0';
    if (e->user < 0) return;
    uint32_t first = e->user >= e->n_native ? e->n_native : 0;
    for (uint32_t i = first; i < (uint32_t)e->user; i++) {
        const char *fn = e->frames[i].function;
        size_t n = strlen(fn);
        if (e->frames[i].python && n > 8 && !strcmp(fn + n - 8, ".forward") && strcmp(fn, "Module.forward")) {
            snprintf(out, cap, "%s", fn);
            return;
        }
    }
    if ((uint32_t)e->user <= first || !e->frames[e->user - 1].function[0]) return;
    const char *fn = e->frames[e->user - 1].function;
    if (!strncmp(fn, "__device_stub__Z", 16)) { /* nvcc's stub: the kernel it launches */
        char m[1024];
        size_t n = strcspn(fn + 15, "(");
        if (n + 2 <= sizeof m) {
            m[0] = '_';
            memcpy(m + 1, fn + 15, n);
            m[n + 1] = '\0';
            char *k = mh_demangle(m);
            if (k) {
                snprintf(out, cap, "%s", k);
                free(k);
                return;
            }
        }
    }
    snprintf(out, cap, "%s", fn);
}

static int make_labels(mh_sites_site *e) {
    char where[1200] = "", code[512] = "", scope[512] = "", path[2048] = "";
    if (e->user >= 0) {
        const mh_sites_frame *f = &e->frames[e->user];
        if (f->file[0] && f->line) snprintf(where, sizeof where, "%s:%u", base_name(f->file), f->line);
        else snprintf(where, sizeof where, "%s", f->function[0] ? f->function : base_name(f->object));
        source_line(f->file, f->line, code, sizeof code);
    }
    scope_of(e, scope, sizeof scope);
    size_t k = 0;
    for (uint32_t i = 0; i < e->n_nvtx && k < sizeof path - 4; i++) {
        int w = snprintf(path + k, sizeof path - k, "%s%s", i ? " > " : "", e->nvtx[i]);
        if (w > 0) k += (size_t)w;
    }
    if (k >= sizeof path) path[sizeof path - 1] = '\0';
    char label[4096];
    int w = snprintf(label, sizeof label, "%s", where[0] ? where : "(no user frame)");
    if (code[0] && w > 0 && (size_t)w < sizeof label) w += snprintf(label + w, sizeof label - (size_t)w, " `%s`", code);
    if ((e->flags & MH_SITE_PY_FORWARD) && w > 0 && (size_t)w < sizeof label)
        w += snprintf(label + w, sizeof label - (size_t)w, " (backward)");
    if (scope[0] && w > 0 && (size_t)w < sizeof label) w += snprintf(label + w, sizeof label - (size_t)w, " -> %s", scope);
    if (e->n_nvtx && w > 0 && (size_t)w < sizeof label)
        snprintf(label + w, sizeof label - (size_t)w, " [%s]", e->nvtx[e->n_nvtx - 1]);
    e->where = strdup(where);
    e->code = strdup(code);
    e->scope = strdup(scope);
    e->nvtx_path = strdup(path);
    e->label = strdup(label);
    return e->where && e->code && e->scope && e->nvtx_path && e->label ? MH_OK : MH_ERR_NOMEM;
}

int mh_sites_resolve(mh_sites *s, const char *extra, mh_err *err) {
    if (s->resolved) return MH_OK;
    if (!extra) extra = getenv(MH_FRAME_FILTER_ENV);
    Dwfl *d = s->nobjs ? report_objects(s, extra) : NULL;
    for (size_t i = 0; i < s->n; i++) {
        mh_sites_site *e = &s->v[i];
        for (uint32_t j = 0; j < e->n_native; j++) {
            /* a frame in a framework's or library's object (libtorch, libcudart, ...) is never the
             * user's whatever its function: not symbolised (libdw's symbol tables of such objects
             * took seconds on PyTorch's) */
            mh_frame_desc od = {.object = e->frames[j].object};
            if (!mh_frame_filtered(&od, extra)) symbolise(s, d, &e->frames[j]);
        }
        int rc = launch_wrappers(d, e);
        if (rc == MH_OK) e->user = pick_user(e, extra);
        if (rc != MH_OK || make_labels(e) != MH_OK) {
            if (d) dwfl_end(d);
            return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        }
    }
    for (size_t i = 0; i < s->nconfigs; i++) {
        mh_sites_site *e = (mh_sites_site *)mh_sites_get(s, s->configs[i].site);
        if (e) e->launches += s->configs[i].launches;
    }
    if (d) dwfl_end(d);
    s->resolved = 1;
    return MH_OK;
}

/* A trace's text as a JSON string: "" for none, U+FFFD for bytes that are
 * not UTF-8 (a damaged trace), so that no site is left out. */
static json_t *jtext(const char *t) {
    if (!t) t = "";
    json_t *v = json_string(t);
    if (v) return v;
    size_t n = strlen(t);
    char *o = malloc(3 * n + 1);
    if (!o) return NULL;
    v = json_stringn(o, mh_utf8_repair(t, n, o));
    free(o);
    return v;
}

json_t *mh_sites_json(const mh_sites *s) {
    json_t *a = json_array();
    for (size_t i = 0; a && i < s->n; i++) {
        const mh_sites_site *e = &s->v[i];
        json_t *fr = json_array();
        for (uint32_t j = 0; fr && j < e->n_native + e->n_python; j++) {
            const mh_sites_frame *f = &e->frames[j];
            char pc[24];
            snprintf(pc, sizeof pc, "0x%llx", (unsigned long long)f->pc);
            json_t *o = json_pack("{s:s, s:o*, s:o*, s:o*, s:i}", "kind", f->python ? "python" : "native", "object",
                                  jtext(f->object), "function", jtext(f->function), "file", jtext(f->file), "line",
                                  (int)f->line);
            if (o && !f->python) json_object_set_new(o, "pc", json_string(pc));
            json_array_append_new(fr, o);
        }
        json_t *o = json_pack("{s:i, s:o*, s:o*, s:o*, s:o*, s:o*, s:I, s:b}", "id", (int)e->id, "label",
                              jtext(e->label), "where", jtext(e->where), "code", jtext(e->code), "scope", jtext(e->scope),
                              "nvtx", jtext(e->nvtx_path), "launches", (json_int_t)e->launches, "forward",
                              (e->flags & MH_SITE_PY_FORWARD) != 0);
        if (!o) {
            json_decref(fr);
            continue;
        }
        json_object_set_new(o, "user", e->user >= 0 ? json_integer(e->user) : json_null());
        json_object_set_new(o, "frames", fr ? fr : json_array());
        json_array_append_new(a, o);
    }
    return a;
}

void mh_sites_free(mh_sites *s) {
    for (size_t i = 0; i < s->nobjs; i++) {
        free((char *)s->objs[i].path);
        free((char *)s->objs[i].build_id);
    }
    for (size_t i = 0; i < s->n; i++) {
        mh_sites_site *e = &s->v[i];
        for (uint32_t j = 0; e->frames && j < e->n_native + e->n_python; j++) {
            free((char *)e->frames[j].object);
            free((char *)e->frames[j].function);
            free((char *)e->frames[j].file);
        }
        for (uint32_t j = 0; e->nvtx && j < e->n_nvtx; j++) free(e->nvtx[j]);
        free(e->frames);
        free(e->nvtx);
        free(e->where);
        free(e->code);
        free(e->scope);
        free(e->nvtx_path);
        free(e->label);
    }
    for (size_t i = 0; i < s->nconfigs; i++) free(s->configs[i].name);
    free(s->objs);
    free(s->v);
    free(s->launch_ids);
    free(s->launch_sites);
    free(s->configs);
    memset(s, 0, sizeof *s);
}
