/* bandwidth.c -- effective bandwidth, roofline verdict, copy/compute overlap and
 * the OpenMPC pipelining model over a timing-pass result (see
 * src/analyses/bandwidth.h and docs/timing.md). Pure C; no device access,
 * so every formula is unit-tested on hand-computable timelines. */
#include "analyses/bandwidth.h"
#include "util/kname.h"

#include <errno.h>
#include <jansson.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "util/datadir.h"
#include "util/sort.h"

/* ---- device peaks ----------------------------------------------------- */

double mh_bw_theoretical_Bps(const mh_timing_device *d) {
    /* memory clock (kHz -> Hz) x bus width (bits -> bytes) x 2 (double data rate) */
    return (double)d->mem_clock_khz * 1e3 * ((double)d->bus_width_bits / 8.0) * 2.0;
}

unsigned mh_bw_lanes_per_sm(unsigned major, unsigned minor, int fp64) {
    /* CUDA cores per SM by architecture (CUDA C Programming Guide, arithmetic
     * instruction throughput table). */
    unsigned sp = 0, dp = 0;
    switch (major) {
    case 6: sp = minor == 0 ? 64 : 128; dp = minor == 0 ? 32 : 4; break;
    case 7: sp = 64; dp = minor == 0 ? 32 : 2; break;                 /* V100 / Turing */
    case 8: sp = minor == 0 ? 64 : 128; dp = minor == 0 ? 32 : 2; break; /* A100 / GA10x, AD10x */
    case 9: sp = 128; dp = 64; break;                                  /* H100 / H200 */
    case 10: sp = 128; dp = 64; break;                                 /* B200 */
    case 12: sp = 128; dp = 2; break;                                  /* GB20x */
    default: break;
    }
    return fp64 ? dp : sp;
}

double mh_bw_peak_flops(const mh_timing_device *d, int fp64) {
    /* SMs x lanes x 2 (an FMA is two operations) x SM clock */
    return (double)d->sm_count * mh_bw_lanes_per_sm(d->cc_major, d->cc_minor, fp64) * 2.0 *
           (double)d->sm_clock_khz * 1e3;
}

double mh_bw_effective(double read_bytes, double write_bytes, double ns) {
    if (!(ns > 0)) return 0.0;
    return (read_bytes + write_bytes) / (ns * 1e-9);
}

int mh_bw_verdict(double bytes, double flops_sp, double flops_dp, double peak_Bps, double peak_sp,
                  double peak_dp) {
    if (!isfinite(bytes) || !(peak_Bps > 0) || !(peak_sp > 0)) return MH_BW_UNKNOWN;
    double t_mem = bytes / peak_Bps;
    double t_cmp = 0;
    if (isfinite(flops_sp)) t_cmp += flops_sp / peak_sp;
    if (isfinite(flops_dp) && flops_dp > 0) t_cmp += peak_dp > 0 ? flops_dp / peak_dp : INFINITY;
    if (!isfinite(flops_sp) && !isfinite(flops_dp)) return MH_BW_UNKNOWN;
    if (t_mem == 0 && t_cmp == 0) return MH_BW_UNKNOWN;
    return t_mem >= t_cmp ? MH_BW_MEMORY : MH_BW_COMPUTE;
}

const char *mh_bw_verdict_name(int v) { return mh_verdict_name(v); }

/* ---- interval algebra ------------------------------------------------- */

static int cmp_iv(const void *x, const void *y) {
    const mh_bw_iv *a = x, *b = y;
    if (a->a != b->a) return a->a < b->a ? -1 : 1;
    return a->b < b->b ? -1 : (a->b > b->b);
}

/* Sorts and merges in place; returns the number of disjoint intervals. */
static size_t merge_iv(mh_bw_iv *iv, size_t n) {
    size_t m = 0;
    if (n == 0) return 0;
    mh_sort(iv, n, sizeof *iv, cmp_iv);
    for (size_t i = 0; i < n; i++) {
        if (iv[i].b <= iv[i].a) continue; /* empty */
        if (m > 0 && iv[i].a <= iv[m - 1].b) {
            if (iv[i].b > iv[m - 1].b) iv[m - 1].b = iv[i].b;
        } else {
            iv[m++] = iv[i];
        }
    }
    return m;
}

