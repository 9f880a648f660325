/* timing.c -- the timing file format (docs/timing.md), beside the trace
 * format: the in-memory model, its JSON reader and writer, and per-kernel-name
 * aggregation. The join of a counters pass onto the timeline is merge.c.
 *
 * Pure C + jansson: the injection library (libmemheat_cupti.so) writes the
 * file with this code (its own copy, built into the library), the run layer
 * reads it back once per `memheat run`, and the tests run it on the CPU
 * machine. */
#include "memheat/timing.h"

#include <assert.h>
#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/grow.h"
#include "util/sort.h"

void mh_timing_counters_clear(mh_timing_counters *c) {
#define CLEAR(KIND, f, REQ, col, BRK) c->f = NAN;
    MH_TIMING_COUNTER_FIELDS(CLEAR)
#undef CLEAR
}

void mh_timing_init(mh_timing *t) {
    memset(t, 0, sizeof *t);
    snprintf(t->producer, sizeof t->producer, "memheat");
}

void mh_timing_free(mh_timing *t) {
    for (size_t i = 0; i < t->nkernels; i++) free(t->kernels[i].name);
    free(t->kernels);
    free(t->copies);
    free(t->devices);
    mh_timing_init(t);
}

mh_timing_kernel *mh_timing_add_kernel(mh_timing *t, const char *name) {
    mh_timing_kernel *ks = mh_grow(t->kernels, &t->cap_kernels, t->nkernels + 1, sizeof *ks, 64);
    if (!ks) return NULL;
    t->kernels = ks;
    char *copy = strdup(name ? name : "");
    if (!copy) return NULL;
    mh_timing_kernel *k = &t->kernels[t->nkernels];
    memset(k, 0, sizeof *k);
    k->seq = t->nkernels++;
    k->name = copy;
    mh_timing_counters_clear(&k->c);
    return k;
}

mh_timing_copy *mh_timing_add_copy(mh_timing *t) {
    mh_timing_copy *cs = mh_grow(t->copies, &t->cap_copies, t->ncopies + 1, sizeof *cs, 64);
    if (!cs) return NULL;
    t->copies = cs;
    mh_timing_copy *c = &t->copies[t->ncopies++];
    memset(c, 0, sizeof *c);
    return c;
}

int mh_timing_add_device(mh_timing *t, const mh_timing_device *d) {
    for (size_t i = 0; i < t->ndevices; i++)
        if (t->devices[i].id == d->id) return (int)i;
    mh_timing_device *nd = realloc(t->devices, (t->ndevices + 1) * sizeof *nd);
    if (!nd) return -1;
    t->devices = nd;
    t->devices[t->ndevices] = *d;
    return (int)t->ndevices++;
}

const mh_timing_device *mh_timing_find_device(const mh_timing *t, uint32_t id) {
    for (size_t i = 0; i < t->ndevices; i++)
        if (t->devices[i].id == id) return &t->devices[i];
    return NULL;
}

/* ---- sorting ---------------------------------------------------------- */

static int cmp_kernel_start(const void *a, const void *b) {
    const mh_timing_kernel *x = a, *y = b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    if (x->seq != y->seq) return x->seq < y->seq ? -1 : 1;
    return 0;
}

static int cmp_copy_start(const void *a, const void *b) {
    const mh_timing_copy *x = a, *y = b;
    if (x->start_ns != y->start_ns) return x->start_ns < y->start_ns ? -1 : 1;
    if (x->correlation != y->correlation) return x->correlation < y->correlation ? -1 : 1;
    return 0;
}

void mh_timing_sort(mh_timing *t) {
    if (t->nkernels) mh_sort(t->kernels, t->nkernels, sizeof *t->kernels, cmp_kernel_start);
    for (size_t i = 0; i < t->nkernels; i++) t->kernels[i].seq = i;
    if (t->ncopies) mh_sort(t->copies, t->ncopies, sizeof *t->copies, cmp_copy_start);
}

