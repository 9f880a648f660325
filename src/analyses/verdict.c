/* verdict.c -- what limits each kernel, with the figures that show it
 * (src/analyses/verdict.h; rules and sources: docs/timing.md, "Verdicts").
 *
 * Near a roof (MH_VERDICT_ROOF_FRAC of the bandwidth or compute roof) the
 * roofline verdict holds. Far below both, the first rule that fits: launch
 * cost (median time within a small multiple of the launch overhead), first
 * touch (the first launch of a configuration much slower than the later
 * ones), a small grid (blocks for fewer than half of the SMs), and, with
 * enough blocks, latency (too few bytes in flight to cover DRAM latency). Pure arithmetic
 * over the timing file: the occupancy limits and latencies are tables. */
#include "analyses/verdict.h"
#include "util/sort.h"

#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- device tables ------------------------------------------------------ */

/* Per compute capability (CUDA C++ Programming Guide, "Technical
 * Specifications per Compute Capability"): resident blocks per SM, shared
 * memory per SM (KiB), resident warps per SM. 0: unknown architecture. */
typedef struct arch_limits {
    unsigned blocks, smem_kib, warps;
} arch_limits;

static arch_limits arch_of(unsigned major, unsigned minor) {
    switch (major) {
    case 5: return (arch_limits){32, minor == 2 ? 96u : 64u, 64};
    case 6: return (arch_limits){32, minor == 1 ? 96u : 64u, 64};
    case 7: return minor == 5 ? (arch_limits){16, 64, 32} : (arch_limits){32, 96, 64};
    case 8:
        if (minor == 0) return (arch_limits){32, 164, 64};
        if (minor == 7) return (arch_limits){16, 164, 48};
        if (minor == 9) return (arch_limits){24, 100, 48};
        return (arch_limits){16, 100, 48}; /* 8.6 */
    case 9: return (arch_limits){32, 228, 64};
    case 10: return (arch_limits){32, 228, 64};
    case 12: return (arch_limits){32, 100, 48};
    default: return (arch_limits){0, 0, 0};
    }
}

uint32_t mh_verdict_blocks_per_sm(const mh_timing_device *d, const mh_timing_kernel *k) {
    arch_limits a = arch_of(d->cc_major, d->cc_minor);
    if (a.blocks == 0) return 0;
    uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    unsigned max_warps = d->max_threads_per_sm ? d->max_threads_per_sm / 32 : a.warps;
    uint64_t wpb = (threads + 31) / 32;
    if (wpb == 0 || wpb > max_warps) return 0;
    uint64_t n = a.blocks;
    if (max_warps / wpb < n) n = max_warps / wpb;
    if (k->regs > 0) {
        /* registers are allocated per warp in units of 256; 64 Ki per SM */
        uint64_t per_warp = ((uint64_t)k->regs * 32 + 255) / 256 * 256;
        uint64_t by_regs = (65536 / per_warp) / wpb;
        if (by_regs < n) n = by_regs;
    }
    uint64_t smem = (uint64_t)k->static_smem + k->dyn_smem;
    if (smem > 0) {
        if (d->cc_major >= 8) smem += 1024; /* reserved per block by the system since cc 8.0 */
        uint64_t by_smem = (uint64_t)a.smem_kib * 1024 / smem;
        if (by_smem < n) n = by_smem;
    }
    return (uint32_t)n;
}

double mh_verdict_dram_latency_ns(unsigned cc_major) {
    /* Estimates of a DRAM load's latency under load; see docs/timing.md. */
    if (cc_major >= 10) return 800.0;
    if (cc_major == 9) return 700.0;
    return 600.0;
}

/* ---- index of launches -------------------------------------------------- */