uint64_t mh_bw_union_ns(mh_bw_iv *iv, size_t n) {
    size_t m = merge_iv(iv, n);
    uint64_t s = 0;
    for (size_t i = 0; i < m; i++) s += iv[i].b - iv[i].a;
    return s;
}

uint64_t mh_bw_exposed_ns(mh_bw_iv *a, size_t na, mh_bw_iv *cover, size_t nc) {
    size_t ma = merge_iv(a, na), mc = merge_iv(cover, nc);
    uint64_t exposed = 0;
    size_t j = 0;
    for (size_t i = 0; i < ma; i++) {
        uint64_t pos = a[i].a, end = a[i].b;
        while (j < mc && cover[j].b <= pos) j++;
        size_t k = j;
        while (pos < end) {
            if (k >= mc || cover[k].a >= end) {
                exposed += end - pos;
                break;
            }
            if (cover[k].a > pos) exposed += cover[k].a - pos;
            if (cover[k].b >= end) break;
            pos = cover[k].b;
            k++;
        }
    }
    return exposed;
}

/* ---- overlap and the OpenMPC model ------------------------------------ */

int mh_bw_overlap_of(const mh_timing *t, uint32_t device, mh_bw_overlap *o, mh_err *err) {
    memset(o, 0, sizeof *o);
    size_t cap = t->nkernels + t->ncopies + 1; /* tmp holds kernels + copies */
    mh_bw_iv *k = malloc(cap * sizeof *k), *h = malloc(cap * sizeof *h), *d = malloc(cap * sizeof *d),
             *c = malloc(cap * sizeof *c), *tmp = malloc(cap * sizeof *tmp);
    if (!k || !h || !d || !c || !tmp) {
        free(k), free(h), free(d), free(c), free(tmp);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory computing overlap");
    }
    size_t nk = 0, nh = 0, nd = 0, nc = 0;
    uint64_t first = UINT64_MAX, last = 0;
    for (size_t i = 0; i < t->nkernels; i++) {
        const mh_timing_kernel *x = &t->kernels[i];
        if (x->device != device) continue;
        k[nk++] = (mh_bw_iv){x->start_ns, x->end_ns};
        if (x->start_ns < first) first = x->start_ns;
        if (x->end_ns > last) last = x->end_ns;
    }
    for (size_t i = 0; i < t->ncopies; i++) {
        const mh_timing_copy *x = &t->copies[i];
        if (x->device != device) continue;
        if (x->start_ns < first) first = x->start_ns;
        if (x->end_ns > last) last = x->end_ns;
        if (x->kind == MH_COPY_HTOD) {
            h[nh++] = (mh_bw_iv){x->start_ns, x->end_ns};
            o->htod_bytes += x->bytes;
        } else if (x->kind == MH_COPY_DTOH) {
            d[nd++] = (mh_bw_iv){x->start_ns, x->end_ns};
            o->dtoh_bytes += x->bytes;
        } else {
            continue;
        }
        c[nc++] = (mh_bw_iv){x->start_ns, x->end_ns};
    }
    o->span_ns = last > first ? last - first : 0;
    /* exposed_ns reorders its inputs and union only reads sets: work on copies */
    memcpy(tmp, k, nk * sizeof *k);
    o->kernel_busy_ns = mh_bw_union_ns(tmp, nk);
    memcpy(tmp, k, nk * sizeof *k);
    o->htod_exposed_ns = mh_bw_exposed_ns(h, nh, tmp, nk);
    o->htod_ns = mh_bw_union_ns(h, nh);
    memcpy(tmp, k, nk * sizeof *k);
    o->dtoh_exposed_ns = mh_bw_exposed_ns(d, nd, tmp, nk);
    o->dtoh_ns = mh_bw_union_ns(d, nd);
    /* everything busy: kernels and both copy directions together */
    memcpy(tmp, k, nk * sizeof *k);
    memcpy(tmp + nk, c, nc * sizeof *c);
    o->busy_ns = mh_bw_union_ns(tmp, nk + nc);
    o->copy_exposed_ns = mh_bw_exposed_ns(c, nc, k, nk);
    free(k), free(h), free(d), free(c), free(tmp);
    return MH_OK;
}

