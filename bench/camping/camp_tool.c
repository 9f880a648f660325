/* camp_tool.c -- command-line front end to the camping model (src/analyses/camp.c).
 *
 * Owns nothing but argument handling and printing, so that the model can be
 * fitted, queried and validated from the CSVs that camp_bench writes without
 * the memheat CLI:
 *   camp_tool fit SWEEP.csv MODEL.json
 *   camp_tool band MODEL.json --warps W --time MS --req r4=N,w4=N[,...] [--max-warps N]
 *   camp_tool validate MODEL.json VALIDATE.csv [--json OUT.json]
 *   camp_tool check MODEL.json SWEEP.csv
 *   camp_tool calibrate CAMP_BENCH OUTDIR MODELDIR [camp_bench args...]
 * Exit status: 0 ok, 1 usage, 2 failure (one-line message on stderr). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyses/camp.h"

static const char *forms[] = {"paper", "linear", "hinge", "recip"};
static const char *ops[] = {"read", "write"};
static const char *lays[] = {"spread", "camped"};

static int usage(void) {
    fprintf(stderr,
            "usage: camp_tool fit SWEEP.csv MODEL.json\n"
            "       camp_tool band MODEL.json --warps W --time MS --req r4=N,w4=N,... "
            "[--max-warps N]\n"
            "       camp_tool validate MODEL.json VALIDATE.csv [--json OUT.json]\n"
            "       camp_tool check MODEL.json SWEEP.csv   (error on another run's data)\n"
            "       camp_tool calibrate CAMP_BENCH OUTDIR MODELDIR [camp_bench args...]\n");
    return 1;
}

static int fail(const mh_err *e) {
    fprintf(stderr, "camp_tool: %s\n", e->msg);
    return 2;
}

static void print_model(const mh_camp_model *m) {
    printf("device %s: %d SMs, %d warps/SM max; camped read = %s, camped write = %s\n", m->device,
           m->sms, m->max_warps, m->camped_layout[0], m->camped_layout[1]);
    for (int op = 0; op < 2; op++)
        for (int lay = 0; lay < 2; lay++) {
            const mh_camp_eq *eq = &m->eq[op][lay];
            printf("\n%s/%s: form %s, n=%d, R2=%.4f, RMSE=%.4g, held-out geo-mean error %.1f%%\n",
                   ops[op], lays[lay], forms[eq->form], eq->n, eq->r2, eq->rmse,
                   100 * eq->cv_err);
            printf("  held-out error by form:");
            for (int f = 0; f < MH_CAMP_NFORM; f++)
                printf(" %s %.1f%%", forms[f], 100 * eq->cv_by_form[f]);
            printf("\n");
            if (eq->form == MH_CAMP_FORM_HINGE)
                printf("  knees (warps) for 2/4/8/16-byte words: %g %g %g %g\n", eq->knee[0],
                       eq->knee[1], eq->knee[2], eq->knee[3]);
            for (int i = 0; i < eq->ncoef; i++)
                printf("  %-10s % .5e  se %.3e  t % 9.2f  p %.3g\n", eq->names[i], eq->coef[i],
                       eq->se[i], eq->tstat[i], eq->pval[i]);
        }
}

static int cmd_fit(int argc, char **argv) {
    if (argc != 4) return usage();
    mh_err e = {0};
    mh_camp_data d = {0};
    mh_camp_model m;
    if (mh_camp_data_load_csv(&d, argv[2], &e)) return fail(&e);
    int rc = mh_camp_fit(&d, &m, &e);
    if (rc) {
        mh_camp_data_free(&d);
        return fail(&e);
    }
    print_model(&m);
    /* the paper's eq. (1) on all the data, for comparison with its R2/RMSE */
    printf("\npaper's equation (1) on all points:\n");
    for (int op = 0; op < 2; op++)
        for (int lay = 0; lay < 2; lay++) {
            mh_camp_eq eq;
            if (mh_camp_fit_form(&d, op, lay, MH_CAMP_FORM_PAPER, NULL, &eq, &e)) continue;
            printf("%s/%s: R2=%.4f RMSE=%.4g ms:", ops[op], lays[lay], eq.r2, eq.rmse);
            for (int i = 0; i < eq.ncoef; i++)
                printf(" %s=%.4g (t %.1f, p %.2g)", eq.names[i], eq.coef[i], eq.tstat[i], eq.pval[i]);
            printf("\n");
        }
    mh_camp_data_free(&d);
    if (mh_camp_model_save(&m, argv[3], &e)) return fail(&e);
    printf("\nmodel saved to %s\n", argv[3]);
    return 0;
}

static int parse_req(const char *s, mh_camp_kernel *k) {
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", s);
    char *save = NULL;
    for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        char rw;
        int word;
        double n;
        if (sscanf(tok, "%c%d=%lf", &rw, &word, &n) != 3 || (rw != 'r' && rw != 'w')) return -1;
        int i = mh_camp_word_index(word);
        if (i < 0 || n < 0) return -1;
        k->req[rw == 'w'][i] += n;
    }
    return 0;
}

