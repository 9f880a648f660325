/* camp_band.c -- partition-camping model: placing a profiled kernel in the
 * best/worst band with a camping degree.
 *
 * Owns the CPU side of CampProf (seed 000) for memheat, in five files:
 * camp_data.c reads the micro-benchmark timings written by
 * bench/camping/camp_bench (CSV); camp_fit.c fits one multiple-linear-
 * regression equation per (read|write) x (spread|camped) with GSL (the
 * paper's equation (1) and three better-behaved forms, chosen by held-out
 * error); this file turns the equations into per-request costs and a kernel
 * into its band; camp_names.c spells the words, forms, operations and
 * layouts as the CSV and the model file do; camp_model.c stores the model per device as JSON (jansson)
 * and runs the calibration. See docs/camping.md. */
#include "analyses/camp.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "analyses/camp_shared.h"

#define MIN_REQ_MS 1e-12

/* ---- kernels and the band ------------------------------------------------ */

double mh_camp_req_ms(const mh_camp_model *m, int op, int layout, int word_bytes, double warps) {
    const mh_camp_eq *eq = &m->eq[op][layout];
    double t = mh_camp_eq_predict(eq, word_bytes, warps);
    double per = t / (warps * (double)eq->sms * eq->iters);
    return per > MIN_REQ_MS ? per : MIN_REQ_MS;
}

double mh_camp_kernel_ms(const mh_camp_model *m, const mh_camp_kernel *k, int layout,
                         double warps) {
    double t = 0;
    for (int op = 0; op < 2; op++)
        for (int i = 0; i < MH_CAMP_NWORD; i++)
            if (k->req[op][i] > 0)
                t += k->req[op][i] * mh_camp_req_ms(m, op, layout, mh_camp_word_sizes[i], warps);
    return t;
}

int mh_camp_band_compute(const mh_camp_model *m, const mh_camp_kernel *k, mh_camp_band *b,
                         mh_err *err) {
    memset(b, 0, sizeof *b);
    int maxw = k->max_warps > 0 ? k->max_warps : m->max_warps;
    if (maxw > m->max_warps) maxw = m->max_warps;
    if (maxw < 1 || maxw > MH_CAMP_MAXWARPS)
        return mh_err_set(err, MH_ERR_ARG, "model has no valid warp range (%d)", maxw);
    if (k->warps < 1 || k->warps > maxw)
        return mh_err_set(err, MH_ERR_ARG, "kernel's active warps %d outside 1..%d", k->warps,
                          maxw);
    if (!(k->time_ms > 0) || !isfinite(k->time_ms))
        return mh_err_set(err, MH_ERR_ARG, "kernel time %g ms is not positive", k->time_ms);
    double total = 0;
    for (int op = 0; op < 2; op++)
        for (int i = 0; i < MH_CAMP_NWORD; i++) {
            if (k->req[op][i] < 0 || !isfinite(k->req[op][i]))
                return mh_err_set(err, MH_ERR_ARG, "negative request count");
            total += k->req[op][i];
        }
    if (total <= 0)
        return mh_err_set(err, MH_ERR_ARG, "kernel has no global memory requests to model");
    b->n = maxw;
    for (int w = 1; w <= maxw; w++) {
        double best = mh_camp_kernel_ms(m, k, MH_CAMP_SPREAD, w);
        double camp = mh_camp_kernel_ms(m, k, MH_CAMP_CAMPED, w);
        b->warps[w - 1] = w;
        b->best[w - 1] = best;
        /* a hot spot can be faster than streaming where nothing contends
         * (it hits L2): the worst case is never better than the best */
        b->worst[w - 1] = camp > best ? camp : best;
    }
    b->w0 = k->warps;
    b->t0 = k->time_ms;
    double lo = b->best[k->warps - 1], hi = b->worst[k->warps - 1];
    double width = hi - lo;
    if (width <= 1e-3 * lo) {
        b->band_closed = 1;
        b->degree_raw = NAN;
        b->degree = 0;
    } else {
        b->degree_raw = (k->time_ms - lo) / width;
        b->degree = b->degree_raw < 0 ? 0 : b->degree_raw > 1 ? 1 : b->degree_raw;
    }
    /* extrapolate: keep the kernel's position in the band, then scale so the
     * line passes through the measured point */
    double l0 = lo + b->degree * width;
    for (int i = 0; i < maxw; i++) {
        double l = b->best[i] + b->degree * (b->worst[i] - b->best[i]);
        b->kernel[i] = l * k->time_ms / l0;
    }
    return MH_OK;
}