mh_bw_pipeline mh_bw_openmpc(double fused, double in, double out, double compute) {
    mh_bw_pipeline p;
    p.fused_ns = fused;
    p.in_ns = in;
    p.out_ns = out;
    p.compute_ns = compute;
    double mx = in;
    if (out > mx) mx = out;
    if (compute > mx) mx = compute;
    p.serial_ns = fused + in + out + compute;
    p.pipelined_ns = fused + mx;
    p.speedup = p.pipelined_ns > 0 ? p.serial_ns / p.pipelined_ns : 1.0;
    p.current_ns = 0;
    p.remaining = NAN;
    return p;
}

/* ---- whole analysis --------------------------------------------------- */

void mh_bw_report_free(mh_bw_report *rep) {
    free(rep->devices);
    free(rep->rows);
    memset(rep, 0, sizeof *rep);
}

static double ratio(double a, double b) { return (isfinite(a) && isfinite(b) && b > 0) ? a / b : NAN; }

int mh_bw_analyze(const mh_timing *t, double fused_ns, mh_bw_report *rep, mh_err *err) {
    memset(rep, 0, sizeof *rep);
    rep->counters = t->counters;
    rep->dropped_records = t->dropped_records;
    snprintf(rep->kernel_timing, sizeof rep->kernel_timing, "%s", t->kernel_timing);
    rep->devices = calloc(t->ndevices ? t->ndevices : 1, sizeof *rep->devices);
    if (!rep->devices) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < t->ndevices; i++) {
        mh_bw_device *d = &rep->devices[i];
        d->dev = t->devices[i];
        d->theoretical_Bps = mh_bw_theoretical_Bps(&d->dev);
        d->measured_Bps = t->measured_peak_Bps;
        d->peak_flops_sp = mh_bw_peak_flops(&d->dev, 0);
        d->peak_flops_dp = mh_bw_peak_flops(&d->dev, 1);
        int rc = mh_bw_overlap_of(t, d->dev.id, &d->overlap, err);
        if (rc) {
            mh_bw_report_free(rep);
            return rc;
        }
        d->pipeline = mh_bw_openmpc(fused_ns, (double)d->overlap.htod_ns, (double)d->overlap.dtoh_ns,
                                    (double)d->overlap.kernel_busy_ns);
        d->pipeline.current_ns = fused_ns + (double)d->overlap.busy_ns;
        d->pipeline.remaining = ratio(d->pipeline.current_ns, d->pipeline.pipelined_ns);
    }
    rep->ndevices = t->ndevices;

    mh_timing_stats *st;
    size_t ns;
    int rc = mh_timing_aggregate(t, &st, &ns, err);
    if (rc) {
        mh_bw_report_free(rep);
        return rc;
    }
    mh_verdict_index ix;
    rc = mh_verdict_index_build(t, &ix, err);
    if (rc) {
        free(st);
        mh_bw_report_free(rep);
        return rc;
    }
    rep->rows = calloc(ns ? ns : 1, sizeof *rep->rows);
    if (!rep->rows) {
        free(st);
        mh_verdict_index_free(&ix);
        mh_bw_report_free(rep);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < ns; i++) {
        mh_bw_row *r = &rep->rows[i];
        r->s = st[i];
        const mh_bw_device *d = NULL;
        for (size_t j = 0; j < rep->ndevices; j++)
            if (rep->devices[j].dev.id == r->s.device) d = &rep->devices[j];
        int have = r->s.with_counters > 0 && r->s.counted_ns > 0;
        r->eff_Bps = have ? mh_bw_effective(r->s.dram_bytes, 0, r->s.counted_ns) : NAN;
        r->frac_theoretical = d ? ratio(r->eff_Bps, d->theoretical_Bps) : NAN;
        r->frac_measured = d ? ratio(r->eff_Bps, d->measured_Bps) : NAN;
        r->sectors_per_ld = have ? ratio(r->s.ld_sectors, r->s.ld_requests) : NAN;
        r->sectors_per_st = have ? ratio(r->s.st_sectors, r->s.st_requests) : NAN;
        r->flops = have ? r->s.flops_sp + r->s.flops_dp : NAN;
        r->flops_per_s = have ? r->flops / (r->s.counted_ns * 1e-9) : NAN;
        r->ai = have ? ratio(r->flops, r->s.dram_bytes) : NAN;
        if (have && r->s.dram_bytes == 0 && r->flops > 0) r->ai = INFINITY;
        r->ridge = d ? ratio(d->peak_flops_sp, d->theoretical_Bps) : NAN;
        mh_verdict_in in = {&r->s, d ? &d->dev : NULL, d ? d->theoretical_Bps : 0, d ? d->peak_flops_sp : 0,
                            d ? d->peak_flops_dp : 0};
        mh_verdict_judge(&ix, &in, &r->why);
        r->verdict = r->why.kind;
    }
    rep->nrows = ns;
    mh_verdict_index_free(&ix);
    free(st);
    return MH_OK;
}

