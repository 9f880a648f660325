/* test_argnames.c -- objects named by the kernel argument they came through
 * (issue 15): the parameter-list parser of demangled names (src/util/sig.c),
 * and a hand-written trace with two arguments pointing into one allocation
 * (PyTorch's caching allocator) whose findings must name "arg 1: float*"
 * with the bytes it used; the same trace without argument records keeps the
 * allocation's name and has no "arg" in analyze's JSON. The profile keeps
 * the argument (object columns) and its reader gives it back. The model's
 * object search, by index lists and per-launch chains, against a walk over
 * every object. */
#include <jansson.h>
#include <stdio.h>
#include <string.h>

#include "../mh_test.h"
#include "render/analyze.h"
#include "import/import.h"
#include "store/store.h"
#include "tbuild.h"
#include "util/sig.h"

static int param_is(const char *display, unsigned i, const char *want) {
    char b[128];
    if (!mh_sig_param(display, i, b, sizeof b)) return want == NULL;
    return want && !strcmp(b, want);
}

static void test_sig_plain(void) {
    const char *h = "h_histogram(float const*, float*, int)";
    CHECK(mh_sig_count(h) == 3);
    CHECK(param_is(h, 0, "float const*"));
    CHECK(param_is(h, 1, "float*"));
    CHECK(param_is(h, 2, "int"));
    CHECK(param_is(h, 3, NULL));
    CHECK(mh_sig_count("void vec1::axpy<float>(int, float, float const*, float*)") == 4);
    CHECK(param_is("void vec1::axpy<float>(int, float, float const*, float*)", 2, "float const*"));
    CHECK(mh_sig_count("f()") == 0);
    CHECK(mh_sig_count("f(void)") == 0);
    CHECK(mh_sig_count("saxpy") == -1);     /* a C or OpenCL name: no list */
    CHECK(mh_sig_count("f(int") == -1);     /* unbalanced */
    CHECK(mh_sig_count(NULL) == -1);
    CHECK(param_is("saxpy", 0, NULL));
    char small[6];
    CHECK(mh_sig_param(h, 0, small, sizeof small) && !strcmp(small, "float")); /* cut to the buffer */
}

static void test_sig_nested(void) {
    /* commas inside template arguments, function-pointer types and arrays stay in one parameter */
    const char *t = "void k<Pair<int, float>, 3>(Pair<int, float>*, int)";
    CHECK(mh_sig_count(t) == 2);
    CHECK(param_is(t, 0, "Pair<int, float>*"));
    CHECK(param_is(t, 1, "int"));
    const char *fp = "apply(void (*)(int, float), float*)";
    CHECK(mh_sig_count(fp) == 2);
    CHECK(param_is(fp, 0, "void (*)(int, float)"));
    CHECK(param_is(fp, 1, "float*"));
    const char *an = "(anonymous namespace)::scale(float*, (anonymous namespace)::Params)";
    CHECK(mh_sig_count(an) == 2);
    CHECK(param_is(an, 1, "(anonymous namespace)::Params"));
    const char *ar = "void f<(int)3>(int (*) [4], std::array<float, 2>)";
    CHECK(mh_sig_count(ar) == 2);
    CHECK(param_is(ar, 0, "int (*) [4]"));
    CHECK(param_is(ar, 1, "std::array<float, 2>"));
    const char *sh = "void g<(a>>1)>(Vec<Vec<int> >, int)";
    CHECK(mh_sig_count(sh) == 2);
    CHECK(param_is(sh, 0, "Vec<Vec<int> >"));
}

#define ABASE 0x10000ull   /* one allocation of 64 KiB ... */
#define A1 0x18010ull      /* ... into which arg 1 points 32 KiB + 16 bytes in (mid-sector) */

/* scale(float const* in, float* out, int n): 8 warps read in[tid] (coalesced)
 * and write out[16 * tid] (a 64-byte stride). with_args adds the KARG records;
 * 2: `out` inside a by-value struct instead, scale(float const*, Params, int),
 * as the CUDA collector reports a pointer-like word of a struct parameter. */