double mh_camp_band_at(const mh_camp_band *b, int warps) {
    if (warps < 1 || warps > b->n) return NAN;
    return b->kernel[warps - 1];
}

int mh_camp_validate_best(const mh_camp_model *m, const mh_camp_kernel *k, const int *warps,
                          const double *t, int n, double *geo, double *max_err, mh_err *err) {
    if (n < 1) return mh_err_set(err, MH_ERR_EMPTY, "no configurations to validate");
    double *pred = malloc(n * sizeof *pred);
    if (!pred) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    double mx = 0;
    for (int i = 0; i < n; i++) {
        if (warps[i] < 1 || warps[i] > m->max_warps || !(t[i] > 0)) {
            free(pred);
            return mh_err_set(err, MH_ERR_ARG, "configuration %d: warps %d / time %g invalid", i,
                              warps[i], t[i]);
        }
        pred[i] = mh_camp_kernel_ms(m, k, MH_CAMP_SPREAD, warps[i]);
        double e = fabs(pred[i] - t[i]) / t[i];
        if (e > mx) mx = e;
    }
    *geo = mh_camp_geomean_err(pred, t, n);
    if (max_err) *max_err = mx;
    free(pred);
    return MH_OK;
}

int mh_camp_validate_extrap(const mh_camp_model *m, const mh_camp_kernel *k, const int *warps,
                            const double *t, int n, double *geo, double *max_err, mh_err *err) {
    if (n < 2) return mh_err_set(err, MH_ERR_EMPTY, "need two configurations to extrapolate");
    double *pred = malloc((size_t)n * n * sizeof *pred), *meas = malloc((size_t)n * n * sizeof *meas);
    if (!pred || !meas) {
        free(pred);
        free(meas);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    int m2 = 0, rc = MH_OK;
    double mx = 0;
    for (int i = 0; i < n && !rc; i++) {
        mh_camp_kernel ki = *k;
        ki.warps = warps[i];
        ki.time_ms = t[i];
        mh_camp_band b;
        rc = mh_camp_band_compute(m, &ki, &b, err);
        for (int j = 0; j < n && !rc; j++) {
            if (j == i) continue;
            pred[m2] = mh_camp_band_at(&b, warps[j]);
            meas[m2] = t[j];
            double e = fabs(pred[m2] - meas[m2]) / meas[m2];
            if (e > mx) mx = e;
            m2++;
        }
    }
    if (!rc) {
        *geo = mh_camp_geomean_err(pred, meas, m2);
        if (max_err) *max_err = mx;
    }
    free(pred);
    free(meas);
    return rc;
}

static json_t *num_array(const double *v, int n) {
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) json_array_append_new(a, json_real(v[i]));
    return a;
}

char *mh_camp_band_json(const mh_camp_band *b) {
    json_t *o = json_object(), *w = json_array();
    if (!o || !w) {
        json_decref(o);
        json_decref(w);
        return NULL;
    }
    for (int i = 0; i < b->n; i++) json_array_append_new(w, json_integer(b->warps[i]));
    json_object_set_new(o, "warps", w);
    json_object_set_new(o, "best", num_array(b->best, b->n));
    json_object_set_new(o, "worst", num_array(b->worst, b->n));
    json_object_set_new(o, "kernel", num_array(b->kernel, b->n));
    json_object_set_new(o, "measured",
                        json_pack("{s:i,s:f}", "warps", b->w0, "time_ms", b->t0));
    json_object_set_new(o, "degree", json_real(b->degree));
    json_object_set_new(o, "degree_raw", mh_camp_num_or_null(b->degree_raw));
    json_object_set_new(o, "band_closed", json_boolean(b->band_closed));
    char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(9));
    json_decref(o);
    return s;
}
