/* camp.c -- partition-camping model: benchmark CSV -> regression -> band.
 *
 * Owns the CPU side of CampProf (seed 000) for memheat: reading the
 * micro-benchmark timings written by bench/camping/camp_bench, fitting one
 * multiple-linear-regression equation per (read|write) x (spread|camped) with
 * GSL (the paper's equation (1) and three better-behaved forms, chosen by
 * held-out error), turning the equations into per-request costs, and placing
 * a profiled kernel in the best/worst band with a camping degree.  The model
 * is stored per device as JSON (jansson).  See docs/camping.md. */
#include "memheat/camp.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>
#include <gsl/gsl_multifit.h>
#include <jansson.h>

#include "util/grow.h"

static const int word_sizes[MH_CAMP_NWORD] = {2, 4, 8, 16};
static const char *form_names[MH_CAMP_NFORM] = {"paper", "linear", "hinge", "recip"};
static const char *op_names[2] = {"read", "write"};
static const char *layout_names[2] = {"spread", "camped"};

#define CV_FOLDS 4
#define MIN_REQ_MS 1e-12

int mh_camp_word_index(int word_bytes) {
    for (int i = 0; i < MH_CAMP_NWORD; i++)
        if (word_sizes[i] == word_bytes) return i;
    return -1;
}

/* ---- data --------------------------------------------------------------- */

int mh_camp_data_add(mh_camp_data *d, const mh_camp_sample *s, mh_err *err) {
    if (mh_camp_word_index(s->word) < 0)
        return mh_err_set(err, MH_ERR_ARG, "word size %d is not 2, 4, 8 or 16", s->word);
    if (s->warps < 1 || s->warps > MH_CAMP_MAXWARPS)
        return mh_err_set(err, MH_ERR_ARG, "active warps %d out of range 1..%d", s->warps,
                          MH_CAMP_MAXWARPS);
    if (!(s->time_ms > 0) || !isfinite(s->time_ms) || !(s->iters > 0))
        return mh_err_set(err, MH_ERR_ARG, "time %g ms / iters %g must be positive", s->time_ms,
                          s->iters);
    if ((s->op != MH_CAMP_READ && s->op != MH_CAMP_WRITE) ||
        (s->layout != MH_CAMP_SPREAD && s->layout != MH_CAMP_CAMPED))
        return mh_err_set(err, MH_ERR_ARG, "bad op/layout %d/%d", s->op, s->layout);
    if (d->n == d->cap) {
        mh_camp_sample *p = mh_grow(d->s, &d->cap, d->n + 1, sizeof *p, 256);
        if (!p) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        d->s = p;
    }
    d->s[d->n++] = *s;
    return MH_OK;
}

void mh_camp_data_free(mh_camp_data *d) {
    free(d->s);
    d->s = NULL;
    d->n = d->cap = 0;
}

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

typedef struct raw_row {
    mh_camp_sample s;
} raw_row;

static int cmp_raw(const void *a, const void *b) {
    const mh_camp_sample *x = &((const raw_row *)a)->s, *y = &((const raw_row *)b)->s;
    if (x->op != y->op) return x->op - y->op;
    if (x->layout != y->layout) return x->layout - y->layout;
    if (x->word != y->word) return x->word - y->word;
    if (x->warps != y->warps) return x->warps - y->warps;
    return (x->iters > y->iters) - (x->iters < y->iters);
}

/* "# device=NAME;sms=N;max_warps=N;l2_bytes=N;..." */
static void parse_header(mh_camp_data *d, const char *line) {
    const char *p = line + 1;
    while (*p == ' ') p++;
    char buf[2048];
    size_t len = strlen(p);
    if (len >= sizeof buf) len = sizeof buf - 1;
    memcpy(buf, p, len);
    buf[len] = 0;
    buf[strcspn(buf, "\r\n")] = 0;
    char *save = NULL;
    for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = 0;
        const char *v = eq + 1;
        if (!strcmp(tok, "device")) snprintf(d->device, sizeof d->device, "%s", v);
        else if (!strcmp(tok, "sms")) d->sms = atoi(v);
        else if (!strcmp(tok, "max_warps")) d->max_warps = atoi(v);
        else if (!strcmp(tok, "l2_bytes")) d->l2_bytes = atoll(v);
        else if (!strcmp(tok, "mlp")) d->mlp = atoi(v);
        else if (!strcmp(tok, "camped_read"))
            snprintf(d->camped_layout[0], sizeof d->camped_layout[0], "%s", v);
        else if (!strcmp(tok, "camped_write"))
            snprintf(d->camped_layout[1], sizeof d->camped_layout[1], "%s", v);
    }
}

