/* camp_fit.c -- the camping model's regression: one equation per
 * (read|write) x (spread|camped), four candidate forms (the paper's
 * equation (1), linear, hinge, reciprocal) fitted by GSL's least squares and
 * chosen by cross-validated error. Part of the partition-camping model
 * (camp_band.c). */
#include "analyses/camp.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit.h>

#include "analyses/camp_shared.h"
#include "util/grow.h"

#define CV_FOLDS 4

/* ---- regression ---------------------------------------------------------- */

static double hinge(double w, double knee) { return w > knee ? w - knee : 0.0; }

/* Number of coefficients and their names for a form. */
int mh_camp_form_ncoef(int form) {
    switch (form) {
    case MH_CAMP_FORM_PAPER: return 5;
    case MH_CAMP_FORM_LINEAR: return 8;
    case MH_CAMP_FORM_HINGE: return 12;
    case MH_CAMP_FORM_RECIP: return 8;
    default: return -1;
    }
}

void mh_camp_form_names_fill(mh_camp_eq *eq) {
    int p = 0;
    switch (eq->form) {
    case MH_CAMP_FORM_PAPER:
        snprintf(eq->names[p++], 16, "w");
        snprintf(eq->names[p++], 16, "b2");
        snprintf(eq->names[p++], 16, "b4");
        snprintf(eq->names[p++], 16, "b8");
        snprintf(eq->names[p++], 16, "intercept");
        break;
    case MH_CAMP_FORM_LINEAR:
    case MH_CAMP_FORM_RECIP:
        for (int k = 0; k < MH_CAMP_NWORD; k++) {
            snprintf(eq->names[p++], 16, "b%d", mh_camp_word_sizes[k]);
            snprintf(eq->names[p++], 16, eq->form == MH_CAMP_FORM_RECIP ? "b%d/w" : "b%d*w",
                     mh_camp_word_sizes[k]);
        }
        break;
    case MH_CAMP_FORM_HINGE:
        for (int k = 0; k < MH_CAMP_NWORD; k++) {
            snprintf(eq->names[p++], 16, "b%d", mh_camp_word_sizes[k]);
            snprintf(eq->names[p++], 16, "b%d*w", mh_camp_word_sizes[k]);
            snprintf(eq->names[p++], 16, "b%d*hinge", mh_camp_word_sizes[k]);
        }
        break;
    }
}

/* Row of the design matrix for one sample. */
static void design_row(const mh_camp_eq *eq, int word, double w, double *x) {
    int k = mh_camp_word_index(word);
    int p = mh_camp_form_ncoef(eq->form);
    for (int i = 0; i < p; i++) x[i] = 0;
    assert(k >= 0);
    switch (eq->form) {
    case MH_CAMP_FORM_PAPER:
        x[0] = w;
        if (k < 3) x[1 + k] = 1; /* 16-byte words are the base level */
        x[4] = 1;
        break;
    case MH_CAMP_FORM_LINEAR:
        x[2 * k] = 1;
        x[2 * k + 1] = w;
        break;
    case MH_CAMP_FORM_RECIP:
        x[2 * k] = 1;
        x[2 * k + 1] = 1.0 / w;
        break;
    case MH_CAMP_FORM_HINGE:
        x[3 * k] = 1;
        x[3 * k + 1] = w;
        x[3 * k + 2] = hinge(w, eq->knee[k]);
        break;
    }
}

/* Response of one sample on the fitted scale. */
static double response(const mh_camp_eq *eq, const mh_camp_sample *s) {
    if (eq->form == MH_CAMP_FORM_RECIP) return s->time_ms / (s->warps * (double)eq->sms * s->iters);
    return s->time_ms;
}

double mh_camp_eq_predict(const mh_camp_eq *eq, int word_bytes, double warps) {
    double x[MH_CAMP_MAXCOEF];
    if (mh_camp_word_index(word_bytes) < 0 || eq->ncoef <= 0 || !(warps > 0)) return NAN;
    design_row(eq, word_bytes, warps, x);
    double y = 0;
    for (int i = 0; i < eq->ncoef; i++) y += eq->coef[i] * x[i];
    if (eq->form == MH_CAMP_FORM_RECIP) y *= warps * eq->sms * eq->iters;
    return y;
}

static int use_sample(const mh_camp_sample *s, int op, int layout, const unsigned char *exclude) {
    return s->op == op && s->layout == layout && !(exclude && exclude[s->warps]);
}