static int cmp_launch(const void *pa, const void *pb) {
    const mh_timing_kernel *a = *(const mh_timing_kernel *const *)pa, *b = *(const mh_timing_kernel *const *)pb;
    if (a->device != b->device) return a->device < b->device ? -1 : 1;
    int c = strcmp(a->name, b->name);
    if (c) return c;
    c = memcmp(a->grid, b->grid, sizeof a->grid);
    if (c) return c;
    c = memcmp(a->block, b->block, sizeof a->block);
    if (c) return c;
    if (a->dyn_smem != b->dyn_smem) return a->dyn_smem < b->dyn_smem ? -1 : 1;
    if (a->start_ns != b->start_ns) return a->start_ns < b->start_ns ? -1 : 1;
    return a->seq < b->seq ? -1 : (a->seq > b->seq);
}

int mh_verdict_index_build(const mh_timing *t, mh_verdict_index *ix, mh_err *err) {
    memset(ix, 0, sizeof *ix);
    if (t->nkernels == 0) return MH_OK;
    ix->k = malloc(t->nkernels * sizeof *ix->k);
    ix->scratch = malloc(t->nkernels * sizeof *ix->scratch);
    if (!ix->k || !ix->scratch) {
        mh_verdict_index_free(ix);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory sorting launches for the verdicts");
    }
    for (size_t i = 0; i < t->nkernels; i++) ix->k[i] = &t->kernels[i];
    mh_sort(ix->k, t->nkernels, sizeof *ix->k, cmp_launch);
    ix->n = t->nkernels;
    return MH_OK;
}

void mh_verdict_index_free(mh_verdict_index *ix) {
    free(ix->k);
    free(ix->scratch);
    memset(ix, 0, sizeof *ix);
}

static int before(const mh_timing_kernel *k, uint32_t device, const char *name) {
    if (k->device != device) return k->device < device;
    return strcmp(k->name, name) < 0;
}

static int same_config(const mh_timing_kernel *a, const mh_timing_kernel *b) {
    return a->dyn_smem == b->dyn_smem && !memcmp(a->grid, b->grid, sizeof a->grid) &&
           !memcmp(a->block, b->block, sizeof a->block);
}

static uint64_t dur(const mh_timing_kernel *k) { return k->end_ns > k->start_ns ? k->end_ns - k->start_ns : 0; }

/* Launch configurations of one name: waves of the one with the most time,
 * first-launch excess over all of them. */
static void scan_configs(const mh_verdict_index *ix, const mh_verdict_in *in, mh_verdict *v) {
    size_t lo = 0, hi = ix->n;
    while (lo < hi) { /* first launch not before (device, name) */
        size_t mid = lo + (hi - lo) / 2;
        if (before(ix->k[mid], in->s->device, in->s->name)) lo = mid + 1;
        else hi = mid;
    }
    uint64_t best_total = 0, excess = 0;
    double best_excess = -1;
    const mh_timing_kernel *main_cfg = NULL;
    for (size_t i = lo; i < ix->n && ix->k[i]->device == in->s->device && !strcmp(ix->k[i]->name, in->s->name);) {
        size_t j = i;
        uint64_t total = 0;
        while (j < ix->n && ix->k[j]->device == in->s->device && !strcmp(ix->k[j]->name, in->s->name) &&
               same_config(ix->k[j], ix->k[i])) {
            total += dur(ix->k[j]);
            if (j > i) ix->scratch[j - i - 1] = dur(ix->k[j]);
            j++;
        }
        if (total > best_total || !main_cfg) best_total = total, main_cfg = ix->k[i];
        if (j - i >= 2) {
            double first = (double)dur(ix->k[i]), later = mh_timing_median_u64(ix->scratch, j - i - 1);
            if (later > 0 && first >= MH_VERDICT_FIRST_RATIO * later) {
                excess += (uint64_t)(first - later);
                if (first - later > best_excess) best_excess = first - later, v->first_ns = first, v->later_ns = later;
            }
        }
        i = j;
    }
    if (in->s->total_ns > 0) v->first_share = (double)excess / (double)in->s->total_ns;
    if (main_cfg && in->dev) {
        v->sms = in->dev->sm_count;
        v->blocks = (uint64_t)main_cfg->grid[0] * main_cfg->grid[1] * main_cfg->grid[2];
        v->blocks_per_sm = mh_verdict_blocks_per_sm(in->dev, main_cfg);
        if (v->blocks && v->blocks_per_sm && in->dev->sm_count)
            v->waves = (double)v->blocks / ((double)in->dev->sm_count * v->blocks_per_sm);
    }
}