/* Splits a CSV line in place (no quoting in camp_bench output). */
static int split_csv(char *line, char **f, int maxf) {
    int n = 0;
    line[strcspn(line, "\r\n")] = 0;
    char *p = line;
    while (n < maxf) {
        f[n++] = p;
        char *c = strchr(p, ',');
        if (!c) break;
        *c = 0;
        p = c + 1;
    }
    return n;
}

static int parse_int(const char *s, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

static int parse_dbl(const char *s, double *out) {
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v)) return -1;
    *out = v;
    return 0;
}

int mh_camp_data_load_csv(mh_camp_data *d, const char *path, mh_err *err) {
    FILE *f = fopen(path, "r");
    if (!f) return mh_err_set(err, MH_ERR_IO, "%s: %s", path, strerror(errno));
    char line[2048];
    enum { C_OP, C_LAYOUT, C_WORD, C_WARPS, C_ITERS, C_TIME, C_BPS, C_ACH, C_BAD, C_N };
    static const char *want[C_N] = {"op",  "layout", "word",         "warps",        "iters",
                                    "time_ms", "bps", "achieved_bps", "placement_bad"};
    int col[C_N];
    for (int i = 0; i < C_N; i++) col[i] = -1;
    int have_header = 0, rc = MH_OK;
    long lineno = 0;
    raw_row *rows = NULL;
    size_t nrows = 0, cap = 0, skipped = 0;
    while (fgets(line, sizeof line, f)) {
        lineno++;
        if (line[0] == '#') {
            parse_header(d, line);
            continue;
        }
        if (line[0] == '\n' || line[0] == 0) continue;
        char *fld[32];
        int nf = split_csv(line, fld, 32);
        if (!have_header) {
            for (int i = 0; i < nf; i++)
                for (int j = 0; j < C_N; j++)
                    if (!strcmp(fld[i], want[j])) col[j] = i;
            for (int j = 0; j <= C_TIME; j++)
                if (col[j] < 0) {
                    rc = mh_err_set(err, MH_ERR_FORMAT, "%s: header lacks column '%s'", path,
                                    want[j]);
                    goto out;
                }
            have_header = 1;
            continue;
        }
        int maxcol = 0;
        for (int j = 0; j < C_N; j++)
            if (col[j] > maxcol) maxcol = col[j];
        if (nf <= maxcol) {
            rc = mh_err_set(err, MH_ERR_FORMAT, "%s:%ld: %d fields, expected %d", path, lineno,
                            nf, maxcol + 1);
            goto out;
        }
        mh_camp_sample s;
        long word, warps;
        if (!strcmp(fld[col[C_OP]], "read")) s.op = MH_CAMP_READ;
        else if (!strcmp(fld[col[C_OP]], "write")) s.op = MH_CAMP_WRITE;
        else {
            rc = mh_err_set(err, MH_ERR_FORMAT, "%s:%ld: op '%s' is not read/write", path, lineno,
                            fld[col[C_OP]]);
            goto out;
        }
        if (!strcmp(fld[col[C_LAYOUT]], "spread")) s.layout = MH_CAMP_SPREAD;
        else if (!strcmp(fld[col[C_LAYOUT]], "camped")) s.layout = MH_CAMP_CAMPED;
        else {
            skipped++; /* exploratory layouts (hot:N, pitch:...) are not model data */
            continue;
        }
        if (parse_int(fld[col[C_WORD]], &word) || parse_int(fld[col[C_WARPS]], &warps) ||
            parse_dbl(fld[col[C_ITERS]], &s.iters) || parse_dbl(fld[col[C_TIME]], &s.time_ms)) {
            rc = mh_err_set(err, MH_ERR_FORMAT, "%s:%ld: malformed number", path, lineno);
            goto out;
        }
        /* a configuration whose occupancy was not what was asked is dropped */
        if (col[C_BPS] >= 0 && col[C_ACH] >= 0 && strcmp(fld[col[C_BPS]], fld[col[C_ACH]])) {
            skipped++;
            continue;
        }
        if (col[C_BAD] >= 0 && strcmp(fld[col[C_BAD]], "0")) {
            skipped++;
            continue;
        }
        s.word = (int)word;
        s.warps = (int)warps;
        if (mh_camp_word_index(s.word) < 0 || s.warps < 1 || s.warps > MH_CAMP_MAXWARPS ||
            !(s.time_ms > 0) || !(s.iters > 0)) {
            rc = mh_err_set(err, MH_ERR_FORMAT, "%s:%ld: value out of range (word %ld, warps %ld)",
                            path, lineno, word, warps);
            goto out;
        }
        if (nrows == cap) {
            raw_row *p = mh_grow(rows, &cap, nrows + 1, sizeof *p, 1024);
            if (!p) {
                rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
                goto out;
            }
            rows = p;
        }
        rows[nrows++].s = s;
    }
    if (ferror(f)) {
        rc = mh_err_set(err, MH_ERR_IO, "%s: read error", path);
        goto out;
    }
    if (!have_header) {
        rc = mh_err_set(err, MH_ERR_EMPTY, "%s: no CSV header", path);
        goto out;
    }
    if (nrows == 0) {
        rc = mh_err_set(err, MH_ERR_EMPTY, "%s: no spread/camped rows (%zu skipped)", path,
                        skipped);
        goto out;
    }
    /* median per configuration */
    qsort(rows, nrows, sizeof *rows, cmp_raw);
    double *t = malloc(nrows * sizeof *t);
    if (!t) {
        rc = mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        goto out;
    }
    for (size_t i = 0; i < nrows;) {
        size_t j = i;
        while (j < nrows && cmp_raw(&rows[i], &rows[j]) == 0) j++;
        for (size_t k = i; k < j; k++) t[k - i] = rows[k].s.time_ms;
        size_t m = j - i;
        qsort(t, m, sizeof *t, cmp_double);
        mh_camp_sample s = rows[i].s;
        s.time_ms = m % 2 ? t[m / 2] : 0.5 * (t[m / 2 - 1] + t[m / 2]);
        rc = mh_camp_data_add(d, &s, err);
        if (rc) break;
        i = j;
    }
    free(t);
out:
    free(rows);
    fclose(f);
    if (rc) mh_err_wrap(err, "loading camping benchmark data");
    return rc;
}