static int build(tb *t, const char *name, int with_args) {
    if (!tb_open(t, name)) return 0;
    tb_alloc(t, 0, MH_TRACE_NO_LAUNCH, ABASE, 0x10000, MH_SPACE_GLOBAL, "cudaMalloc");
    mh_launch l = {0};
    l.id = 0;
    l.name = "_Z5scalePKfPfi";
    l.display_name = with_args == 2 ? "scale(float const*, Params, int)" : "scale(float const*, float*, int)";
    l.grid = (mh_dim3){1, 1, 1};
    l.block = (mh_dim3){256, 1, 1};
    l.n_sampled = MH_TRACE_ALL_BLOCKS;
    if (t->ok) t->ok = mh_trace_write_launch(t->w, &l, &t->err) == MH_OK;
    if (with_args == 2) {
        /* arg 1 is a 48-byte struct at offset 8 holding `out` at its byte 16 */
        mh_karg k[2] = {{0, 0, 0, 8, ABASE, MH_SPACE_GLOBAL, "", ""},
                        {0, 1, 24, 48, A1, MH_SPACE_GLOBAL, "", "field +16"}};
        for (int i = 0; i < 2 && t->ok; i++) t->ok = mh_trace_write_karg(t->w, &k[i], &t->err) == MH_OK;
    } else if (with_args) {
        /* as the CUDA collector writes them: every 8-byte parameter, typeless */
        mh_karg k[3] = {{0, 0, 0, 8, ABASE, MH_SPACE_GLOBAL, "", ""},
                        {0, 1, 8, 8, A1, MH_SPACE_GLOBAL, "", ""},
                        {0, 3, 24, 8, 0x99999999ull, MH_SPACE_GLOBAL, "", ""}}; /* in no allocation */
        for (int i = 0; i < 3 && t->ok; i++) t->ok = mh_trace_write_karg(t->w, &k[i], &t->err) == MH_OK;
    }
    for (uint16_t tid = 0; tid < 256; tid++) {
        tb_acc(t, 0, 0, tid, 0, ABASE + 4u * tid, 4, MH_KIND_LOAD, MH_SPACE_GLOBAL, 0x10);
        tb_acc(t, 0, 0, tid, 1, A1 + 64u * tid, 4, MH_KIND_STORE, MH_SPACE_GLOBAL, 0x20);
    }
    tb_end(t, 0);
    return tb_close(t);
}

static const mh_pat_finding *find_kind(const mh_analyze_result *res, int kind, size_t *n_out) {
    size_t n = 0;
    const mh_pat_finding *v = mh_pat_findings(res->pat, &n);
    if (n_out) *n_out = n;
    for (size_t i = 0; i < n; i++)
        if (v[i].kind == kind) return &v[i];
    return NULL;
}

