/* cubin.c -- reads the static __shared__ arrays of a CUDA module's kernels
 * from its cubin (ELF64, EM_CUDA), and lays out the shared objects of one
 * launch (cubin.h; the rules, measured on nvcc 13.0 cubins, are in
 * docs/cuda-collector.md "Shared-memory objects").
 *
 * Two sources, both optional:
 *   - symbols (nvcc -G): STT_OBJECT symbols whose section is
 *     `.nv.shared.<kernel>`; st_value is the offset in the block's shared
 *     window (the reserved bytes included), st_size the size. A size-0
 *     object in `.nv_debug.shared` is an extern __shared__ array;
 *   - the PTX text (nvcc -lineinfo), section `.nv_debug_ptx_txt`, lines
 *     separated by NUL bytes: `.shared` declarations inside an `.entry` body
 *     are the kernel's own arrays; module-scope ones (file-scope __shared__
 *     and extern __shared__ arrays) belong to every kernel whose body names
 *     them. Sizes from the declaration, offsets unknown.
 * Every offset and length read from the image is checked against its size
 * before use. */
#include "util/cubin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/demangle.h"
#include "util/grow.h"
#include "util/sort.h"

#define EM_CUDA 190
#define ET_EXEC 2
#define SHT_SYMTAB 2
#define SHT_NOBITS 8
#define STT_OBJECT 1
#define SHDR_SIZE 64
#define SYM_SIZE 24
#define MAX_VAR_BYTES (1ull << 40) /* a declared size past this is not a shared array */
#define PAD_BYTES 16               /* arrays are aligned to at most this: shorter stretches are padding */

typedef struct sec {
    const char *name; /* NUL-terminated inside the image's section-name table */
    uint32_t name_off, type, link;
    uint64_t off, size, entsize;
} sec;

typedef struct rd {
    const uint8_t *p;
    size_t n;
    mh_err *err;
} rd;

static uint64_t le(const uint8_t *p, int bytes) {
    uint64_t v = 0;
    for (int i = bytes - 1; i >= 0; i--) v = v << 8 | p[i];
    return v;
}

/* [off, off + len) lies inside the image. */
static int in_image(const rd *r, uint64_t off, uint64_t len) {
    return off <= r->n && len <= r->n - off;
}

static int bad(rd *r, const char *what) {
    return mh_err_set(r->err, MH_ERR_FORMAT, "cubin: %s", what);
}

/* ---- building the kernel list ---- */

static mh_cubin_kernel *kernel_get(mh_cubin *c, const char *name, size_t len) {
    for (size_t i = c->n_kernels; i-- > 0;) /* the latest first: PTX and symbols come kernel by kernel */
        if (strlen(c->kernels[i].name) == len && !memcmp(c->kernels[i].name, name, len)) return &c->kernels[i];
    mh_cubin_kernel *g = mh_grow(c->kernels, &c->cap_kernels, c->n_kernels + 1, sizeof *g, 8);
    if (!g) return NULL;
    c->kernels = g;
    char *s = malloc(len + 1);
    if (!s) return NULL;
    memcpy(s, name, len);
    s[len] = '\0';
    mh_cubin_kernel *k = &c->kernels[c->n_kernels++];
    *k = (mh_cubin_kernel){.name = s};
    return k;
}

/* Adds a variable unless one of that name is there (a placed one wins). */
static int var_add(mh_cubin_kernel *k, const char *name, size_t len, uint64_t offset, uint64_t size) {
    for (size_t i = 0; i < k->n_vars; i++) {
        mh_cubin_var *v = &k->vars[i];
        if (strlen(v->name) == len && !memcmp(v->name, name, len)) {
            if (v->offset == MH_CUBIN_NO_OFFSET && offset != MH_CUBIN_NO_OFFSET) {
                v->offset = offset;
                v->size = size;
            }
            return 0;
        }
    }
    mh_cubin_var *g = mh_grow(k->vars, &k->cap_vars, k->n_vars + 1, sizeof *g, 4);
    if (!g) return -1;
    k->vars = g;
    char *s = malloc(len + 1);
    if (!s) return -1;
    memcpy(s, name, len);
    s[len] = '\0';
    k->vars[k->n_vars++] = (mh_cubin_var){.name = s, .offset = offset, .size = size};
    return 0;
}

static int dyn_set(mh_cubin_kernel *k, const char *name, size_t len) {
    if (k->dyn) return 0;
    k->dyn = malloc(len + 1);
    if (!k->dyn) return -1;
    memcpy(k->dyn, name, len);
    k->dyn[len] = '\0';
    return 0;
}