/* ---- JSON ------------------------------------------------------------- */

/* A number, or null when not finite (JSON has no NaN/Infinity). */
static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

static void put(json_t *o, const char *k, json_t *v, int *bad) {
    if (!v || json_object_set_new(o, k, v) != 0) *bad = 1;
}

json_t *mh_bw_report_json(const mh_bw_report *rep) {
    int bad = 0;
    json_t *root = json_object(), *devs = json_array(), *rows = json_array();
    if (!root || !devs || !rows) {
        json_decref(root), json_decref(devs), json_decref(rows);
        return NULL;
    }
    for (size_t i = 0; i < rep->ndevices; i++) {
        const mh_bw_device *d = &rep->devices[i];
        json_t *o = json_object(), *ov = json_object(), *pp = json_object();
        if (!o || !ov || !pp) {
            bad = 1;
            json_decref(o), json_decref(ov), json_decref(pp);
            break;
        }
        put(o, "device", json_integer(d->dev.id), &bad);
        put(o, "name", json_string(d->dev.name), &bad);
        put(o, "theoretical_Bps", num(d->theoretical_Bps), &bad);
        put(o, "measured_Bps", d->measured_Bps > 0 ? num(d->measured_Bps) : json_null(), &bad);
        put(o, "peak_flops_sp", num(d->peak_flops_sp), &bad);
        put(o, "peak_flops_dp", num(d->peak_flops_dp), &bad);
        put(o, "ridge_flops_per_byte", num(ratio(d->peak_flops_sp, d->theoretical_Bps)), &bad);
        const mh_bw_overlap *x = &d->overlap;
        put(ov, "span_ns", json_integer((json_int_t)x->span_ns), &bad);
        put(ov, "kernel_busy_ns", json_integer((json_int_t)x->kernel_busy_ns), &bad);
        put(ov, "htod_ns", json_integer((json_int_t)x->htod_ns), &bad);
        put(ov, "dtoh_ns", json_integer((json_int_t)x->dtoh_ns), &bad);
        put(ov, "htod_exposed_ns", json_integer((json_int_t)x->htod_exposed_ns), &bad);
        put(ov, "dtoh_exposed_ns", json_integer((json_int_t)x->dtoh_exposed_ns), &bad);
        put(ov, "copy_exposed_ns", json_integer((json_int_t)x->copy_exposed_ns), &bad);
        put(ov, "htod_bytes", json_integer((json_int_t)x->htod_bytes), &bad);
        put(ov, "dtoh_bytes", json_integer((json_int_t)x->dtoh_bytes), &bad);
        put(ov, "busy_ns", json_integer((json_int_t)x->busy_ns), &bad);
        put(o, "overlap", ov, &bad);
        const mh_bw_pipeline *p = &d->pipeline;
        put(pp, "fused_ns", num(p->fused_ns), &bad);
        put(pp, "in_ns", num(p->in_ns), &bad);
        put(pp, "out_ns", num(p->out_ns), &bad);
        put(pp, "compute_ns", num(p->compute_ns), &bad);
        put(pp, "serial_ns", num(p->serial_ns), &bad);
        put(pp, "pipelined_ns", num(p->pipelined_ns), &bad);
        put(pp, "speedup", num(p->speedup), &bad);
        put(pp, "current_ns", num(p->current_ns), &bad);
        put(pp, "remaining", num(p->remaining), &bad);
        put(o, "openmpc", pp, &bad);
        if (json_array_append_new(devs, o)) bad = 1;
    }
    for (size_t i = 0; i < rep->nrows && !bad; i++) {
        const mh_bw_row *r = &rep->rows[i];
        json_t *o = json_object();
        if (!o) {
            bad = 1;
            break;
        }
        put(o, "name", json_string(r->s.name), &bad);
        put(o, "device", json_integer(r->s.device), &bad);
        put(o, "count", json_integer((json_int_t)r->s.count), &bad);
        int timed = r->s.unmeasured < r->s.count; /* some launch has a clean time */
        put(o, "total_ns", timed ? json_integer((json_int_t)r->s.total_ns) : json_null(), &bad);
        put(o, "min_ns", timed ? json_integer((json_int_t)r->s.min_ns) : json_null(), &bad);
        put(o, "median_ns", num(r->s.median_ns), &bad);
        put(o, "max_ns", timed ? json_integer((json_int_t)r->s.max_ns) : json_null(), &bad);
        put(o, "with_counters", json_integer((json_int_t)r->s.with_counters), &bad);
        if (r->s.instrumented) put(o, "instrumented", json_integer((json_int_t)r->s.instrumented), &bad);
        if (r->s.unmeasured) put(o, "unmeasured", json_integer((json_int_t)r->s.unmeasured), &bad);
        put(o, "dram_bytes", r->s.with_counters ? num(r->s.dram_bytes) : json_null(), &bad);
        put(o, "effective_Bps", num(r->eff_Bps), &bad);
        put(o, "frac_theoretical", num(r->frac_theoretical), &bad);
        put(o, "frac_measured", num(r->frac_measured), &bad);
        put(o, "sectors_per_ld_request", num(r->sectors_per_ld), &bad);
        put(o, "sectors_per_st_request", num(r->sectors_per_st), &bad);
        put(o, "occupancy_pct", num(r->s.occupancy_pct), &bad);
        put(o, "warps_per_sm", num(r->s.warps_per_sm), &bad);
        put(o, "flops", num(r->flops), &bad);
        put(o, "flops_per_s", num(r->flops_per_s), &bad);
        put(o, "arithmetic_intensity", num(r->ai), &bad);
        put(o, "ridge", num(r->ridge), &bad);
        put(o, "verdict", json_string(mh_bw_verdict_name(r->verdict)), &bad);
        put(o, "verdict_figures", mh_verdict_json(&r->why), &bad);
        if (json_array_append_new(rows, o)) bad = 1;
    }
    put(root, "devices", devs, &bad);
    put(root, "kernels", rows, &bad);
    put(root, "kernel_timing", json_string(rep->kernel_timing), &bad);
    put(root, "dropped_records", json_integer((json_int_t)rep->dropped_records), &bad);
    if (bad) {
        json_decref(root);
        return NULL;
    }
    return root;
}