static void test_two_args_one_allocation(void) {
    tb t;
    CHECK(build(&t, "argnames", 1));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    const mh_pat_finding *s = find_kind(&res, MH_PAT_STRIDED, NULL);
    CHECK(s != NULL);
    if (s) {
        CHECK(!strcmp(s->label, "arg 1: float*"));
        CHECK(s->obj >= 0 && res.model.objs[s->obj].parent == 0);
        /* 256 lanes x 64 bytes from the pointer: bytes 0 .. 255*64+3 */
        CHECK(strstr(s->name, "bytes 0..16323 of cudaMalloc #0, from its byte 32784") != NULL);
        CHECK(strstr(s->summary, "arg 1: float*") != NULL || strstr(s->suggestion, "arg 1: float*") != NULL);
    }
    const mh_pat_finding *c = find_kind(&res, MH_PAT_COALESCED, NULL);
    CHECK(c != NULL);
    if (c) {
        CHECK(!strcmp(c->label, "arg 0: float const*"));
        CHECK(strstr(c->name, "bytes 0..1023 ") != NULL);
    }
    /* the view of arg 0 ends where arg 1's begins; the scalar was no pointer */
    int views = 0;
    for (size_t i = 0; i < res.model.nobjs; i++)
        if (res.model.objs[i].arg >= 0) {
            views++;
            if (res.model.objs[i].arg == 0) CHECK_EQ_U(res.model.objs[i].a.size, A1 - ABASE);
        }
    CHECK_EQ_U(views, 2);
    /* analyze --json: "arg" with index, type, allocation and the range used */
    char jp[300];
    snprintf(jp, sizeof jp, "%s.json", t.path);
    CHECK(mh_analyze_write_json(jp, &res, NULL) == MH_OK);
    json_t *root = json_load_file(jp, 0, NULL);
    CHECK(root != NULL);
    int seen = 0;
    size_t i;
    json_t *f;
    json_array_foreach(json_object_get(root, "findings"), i, f) {
        json_t *a = json_object_get(f, "arg");
        if (!a || json_integer_value(json_object_get(a, "index")) != 1) continue;
        seen++;
        CHECK(!strcmp(json_string_value(json_object_get(a, "type")), "float*"));
        CHECK(json_integer_value(json_object_get(a, "allocation")) == 0);
        CHECK(json_integer_value(json_object_get(a, "offset")) == (json_int_t)(A1 - ABASE));
        json_t *r = json_object_get(a, "range");
        CHECK(json_integer_value(json_array_get(r, 0)) == 0 && json_integer_value(json_array_get(r, 1)) == 16323);
    }
    CHECK(seen >= 1);
    json_decref(root);
    remove(jp);
    mh_analyze_free(&res);

    /* the profile: object columns, the reader's "arg", the finding's label and text */
    char db[300];
    snprintf(db, sizeof db, "%s.mhdb", t.path);
    char *prog_argv[] = {(char *)"./scale", NULL};
    mh_db_import_opts io;
    memset(&io, 0, sizeof io);
    io.trace_path = t.path;
    io.run.argv = prog_argv;
    io.run.backend = "synthetic";
    io.run.memheat_version = "test";
    mh_err err = {0};
    CHECK(mh_db_import_trace(db, 1, &io, &err) == MH_OK);
    mh_db *d = NULL;
    json_t *sum = NULL;
    CHECK(mh_db_open(&d, db, 0, &err) == MH_OK);
    if (d) CHECK(mh_db_read_summary(d, &sum, &err) == MH_OK);
    int obj_ok = 0, find_ok = 0;
    json_t *o;
    json_array_foreach(json_object_get(sum, "objects"), i, o) {
        json_t *a = json_object_get(o, "arg");
        if (!json_is_object(a) || json_integer_value(json_object_get(a, "index")) != 1) continue;
        json_t *r = json_object_get(a, "range");
        obj_ok = !strcmp(json_string_value(json_object_get(a, "type")), "float*") &&
                 json_integer_value(json_object_get(a, "allocation")) == 0 &&
                 json_integer_value(json_array_get(r, 0)) == 0 && json_integer_value(json_array_get(r, 1)) == 16323;
    }
    json_array_foreach(json_object_get(sum, "findings"), i, f) {
        const char *l = json_string_value(json_object_get(f, "object_label"));
        const char *ev = json_string_value(json_object_get(f, "evidence"));
        const char *adv = json_string_value(json_object_get(f, "advice"));
        if (l && !strcmp(l, "arg 1: float*") &&
            ((ev && strstr(ev, "bytes 0..16323")) || (adv && strstr(adv, "bytes 0..16323"))))
            find_ok = 1;
    }
    CHECK(obj_ok);
    CHECK(find_ok);
    json_decref(sum);
    if (d) mh_db_close(d);
    remove(db);
    remove(t.path);
}