/* ---- PTX text ---- */

typedef struct ptx_var {
    const char *name;
    size_t len;
    uint64_t size;
    int ext; /* extern __shared__ NAME[] */
} ptx_var;

static int is_ident(char ch) {
    return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || (ch >= '0' && ch <= '9') || ch == '_' ||
           ch == '$';
}

static int tok_is(const char *t, size_t tl, const char *w) {
    return strlen(w) == tl && !memcmp(t, w, tl);
}

/* Bytes of a PTX fundamental type (.b8 .u16 .s32 .f64 .bf16 .b128 ...), 0 if not one. */
static uint64_t ptx_type_size(const char *t, size_t tl) {
    if (tl < 3 || t[0] != '.' || !strchr("busf", t[1])) return 0;
    const char *d = tl > 3 && t[1] == 'b' && t[2] == 'f' ? t + 3 : t + 2; /* .bf16 */
    size_t dl = (size_t)(t + tl - d);
    if (dl == 1 && d[0] == '8') return 1;
    if (dl == 2 && !memcmp(d, "16", 2)) return 2;
    if (dl == 2 && !memcmp(d, "32", 2)) return 4;
    if (dl == 2 && !memcmp(d, "64", 2)) return 8;
    if (dl == 3 && !memcmp(d, "128", 3)) return 16;
    return 0;
}

/* One PTX line [s, e): a `.shared` variable declaration? Fills *v. */
static int ptx_decl(const char *s, const char *e, ptx_var *v) {
    if (s == e || *s != '.') return 0;
    int shared = 0;
    uint64_t elem = 0, vec = 1;
    const char *p = s;
    for (;;) {
        while (p < e && (*p == ' ' || *p == '\t')) p++;
        if (p == e) return 0;
        const char *t = p;
        while (p < e && *p != ' ' && *p != '\t') p++;
        size_t tl = (size_t)(p - t);
        if (*t != '.') { /* the name, with its dimensions */
            p = t;
            break;
        }
        if (tok_is(t, tl, ".shared")) shared = 1;
        else if (tok_is(t, tl, ".align")) {
            while (p < e && (*p == ' ' || *p == '\t')) p++;
            while (p < e && *p != ' ' && *p != '\t') p++;
        } else if (tok_is(t, tl, ".v2")) vec = 2;
        else if (tok_is(t, tl, ".v4")) vec = 4;
        else if (tok_is(t, tl, ".v8")) vec = 8;
        else if (ptx_type_size(t, tl)) elem = ptx_type_size(t, tl);
        else if (!tok_is(t, tl, ".extern") && !tok_is(t, tl, ".visible") && !tok_is(t, tl, ".weak") &&
                 !tok_is(t, tl, ".common"))
            return 0; /* .global, .reg, .entry, ... */
    }
    if (!shared || !elem) return 0;
    const char *n = p;
    while (p < e && is_ident(*p)) p++;
    if (p == n) return 0;
    *v = (ptx_var){.name = n, .len = (size_t)(p - n), .size = elem * vec};
    while (p < e && *p == '[') {
        uint64_t dim = 0;
        int digits = 0;
        for (p++; p < e && *p >= '0' && *p <= '9'; p++, digits++) {
            dim = dim * 10 + (uint64_t)(*p - '0');
            if (dim > MAX_VAR_BYTES) return 0;
        }
        if (p == e || *p != ']') return 0;
        p++;
        if (!digits) v->ext = 1;
        else if (v->size > MAX_VAR_BYTES / (dim ? dim : 1)) return 0;
        else v->size *= dim;
    }
    if (v->ext) v->size = 0;
    return 1;
}

/* `.entry NAME(` on a line: NAME into *n, *nl. */
static int ptx_entry(const char *s, const char *e, const char **n, size_t *nl) {
    for (const char *p = s; p + 6 <= e; p++) {
        if (memcmp(p, ".entry", 6) != 0 || (p > s && p[-1] != ' ' && p[-1] != '\t')) continue;
        p += 6;
        while (p < e && (*p == ' ' || *p == '\t')) p++;
        const char *q = p;
        while (q < e && is_ident(*q)) q++;
        if (q == p) return 0;
        *n = p;
        *nl = (size_t)(q - p);
        return 1;
    }
    return 0;
}

