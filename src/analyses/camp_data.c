/* camp_data.c -- the camping micro-benchmark's timings: samples in memory
 * and the CSV that bench/camping/camp_bench writes (header, fields, medians
 * of repeated rows). Part of the partition-camping model (camp_band.c). */
#include "analyses/camp.h"

#include <assert.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/camp_shared.h"
#include "util/grow.h"
#include "util/sort.h"

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
    mh_sort(rows, nrows, sizeof *rows, cmp_raw);
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
        mh_sort(t, m, sizeof *t, cmp_double);
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