static void test_struct_field(void) {
    /* a pointer found inside a struct passed by value names the parameter and the field */
    tb t;
    CHECK(build(&t, "argfield", 2));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    const mh_pat_finding *s = find_kind(&res, MH_PAT_STRIDED, NULL);
    CHECK(s != NULL);
    if (s) {
        CHECK(!strcmp(s->label, "arg 1: Params (field +16)"));
        CHECK(strstr(s->name, "bytes 0..16323 of cudaMalloc #0, from its byte 32784") != NULL);
    }
    mh_analyze_free(&res);
    remove(t.path);
}

static void test_without_args(void) {
    /* no KARG records: the allocation keeps its name, no "arg" anywhere */
    tb t;
    CHECK(build(&t, "argnames_old", 0));
    mh_analyze_result res;
    CHECK(mh_analyze_file(t.path, NULL, &res, NULL) == MH_OK);
    size_t n = 0;
    const mh_pat_finding *v = mh_pat_findings(res.pat, &n);
    CHECK(n > 0);
    for (size_t i = 0; i < n; i++) {
        CHECK(!strcmp(v[i].label, "cudaMalloc"));
        CHECK(!strcmp(v[i].name, "cudaMalloc"));
    }
    for (size_t i = 0; i < res.model.nobjs; i++) CHECK(res.model.objs[i].arg < 0);
    char jp[300];
    snprintf(jp, sizeof jp, "%s.json", t.path);
    CHECK(mh_analyze_write_json(jp, &res, NULL) == MH_OK);
    FILE *jf = fopen(jp, "r");
    char buf[1 << 16];
    size_t got = jf ? fread(buf, 1, sizeof buf - 1, jf) : 0;
    if (jf) fclose(jf);
    buf[got] = '\0';
    CHECK(got > 0 && strstr(buf, "\"arg\"") == NULL);
    remove(jp);
    mh_analyze_free(&res);
    remove(t.path);
}

/* ---- the model's object search against a walk over every object ---- */

static uint64_t rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* mh_model_find_obj's rule (model.h), object by object, newest first. */
static int64_t find_obj_walk(const mh_model *m, unsigned space, uint32_t launch, uint64_t addr) {
    int64_t dead = -1;
    for (size_t i = m->nobjs; i-- > 0;) {
        const mh_model_obj *o = &m->objs[i];
        if (o->a.space != space || addr < o->a.base || addr - o->a.base >= o->a.size) continue;
        if (o->a.launch != MH_TRACE_NO_LAUNCH && o->a.launch != launch) continue;
        if (o->live) return (int64_t)i;
        if (dead < 0) dead = (int64_t)i;
    }
    return dead;
}

static void feed(mh_model *m, mh_record *r) {
    mh_err err = {0};
    CHECK(mh_model_feed(m, r, &err) == MH_OK);
}

/* Many launches with argument views into overlapping allocations, frees and
 * reuse of addresses, shared arrays announced after and before their launch
 * (an OpenCL kernel's local arrays), one of a launch that never comes: every
 * search gives the object the walk gives, at every point of the trace. */