/* The module-scope shared variables a kernel body line names. */
static int ptx_refs(mh_cubin_kernel *k, const char *s, const char *e, const ptx_var *mv, size_t nmv) {
    for (const char *p = s; p < e;) {
        if (!is_ident(*p)) {
            p++;
            continue;
        }
        const char *t = p;
        while (p < e && is_ident(*p)) p++;
        if (t > s && (t[-1] == '%' || t[-1] == '.')) continue; /* a register, a suffix */
        size_t tl = (size_t)(p - t);
        for (size_t i = 0; i < nmv; i++) {
            if (mv[i].len != tl || memcmp(mv[i].name, t, tl) != 0) continue;
            int rc = mv[i].ext ? dyn_set(k, t, tl) : var_add(k, t, tl, MH_CUBIN_NO_OFFSET, mv[i].size);
            if (rc) return -1;
        }
    }
    return 0;
}

static int ptx_read(mh_cubin *c, const char *t, size_t n, mh_err *err) {
    ptx_var *mv = NULL;
    size_t nmv = 0, cap = 0;
    int depth = 0, rc = MH_OK;
    const char *pend = NULL; /* `.entry` seen, its `{` not yet */
    size_t pend_len = 0;
    mh_cubin_kernel *cur = NULL;
    size_t cur_idx = 0;
    for (size_t i = 0; i < n && rc == MH_OK;) {
        size_t j = i;
        while (j < n && t[j] != '\0' && t[j] != '\n') j++;
        const char *s = t + i, *e = t + j;
        i = j + 1;
        while (s < e && (*s == ' ' || *s == '\t' || *s == '\r')) s++;
        ptx_var v;
        if (depth == 0) {
            const char *en;
            size_t el;
            if (ptx_entry(s, e, &en, &el)) {
                pend = en;
                pend_len = el;
            } else if (ptx_decl(s, e, &v)) {
                ptx_var *g = mh_grow(mv, &cap, nmv + 1, sizeof *g, 8);
                if (!g) rc = MH_ERR_NOMEM;
                else (mv = g)[nmv++] = v;
            } else if (s < e && *s == '.' && memchr(s, '(', (size_t)(e - s))) {
                pend = NULL; /* a .func: its body is no kernel's */
            }
        } else if (cur) {
            cur = &c->kernels[cur_idx]; /* the table may have moved */
            if (ptx_decl(s, e, &v)) {
                int r = v.ext ? dyn_set(cur, v.name, v.len) : var_add(cur, v.name, v.len, MH_CUBIN_NO_OFFSET, v.size);
                if (r) rc = MH_ERR_NOMEM;
            } else if (nmv && ptx_refs(cur, s, e, mv, nmv)) {
                rc = MH_ERR_NOMEM;
            }
        }
        for (const char *p = s; p < e && rc == MH_OK; p++) {
            if (*p == '{') {
                if (depth++ == 0 && pend) {
                    mh_cubin_kernel *k = kernel_get(c, pend, pend_len);
                    if (!k) rc = MH_ERR_NOMEM;
                    else cur_idx = (size_t)(k - c->kernels), cur = k;
                    pend = NULL;
                }
            } else if (*p == '}' && depth > 0 && --depth == 0) {
                cur = NULL;
            }
        }
    }
    free(mv);
    if (rc != MH_OK) return mh_err_set(err, rc, "cubin: out of memory reading the PTX text");
    return MH_OK;
}

/* ---- ELF ---- */

static int read_sections(rd *r, sec **out, size_t *nout) {
    const uint8_t *h = r->p;
    uint64_t shoff = le(h + 0x28, 8);
    uint64_t shentsize = le(h + 0x3A, 2), shnum = le(h + 0x3C, 2), shstrndx = le(h + 0x3E, 2);
    if (shnum == 0) return bad(r, "no section headers");
    if (shentsize < SHDR_SIZE) return bad(r, "section header entries too small");
    if (shoff > r->n || shnum > (r->n - shoff) / shentsize) return bad(r, "section headers past the end of the image");
    if (shstrndx >= shnum) return bad(r, "section-name table index out of range");
    sec *s = calloc(shnum, sizeof *s);
    if (!s) return mh_err_set(r->err, MH_ERR_NOMEM, "cubin: out of memory");
    for (uint64_t i = 0; i < shnum; i++) {
        const uint8_t *p = r->p + shoff + i * shentsize;
        s[i] = (sec){.name_off = (uint32_t)le(p, 4), .type = (uint32_t)le(p + 4, 4), .link = (uint32_t)le(p + 40, 4),
                     .off = le(p + 24, 8), .size = le(p + 32, 8), .entsize = le(p + 56, 8)};
        if (s[i].type != SHT_NOBITS && !in_image(r, s[i].off, s[i].size)) {
            free(s);
            return bad(r, "a section lies past the end of the image");
        }
    }
    const sec *ns = &s[shstrndx];
    if (ns->type == SHT_NOBITS || ns->size == 0) {
        free(s);
        return bad(r, "no section-name table");
    }
    const char *tab = (const char *)r->p + ns->off;
    for (uint64_t i = 0; i < shnum; i++) {
        uint64_t o = s[i].name_off;
        if (o >= ns->size || !memchr(tab + o, '\0', ns->size - o)) {
            free(s);
            return bad(r, "a section name lies outside the section-name table");
        }
        s[i].name = tab + o;
    }
    *out = s;
    *nout = (size_t)shnum;
    return MH_OK;
}