static int cmd_band(int argc, char **argv) {
    if (argc < 3) return usage();
    mh_camp_kernel k;
    memset(&k, 0, sizeof k);
    for (int i = 3; i < argc; i++) {
        if (!strcmp(argv[i], "--warps") && i + 1 < argc) k.warps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--time") && i + 1 < argc) k.time_ms = atof(argv[++i]);
        else if (!strcmp(argv[i], "--max-warps") && i + 1 < argc) k.max_warps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--req") && i + 1 < argc) {
            if (parse_req(argv[++i], &k)) {
                fprintf(stderr, "camp_tool: bad --req '%s' (want r4=N,w16=N,...)\n", argv[i]);
                return 1;
            }
        } else return usage();
    }
    mh_err e = {0};
    mh_camp_model m;
    mh_camp_band b;
    if (mh_camp_model_load(&m, argv[2], &e)) return fail(&e);
    if (mh_camp_band_compute(&m, &k, &b, &e)) return fail(&e);
    char *js = mh_camp_band_json(&b);
    if (!js) {
        fprintf(stderr, "camp_tool: out of memory\n");
        return 2;
    }
    printf("%s\n", js);
    free(js);
    return 0;
}

/* validate.csv: kernel,warps,bps,tpb,achieved_bps,r2,r4,r8,r16,w2,w4,w8,w16,rep,time_ms */
#define MAXK 16
#define MAXPTS 128
typedef struct kser {
    char name[64];
    mh_camp_kernel k;
    int n;
    int warps[MAXPTS];
    double t[MAXPTS][16];
    int nrep[MAXPTS];
    double med[MAXPTS];
} kser;

static int cmpd(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static int load_validate(const char *path, kser *ks, int *nk) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        return -1;
    }
    char line[1024];
    int header = 0;
    *nk = 0;
    while (fgets(line, sizeof line, f)) {
        if (line[0] == '#') continue;
        if (!header) {
            header = 1;
            continue;
        }
        char name[64];
        int warps, bps, tpb, ach, rep;
        double r[4], w[4], t;
        if (sscanf(line, "%63[^,],%d,%d,%d,%d,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%lf,%d,%lf", name, &warps,
                   &bps, &tpb, &ach, &r[0], &r[1], &r[2], &r[3], &w[0], &w[1], &w[2], &w[3], &rep,
                   &t) != 15) {
            fprintf(stderr, "camp_tool: %s: malformed line: %s", path, line);
            fclose(f);
            return -1;
        }
        if (ach != bps) continue; /* occupancy not as asked */
        int i;
        for (i = 0; i < *nk && strcmp(ks[i].name, name); i++) {}
        if (i == *nk) {
            if (*nk == MAXK) continue;
            memset(&ks[i], 0, sizeof ks[i]);
            snprintf(ks[i].name, sizeof ks[i].name, "%s", name);
            for (int j = 0; j < 4; j++) {
                ks[i].k.req[0][j] = r[j];
                ks[i].k.req[1][j] = w[j];
            }
            (*nk)++;
        }
        kser *s = &ks[i];
        int j;
        for (j = 0; j < s->n && s->warps[j] != warps; j++) {}
        if (j == s->n) {
            if (s->n == MAXPTS) continue;
            s->warps[s->n++] = warps;
        }
        if (s->nrep[j] < 16) s->t[j][s->nrep[j]++] = t;
    }
    fclose(f);
    for (int i = 0; i < *nk; i++)
        for (int j = 0; j < ks[i].n; j++) {
            int n = ks[i].nrep[j];
            qsort(ks[i].t[j], n, sizeof(double), cmpd);
            ks[i].med[j] = n % 2 ? ks[i].t[j][n / 2] : 0.5 * (ks[i].t[j][n / 2 - 1] + ks[i].t[j][n / 2]);
        }
    return 0;
}

/* Runs the benchmark (sweep mode), fits, saves the per-device model. */
static int cmd_calibrate(int argc, char **argv) {
    if (argc < 5) return usage();
    mh_err e = {0};
    mh_camp_model m;
    const char *const *extra = (const char *const *)(argv + 5);
    if (mh_camp_calibrate(argv[2], argv[3], argv[4], extra, &m, &e)) return fail(&e);
    char path[4096];
    if (mh_camp_model_path(argv[4], m.device, path, sizeof path, &e)) return fail(&e);
    print_model(&m);
    printf("\nmodel saved to %s\n", path);
    return 0;
}