/* ---- regression ---------------------------------------------------------- */

static double hinge(double w, double knee) { return w > knee ? w - knee : 0.0; }

/* Number of coefficients and their names for a form. */
static int form_ncoef(int form) {
    switch (form) {
    case MH_CAMP_FORM_PAPER: return 5;
    case MH_CAMP_FORM_LINEAR: return 8;
    case MH_CAMP_FORM_HINGE: return 12;
    case MH_CAMP_FORM_RECIP: return 8;
    default: return -1;
    }
}

static void form_names_fill(mh_camp_eq *eq) {
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
            snprintf(eq->names[p++], 16, "b%d", word_sizes[k]);
            snprintf(eq->names[p++], 16, eq->form == MH_CAMP_FORM_RECIP ? "b%d/w" : "b%d*w",
                     word_sizes[k]);
        }
        break;
    case MH_CAMP_FORM_HINGE:
        for (int k = 0; k < MH_CAMP_NWORD; k++) {
            snprintf(eq->names[p++], 16, "b%d", word_sizes[k]);
            snprintf(eq->names[p++], 16, "b%d*w", word_sizes[k]);
            snprintf(eq->names[p++], 16, "b%d*hinge", word_sizes[k]);
        }
        break;
    }
}

/* Row of the design matrix for one sample. */
static void design_row(const mh_camp_eq *eq, int word, double w, double *x) {
    int k = mh_camp_word_index(word);
    int p = form_ncoef(eq->form);
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
    int p = form_ncoef(eq->form);
    size_t n = 0;
    for (size_t i = 0; i < d->n; i++) n += use_sample(&d->s[i], op, layout, exclude);
    if (n <= (size_t)p)
        return mh_err_set(err, MH_ERR_ARG, "%s/%s: %zu points for %d coefficients", op_names[op],
                          layout_names[layout], n, p);
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
                            op_names[op], layout_names[layout], eq->names[j]);
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
        rc = mh_err_set(err, MH_ERR_ARG, "%s/%s: design matrix has rank %zu < %d", op_names[op],
                        layout_names[layout], rank, p);
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
        int nw = distinct_warps(d, op, layout, word_sizes[k], exclude, ws);
        if (nw < 5)
            return mh_err_set(err, MH_ERR_ARG, "%s/%s: %d warp counts for %d-byte words, need 5",
                              op_names[op], layout_names[layout], nw, word_sizes[k]);
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
                if (!use_sample(s, op, layout, exclude) || s->word != word_sizes[k]) continue;
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
                              op_names[op], layout_names[layout], *iters, s->iters);
    }
    if (*iters == 0)
        return mh_err_set(err, MH_ERR_ARG, "no %s/%s benchmark data", op_names[op],
                          layout_names[layout]);
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
    form_names_fill(eq);
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
                                  op_names[op], layout_names[lay]);
            int rc = mh_camp_fit_form(d, op, lay, best, NULL, &m->eq[op][lay], err);
            if (rc) return rc;
            m->eq[op][lay].cv_err = cv[best];
            for (int f = 0; f < MH_CAMP_NFORM; f++) m->eq[op][lay].cv_by_form[f] = cv[f];
        }
    return MH_OK;
}

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
                t += k->req[op][i] * mh_camp_req_ms(m, op, layout, word_sizes[i], warps);
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