#define SHARED_PREFIX ".nv.shared."

/* The kernel a `.nv.shared.<kernel>` section belongs to, or NULL. */
static const char *shared_kernel(const sec *s) {
    if (strncmp(s->name, SHARED_PREFIX, sizeof SHARED_PREFIX - 1) != 0) return NULL;
    const char *k = s->name + sizeof SHARED_PREFIX - 1;
    return *k && !strchr(k, '.') ? k : NULL; /* not .nv.shared.reserved.0 */
}

static int read_symbols(rd *r, mh_cubin *c, const sec *s, size_t ns, char **ext, size_t *n_ext) {
    for (size_t i = 0; i < ns; i++) {
        if (s[i].type != SHT_SYMTAB) continue;
        if (s[i].entsize < SYM_SIZE) return bad(r, "symbol table entries too small");
        if (s[i].link >= ns || s[i].link == i) return bad(r, "symbol table without strings");
        const sec *st = &s[s[i].link];
        if (st->type == SHT_NOBITS) return bad(r, "symbol table without strings");
        const char *str = (const char *)r->p + st->off;
        uint64_t n = s[i].size / s[i].entsize;
        for (uint64_t j = 0; j < n; j++) {
            const uint8_t *y = r->p + s[i].off + j * s[i].entsize;
            if ((y[4] & 0xf) != STT_OBJECT) continue;
            uint64_t shndx = le(y + 6, 2), value = le(y + 8, 8), size = le(y + 16, 8), no = le(y, 4);
            if (shndx == 0 || shndx >= ns) continue; /* undefined, absolute, common */
            if (no >= st->size || !memchr(str + no, '\0', st->size - no))
                return bad(r, "a symbol name lies outside its string table");
            const char *name = str + no;
            const char *kn = shared_kernel(&s[shndx]);
            if (kn && size > 0 && *name) {
                if (value > UINT64_MAX - size) return bad(r, "a shared symbol's range overflows");
                mh_cubin_kernel *k = kernel_get(c, kn, strlen(kn));
                if (!k || var_add(k, name, strlen(name), value, size))
                    return mh_err_set(r->err, MH_ERR_NOMEM, "cubin: out of memory");
            } else if (!strcmp(s[shndx].name, ".nv_debug.shared") && size == 0 && *name) {
                if (*n_ext == 0 && !(*ext = strdup(name))) return mh_err_set(r->err, MH_ERR_NOMEM, "cubin: out of memory");
                ++*n_ext;
            }
        }
    }
    return MH_OK;
}

static int var_cmp(const void *a, const void *b) {
    const mh_cubin_var *x = a, *y = b;
    if (x->offset != y->offset) return x->offset < y->offset ? -1 : 1;
    return 0;
}