/* ---- the verdict -------------------------------------------------------- */

void mh_verdict_judge(const mh_verdict_index *ix, const mh_verdict_in *in, mh_verdict *v) {
    const mh_timing_stats *s = in->s;
    memset(v, 0, sizeof *v);
    v->frac_bw_roof = v->frac_compute_roof = v->roof_ns = v->measured_ns = v->bytes = NAN;
    v->waves = v->first_ns = v->later_ns = v->latency_ns = v->inflight_need_B = v->inflight_B = NAN;
    v->median_ns = s->median_ns;
    v->occupancy_pct = s->occupancy_pct;
    v->launch_ns = MH_VERDICT_LAUNCH_NS;
    scan_configs(ix, in, v);

    /* the roofs, from the launches with counters */
    int have = in->dev && s->counted > 0 && s->counted_ns > 0 && in->peak_Bps > 0 && isfinite(s->dram_bytes);
    if (have) {
        double t_mem = s->dram_bytes / in->peak_Bps, t_cmp = NAN;
        if (in->peak_sp > 0 && (isfinite(s->flops_sp) || isfinite(s->flops_dp))) {
            t_cmp = isfinite(s->flops_sp) ? s->flops_sp / in->peak_sp : 0;
            if (isfinite(s->flops_dp) && s->flops_dp > 0) t_cmp += in->peak_dp > 0 ? s->flops_dp / in->peak_dp : INFINITY;
        }
        double n = (double)s->counted, secs = s->counted_ns * 1e-9;
        v->frac_bw_roof = t_mem / secs;
        v->frac_compute_roof = t_cmp / secs;
        v->roof_ns = (isfinite(t_cmp) && t_cmp > t_mem ? t_cmp : t_mem) * 1e9 / n;
        v->measured_ns = s->counted_ns / n;
        v->bytes = s->dram_bytes / n;
        v->latency_ns = mh_verdict_dram_latency_ns(in->dev->cc_major);
        if (in->dev->sm_count) {
            v->inflight_need_B = in->peak_Bps * v->latency_ns * 1e-9 / in->dev->sm_count;
            v->inflight_B = s->dram_bytes / secs * v->latency_ns * 1e-9 / in->dev->sm_count;
        }
    }
    int near_bw = isfinite(v->frac_bw_roof) && v->frac_bw_roof >= MH_VERDICT_ROOF_FRAC;
    int near_cmp = isfinite(v->frac_compute_roof) && v->frac_compute_roof >= MH_VERDICT_ROOF_FRAC;
    if (near_bw || near_cmp)
        v->kind = near_bw && !(near_cmp && v->frac_compute_roof > v->frac_bw_roof) ? MH_VERDICT_MEMORY
                                                                                   : MH_VERDICT_COMPUTE;
    else if (s->count >= MH_VERDICT_LAUNCH_MIN && s->median_ns < MH_VERDICT_LAUNCH_MULT * MH_VERDICT_LAUNCH_NS)
        v->kind = MH_VERDICT_LAUNCH;
    else if (v->first_share >= MH_VERDICT_FIRST_SHARE)
        v->kind = MH_VERDICT_FIRST_TOUCH;
    else if (v->blocks && v->sms && (double)v->blocks < MH_VERDICT_SMALL_GRID_FRAC * v->sms)
        v->kind = MH_VERDICT_SMALL_GRID; /* issue 40: idle SMs, not waves (verdict.h) */
    else if (isfinite(v->frac_bw_roof) && isfinite(v->frac_compute_roof) && v->blocks && v->sms)
        v->kind = MH_VERDICT_LATENCY;
    else
        v->kind = MH_VERDICT_UNKNOWN;
}

