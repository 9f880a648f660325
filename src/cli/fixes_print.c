/* fixes_print.c -- the ranked fixes in the terminal (fixes_print.h). */
#include "cli/fixes_print.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "util/kname.h"

/* Control characters of names from the profiled program written as '?'. */
static void put_clean(FILE *f, const char *s) {
    for (; *s; s++) fputc((unsigned char)*s < 0x20 || *s == 0x7f ? '?' : *s, f);
}

void mh_cli_fixes_print(FILE *f, const mh_fixes *fx, size_t max, int brief) {
    size_t n = max && max < fx->n ? max : fx->n;
    fprintf(f, "What to fix first (%zu of %zu; estimated saving of the untraced time, model: docs/report.md):\n", n,
            fx->n);
    /* two different kernels never print alike */
    char *shown = n ? malloc(n * 160) : NULL;
    int have = shown && !mh_fixes_short_names(fx, n, 64, shown, 160, 160);
    for (size_t i = 0; i < n; i++) {
        const mh_fix *r = &fx->v[i];
        char sv[32], base[32], kn[160];
        mh_fix_fmt_ns(r->saving_ns, sv, sizeof sv);
        mh_fix_fmt_ns(r->base_ns, base, sizeof base);
        if (have) snprintf(kn, sizeof kn, "%s", shown + i * 160);
        else if (r->kernel && r->kernel[0] == '(') snprintf(kn, sizeof kn, "%s", r->kernel); /* copies */
        else mh_kname(r->kernel, MH_KNAME_SHORT, 64, kn, sizeof kn);
        if (isfinite(r->saving_ns))
            fprintf(f, "%2zu. saves ~%s of %s: %s\n", i + 1, sv, base, r->title);
        else
            fprintf(f, "%2zu. saving unknown: %s\n", i + 1, r->title);
        fprintf(f, "    ");
        put_clean(f, kn);
        if (r->kernels && !strcmp(r->cause, "library_kernel")) {
            size_t nk = 1;
            for (const char *p = strstr(r->kernels, " + "); p; p = strstr(p + 3, " + ")) nk++;
            fprintf(f, " and %zu other kernel%s", nk - 1, nk == 2 ? "" : "s");
        } else if (r->kernels) {
            fprintf(f, " and the kernels after it (%zu in the chain)", r->configs);
        }
        if (r->object && *r->object) {
            char ol[256]; /* a by-value struct field's type shortened */
            mh_kname_label(r->object, 72, ol, sizeof ol);
            fprintf(f, " - ");
            put_clean(f, ol);
        }
        if (*r->where) {
            fprintf(f, " - ");
            put_clean(f, r->where);
        }
        if (!strcmp(r->cause, "launch_chain") || !strcmp(r->cause, "pageable_copy"))
            fprintf(f, " (%zu %s)\n", r->launches, !strcmp(r->cause, "pageable_copy") ? "copies" : "runs");
        else if (!strcmp(r->cause, "library_kernel"))
            fprintf(f, " (%s; %zu launch%s, %zu configuration%s)\n", r->kinds, r->launches, r->launches == 1 ? "" : "es",
                    r->configs, r->configs == 1 ? "" : "s"); /* timed, not traced */
        else if (!strcmp(r->cause, "small_grid") || !strcmp(r->cause, "latency_bound"))
            fprintf(f, " (%s; %zu launch%s)\n", r->kinds, r->launches, r->launches == 1 ? "" : "es"); /* timed, not traced */
        else
            fprintf(f, " (%s; %zu launch%s traced, %zu configuration%s)\n", r->kinds, r->launches,
                    r->launches == 1 ? "" : "es", r->configs, r->configs == 1 ? "" : "s");
        if (*r->site) {
            fprintf(f, "    at: ");
            put_clean(f, r->site);
            if (r->nsites > 1) fprintf(f, " (and %zu other call site%s)", r->nsites - 1, r->nsites == 2 ? "" : "s");
            fputc('\n', f);
        }
        if (!isfinite(r->saving_ns) && *r->note) fprintf(f, "    %s\n", r->note);
        fprintf(f, "    fix: ");
        put_clean(f, r->fix);
        fputc('\n', f);
        if (!brief && *r->model) fprintf(f, "    model: %s\n", r->model); /* empty: no estimate to explain */
    }
    free(shown);
    if (fx->partial)
        fprintf(f, "    (%zu launch%s with shared memory only partly seen: no shared-memory finding drawn from "
                "them; see partial_view)\n", fx->partial, fx->partial == 1 ? "" : "es");
}

int mh_cli_fixes_of_profile(const char *path, FILE *f, size_t max, int brief, mh_err *err) {
    mh_db *db;
    int rc = mh_db_open(&db, path, 0, err);
    if (rc) return rc;
    json_t *root = NULL;
    rc = mh_db_read_summary(db, &root, err);
    mh_fixes fx;
    if (!rc) rc = mh_fixes_compute(db, root, &fx, err);
    if (!rc) {
        if (fx.n) mh_cli_fixes_print(f, &fx, max, brief);
        mh_fixes_free(&fx);
    }
    json_decref(root);
    mh_db_close(db);
    return rc;
}