/* ---- copy kinds ------------------------------------------------------- */

static const char *const copy_kind_names[] = {"other", "HtoD", "DtoH", "DtoD", "HtoH", "PtoP", "memset"};

const char *mh_timing_copy_kind_name(int kind) {
    if (kind < 0 || kind > MH_COPY_MEMSET) return "other";
    return copy_kind_names[kind];
}

int mh_timing_copy_kind_parse(const char *s) {
    for (int i = 0; i <= MH_COPY_MEMSET; i++)
        if (strcmp(s, copy_kind_names[i]) == 0) return i;
    return -1;
}

/* ---- how a launch was timed ("timed") ---------------------------------- */

const char *mh_timing_timed_name(int timed) {
    switch (timed) {
    case MH_TIMED_INSTRUMENTED: return "instrumented";
    case MH_TIMED_BORROWED: return "borrowed";
    case MH_TIMED_REPLAYED: return "replayed";
    case MH_TIMED_GAP: return "gap";
    default: return "clean";
    }
}

int mh_timing_measured(const mh_timing_kernel *k) {
    return k->timed != MH_TIMED_INSTRUMENTED && k->timed != MH_TIMED_GAP;
}

int mh_timing_timed_parse(const char *s) {
    for (int v = MH_TIMED_CLEAN; v <= MH_TIMED_GAP; v++)
        if (!strcmp(s, mh_timing_timed_name(v))) return v;
    return -1;
}

/* ---- JSON writing ----------------------------------------------------- */

/* Counter fields by JSON key (timing_fields.h), so load and save agree. */
typedef struct ctr_field {
    const char *key;
    size_t off;
} ctr_field;

#define CF(KIND, f, REQ, col, BRK) {#f, offsetof(mh_timing_counters, f)},
static const ctr_field ctr_fields[] = {MH_TIMING_COUNTER_FIELDS(CF)};
#undef CF
#define NCTR (sizeof ctr_fields / sizeof ctr_fields[0])

static double *ctr_at(mh_timing_counters *c, size_t i) { return (double *)((char *)c + ctr_fields[i].off); }
static double ctr_get(const mh_timing_counters *c, size_t i) {
    return *(const double *)((const char *)c + ctr_fields[i].off);
}

/* json_object_set_new that remembers the first failure. */
static void put(json_t *o, const char *k, json_t *v, int *bad) {
    if (!v || json_object_set_new(o, k, v) != 0) *bad = 1;
}

static json_t *u32x3(const uint32_t v[3]) {
    return json_pack("[III]", (json_int_t)v[0], (json_int_t)v[1], (json_int_t)v[2]);
}

/* The JSON value of a field of each kind (timing_fields.h). */
#define JV_U32(v) json_integer(v)
#define JV_U64(v) json_integer((json_int_t)(v))
#define JV_STR256(v) json_string(v)
#define JV_NAME(v) json_string(v)
#define JV_DIM3(v) u32x3(v)
#define PUT_FIELD(KIND, f, REQ, col, BRK) put(o, #f, JV_##KIND(rec->f), bad);

static json_t *device_json(const mh_timing_device *d, int *bad) {
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    const mh_timing_device *rec = d;
    MH_TIMING_DEVICE_FIELDS(PUT_FIELD)
    return o;
}

static json_t *kernel_json(const mh_timing_kernel *k, int *bad) {
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    const mh_timing_kernel *rec = k;
    MH_TIMING_KERNEL_FIELDS(PUT_FIELD)
    if (k->timed != MH_TIMED_CLEAN) put(o, "timed", json_string(mh_timing_timed_name(k->timed)), bad);
    if (k->has_counters) {
        json_t *c = json_object();
        for (size_t i = 0; c && i < NCTR; i++) {
            double v = ctr_get(&k->c, i);
            if (isfinite(v)) put(c, ctr_fields[i].key, json_real(v), bad);
        }
        put(o, "counters", c, bad);
    }
    return o;
}