static json_t *num_or_null(double v) { return isfinite(v) ? json_real(v) : json_null(); }

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
    json_object_set_new(o, "degree_raw", num_or_null(b->degree_raw));
    json_object_set_new(o, "band_closed", json_boolean(b->band_closed));
    char *s = json_dumps(o, JSON_COMPACT | JSON_REAL_PRECISION(9));
    json_decref(o);
    return s;
}

/* ---- model file ---------------------------------------------------------- */

static json_t *dbl_array(const double *v, int n) {
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) json_array_append_new(a, num_or_null(v[i]));
    return a;
}

int mh_camp_model_save(const mh_camp_model *m, const char *path, mh_err *err) {
    json_t *root = json_object(), *eqs = json_array();
    if (!root || !eqs) {
        json_decref(root);
        json_decref(eqs);
        return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
    }
    json_object_set_new(root, "memheat_camp_model", json_integer(1));
    json_object_set_new(root, "device", json_string(m->device));
    json_object_set_new(root, "sms", json_integer(m->sms));
    json_object_set_new(root, "max_warps", json_integer(m->max_warps));
    json_object_set_new(root, "l2_bytes", json_integer(m->l2_bytes));
    json_object_set_new(root, "bench_mlp", json_integer(m->mlp));
    json_object_set_new(root, "camped_read", json_string(m->camped_layout[0]));
    json_object_set_new(root, "camped_write", json_string(m->camped_layout[1]));
    for (int op = 0; op < 2; op++)
        for (int lay = 0; lay < 2; lay++) {
            const mh_camp_eq *eq = &m->eq[op][lay];
            json_t *e = json_object(), *names = json_array();
            for (int i = 0; i < eq->ncoef; i++) json_array_append_new(names, json_string(eq->names[i]));
            json_object_set_new(e, "op", json_string(op_names[op]));
            json_object_set_new(e, "layout", json_string(layout_names[lay]));
            json_object_set_new(e, "form", json_string(form_names[eq->form]));
            json_object_set_new(e, "names", names);
            json_object_set_new(e, "coef", dbl_array(eq->coef, eq->ncoef));
            json_object_set_new(e, "se", dbl_array(eq->se, eq->ncoef));
            json_object_set_new(e, "t", dbl_array(eq->tstat, eq->ncoef));
            json_object_set_new(e, "p", dbl_array(eq->pval, eq->ncoef));
            json_object_set_new(e, "knee", dbl_array(eq->knee, MH_CAMP_NWORD));
            json_object_set_new(e, "r2", num_or_null(eq->r2));
            json_object_set_new(e, "rmse", num_or_null(eq->rmse));
            json_object_set_new(e, "cv_err", num_or_null(eq->cv_err));
            json_object_set_new(e, "cv_by_form", dbl_array(eq->cv_by_form, MH_CAMP_NFORM));
            json_object_set_new(e, "n", json_integer(eq->n));
            json_object_set_new(e, "iters", json_real(eq->iters));
            json_array_append_new(eqs, e);
        }
    json_object_set_new(root, "equations", eqs);
    int rc = MH_OK;
    if (json_dump_file(root, path, JSON_INDENT(1) | JSON_REAL_PRECISION(17)))
        rc = mh_err_set(err, MH_ERR_IO, "writing camping model %s failed", path);
    json_decref(root);
    return rc;
}