int mh_cubin_read(const void *image, size_t size, mh_cubin *out, mh_err *err) {
    memset(out, 0, sizeof *out);
    rd r = {.p = image, .n = size, .err = err};
    if (!image || size < 64) return bad(&r, "image too short for an ELF header");
    const uint8_t *h = image;
    if (memcmp(h, "\x7f" "ELF", 4) != 0) return bad(&r, "not an ELF image");
    if (h[4] != 2 || h[5] != 1) return bad(&r, "not a little-endian ELF64 image");
    if (le(h + 0x12, 2) != EM_CUDA) return bad(&r, "not a CUDA ELF image (machine is not EM_CUDA)");
    if (le(h + 0x10, 2) != ET_EXEC) return bad(&r, "not a linked cubin (relocatable or other ELF type)");
    sec *s = NULL;
    size_t ns = 0;
    int rc = read_sections(&r, &s, &ns);
    if (rc != MH_OK) return rc;
    char *ext = NULL;
    size_t n_ext = 0;
    rc = read_symbols(&r, out, s, ns, &ext, &n_ext);
    int have_ptx = 0;
    for (size_t i = 0; i < ns && rc == MH_OK; i++)
        if (!strcmp(s[i].name, ".nv_debug_ptx_txt") && s[i].type != SHT_NOBITS) {
            rc = ptx_read(out, (const char *)image + s[i].off, (size_t)s[i].size, err);
            have_ptx = 1;
        }
    /* no PTX to tell which kernel uses it: the module's one extern array is every kernel's */
    for (size_t i = 0; rc == MH_OK && !have_ptx && n_ext == 1 && i < out->n_kernels; i++)
        if (dyn_set(&out->kernels[i], ext, strlen(ext))) rc = mh_err_set(err, MH_ERR_NOMEM, "cubin: out of memory");
    free(ext);
    free(s);
    for (size_t i = 0; rc == MH_OK && i < out->n_kernels; i++) {
        mh_cubin_kernel *k = &out->kernels[i];
        /* placed first, by offset (qsort is not stable: unplaced keep their order by a second pass) */
        size_t np = 0;
        for (size_t j = 0; j < k->n_vars; j++)
            if (k->vars[j].offset != MH_CUBIN_NO_OFFSET) {
                mh_cubin_var v = k->vars[j];
                if (j > np) memmove(&k->vars[np + 1], &k->vars[np], (j - np) * sizeof v);
                k->vars[np++] = v;
            }
        if (np > 1) mh_sort(k->vars, np, sizeof *k->vars, var_cmp);
    }
    /* kernels with nothing known are left out (every kernel's PTX body opened one) */
    size_t kept = 0;
    for (size_t i = 0; rc == MH_OK && i < out->n_kernels; i++) {
        mh_cubin_kernel *k = &out->kernels[i];
        if (k->n_vars || k->dyn) out->kernels[kept++] = *k;
        else free(k->vars), free(k->name);
    }
    if (rc == MH_OK) out->n_kernels = kept;
    return rc;
}

void mh_cubin_free(mh_cubin *c) {
    if (!c) return;
    for (size_t i = 0; i < c->n_kernels; i++) {
        mh_cubin_kernel *k = &c->kernels[i];
        for (size_t j = 0; j < k->n_vars; j++) free(k->vars[j].name);
        free(k->vars);
        free(k->name);
        free(k->dyn);
    }
    free(c->kernels);
    memset(c, 0, sizeof *c);
}

const mh_cubin_kernel *mh_cubin_kernel_find(const mh_cubin *c, const char *name) {
    if (!c || !name) return NULL;
    for (size_t i = 0; i < c->n_kernels; i++)
        if (!strcmp(c->kernels[i].name, name)) return &c->kernels[i];
    return NULL;
}

/* ---- names ---- */

/* After the last "::" outside (), <> and []: the local name of a demangled
 * function-scope variable ("one(float*)::tile" -> "tile"). */
static const char *local_part(const char *d) {
    const char *last = NULL;
    int depth = 0;
    for (const char *p = d; *p; p++) {
        if (*p == '(' || *p == '<' || *p == '[') depth++;
        else if ((*p == ')' || *p == '>' || *p == ']') && depth > 0) depth--;
        else if (depth == 0 && p[0] == ':' && p[1] == ':') last = p + 2;
    }
    return last && *last ? last : d;
}

char *mh_cubin_var_label(const char *symbol) {
    char *d = mh_demangle(symbol);
    if (!d) return strdup(symbol);
    if (strncmp(symbol, "_ZZ", 3) != 0) return d;
    char *l = strdup(local_part(d));
    free(d);
    return l;
}

/* ---- the objects of one launch ---- */

static int obj_add(mh_cubin_objs *o, uint64_t base, uint64_t size, char *label) {
    mh_cubin_obj *g = label ? mh_grow(o->v, &o->cap, o->n + 1, sizeof *g, 8) : NULL;
    if (!g) {
        free(label);
        return -1;
    }
    o->v = g;
    o->v[o->n++] = (mh_cubin_obj){.base = base, .size = size, .label = label};
    return 0;
}

#define GAP_LABEL "static __shared__ arrays"
#define LABEL_MAX 240

