/* split_tune.c -- the run-time split-size tuning decisions (mh_split_).
 *
 * Following the OpenMPC heuristic (seed 004): one split classifies the loop
 * (copy-intensive: larger splits use the copy channel better; compute-
 * intensive: splits no larger than about one GPU wave, "MaxThreads"; neither:
 * a wider candidate set), each candidate is tried on real splits, the best
 * measured rate wins. Pure functions over recorded times: CPU-testable. */
#include "split_internal.h"

int mh_split_classify(double t_in, double t_out, double t_compute) {
    double copy = t_in > t_out ? t_in : t_out;
    if (t_compute < 0.8 * copy) return MH_SPLIT_COPY_BOUND;
    if (t_compute > 1.25 * copy) return MH_SPLIT_COMPUTE_BOUND;
    return MH_SPLIT_BALANCED;
}

static size_t clampz(size_t v, size_t lo, size_t hi) {
    return v < lo ? lo : v > hi ? hi : v;
}

/* Insert v into the ascending distinct list a[0..*n). */
static void add_sorted(size_t *a, int *n, int max, size_t v) {
    int i = 0;
    while (i < *n && a[i] < v) i++;
    if (i < *n && a[i] == v) return;
    if (*n >= max) return;
    for (int j = *n; j > i; j--) a[j] = a[j - 1];
    a[i] = v;
    (*n)++;
}

int mh_split_candidates(int kind, size_t lo, size_t hi, size_t wave, size_t *out, int max) {
    int n = 0;
    if (lo < 1) lo = 1;
    if (hi < lo) hi = lo;
    if (wave < 1) wave = 1;
    if (max < 1) return 0;
    if (max > MH_SPLIT_MAX_CANDIDATES) max = MH_SPLIT_MAX_CANDIDATES;
    switch (kind) {
    case MH_SPLIT_COPY_BOUND:
        for (size_t d = 1; d <= 4; d *= 2) add_sorted(out, &n, max, clampz(hi / d, lo, hi));
        break;
    case MH_SPLIT_COMPUTE_BOUND:
        for (size_t q = 1; q <= 8; q *= 2) /* wave/4, wave/2, wave, 2*wave */
            add_sorted(out, &n, max, clampz(wave * q / 4 ? wave * q / 4 : 1, lo, hi));
        break;
    default: {
        size_t all[64];
        int na = 0;
        size_t v = clampz(wave / 4 ? wave / 4 : 1, lo, hi);
        while (na < 64) {
            all[na++] = v;
            if (v >= hi) break;
            v = v > hi / 2 ? hi : v * 2;
        }
        /* thin to at most max entries, keeping both ends */
        if (na <= max) {
            for (int i = 0; i < na; i++) add_sorted(out, &n, max, all[i]);
        } else {
            for (int i = 0; i < max; i++)
                add_sorted(out, &n, max, all[(size_t)i * (size_t)(na - 1) / (size_t)(max - 1)]);
        }
        break;
    }
    }
    return n;
}

int mh_split_fit_trials(size_t *cand, int n_cand, size_t n, int ndev, int splits_per_trial) {
    size_t per_dev = n / (size_t)(ndev > 0 ? ndev : 1);
    size_t allow = per_dev / 4 * 3;
    while (n_cand > 0) {
        size_t used = 0;
        for (int i = 0; i < n_cand; i++) used += cand[i] * (size_t)splits_per_trial;
        if (used <= allow) break;
        n_cand--; /* ascending: the last is the largest */
    }
    return n_cand;
}

int mh_split_pick_best(const double *rate, int n) {
    int best = -1;
    for (int i = 0; i < n; i++)
        if (rate[i] > 0 && (best < 0 || rate[i] > rate[best])) best = i;
    return best;
}

int mh_split_pick(const size_t *cand, const double *rate, int n, size_t remaining, double drain_per_iter) {
    int best = -1;
    double best_t = 0;
    for (int i = 0; i < n; i++) {
        if (!(rate[i] > 0)) continue;
        double t = (double)remaining / rate[i] + (double)cand[i] * drain_per_iter;
        if (best < 0 || t < best_t) {
            best = i;
            best_t = t;
        }
    }
    return best;
}

double mh_split_tune_overhead(double t_tune, size_t iters_tuned, double best_rate) {
    if (best_rate <= 0) return t_tune;
    double o = t_tune - (double)iters_tuned / best_rate;
    return o > 0 ? o : 0;
}

double mh_split_ideal_speedup(double t_fused, double t_in, double t_out, double t_compute) {
    double m = t_in;
    if (t_out > m) m = t_out;
    if (t_compute > m) m = t_compute;
    double den = t_fused + m;
    if (den <= 0) return 1.0;
    return (t_fused + t_in + t_out + t_compute) / den;
}

const char *mh_split_kind_name(int kind) {
    switch (kind) {
    case MH_SPLIT_COPY_BOUND: return "copy-bound";
    case MH_SPLIT_COMPUTE_BOUND: return "compute-bound";
    case MH_SPLIT_BALANCED: return "balanced";
    default: return "untuned";
    }
}