/* ---- terminal output -------------------------------------------------- */

static void fmt_ns(char *b, size_t n, double ns) {
    if (!isfinite(ns)) snprintf(b, n, "-");
    else if (ns >= 1e9) snprintf(b, n, "%.3f s", ns / 1e9);
    else if (ns >= 1e6) snprintf(b, n, "%.3f ms", ns / 1e6);
    else if (ns >= 1e3) snprintf(b, n, "%.2f us", ns / 1e3);
    else snprintf(b, n, "%.0f ns", ns);
}

static void fmt_gbs(char *b, size_t n, double Bps) {
    if (!isfinite(Bps)) snprintf(b, n, "-");
    else snprintf(b, n, "%.1f", Bps / 1e9);
}

static void fmt_pct(char *b, size_t n, double f) {
    if (!isfinite(f)) snprintf(b, n, "-");
    else snprintf(b, n, "%.0f%%", f * 100);
}

#define MH_BW_NAME_COLS 48 /* the kernel column of the table */

void mh_bw_report_print(FILE *f, const mh_bw_report *rep, size_t max_rows) {
    for (size_t i = 0; i < rep->ndevices; i++) {
        const mh_bw_device *d = &rep->devices[i];
        char a[32], b[32];
        fmt_gbs(a, sizeof a, d->theoretical_Bps);
        fmt_gbs(b, sizeof b, d->measured_Bps > 0 ? d->measured_Bps : NAN);
        fprintf(f, "device %u: %s  peak %s GB/s theoretical, %s GB/s measured, %.1f TFLOP/s FP32\n", d->dev.id,
                d->dev.name, a, b, d->peak_flops_sp / 1e12);
    }
    if (rep->dropped_records)
        fprintf(f, "note: %llu kernel launches or records could not be timed (in one run, kernels of CUDA graphs "
                "are counted but not timed; --passes separate times them)\n",
                (unsigned long long)rep->dropped_records);
    if (rep->counters.requested && strcmp(rep->counters.status, "ok") != 0)
        fprintf(f, "counters: %s%s%s\n", rep->counters.status[0] ? rep->counters.status : "not collected",
                rep->counters.message[0] ? ": " : "", rep->counters.message);
    /* names as Nsight Compute shows them (util/kname.h): demangled, short */
    fprintf(f, "%-*s %6s %11s %11s %11s %8s %6s %6s %6s %5s %s\n", MH_BW_NAME_COLS, "kernel", "count", "total",
            "median", "min", "GB/s", "%peak", "sec/ld", "sec/st", "occ", "verdict");
    size_t unmeasured = 0, nshow = rep->nrows < max_rows ? rep->nrows : max_rows;
    enum { NAME_CAP = 512 };
    /* kernels that print alike get longer names (cutlass::Kernel2<…> four times is no table) */
    char *shown = malloc((nshow ? nshow : 1) * NAME_CAP);
    const char **names = malloc((nshow ? nshow : 1) * sizeof *names);
    for (size_t i = 0; names && i < nshow; i++) names[i] = rep->rows[i].s.name;
    if (!shown || !names ||
        mh_kname_unique(names, nshow, MH_BW_NAME_COLS, MH_BW_NAME_COLS, shown, NAME_CAP, NAME_CAP) != 0) {
        free(shown);
        shown = NULL;
    }
    free(names);
    for (size_t i = 0; i < nshow; i++) {
        const mh_bw_row *r = &rep->rows[i];
        char tot[32], med[32], mn[32], bw[32], pk[32], sl[32], ss[32], oc[32];
        int timed = r->s.unmeasured < r->s.count;
        fmt_ns(tot, sizeof tot, timed ? (double)r->s.total_ns : NAN);
        fmt_ns(med, sizeof med, r->s.median_ns);
        fmt_ns(mn, sizeof mn, timed ? (double)r->s.min_ns : NAN);
        fmt_gbs(bw, sizeof bw, r->eff_Bps);
        fmt_pct(pk, sizeof pk, r->frac_theoretical);
        if (isfinite(r->sectors_per_ld)) snprintf(sl, sizeof sl, "%.2f", r->sectors_per_ld);
        else snprintf(sl, sizeof sl, "-");
        if (isfinite(r->sectors_per_st)) snprintf(ss, sizeof ss, "%.2f", r->sectors_per_st);
        else snprintf(ss, sizeof ss, "-");
        if (isfinite(r->s.occupancy_pct)) snprintf(oc, sizeof oc, "%.0f%%", r->s.occupancy_pct);
        else snprintf(oc, sizeof oc, "-");
        char nm[NAME_CAP];
        if (shown) memcpy(nm, shown + i * NAME_CAP, NAME_CAP);
        else mh_kname(r->s.name, MH_KNAME_SHORT, MH_BW_NAME_COLS, nm, sizeof nm);
        fprintf(f, "%s%*s %6llu %11s %11s %11s %8s %6s %6s %6s %5s %s%s\n", nm,
                (int)(MH_BW_NAME_COLS - mh_kname_cols(nm)), "", (unsigned long long)r->s.count, tot, med, mn, bw, pk,
                sl, ss, oc, mh_bw_verdict_name(r->verdict), r->s.unmeasured ? " *" : "");
        if (r->s.unmeasured) unmeasured++;
        if (r->verdict != MH_BW_UNKNOWN || isfinite(r->why.frac_bw_roof)) { /* unknown: says what is missing */
            char note[768];
            mh_verdict_note(&r->why, note, sizeof note);
            fprintf(f, "  %s: %s\n", mh_bw_verdict_name(r->verdict), note);
        }
    }
    free(shown);
    if (unmeasured)
        fprintf(f,
                "* %zu kernel%s with launches that have no clean time (traced, or queued on an idle stream so "
                "that the events hold the launch gap): times are over the clean launches only, '-' where there "
                "are none (--passes separate times every launch)\n",
                unmeasured, unmeasured == 1 ? "" : "s");
    if (rep->nrows > max_rows) fprintf(f, "... %zu more kernels\n", rep->nrows - max_rows);
    for (size_t i = 0; i < rep->ndevices; i++) {
        const mh_bw_device *d = &rep->devices[i];
        const mh_bw_overlap *o = &d->overlap;
        char k[32], h[32], dh[32], ex[32];
        fmt_ns(k, sizeof k, (double)o->kernel_busy_ns);
        fmt_ns(h, sizeof h, (double)o->htod_ns);
        fmt_ns(dh, sizeof dh, (double)o->dtoh_ns);
        fmt_ns(ex, sizeof ex, (double)o->copy_exposed_ns);
        fprintf(f, "device %u timeline: kernels %s, HtoD %s, DtoH %s, copy time overlapped by no kernel %s\n",
                d->dev.id, k, h, dh, ex);
        fprintf(f, "device %u OpenMPC pipelining model: (fused+in+out+compute)/(fused+max) = %.2fx over running "
                "them one after another; %.2fx over this run's timeline\n", d->dev.id, d->pipeline.speedup,
                isfinite(d->pipeline.remaining) ? d->pipeline.remaining : 1.0);
    }
}