static void test_model_search(void) {
    mh_trace_header h = {0};
    h.producer = "test_argnames";
    h.command = h.note = h.device.name = "";
    h.device.warp_size = 32;
    h.device.sector_size = 32;
    for (int orphan_left = 0; orphan_left < 2; orphan_left++) {
        mh_model m;
        mh_err err = {0};
        CHECK(mh_model_init(&m, &h, &err) == MH_OK);
        uint64_t seed = 0x9e3779b97f4a7c15ull + (uint64_t)orphan_left, checked = 0;
        enum { NL = 300, NA = 24 };
        uint32_t aid = 0;
        mh_record r;
        for (uint32_t l = 0; l < NL; l++) {
            if (l % 10 == 0 || aid < NA) { /* allocations, some over freed ones' addresses */
                memset(&r, 0, sizeof r);
                r.type = MH_REC_ALLOC;
                r.u.alloc = (mh_alloc){aid++, MH_TRACE_NO_LAUNCH, 0x100000 + (rnd(&seed) % NA) * 0x4000, 0x4000 + (rnd(&seed) % 4) * 0x2000,
                                       MH_SPACE_GLOBAL, "buf"};
                feed(&m, &r);
            }
            if (l % 7 == 3) {
                memset(&r, 0, sizeof r);
                r.type = MH_REC_FREE;
                r.u.free = (mh_free){0x100000 + (rnd(&seed) % NA) * 0x4000, MH_SPACE_GLOBAL};
                feed(&m, &r);
            }
            if (l % 5 == 1) { /* a shared array before its launch */
                memset(&r, 0, sizeof r);
                r.type = MH_REC_ALLOC;
                r.u.alloc = (mh_alloc){aid++, l, 0, 1024, MH_SPACE_SHARED, "tile"};
                feed(&m, &r);
            }
            if (orphan_left && l == NL / 2) { /* one of a launch never announced: the walk from then on */
                memset(&r, 0, sizeof r);
                r.type = MH_REC_ALLOC;
                r.u.alloc = (mh_alloc){aid++, 5000, 0, 512, MH_SPACE_SHARED, "never"};
                feed(&m, &r);
            }
            memset(&r, 0, sizeof r);
            r.type = MH_REC_LAUNCH;
            r.u.launch.id = l;
            r.u.launch.name = r.u.launch.display_name = "k(float*, float*, float*)";
            r.u.launch.grid = r.u.launch.block = (mh_dim3){1, 1, 1};
            r.u.launch.n_sampled = MH_TRACE_ALL_BLOCKS;
            feed(&m, &r);
            if (l % 3 == 0) { /* a shared array after it */
                memset(&r, 0, sizeof r);
                r.type = MH_REC_ALLOC;
                r.u.alloc = (mh_alloc){aid++, l, 512, 1024, MH_SPACE_SHARED, "tile2"};
                feed(&m, &r);
            }
            for (uint32_t k = 0; k < 3; k++) {
                memset(&r, 0, sizeof r);
                r.type = MH_REC_KARG;
                r.u.karg = (mh_karg){l, k, 8 * k, 8, 0x100000 + rnd(&seed) % (NA * 0x4000 + 0x8000), MH_SPACE_GLOBAL,
                                     "float*", ""};
                feed(&m, &r);
            }
            for (int q = 0; q < 40; q++) { /* this launch, an earlier one, none */
                uint32_t ql = q % 3 == 0 ? l : q % 3 == 1 ? (uint32_t)(rnd(&seed) % (l + 1)) : MH_TRACE_NO_LAUNCH;
                unsigned sp = q % 4 == 0 ? MH_SPACE_SHARED : MH_SPACE_GLOBAL;
                uint64_t a = sp == MH_SPACE_SHARED ? rnd(&seed) % 2048 : 0x100000 + rnd(&seed) % (NA * 0x4000 + 0x10000);
                int64_t want = find_obj_walk(&m, sp, ql, a), got = mh_model_find_obj(&m, sp, ql, a);
                if (got != want) {
                    fprintf(stderr, "launch %u space %u addr 0x%llx: %lld, walk %lld\n", ql, sp, (unsigned long long)a,
                            (long long)got, (long long)want);
                    CHECK(got == want);
                    q = 40, l = NL;
                }
                checked += want >= 0;
            }
            if (l % 4 == 0 && l < NL) {
                memset(&r, 0, sizeof r);
                r.type = MH_REC_KERNEL_END;
                r.u.kernel_end.launch = l;
                feed(&m, &r);
            }
        }
        CHECK(m.nviews > NL && checked > 1000);
        CHECK(m.norphans == (size_t)orphan_left);
        mh_model_free(&m);
    }
}

MH_TEST_MAIN(T(test_sig_plain), T(test_sig_nested), T(test_two_args_one_allocation), T(test_struct_field), T(test_without_args),
             T(test_model_search))