const char *mh_verdict_name(int kind) {
    switch (kind) {
    case MH_VERDICT_MEMORY: return "memory-bound";
    case MH_VERDICT_COMPUTE: return "compute-bound";
    case MH_VERDICT_LAUNCH: return "launch-bound";
    case MH_VERDICT_FIRST_TOUCH: return "first-touch";
    case MH_VERDICT_SMALL_GRID: return "small-grid";
    case MH_VERDICT_LATENCY: return "latency-bound";
    default: return "unknown";
    }
}

const char *mh_verdict_short(int kind) {
    switch (kind) {
    case MH_VERDICT_MEMORY: return "memory";
    case MH_VERDICT_COMPUTE: return "compute";
    case MH_VERDICT_LAUNCH: return "launch";
    case MH_VERDICT_FIRST_TOUCH: return "first-touch";
    case MH_VERDICT_SMALL_GRID: return "small-grid";
    case MH_VERDICT_LATENCY: return "latency";
    default: return NULL;
    }
}

/* ---- the note ----------------------------------------------------------- */

static void fmt_time(char *b, size_t n, double ns) {
    if (!isfinite(ns)) snprintf(b, n, "?");
    else if (ns >= 1e6) snprintf(b, n, "%.3g ms", ns / 1e6);
    else if (ns >= 1e3) snprintf(b, n, "%.3g us", ns / 1e3);
    else snprintf(b, n, "%.0f ns", ns);
}

static void fmt_bytes(char *b, size_t n, double x) {
    if (!isfinite(x)) snprintf(b, n, "?");
    else if (x >= 1e9) snprintf(b, n, "%.3g GB", x / 1e9);
    else if (x >= 1e6) snprintf(b, n, "%.3g MB", x / 1e6);
    else if (x >= 1e3) snprintf(b, n, "%.3g KB", x / 1e3);
    else snprintf(b, n, "%.0f B", x);
}

static void fmt_pct(char *b, size_t n, double f) {
    if (!isfinite(f)) snprintf(b, n, "?");
    else if (f < 0.1) snprintf(b, n, "%.1f%%", f * 100);
    else snprintf(b, n, "%.0f%%", f * 100);
}

/* "12% of the bandwidth roof, 0.4% of the compute roof" */
static void roofs(const mh_verdict *v, char *b, size_t n) {
    char bw[32], cp[32];
    fmt_pct(bw, sizeof bw, v->frac_bw_roof);
    fmt_pct(cp, sizeof cp, v->frac_compute_roof);
    if (isfinite(v->frac_bw_roof)) snprintf(b, n, "%s of the bandwidth roof, %s of the compute roof", bw, cp);
    else snprintf(b, n, "roofs unknown (no counters)");
}