/* Prediction error of a fitted model on another run's sweep (held-out run). */
static int cmd_check(int argc, char **argv) {
    if (argc != 4) return usage();
    mh_err e = {0};
    mh_camp_model m;
    mh_camp_data d = {0};
    if (mh_camp_model_load(&m, argv[2], &e)) return fail(&e);
    if (mh_camp_data_load_csv(&d, argv[3], &e)) return fail(&e);
    for (int op = 0; op < 2; op++)
        for (int lay = 0; lay < 2; lay++) {
            double *p = malloc(d.n * sizeof *p), *t = malloc(d.n * sizeof *t), mx = 0;
            int n = 0;
            for (size_t i = 0; p && t && i < d.n; i++) {
                const mh_camp_sample *s = &d.s[i];
                if (s->op != op || s->layout != lay) continue;
                /* scale to the model's iteration count if the runs differ */
                p[n] = mh_camp_eq_predict(&m.eq[op][lay], s->word, s->warps) * s->iters /
                       m.eq[op][lay].iters;
                t[n] = s->time_ms;
                double err = fabs(p[n] - t[n]) / t[n];
                if (err > mx) mx = err;
                n++;
            }
            printf("%s/%s: %d points, geo-mean error %.1f%%, max %.1f%%\n", ops[op], lays[lay], n,
                   100 * mh_camp_geomean_err(p, t, n), 100 * mx);
            free(p);
            free(t);
        }
    mh_camp_data_free(&d);
    return 0;
}

static int cmd_validate(int argc, char **argv) {
    if (argc < 4) return usage();
    const char *json_out = NULL;
    for (int i = 4; i < argc; i++) {
        if (!strcmp(argv[i], "--json") && i + 1 < argc) json_out = argv[++i];
        else return usage();
    }
    mh_err e = {0};
    mh_camp_model m;
    if (mh_camp_model_load(&m, argv[2], &e)) return fail(&e);
    static kser ks[MAXK];
    int nk = 0;
    if (load_validate(argv[3], ks, &nk)) return 2;
    FILE *js = json_out ? fopen(json_out, "w") : NULL;
    if (json_out && !js) {
        perror(json_out);
        return 2;
    }
    if (js) fprintf(js, "{\"device\":\"%s\",\"kernels\":[", m.device);
    for (int i = 0; i < nk; i++) {
        kser *s = &ks[i];
        double gb = NAN, mb = NAN, ge = NAN, me = NAN;
        mh_err e1 = {0}, e2 = {0};
        int okb = !mh_camp_validate_best(&m, &s->k, s->warps, s->med, s->n, &gb, &mb, &e1);
        int oke = !mh_camp_validate_extrap(&m, &s->k, s->warps, s->med, s->n, &ge, &me, &e2);
        printf("\n%s (%d configurations)\n", s->name, s->n);
        if (okb) printf("  best line vs measured: geo-mean error %.1f%% (max %.1f%%)\n", 100 * gb, 100 * mb);
        else printf("  best line: %s\n", e1.msg);
        if (oke)
            printf("  extrapolated from every configuration: geo-mean error %.1f%% (max %.1f%%)\n",
                   100 * ge, 100 * me);
        else printf("  extrapolation: %s\n", e2.msg);
        printf("  %5s %10s %10s %10s %8s\n", "warps", "measured", "best", "worst", "degree");
        if (js) fprintf(js, "%s{\"name\":\"%s\",\"best_geo_err\":%.6f,\"extrap_geo_err\":%.6f,\"points\":[",
                        i ? "," : "", s->name, okb ? gb : -1.0, oke ? ge : -1.0);
        for (int j = 0; j < s->n; j++) {
            mh_camp_kernel k = s->k;
            k.warps = s->warps[j];
            k.time_ms = s->med[j];
            mh_camp_band b;
            if (mh_camp_band_compute(&m, &k, &b, &e)) {
                printf("  %5d %10.4f  (%s)\n", s->warps[j], s->med[j], e.msg);
                continue;
            }
            int w = s->warps[j] - 1;
            printf("  %5d %10.4f %10.4f %10.4f %8.3f%s\n", s->warps[j], s->med[j], b.best[w],
                   b.worst[w], b.degree, b.band_closed ? " (band closed)" : "");
            if (js) fprintf(js, "%s{\"warps\":%d,\"time_ms\":%.6f,\"best\":%.6f,\"worst\":%.6f,\"degree\":%.4f}",
                            j ? "," : "", s->warps[j], s->med[j], b.best[w], b.worst[w], b.degree);
        }
        if (js) fprintf(js, "]}");
    }
    if (js) {
        fprintf(js, "]}\n");
        fclose(js);
    }
    return 0;
}

int main(int argc, char **argv) {
    if (argc < 2) return usage();
    if (!strcmp(argv[1], "fit")) return cmd_fit(argc, argv);
    if (!strcmp(argv[1], "band")) return cmd_band(argc, argv);
    if (!strcmp(argv[1], "validate")) return cmd_validate(argc, argv);
    if (!strcmp(argv[1], "check")) return cmd_check(argc, argv);
    if (!strcmp(argv[1], "calibrate")) return cmd_calibrate(argc, argv);
    return usage();
}