/* "static __shared__ arrays (a, b)" for the arrays not placed. */
static char *gap_label(const mh_cubin_kernel *k, const unsigned char *placed) {
    char buf[LABEL_MAX + 8];
    size_t n = (size_t)snprintf(buf, sizeof buf, "%s", GAP_LABEL);
    int first = 1;
    for (size_t i = 0; k && i < k->n_vars; i++) {
        if (placed[i]) continue;
        char *l = mh_cubin_var_label(k->vars[i].name);
        if (!l) return NULL;
        if (n + strlen(l) + 6 > LABEL_MAX) {
            free(l);
            n += (size_t)snprintf(buf + n, sizeof buf - n, "%s...", first ? " (" : ", ");
            first = 0;
            break;
        }
        n += (size_t)snprintf(buf + n, sizeof buf - n, "%s%s", first ? " (" : ", ", l);
        first = 0;
        free(l);
    }
    if (!first) snprintf(buf + n, sizeof buf - n, ")");
    return strdup(buf);
}

int mh_cubin_objects(const mh_cubin_kernel *k, uint64_t reserved, uint64_t static_size, uint64_t dyn_size,
                     uint64_t dyn_slack, mh_cubin_objs *out, mh_err *err) {
    size_t nv = k ? k->n_vars : 0;
    unsigned char *placed = calloc(nv ? nv : 1, 1);
    uint64_t *at = calloc(nv ? nv : 1, sizeof *at); /* where placed ones start */
    int rc = MH_OK;
    if (!placed || !at) goto nomem;
    uint64_t lo = reserved, hi = reserved + static_size;
    /* symbols: inside the window, not overlapping the one before (sorted by offset) */
    uint64_t end = lo;
    size_t n_unplaced = 0, last_unplaced = 0;
    for (size_t i = 0; i < nv; i++) {
        const mh_cubin_var *v = &k->vars[i];
        if (v->offset != MH_CUBIN_NO_OFFSET && v->offset >= end && v->offset <= hi && v->size <= hi - v->offset) {
            placed[i] = 1;
            at[i] = v->offset;
            end = v->offset + v->size;
        } else {
            n_unplaced++;
            last_unplaced = i;
        }
    }
    /* one array left and one stretch it fits, with less than the padding to spare: there it is */
    if (n_unplaced == 1) {
        const mh_cubin_var *u = &k->vars[last_unplaced];
        uint64_t fit_at = 0, prev = lo;
        int fits = 0, tight = 0;
        for (size_t i = 0; i <= nv; i++) {
            if (i < nv && !placed[i]) continue;
            uint64_t next = i < nv ? at[i] : hi;
            if (next - prev >= u->size && u->size > 0) {
                fits++;
                fit_at = prev;
                tight = next - prev - u->size < PAD_BYTES;
            }
            if (i < nv) prev = at[i] + k->vars[i].size;
        }
        if (fits == 1 && tight) {
            placed[last_unplaced] = 1;
            at[last_unplaced] = fit_at;
            n_unplaced = 0;
        }
    }
    /* objects by offset: placed arrays and the stretches between them */
    uint64_t prev = lo;
    for (;;) {
        size_t best = nv;
        for (size_t i = 0; i < nv; i++)
            if (placed[i] == 1 && at[i] >= prev && (best == nv || at[i] < at[best])) best = i;
        uint64_t next = best < nv ? at[best] : hi;
        if (next > prev && (n_unplaced || next - prev >= PAD_BYTES || (prev == lo && best == nv))) {
            if (obj_add(out, prev, next - prev, gap_label(k, placed))) goto nomem;
        }
        if (best == nv) break;
        if (obj_add(out, at[best], k->vars[best].size, mh_cubin_var_label(k->vars[best].name))) goto nomem;
        placed[best] = 2; /* written */
        prev = at[best] + k->vars[best].size;
    }
    if (dyn_size) {
        char buf[LABEL_MAX + 40];
        if (k && k->dyn) snprintf(buf, sizeof buf, "dynamic shared memory (extern %.*s[])", LABEL_MAX, k->dyn);
        else snprintf(buf, sizeof buf, "dynamic shared memory");
        if (obj_add(out, hi, dyn_size + dyn_slack, strdup(buf))) goto nomem;
    }
    goto done;
nomem:
    rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory naming shared arrays");
done:
    free(placed);
    free(at);
    return rc;
}

void mh_cubin_objs_free(mh_cubin_objs *o) {
    if (!o) return;
    for (size_t i = 0; i < o->n; i++) free(o->v[i].label);
    free(o->v);
    memset(o, 0, sizeof *o);
}