/* Plain OLS of the current form/knees; fills coefficients and statistics. */
static int ols(const mh_camp_data *d, int op, int layout, const unsigned char *exclude,
               mh_camp_eq *eq, double *sse_out, mh_err *err) {
    int p = mh_camp_form_ncoef(eq->form);
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++) n += use_sample(&d->s[i], op, layout, exclude);
    if (n <= (size_t)p)
        return mh_err_set(err, MH_ERR_ARG, "%s/%s: %zu points for %d coefficients", mh_camp_op_names[op],
                          mh_camp_layout_names[layout], n, p);
    gsl_matrix *X = gsl_matrix_alloc(n, p), *cov = gsl_matrix_alloc(p, p);
    gsl_vector *y = gsl_vector_alloc(n), *c = gsl_vector_alloc(p);
    gsl_multifit_linear_workspace *ws = gsl_multifit_linear_alloc(n, p);
    int rc = MH_OK;
    if (!X || !cov || !y || !c || !ws) {
        rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        goto out;
    }
    size_t r = 0;
    double ysum = 0;
    for (size_t i = 0; i < d->n; i++) {
        const mh_camp_sample *s = &d->s[i];
        if (!use_sample(s, op, layout, exclude)) continue;
        double x[MH_CAMP_MAXCOEF];
        design_row(eq, s->word, s->warps, x);
        for (int j = 0; j < p; j++) gsl_matrix_set(X, r, j, x[j]);
        double v = response(eq, s);
        gsl_vector_set(y, r, v);
        ysum += v;
        r++;
    }
    /* every column must carry data, or the fit is not identified */
    for (int j = 0; j < p; j++) {
        int nz = 0;
        for (size_t i = 0; i < n && !nz; i++) nz = gsl_matrix_get(X, i, j) != 0;
        if (!nz) {
            rc = mh_err_set(err, MH_ERR_ARG, "%s/%s: no data for term '%s' (a word size missing?)",
                            mh_camp_op_names[op], mh_camp_layout_names[layout], eq->names[j]);
            goto out;
        }
    }
    double chisq = 0;
    if (gsl_multifit_linear(X, y, c, cov, &chisq, ws)) {
        rc = mh_err_set(err, MH_ERR_INTERNAL, "gsl_multifit_linear failed");
        goto out;
    }
    size_t rank = gsl_multifit_linear_rank(1e-12, ws);
    if (rank < (size_t)p) {
        rc = mh_err_set(err, MH_ERR_ARG, "%s/%s: design matrix has rank %zu < %d", mh_camp_op_names[op],
                        mh_camp_layout_names[layout], rank, p);
        goto out;
    }
    double ymean = ysum / n, sst = 0;
    for (size_t i = 0; i < n; i++) {
        double dv = gsl_vector_get(y, i) - ymean;
        sst += dv * dv;
    }
    double dof = (double)(n - p);
    eq->ncoef = p;
    eq->n = (int)n;
    eq->r2 = sst > 0 ? 1.0 - chisq / sst : 1.0;
    eq->rmse = sqrt(chisq / dof);
    for (int j = 0; j < p; j++) {
        double b = gsl_vector_get(c, j);
        double se = sqrt(gsl_matrix_get(cov, j, j)); /* GSL scales cov by chisq/dof */
        eq->coef[j] = b;
        eq->se[j] = se;
        eq->tstat[j] = se > 0 ? b / se : (b == 0 ? 0 : copysign(INFINITY, b));
        eq->pval[j] = isfinite(eq->tstat[j]) ? 2.0 * gsl_cdf_tdist_Q(fabs(eq->tstat[j]), dof) : 0;
    }
    if (sse_out) *sse_out = chisq;
out:
    gsl_multifit_linear_free(ws);
    gsl_vector_free(c);
    gsl_vector_free(y);
    gsl_matrix_free(cov);
    gsl_matrix_free(X);
    return rc;
}

/* Collects the distinct warp counts of (op, layout, word) not excluded. */
static int distinct_warps(const mh_camp_data *d, int op, int layout, int word,
                          const unsigned char *exclude, int *out) {
    unsigned char seen[MH_CAMP_MAXWARPS + 1] = {0};
    for (size_t i = 0; i < d->n; i++) {
        const mh_camp_sample *s = &d->s[i];
        if (use_sample(s, op, layout, exclude) && (word == 0 || s->word == word))
            seen[s->warps] = 1;
    }
    int n = 0;
    for (int w = 1; w <= MH_CAMP_MAXWARPS; w++)
        if (seen[w]) out[n++] = w;
    return n;
}