static int get_dbls(json_t *a, double *out, int n, int nullable) {
    if (!json_is_array(a) || (int)json_array_size(a) != n) return -1;
    for (int i = 0; i < n; i++) {
        json_t *v = json_array_get(a, i);
        if (json_is_number(v)) out[i] = json_number_value(v);
        else if (nullable && json_is_null(v)) out[i] = NAN;
        else return -1;
    }
    return 0;
}

static int lookup(const char *const *names, int n, const char *s) {
    for (int i = 0; s && i < n; i++)
        if (!strcmp(names[i], s)) return i;
    return -1;
}

int mh_camp_model_load(mh_camp_model *m, const char *path, mh_err *err) {
    json_error_t je;
    json_t *root = json_load_file(path, 0, &je);
    if (!root)
        return mh_err_set(err, MH_ERR_FORMAT, "camping model %s: %s (line %d)", path, je.text,
                          je.line);
    int rc = MH_OK;
    memset(m, 0, sizeof *m);
    json_t *ver = json_object_get(root, "memheat_camp_model");
    const char *dev = json_string_value(json_object_get(root, "device"));
    json_t *eqs = json_object_get(root, "equations");
    if (!json_is_integer(ver) || json_integer_value(ver) != 1 || !dev || !json_is_array(eqs)) {
        rc = mh_err_set(err, MH_ERR_FORMAT, "camping model %s: not a memheat camping model (v1)",
                        path);
        goto out;
    }
    snprintf(m->device, sizeof m->device, "%s", dev);
    m->sms = (int)json_integer_value(json_object_get(root, "sms"));
    m->max_warps = (int)json_integer_value(json_object_get(root, "max_warps"));
    m->l2_bytes = json_integer_value(json_object_get(root, "l2_bytes"));
    m->mlp = (int)json_integer_value(json_object_get(root, "bench_mlp")); /* 0 when absent */
    const char *cr = json_string_value(json_object_get(root, "camped_read"));
    const char *cw = json_string_value(json_object_get(root, "camped_write"));
    snprintf(m->camped_layout[0], sizeof m->camped_layout[0], "%s", cr ? cr : "");
    snprintf(m->camped_layout[1], sizeof m->camped_layout[1], "%s", cw ? cw : "");
    if (m->sms <= 0 || m->max_warps <= 0 || m->max_warps > MH_CAMP_MAXWARPS) {
        rc = mh_err_set(err, MH_ERR_FORMAT, "camping model %s: bad sms/max_warps", path);
        goto out;
    }
    unsigned seen = 0;
    for (size_t i = 0; i < json_array_size(eqs); i++) {
        json_t *e = json_array_get(eqs, i);
        int op = lookup(op_names, 2, json_string_value(json_object_get(e, "op")));
        int lay = lookup(layout_names, 2, json_string_value(json_object_get(e, "layout")));
        int form = lookup(form_names, MH_CAMP_NFORM, json_string_value(json_object_get(e, "form")));
        if (op < 0 || lay < 0 || form < 0) {
            rc = mh_err_set(err, MH_ERR_FORMAT, "camping model %s: equation %zu: bad op/layout/form",
                            path, i);
            goto out;
        }
        mh_camp_eq *eq = &m->eq[op][lay];
        memset(eq, 0, sizeof *eq);
        eq->form = form;
        eq->ncoef = form_ncoef(form);
        eq->sms = m->sms;
        form_names_fill(eq);
        json_t *iters = json_object_get(e, "iters");
        if (get_dbls(json_object_get(e, "coef"), eq->coef, eq->ncoef, 0) ||
            get_dbls(json_object_get(e, "se"), eq->se, eq->ncoef, 1) ||
            get_dbls(json_object_get(e, "t"), eq->tstat, eq->ncoef, 1) ||
            get_dbls(json_object_get(e, "p"), eq->pval, eq->ncoef, 1) ||
            get_dbls(json_object_get(e, "knee"), eq->knee, MH_CAMP_NWORD, 0) ||
            get_dbls(json_object_get(e, "cv_by_form"), eq->cv_by_form, MH_CAMP_NFORM, 1) ||
            !json_is_number(iters) || !(json_number_value(iters) > 0)) {
            rc = mh_err_set(err, MH_ERR_FORMAT,
                            "camping model %s: equation %s/%s: missing or malformed fields", path,
                            op_names[op], layout_names[lay]);
            goto out;
        }
        eq->iters = json_number_value(iters);
        json_t *v;
        eq->r2 = json_is_number(v = json_object_get(e, "r2")) ? json_number_value(v) : NAN;
        eq->rmse = json_is_number(v = json_object_get(e, "rmse")) ? json_number_value(v) : NAN;
        eq->cv_err = json_is_number(v = json_object_get(e, "cv_err")) ? json_number_value(v) : NAN;
        eq->n = (int)json_integer_value(json_object_get(e, "n"));
        seen |= 1u << (op * 2 + lay);
    }
    if (seen != 0xf)
        rc = mh_err_set(err, MH_ERR_FORMAT, "camping model %s: needs all four equations", path);
out:
    json_decref(root);
    return rc;
}