void mh_verdict_note(const mh_verdict *v, char *buf, size_t cap) {
    char r[128], a[32], b[32], c[32], w[96], o[48];
    roofs(v, r, sizeof r);
    if (isfinite(v->waves))
        snprintf(w, sizeof w, "%.2f waves (%llu blocks, %u per SM fit)", v->waves, (unsigned long long)v->blocks,
                 v->blocks_per_sm);
    else
        snprintf(w, sizeof w, "waves unknown");
    switch (v->kind) {
    case MH_VERDICT_MEMORY:
    case MH_VERDICT_COMPUTE:
        fmt_time(a, sizeof a, v->roof_ns);
        fmt_time(b, sizeof b, v->measured_ns);
        fmt_bytes(c, sizeof c, v->bytes);
        snprintf(buf, cap, "%s; %s per launch at the roof against %s measured; %s moved per launch", r, a, b, c);
        break;
    case MH_VERDICT_LAUNCH:
        fmt_time(a, sizeof a, v->median_ns);
        fmt_time(b, sizeof b, v->launch_ns);
        snprintf(buf, cap, "median %s, within %.0fx the ~%s launch overhead: launch cost dominates (fuse kernels or "
                 "use CUDA graphs); %s",
                 a, MH_VERDICT_LAUNCH_MULT, b, r);
        break;
    case MH_VERDICT_FIRST_TOUCH:
        fmt_time(a, sizeof a, v->first_ns);
        fmt_time(b, sizeof b, v->later_ns);
        snprintf(buf, cap, "first launch %s against %s for the later ones of its configuration (%.0f%% of the "
                 "kernel's time): first touch of fresh allocations (or lazy module loading); warm up or reuse "
                 "buffers; %s",
                 a, b, v->first_share * 100, r);
        break;
    case MH_VERDICT_SMALL_GRID:
        snprintf(buf, cap, "%llu blocks for %u SMs, %.0f%% of the SMs idle (%s): grid too small to fill the GPU "
                 "(more blocks, or more work per SM); %s",
                 (unsigned long long)v->blocks, v->sms, 100.0 * (1.0 - (double)v->blocks / (double)v->sms), w, r);
        break;
    case MH_VERDICT_LATENCY:
        if (isfinite(v->occupancy_pct)) snprintf(o, sizeof o, "achieved occupancy %.0f%%", v->occupancy_pct);
        else snprintf(o, sizeof o, "achieved occupancy unknown");
        fmt_bytes(a, sizeof a, v->inflight_need_B);
        fmt_bytes(b, sizeof b, v->inflight_B);
        fmt_time(c, sizeof c, v->latency_ns);
        snprintf(buf, cap, "%s with %s: %s in flight per SM needed to reach the roof at ~%s DRAM "
                 "latency (an estimate), %s kept; %s: more independent loads per thread "
                 "(unrolling, vector loads) or more resident warps",
                 r, w, a, c, b, o);
        break;
    default:
        if (isfinite(v->frac_bw_roof) && !isfinite(v->frac_compute_roof))
            snprintf(buf, cap, "%s; compute roof unknown: no flop counters in this run's counter set "
                     "(MEMHEAT_COUNTERS_METRICS=all adds them, by kernel replay)", r);
        else if (isfinite(v->frac_bw_roof))
            snprintf(buf, cap, "%s; %s: what else limits it is not known", r, w);
        else
            snprintf(buf, cap, "%s", r);
        break;
    }
}

/* ---- JSON --------------------------------------------------------------- */

static json_t *num(double v) { return isfinite(v) ? json_real(v) : json_null(); }

json_t *mh_verdict_json(const mh_verdict *v) {
    char note[768];
    mh_verdict_note(v, note, sizeof note);
    json_t *o = json_object();
    if (!o) return NULL;
    const struct {
        const char *k;
        json_t *v;
    } f[] = {
        {"verdict", json_string(mh_verdict_name(v->kind))},
        {"note", json_string(note)},
        {"frac_bandwidth_roof", num(v->frac_bw_roof)},
        {"frac_compute_roof", num(v->frac_compute_roof)},
        {"roof_ns", num(v->roof_ns)},
        {"measured_ns", num(v->measured_ns)},
        {"bytes", num(v->bytes)},
        {"waves", num(v->waves)},
        {"blocks", v->blocks ? json_integer((json_int_t)v->blocks) : json_null()},
        {"blocks_per_sm", v->blocks_per_sm ? json_integer(v->blocks_per_sm) : json_null()},
        {"sms", v->sms ? json_integer(v->sms) : json_null()},
        {"achieved_occupancy_pct", num(v->occupancy_pct)},
        {"median_ns", num(v->median_ns)},
        {"launch_overhead_ns", num(v->launch_ns)},
        {"first_ns", num(v->first_ns)},
        {"later_ns", num(v->later_ns)},
        {"first_share", num(v->first_share)},
        {"dram_latency_ns", num(v->latency_ns)},
        {"inflight_needed_B_per_sm", num(v->inflight_need_B)},
        {"inflight_B_per_sm", num(v->inflight_B)},
    };
    int bad = 0;
    for (size_t i = 0; i < sizeof f / sizeof *f; i++)
        if (!f[i].v || json_object_set_new(o, f[i].k, f[i].v) != 0) bad = 1;
    if (bad) {
        json_decref(o);
        return NULL;
    }
    return o;
}