/* HINGE: knee per word size by grid search over the observed warp counts.
 * The design is block-diagonal in word size, so each knee minimizes its own
 * word's residual sum of squares independently. */
static int fit_hinge(const mh_camp_data *d, int op, int layout, const unsigned char *exclude,
                     mh_camp_eq *eq, mh_err *err) {
    for (int k = 0; k < MH_CAMP_NWORD; k++) {
        int ws[MH_CAMP_MAXWARPS];
        int nw = distinct_warps(d, op, layout, mh_camp_word_sizes[k], exclude, ws);
        if (nw < 5)
            return mh_err_set(err, MH_ERR_ARG, "%s/%s: %d warp counts for %d-byte words, need 5",
                              mh_camp_op_names[op], mh_camp_layout_names[layout], nw, mh_camp_word_sizes[k]);
        double best = INFINITY, best_knee = ws[1];
        for (int i = 1; i + 2 < nw; i++) {
            double knee = ws[i];
            /* 3-parameter fit of this word alone */
            gsl_matrix *X = gsl_matrix_alloc(nw, 3), *cov = gsl_matrix_alloc(3, 3);
            gsl_vector *y = gsl_vector_alloc(nw), *c = gsl_vector_alloc(3);
            gsl_multifit_linear_workspace *w = gsl_multifit_linear_alloc(nw, 3);
            if (!X || !cov || !y || !c || !w) {
                gsl_multifit_linear_free(w);
                gsl_vector_free(c);
                gsl_vector_free(y);
                gsl_matrix_free(cov);
                gsl_matrix_free(X);
                return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
            }
            /* one row per sample of this word (medians: one per warp count) */
            size_t r = 0;
            for (size_t j = 0; j < d->n && r < (size_t)nw; j++) {
                const mh_camp_sample *s = &d->s[j];
                if (!use_sample(s, op, layout, exclude) || s->word != mh_camp_word_sizes[k]) continue;
                gsl_matrix_set(X, r, 0, 1);
                gsl_matrix_set(X, r, 1, s->warps);
                gsl_matrix_set(X, r, 2, hinge(s->warps, knee));
                gsl_vector_set(y, r, s->time_ms);
                r++;
            }
            double chisq = INFINITY;
            if (r == (size_t)nw) gsl_multifit_linear(X, y, c, cov, &chisq, w);
            if (chisq < best) {
                best = chisq;
                best_knee = knee;
            }
            gsl_multifit_linear_free(w);
            gsl_vector_free(c);
            gsl_vector_free(y);
            gsl_matrix_free(cov);
            gsl_matrix_free(X);
        }
        eq->knee[k] = best_knee;
    }
    return ols(d, op, layout, exclude, eq, NULL, err);
}

static int eq_iters(const mh_camp_data *d, int op, int layout, double *iters, mh_err *err) {
    *iters = 0;
    for (size_t i = 0; i < d->n; i++) {
        const mh_camp_sample *s = &d->s[i];
        if (s->op != op || s->layout != layout) continue;
        if (*iters == 0) *iters = s->iters;
        else if (s->iters != *iters)
            return mh_err_set(err, MH_ERR_ARG, "%s/%s: mixed iteration counts %g and %g",
                              mh_camp_op_names[op], mh_camp_layout_names[layout], *iters, s->iters);
    }
    if (*iters == 0)
        return mh_err_set(err, MH_ERR_ARG, "no %s/%s benchmark data", mh_camp_op_names[op],
                          mh_camp_layout_names[layout]);
    return MH_OK;
}

int mh_camp_fit_form(const mh_camp_data *d, int op, int layout, int form,
                     const unsigned char *exclude, mh_camp_eq *eq, mh_err *err) {
    if (form < 0 || form >= MH_CAMP_NFORM) return mh_err_set(err, MH_ERR_ARG, "bad form %d", form);
    if (op < 0 || op > 1 || layout < 0 || layout > 1)
        return mh_err_set(err, MH_ERR_ARG, "bad op/layout %d/%d", op, layout);
    if (d->sms <= 0) return mh_err_set(err, MH_ERR_ARG, "benchmark data lacks the SM count");
    memset(eq, 0, sizeof *eq);
    eq->form = form;
    eq->sms = d->sms;
    eq->cv_err = NAN;
    for (int f = 0; f < MH_CAMP_NFORM; f++) eq->cv_by_form[f] = NAN;
    int rc = eq_iters(d, op, layout, &eq->iters, err);
    if (rc) return rc;
    mh_camp_form_names_fill(eq);
    if (form == MH_CAMP_FORM_HINGE) return fit_hinge(d, op, layout, exclude, eq, err);
    return ols(d, op, layout, exclude, eq, NULL, err);
}