/* ---- calibration store ------------------------------------------------ */

int mh_bw_calib_default_path(char *out, size_t cap, mh_err *err) {
    if (mh_data_path("MEMHEAT_CALIBRATION", "calibration.json", out, cap) != 0)
        return mh_err_set(err, MH_ERR_ARG, "no calibration path (set MEMHEAT_CALIBRATION, MEMHEAT_DATA_DIR or HOME)"
                                           " or the path is too long");
    return MH_OK;
}

static int calib_read(const char *path, json_t **root, mh_err *err) {
    *root = NULL;
    struct stat sb;
    if (stat(path, &sb) != 0) return MH_OK; /* absent: empty store */
    json_error_t je;
    json_t *r = json_load_file(path, 0, &je);
    if (!r) return mh_err_set(err, MH_ERR_FORMAT, "%s: not valid JSON (line %d: %s)", path, je.line, je.text);
    json_t *fmt = json_object_get(r, "format");
    if (!json_is_string(fmt) || strcmp(json_string_value(fmt), "memheat-calibration") != 0 ||
        !json_is_object(json_object_get(r, "devices"))) {
        json_decref(r);
        return mh_err_set(err, MH_ERR_FORMAT, "%s: not a memheat calibration file", path);
    }
    *root = r;
    return MH_OK;
}