int mh_camp_model_path(const char *dir, const char *device, char *out, size_t n, mh_err *err) {
    char name[256];
    size_t j = 0;
    for (size_t i = 0; device[i] && j + 1 < sizeof name; i++) {
        char c = device[i];
        int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
                 c == '-' || c == '.';
        name[j++] = ok ? c : '_';
    }
    name[j] = 0;
    if (!j) return mh_err_set(err, MH_ERR_ARG, "empty device name");
    int w = snprintf(out, n, "%s/camp-%s.json", dir, name);
    if (w < 0 || (size_t)w >= n) return mh_err_set(err, MH_ERR_ARG, "model path too long");
    return MH_OK;
}

/* ---- calibration --------------------------------------------------------- */

int mh_camp_calibrate(const char *bench_exe, const char *outdir, const char *model_dir,
                      const char *const *extra_args, mh_camp_model *m, mh_err *err) {
    const char *argv[64];
    int a = 0;
    argv[a++] = bench_exe;
    argv[a++] = "--mode";
    argv[a++] = "sweep";
    argv[a++] = "--out";
    argv[a++] = outdir;
    for (int i = 0; extra_args && extra_args[i] && a < 63; i++) argv[a++] = extra_args[i];
    argv[a] = NULL;
    if (access(bench_exe, X_OK))
        return mh_err_set(err, MH_ERR_DEP, "camping benchmark %s: %s", bench_exe, strerror(errno));
    pid_t pid = fork();
    if (pid < 0) return mh_err_set(err, MH_ERR_IO, "fork: %s", strerror(errno));
    if (pid == 0) {
        execv(bench_exe, (char *const *)argv);
        _exit(127);
    }
    int st = 0;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return mh_err_set(err, MH_ERR_IO, "waitpid: %s", strerror(errno));
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0)
        return mh_err_set(err, MH_ERR_CHILD, "camping benchmark %s failed (%s %d)", bench_exe,
                          WIFEXITED(st) ? "exit status" : "signal",
                          WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st));
    char csv[4096], path[4096];
    snprintf(csv, sizeof csv, "%s/sweep.csv", outdir);
    mh_camp_data d = {0};
    int rc = mh_camp_data_load_csv(&d, csv, err);
    if (!rc) rc = mh_camp_fit(&d, m, err);
    if (!rc) {
        if (mkdir(model_dir, 0755) && errno != EEXIST)
            rc = mh_err_set(err, MH_ERR_IO, "%s: %s", model_dir, strerror(errno));
    }
    if (!rc) rc = mh_camp_model_path(model_dir, m->device, path, sizeof path, err);
    if (!rc) rc = mh_camp_model_save(m, path, err);
    mh_camp_data_free(&d);
    return rc;
}