static json_t *copy_json(const mh_timing_copy *c, int *bad) {
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    put(o, "kind", json_string(mh_timing_copy_kind_name(c->kind)), bad);
    const mh_timing_copy *rec = c;
    MH_TIMING_COPY_FIELDS(PUT_FIELD)
    if (c->kind == MH_COPY_MEMSET) put(o, "value", json_integer(c->value), bad);
    return o;
}

static json_t *run_json(const mh_timing_run *r, int *bad) {
    if (!r->ran) return json_null();
    json_t *o = json_object();
    if (!o) {
        *bad = 1;
        return NULL;
    }
    put(o, "exit_status", json_integer(r->exit_status), bad);
    put(o, "wall_ns", json_integer((json_int_t)r->wall_ns), bad);
    return o;
}

int mh_timing_save(const mh_timing *t, struct json_t *analysis, const char *path, mh_err *err) {
    return mh_timing_save_text(t, analysis, path, NULL, err);
}

int mh_timing_save_text(const mh_timing *t, struct json_t *analysis, const char *path, char **text, mh_err *err) {
    int bad = 0;
    json_t *root = json_object();
    if (!root) return mh_err_set(err, MH_ERR_NOMEM, "out of memory building %s", path);
    put(root, "format", json_string(MH_TIMING_FORMAT), &bad);
    put(root, "version", json_integer(MH_TIMING_VERSION), &bad);
    put(root, "producer", json_string(t->producer), &bad);
    put(root, "command", json_string(t->command), &bad);
    put(root, "kernel_timing", json_string(t->kernel_timing), &bad);
    put(root, "dropped_records", json_integer((json_int_t)t->dropped_records), &bad);
    if (t->measured_peak_Bps > 0) put(root, "measured_peak_Bps", json_real(t->measured_peak_Bps), &bad);

    json_t *runs = json_object();
    if (runs) {
        put(runs, "timing", run_json(&t->timing_run, &bad), &bad);
        put(runs, "counters", run_json(&t->counters_run, &bad), &bad);
    }
    put(root, "runs", runs, &bad);

    json_t *ci = json_object();
    if (ci) {
        put(ci, "requested", json_boolean(t->counters.requested), &bad);
        put(ci, "status", json_string(t->counters.status), &bad);
        put(ci, "message", json_string(t->counters.message), &bad);
        put(ci, "ranges", json_integer((json_int_t)t->counters.ranges), &bad);
        put(ci, "ranges_dropped", json_integer((json_int_t)t->counters.ranges_dropped), &bad);
        put(ci, "matched", json_integer((json_int_t)t->counters.matched), &bad);
        put(ci, "passes", json_integer(t->counters.passes), &bad);
        put(ci, "metrics", json_string(t->counters.metrics), &bad);
    }
    put(root, "counters", ci, &bad);

    json_t *devs = json_array(), *ks = json_array(), *cs = json_array();
    for (size_t i = 0; devs && i < t->ndevices; i++)
        if (json_array_append_new(devs, device_json(&t->devices[i], &bad))) bad = 1;
    for (size_t i = 0; ks && i < t->nkernels; i++)
        if (json_array_append_new(ks, kernel_json(&t->kernels[i], &bad))) bad = 1;
    for (size_t i = 0; cs && i < t->ncopies; i++)
        if (json_array_append_new(cs, copy_json(&t->copies[i], &bad))) bad = 1;
    put(root, "devices", devs, &bad);
    put(root, "kernels", ks, &bad);
    put(root, "copies", cs, &bad);
    if (analysis) put(root, "analysis", json_incref(analysis), &bad);
    if (bad) {
        json_decref(root);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory building %s", path);
    }

    size_t plen = strlen(path);
    char *tmp = malloc(plen + 5);
    if (!tmp) {
        json_decref(root);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    memcpy(tmp, path, plen);
    memcpy(tmp + plen, ".tmp", 5);
    /* the text as it goes to the file (json_dump_file's output plus nothing) */
    char *dump = json_dumps(root, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (!dump) {
        free(tmp);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory building %s", path);
    }
    errno = 0;
    FILE *f = fopen(tmp, "wb");
    size_t len = strlen(dump);
    int rc = f && fwrite(dump, 1, len, f) == len ? 0 : -1;
    if (f && fclose(f) != 0) rc = -1;
    if (rc != 0 || rename(tmp, path) != 0) {
        int e = errno;
        remove(tmp);
        free(tmp);
        free(dump);
        return mh_err_set(err, MH_ERR_IO, "cannot write %s: %s", path, e ? strerror(e) : "write failed");
    }
    free(tmp);
    if (text) *text = dump;
    else free(dump);
    return MH_OK;
}

/* ---- JSON reading ----------------------------------------------------- */

typedef struct rd {
    const char *path;
    mh_err *err;
    int rc;
} rd;

static int rd_fail(rd *r, const char *what) {
    if (r->rc == MH_OK) r->rc = mh_err_set(r->err, MH_ERR_FORMAT, "%s: %s", r->path, what);
    return r->rc;
}

/* Reads a non-negative integer member; missing -> def when opt, else error. */
static uint64_t rd_u64(rd *r, json_t *o, const char *k, int opt, uint64_t def) {
    json_t *v = json_object_get(o, k);
    if (!v) {
        if (!opt) {
            char m[128];
            snprintf(m, sizeof m, "missing field \"%s\"", k);
            rd_fail(r, m);
        }
        return def;
    }
    if (json_is_integer(v) && json_integer_value(v) >= 0) return (uint64_t)json_integer_value(v);
    if (json_is_real(v) && json_real_value(v) >= 0 && json_real_value(v) < 1.8e19)
        return (uint64_t)json_real_value(v);
    char m[128];
    snprintf(m, sizeof m, "field \"%s\" is not a non-negative integer", k);
    rd_fail(r, m);
    return def;
}

static uint32_t rd_u32(rd *r, json_t *o, const char *k, int opt) {
    uint64_t v = rd_u64(r, o, k, opt, 0);
    if (v > UINT32_MAX) {
        char m[128];
        snprintf(m, sizeof m, "field \"%s\" out of range", k);
        rd_fail(r, m);
        return 0;
    }
    return (uint32_t)v;
}

static void rd_str(rd *r, json_t *o, const char *k, int opt, char *out, size_t cap) {
    json_t *v = json_object_get(o, k);
    if (!v) {
        if (!opt) {
            char m[128];
            snprintf(m, sizeof m, "missing field \"%s\"", k);
            rd_fail(r, m);
        }
        return;
    }
    if (!json_is_string(v)) {
        char m[128];
        snprintf(m, sizeof m, "field \"%s\" is not a string", k);
        rd_fail(r, m);
        return;
    }
    snprintf(out, cap, "%s", json_string_value(v));
}

static void rd_dim3(rd *r, json_t *o, const char *k, uint32_t out[3]) {
    json_t *a = json_object_get(o, k);
    if (!json_is_array(a) || json_array_size(a) != 3) {
        char m[128];
        snprintf(m, sizeof m, "field \"%s\" is not an array of 3 integers", k);
        rd_fail(r, m);
        return;
    }
    for (size_t i = 0; i < 3; i++) {
        json_t *v = json_array_get(a, i);
        if (!json_is_integer(v) || json_integer_value(v) < 0 || json_integer_value(v) > UINT32_MAX) {
            char m[128];
            snprintf(m, sizeof m, "field \"%s\" has a bad element", k);
            rd_fail(r, m);
            return;
        }
        out[i] = (uint32_t)json_integer_value(v);
    }
}

/* Reads a field of each kind (timing_fields.h) into *out; a missing OPT
 * field keeps *out (0, or a kernel's own seq). NAME fields are read by the
 * caller (the record is created with its name). */
#define RD_U32(r, o, k, opt, out) (*(out) = rd_u32(r, o, k, opt))
#define RD_U64(r, o, k, opt, out) (*(out) = rd_u64(r, o, k, opt, *(out)))
#define RD_STR256(r, o, k, opt, out) rd_str(r, o, k, opt, *(out), sizeof *(out))
#define RD_NAME(r, o, k, opt, out) ((void)(out))
#define RD_DIM3(r, o, k, opt, out) rd_dim3(r, o, k, *(out))
#define RD_FIELD(KIND, f, REQ, col, BRK) RD_##KIND(&r, v, #f, MH_TF_OPT_##REQ, &rec->f);

static void rd_run(rd *r, json_t *runs, const char *k, mh_timing_run *out) {
    json_t *o = runs ? json_object_get(runs, k) : NULL;
    if (!o || json_is_null(o)) return;
    if (!json_is_object(o)) {
        rd_fail(r, "\"runs\" entries must be objects or null");
        return;
    }
    out->ran = 1;
    json_t *es = json_object_get(o, "exit_status");
    out->exit_status = json_is_integer(es) ? (int)json_integer_value(es) : 0;
    out->wall_ns = rd_u64(r, o, "wall_ns", 1, 0);
}

static json_t *rd_array(rd *r, json_t *root, const char *k) {
    json_t *a = json_object_get(root, k);
    if (!json_is_array(a)) {
        char m[128];
        snprintf(m, sizeof m, "missing array \"%s\"", k);
        rd_fail(r, m);
        return NULL;
    }
    return a;
}

int mh_timing_load(mh_timing *t, const char *path, mh_err *err) {
    mh_timing_init(t);
    FILE *f = fopen(path, "rb");
    if (!f) return mh_err_set(err, MH_ERR_IO, "cannot open %s: %s", path, strerror(errno));
    fseek(f, 0, SEEK_END);
    long sz = ftell(f);
    fclose(f);
    if (sz == 0) return mh_err_set(err, MH_ERR_EMPTY, "%s: empty file", path);
    json_error_t je;
    json_t *root = json_load_file(path, JSON_REJECT_DUPLICATES, &je);
    if (!root) return mh_err_set(err, MH_ERR_FORMAT, "%s: not valid JSON (line %d: %s)", path, je.line, je.text);
    rd r = {path, err, MH_OK};
    json_t *fmt = json_object_get(root, "format");
    if (!json_is_object(root) || !json_is_string(fmt) || strcmp(json_string_value(fmt), MH_TIMING_FORMAT) != 0) {
        json_decref(root);
        return mh_err_set(err, MH_ERR_FORMAT, "%s: not a memheat timing file", path);
    }
    uint64_t ver = rd_u64(&r, root, "version", 0, 0);
    if (r.rc == MH_OK && ver > MH_TIMING_VERSION) {
        json_decref(root);
        return mh_err_set(err, MH_ERR_VERSION, "%s: timing format version %llu is newer than this memheat (%d)",
                          path, (unsigned long long)ver, MH_TIMING_VERSION);
    }
    rd_str(&r, root, "producer", 1, t->producer, sizeof t->producer);
    rd_str(&r, root, "command", 1, t->command, sizeof t->command);
    rd_str(&r, root, "kernel_timing", 1, t->kernel_timing, sizeof t->kernel_timing);
    t->dropped_records = rd_u64(&r, root, "dropped_records", 1, 0);
    json_t *mp = json_object_get(root, "measured_peak_Bps");
    if (json_is_number(mp)) t->measured_peak_Bps = json_number_value(mp);

    json_t *runs = json_object_get(root, "runs");
    rd_run(&r, runs, "timing", &t->timing_run);
    rd_run(&r, runs, "counters", &t->counters_run);

    json_t *ci = json_object_get(root, "counters");
    if (json_is_object(ci)) {
        t->counters.requested = json_is_true(json_object_get(ci, "requested"));
        rd_str(&r, ci, "status", 1, t->counters.status, sizeof t->counters.status);
        rd_str(&r, ci, "message", 1, t->counters.message, sizeof t->counters.message);
        t->counters.ranges = rd_u64(&r, ci, "ranges", 1, 0);
        t->counters.ranges_dropped = rd_u64(&r, ci, "ranges_dropped", 1, 0);
        t->counters.matched = rd_u64(&r, ci, "matched", 1, 0);
        t->counters.passes = rd_u32(&r, ci, "passes", 1);
        rd_str(&r, ci, "metrics", 1, t->counters.metrics, sizeof t->counters.metrics);
    }

    json_t *devs = rd_array(&r, root, "devices");
    json_t *ks = rd_array(&r, root, "kernels");
    json_t *cs = rd_array(&r, root, "copies");
    size_t i;
    json_t *v;
    if (r.rc == MH_OK) json_array_foreach(devs, i, v) {
            if (!json_is_object(v)) {
                rd_fail(&r, "device entry is not an object");
                break;
            }
            mh_timing_device d;
            memset(&d, 0, sizeof d);
            mh_timing_device *rec = &d;
            MH_TIMING_DEVICE_FIELDS(RD_FIELD)
            if (r.rc != MH_OK) break;
            if (mh_timing_add_device(t, &d) < 0) {
                r.rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory reading %s", path);
                break;
            }
        }
    if (r.rc == MH_OK) json_array_foreach(ks, i, v) {
            json_t *nm = json_object_get(v, "name");
            if (!json_is_object(v) || !json_is_string(nm)) {
                rd_fail(&r, "kernel entry without a name");
                break;
            }
            mh_timing_kernel *k = mh_timing_add_kernel(t, json_string_value(nm));
            if (!k) {
                r.rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory reading %s", path);
                break;
            }
            mh_timing_kernel *rec = k;
            MH_TIMING_KERNEL_FIELDS(RD_FIELD)
            json_t *tm = json_object_get(v, "timed"); /* not a column: absent when clean */
            if (tm) {
                const char *ts = json_string_value(tm);
                k->timed = ts ? mh_timing_timed_parse(ts) : -1;
                if (k->timed < 0)
                    rd_fail(&r, "kernel entry with an unknown \"timed\" (instrumented, borrowed, replayed, gap)");
            }
            if (r.rc == MH_OK && k->end_ns < k->start_ns) rd_fail(&r, "kernel ends before it starts");
            json_t *c = json_object_get(v, "counters");
            if (json_is_object(c)) {
                k->has_counters = 1;
                for (size_t j = 0; j < NCTR; j++) {
                    json_t *x = json_object_get(c, ctr_fields[j].key);
                    if (json_is_number(x)) *ctr_at(&k->c, j) = json_number_value(x);
                }
            }
            if (r.rc != MH_OK) break;
        }
    if (r.rc == MH_OK) json_array_foreach(cs, i, v) {
            json_t *kd = json_object_get(v, "kind");
            int kind = json_is_string(kd) ? mh_timing_copy_kind_parse(json_string_value(kd)) : -1;
            if (!json_is_object(v) || kind < 0) {
                rd_fail(&r, "copy entry with a missing or unknown kind");
                break;
            }
            mh_timing_copy *c = mh_timing_add_copy(t);
            if (!c) {
                r.rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory reading %s", path);
                break;
            }
            c->kind = kind;
            mh_timing_copy *rec = c;
            MH_TIMING_COPY_FIELDS(RD_FIELD)
            c->value = rd_u32(&r, v, "value", 1);
            if (r.rc == MH_OK && c->end_ns < c->start_ns) rd_fail(&r, "copy ends before it starts");
            if (r.rc != MH_OK) break;
        }
    json_decref(root);
    if (r.rc != MH_OK) mh_timing_free(t);
    return r.rc;
}