int mh_bw_calib_lookup(const char *path, const char *device_name, double *Bps, mh_err *err) {
    *Bps = 0;
    json_t *root;
    int rc = calib_read(path, &root, err);
    if (rc || !root) return rc;
    json_t *e = json_object_get(json_object_get(root, "devices"), device_name);
    json_t *v = e ? json_object_get(e, "bandwidth_Bps") : NULL;
    if (json_is_number(v) && json_number_value(v) > 0) *Bps = json_number_value(v);
    json_decref(root);
    return MH_OK;
}

static int mkdir_parents(const char *path) {
    char buf[1024];
    if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf) return -1;
    for (char *p = buf + 1; *p; p++) {
        if (*p != '/') continue;
        *p = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return 0;
}

int mh_bw_calib_store(const char *path, const char *device_name, json_t *entry, mh_err *err) {
    if (!json_is_number(json_object_get(entry, "bandwidth_Bps")))
        return mh_err_set(err, MH_ERR_ARG, "calibration entry without bandwidth_Bps");
    json_t *root;
    int rc = calib_read(path, &root, err);
    if (rc) return rc;
    if (!root) {
        root = json_pack("{s:s, s:i, s:{}}", "format", "memheat-calibration", "version", 1, "devices");
        if (!root) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    if (json_object_set(json_object_get(root, "devices"), device_name, entry) != 0) {
        json_decref(root);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    if (mkdir_parents(path) != 0) {
        json_decref(root);
        return mh_err_set(err, MH_ERR_IO, "cannot create the directory of %s: %s", path, strerror(errno));
    }
    rc = json_dump_file(root, path, JSON_INDENT(1) | JSON_REAL_PRECISION(17));
    json_decref(root);
    if (rc != 0) return mh_err_set(err, MH_ERR_IO, "cannot write %s", path);
    return MH_OK;
}

int mh_bw_print_file(FILE *f, const char *timing_path, double fused_ns, size_t max_rows, mh_err *err) {
    mh_timing t;
    int rc = mh_timing_load(&t, timing_path, err);
    if (rc != MH_OK) return rc;
    mh_bw_report rep;
    rc = mh_bw_analyze(&t, fused_ns, &rep, err);
    if (rc == MH_OK) {
        mh_bw_report_print(f, &rep, max_rows);
        mh_bw_report_free(&rep);
    }
    mh_timing_free(&t);
    return rc;
}