double mh_camp_geomean_err(const double *pred, const double *meas, int n) {
    if (n <= 0) return NAN;
    double s = 0;
    for (int i = 0; i < n; i++) {
        double e = fabs(pred[i] - meas[i]) / fabs(meas[i]);
        if (!isfinite(e)) return NAN;
        s += log(e < 1e-6 ? 1e-6 : e);
    }
    return exp(s / n);
}

/* k-fold over warp counts: fold j holds out the j-th, (j+k)-th, ... distinct
 * warp value; returns the geometric-mean relative error of held-out t. */
static int cross_validate(const mh_camp_data *d, int op, int layout, int form, double *cv,
                          mh_err *err) {
    int ws[MH_CAMP_MAXWARPS];
    int nw = distinct_warps(d, op, layout, 0, NULL, ws);
    double *pred = malloc(d->n * sizeof *pred), *meas = malloc(d->n * sizeof *meas);
    if (!pred || !meas) {
        free(pred);
        free(meas);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    int m = 0, rc = MH_OK;
    for (int fold = 0; fold < CV_FOLDS; fold++) {
        unsigned char ex[MH_CAMP_MAXWARPS + 1] = {0};
        for (int i = fold; i < nw; i += CV_FOLDS) ex[ws[i]] = 1;
        mh_camp_eq eq;
        rc = mh_camp_fit_form(d, op, layout, form, ex, &eq, err);
        if (rc) break;
        for (size_t i = 0; i < d->n; i++) {
            const mh_camp_sample *s = &d->s[i];
            if (s->op != op || s->layout != layout || !ex[s->warps]) continue;
            pred[m] = mh_camp_eq_predict(&eq, s->word, s->warps);
            meas[m] = s->time_ms;
            m++;
        }
    }
    if (!rc) *cv = mh_camp_geomean_err(pred, meas, m);
    free(pred);
    free(meas);
    return rc;
}

int mh_camp_fit(const mh_camp_data *d, mh_camp_model *m, mh_err *err) {
    memset(m, 0, sizeof *m);
    snprintf(m->device, sizeof m->device, "%s", d->device[0] ? d->device : "unknown");
    m->sms = d->sms;
    m->max_warps = d->max_warps;
    m->l2_bytes = d->l2_bytes;
    m->mlp = d->mlp;
    for (int op = 0; op < 2; op++)
        snprintf(m->camped_layout[op], sizeof m->camped_layout[op], "%s", d->camped_layout[op]);
    if (m->max_warps <= 0 || m->max_warps > MH_CAMP_MAXWARPS)
        return mh_err_set(err, MH_ERR_ARG, "benchmark data lacks a valid max_warps (%d)",
                          m->max_warps);
    for (int op = 0; op < 2; op++)
        for (int lay = 0; lay < 2; lay++) {
            double cv[MH_CAMP_NFORM];
            int best = -1;
            for (int f = 0; f < MH_CAMP_NFORM; f++) {
                mh_err e2 = {0};
                cv[f] = NAN;
                if (cross_validate(d, op, lay, f, &cv[f], &e2)) {
                    if (f == MH_CAMP_FORM_PAPER) { /* the base form must fit */
                        if (err) *err = e2;
                        return e2.code;
                    }
                    continue;
                }
                if (isfinite(cv[f]) && (best < 0 || cv[f] < cv[best])) best = f;
            }
            if (best < 0)
                return mh_err_set(err, MH_ERR_ARG, "%s/%s: no form could be cross-validated",
                                  mh_camp_op_names[op], mh_camp_layout_names[lay]);
            int rc = mh_camp_fit_form(d, op, lay, best, NULL, &m->eq[op][lay], err);
            if (rc) return rc;
            m->eq[op][lay].cv_err = cv[best];
            for (int f = 0; f < MH_CAMP_NFORM; f++) m->eq[op][lay].cv_by_form[f] = cv[f];
        }
    return MH_OK;
}
