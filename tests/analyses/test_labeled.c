/* test_labeled.c -- detection precision and recall over the labeled example
 * set (tests/analyses/labeled.tsv), failing on any missed label or any false
 * finding on a well-coalesced control.
 *
 *   test_labeled --labels FILE --source synth|opencl|cuda [--memheat EXE]
 *                [--program EXE | --examples-dir DIR] [--workdir DIR] [--strict]
 *
 * labeled.tsv columns (tab-separated; '#' starts a comment line):
 *   source   synth | opencl | cuda
 *   program  synth: the shape to generate; opencl: the kernel selector passed
 *            to ocl_examples --only; cuda: the example binary in --examples-dir
 *   kernel   launch name (a CUDA display name matches up to its '(')
 *   object   data-object label; "LABEL#N" = the N-th object (allocation
 *            order, from 0) with that label (CUDA traces label objects by how
 *            they were allocated: "cudaMalloc"); "@N" = the trace's N-th object
 *   expected comma-separated pattern names (memheat's names: strided,
 *            false_sharing, ...); "coalesced" marks a control; "-" means no
 *            finding at all is expected
 *   args     synth: key=value list (warps, blocks, iters, stride, offset,
 *            seed); opencl/cuda: program arguments ("-" = none)
 * Lines sharing (source, program, args) share one traced run. A finding on a
 * labeled object that is not expected counts as a false positive; a missed
 * expected pattern as a false negative. Exit 0 only with no false negative
 * and no false positive on a control (with --strict: no false positive at
 * all); recall and precision are printed, overall and per pattern. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "render/analyze.h"
#include "collectors/synth.h"
#include "util/grow.h"

typedef struct label {
    char source[16], program[128], kernel[128], object[64], expected[160], args[256];
    int line;
} label;

static int split_tabs(char *s, char **f, int max) {
    int n = 0;
    while (n < max) {
        f[n++] = s;
        char *t = strchr(s, '\t');
        if (!t) break;
        *t = 0;
        s = t + 1;
        while (*s == '\t') s++;
    }
    return n;
}

static int kernel_matches(const char *display, const char *want) {
    size_t n = strlen(want);
    if (strncmp(display, want, n) != 0) return 0;
    return display[n] == 0 || display[n] == '(' || display[n] == '<';
}

/* Does object obj (label) match the label spec? */
static int obj_matches(const mh_model *m, int64_t obj, const char *label, const char *spec) {
    if (spec[0] == '@') return obj == strtoll(spec + 1, NULL, 10);
    const char *hash = strchr(spec, '#');
    if (!hash) return !strcmp(label, spec);
    size_t ln = (size_t)(hash - spec);
    if (strlen(label) != ln || strncmp(label, spec, ln) || obj < 0) return 0;
    long want = strtol(hash + 1, NULL, 10), ord = 0;
    for (int64_t j = 0; j < obj && (size_t)j < m->nobjs; j++) {
        const char *l = m->objs[j].a.label ? m->objs[j].a.label : "";
        if (strlen(l) == ln && !strncmp(l, spec, ln)) ord++;
    }
    return ord == want;
}

/* Does finding f's object match the label spec? A kernel argument's view
 * (model.h) matches by its own label or by the allocation it lies in, so
 * labels written per allocation ("cudaMalloc#2") hold in traces with
 * argument records too. */
static int object_matches(const mh_model *m, const mh_pat_finding *f, const char *spec) {
    if (obj_matches(m, f->obj, f->label, spec)) return 1;
    if (f->obj < 0 || (size_t)f->obj >= m->nobjs || m->objs[f->obj].arg < 0) return 0;
    int64_t p = m->objs[f->obj].parent;
    return p >= 0 && (size_t)p < m->nobjs && obj_matches(m, p, m->objs[p].a.label, spec);
}

static int run_child(char *const argv[]) {
    pid_t p = fork();
    if (p < 0) return -1;
    if (p == 0) {
        execv(argv[0], argv);
        _exit(127);
    }
    int st = 0;
    if (waitpid(p, &st, 0) < 0) return -1;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

static int synth_trace(const label *l, const char *path, char *msg, size_t cap) {
    mh_synth_opts o = {0};
    int shape = mh_synth_shape_parse(l->program);
    if (shape < 0) {
        snprintf(msg, cap, "unknown synth shape '%s'", l->program);
        return -1;
    }
    o.shapes = 1u << shape;
    o.iters = 4;
    o.offset = 4; /* the synth API takes 0 as "no shift"; the CLI's default is 4 */
    char buf[256];
    snprintf(buf, sizeof buf, "%s", l->args);
    for (char *tok = strtok(buf, ","); tok && strcmp(tok, "-"); tok = strtok(NULL, ",")) {
        char *eq = strchr(tok, '=');
        if (!eq) continue;
        *eq = 0;
        unsigned long v = strtoul(eq + 1, NULL, 0);
        if (!strcmp(tok, "warps")) o.warps = (uint32_t)v;
        else if (!strcmp(tok, "blocks")) o.blocks = (uint32_t)v;
        else if (!strcmp(tok, "iters")) o.iters = (uint32_t)v;
        else if (!strcmp(tok, "stride")) o.stride = (uint32_t)v;
        else if (!strcmp(tok, "offset")) o.offset = (uint32_t)v;
        else if (!strcmp(tok, "seed")) o.seed = v;
        else {
            snprintf(msg, cap, "unknown synth option '%s'", tok);
            return -1;
        }
    }
    mh_err err = {0};
    if (mh_synth_write(path, &o, &err) != MH_OK) {
        snprintf(msg, cap, "%s", err.msg);
        return -1;
    }
    return 0;
}

static int traced_run(const label *l, const char *memheat, const char *program, const char *exdir,
                      const char *base, char *msg, size_t cap) {
    char *argv[64];
    int n = 0;
    char prog[1024], argbuf[256];
    argv[n++] = (char *)memheat;
    argv[n++] = "run";
    argv[n++] = "--backend";
    argv[n++] = !strcmp(l->source, "opencl") ? "oclgrind" : "cuda";
    argv[n++] = "--no-timing";
    argv[n++] = "--keep-trace";
    argv[n++] = "-q";
    argv[n++] = "-o";
    argv[n++] = (char *)base;
    argv[n++] = "--";
    if (!strcmp(l->source, "opencl")) {
        argv[n++] = (char *)program;
        argv[n++] = "--only";
        argv[n++] = (char *)l->program;
    } else {
        snprintf(prog, sizeof prog, "%s/%s", exdir, l->program);
        argv[n++] = prog;
    }
    snprintf(argbuf, sizeof argbuf, "%s", l->args);
    for (char *tok = strtok(argbuf, " "); tok && strcmp(tok, "-") && n < 62; tok = strtok(NULL, " ")) argv[n++] = tok;
    argv[n] = NULL;
    int rc = run_child(argv);
    char trace[1100];
    snprintf(trace, sizeof trace, "%s.mht", base);
    struct stat st;
    if (stat(trace, &st) != 0) {
        snprintf(msg, cap, "memheat run exited %d and left no trace %.300s", rc, trace);
        return -1;
    }
    if (rc != 0) fprintf(stderr, "note: memheat run exited %d for %s; the trace is analysed anyway\n", rc, l->program);
    return 0;
}

int main(int argc, char **argv) {
    const char *labels = NULL, *source = NULL, *memheat = NULL, *program = NULL, *exdir = NULL, *workdir = ".";
    int strict = 0;
    for (int i = 1; i < argc; i += 2) {
        if (!strcmp(argv[i], "--strict")) {
            strict = 1;
            i--;
            continue;
        }
        if (i + 1 >= argc) {
            fprintf(stderr, "test_labeled: %s needs a value\n", argv[i]);
            return 2;
        }
        if (!strcmp(argv[i], "--labels")) labels = argv[i + 1];
        else if (!strcmp(argv[i], "--source")) source = argv[i + 1];
        else if (!strcmp(argv[i], "--memheat")) memheat = argv[i + 1];
        else if (!strcmp(argv[i], "--program")) program = argv[i + 1];
        else if (!strcmp(argv[i], "--examples-dir")) exdir = argv[i + 1];
        else if (!strcmp(argv[i], "--workdir")) workdir = argv[i + 1];
        else {
            fprintf(stderr, "test_labeled: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (!labels || !source || (strcmp(source, "synth") && !memheat) || (!strcmp(source, "opencl") && !program) ||
        (!strcmp(source, "cuda") && !exdir)) {
        fprintf(stderr, "usage: test_labeled --labels FILE --source synth|opencl|cuda [--memheat EXE] "
                        "[--program EXE | --examples-dir DIR] [--workdir DIR] [--strict]\n");
        return 2;
    }
    if (mkdir(workdir, 0755) != 0 && errno != EEXIST) {
        fprintf(stderr, "test_labeled: cannot create %s: %s\n", workdir, strerror(errno));
        return 2;
    }
    FILE *f = fopen(labels, "r");
    if (!f) {
        fprintf(stderr, "test_labeled: cannot open %s: %s\n", labels, strerror(errno));
        return 2;
    }
    label *v = NULL;
    size_t nv = 0, capv = 0;
    char line[1024];
    int ln = 0;
    while (fgets(line, sizeof line, f)) {
        ln++;
        line[strcspn(line, "\r\n")] = 0;
        if (!line[0] || line[0] == '#') continue;
        char *fl[6];
        int nf = split_tabs(line, fl, 6);
        if (nf < 5) {
            fprintf(stderr, "%s:%d: needs at least 5 tab-separated columns\n", labels, ln);
            fclose(f);
            return 2;
        }
        if (strcmp(fl[0], source)) continue;
        if (nv == capv) {
            label *g = mh_grow(v, &capv, nv + 1, sizeof *g, 64);
            if (!g) return 2;
            v = g;
        }
        label *l = &v[nv++];
        memset(l, 0, sizeof *l);
        snprintf(l->source, sizeof l->source, "%s", fl[0]);
        snprintf(l->program, sizeof l->program, "%s", fl[1]);
        snprintf(l->kernel, sizeof l->kernel, "%s", fl[2]);
        snprintf(l->object, sizeof l->object, "%s", fl[3]);
        snprintf(l->expected, sizeof l->expected, "%s", fl[4]);
        snprintf(l->args, sizeof l->args, "%s", nf > 5 ? fl[5] : "-");
        l->line = ln;
        char tmp[160];
        snprintf(tmp, sizeof tmp, "%s", l->expected);
        for (char *tok = strtok(tmp, ","); tok; tok = strtok(NULL, ","))
            if (strcmp(tok, "-") && mh_pat_kind_parse(tok) < 0) {
                fprintf(stderr, "%s:%d: unknown pattern '%s'\n", labels, ln, tok);
                fclose(f);
                return 2;
            }
    }
    fclose(f);
    if (!nv) {
        fprintf(stderr, "test_labeled: no '%s' lines in %s\n", source, labels);
        return 2;
    }
    unsigned long tp = 0, fp = 0, fn = 0, control_fp = 0, run_errors = 0;
    unsigned long per_tp[MH_PAT_KIND_COUNT] = {0}, per_fn[MH_PAT_KIND_COUNT] = {0}, per_fp[MH_PAT_KIND_COUNT] = {0};
    int *done = calloc(nv, sizeof *done);
    int runs = 0;
    for (size_t i = 0; i < nv; i++) {
        if (done[i]) continue;
        /* one traced run per (program, args) */
        char base[1024], trace[1100], msg[512] = "";
        snprintf(base, sizeof base, "%s/run%d", workdir, runs++);
        snprintf(trace, sizeof trace, "%s.mht", base);
        unlink(trace);
        int rc = !strcmp(source, "synth") ? synth_trace(&v[i], trace, msg, sizeof msg)
                                          : traced_run(&v[i], memheat, program, exdir, base, msg, sizeof msg);
        mh_analyze_result res;
        mh_err err = {0};
        int have = 0;
        if (rc == 0) {
            int arc = mh_analyze_file(trace, NULL, &res, &err);
            have = arc == MH_OK || arc == MH_ERR_TRUNCATED;
            if (!have) {
                snprintf(msg, sizeof msg, "analyze: %.400s", err.msg);
                mh_analyze_free(&res);
            }
        }
        if (!have) {
            printf("ERROR %s %s [%s]: %s\n", v[i].source, v[i].program, v[i].args, msg);
            run_errors++;
        }
        for (size_t j = i; j < nv; j++) {
            if (done[j] || strcmp(v[j].program, v[i].program) || strcmp(v[j].args, v[i].args)) continue;
            done[j] = 1;
            const label *l = &v[j];
            int want[MH_PAT_KIND_COUNT] = {0}, got[MH_PAT_KIND_COUNT] = {0}, control = 1;
            char tmp[160];
            snprintf(tmp, sizeof tmp, "%s", l->expected);
            for (char *tok = strtok(tmp, ","); tok; tok = strtok(NULL, ",")) {
                int k = mh_pat_kind_parse(tok);
                if (k >= 0) want[k] = 1;
                if (k >= 0 && k != MH_PAT_COALESCED) control = 0;
            }
            if (have) {
                size_t n = 0;
                const mh_pat_finding *fd = mh_pat_findings(res.pat, &n);
                for (size_t k = 0; k < n; k++)
                    if (fd[k].kernel && kernel_matches(fd[k].kernel, l->kernel) &&
                        object_matches(&res.model, &fd[k], l->object))
                        got[fd[k].kind] = 1;
            }
            char gots[256] = "", miss[256] = "", extra[256] = "";
            int lfn = 0, lfp = 0;
            for (int k = 0; k < MH_PAT_KIND_COUNT; k++) {
                const char *nm = mh_pat_kind_name(k);
                if (got[k]) snprintf(gots + strlen(gots), sizeof gots - strlen(gots), "%s%s", *gots ? "," : "", nm);
                if (want[k] && got[k]) tp++, per_tp[k]++;
                if (want[k] && !got[k]) {
                    fn++, per_fn[k]++, lfn++;
                    snprintf(miss + strlen(miss), sizeof miss - strlen(miss), " %s", nm);
                }
                if (!want[k] && got[k]) {
                    fp++, per_fp[k]++, lfp++;
                    snprintf(extra + strlen(extra), sizeof extra - strlen(extra), " %s", nm);
                    if (control) control_fp++;
                }
            }
            printf("%-5s %s:%d %s/%s [%s] expected %s, found %s%s%s%s%s\n",
                   lfn || (lfp && (control || strict)) ? "FAIL" : "ok",
                   labels, l->line, l->kernel, l->object, l->args, l->expected, *gots ? gots : "-",
                   lfn ? "; missed:" : "", miss, lfp ? "; extra:" : "", extra);
        }
        if (have) mh_analyze_free(&res);
    }
    printf("\nper pattern: %-18s %4s %4s %4s %9s %9s\n", "pattern", "tp", "fn", "fp", "precision", "recall");
    for (int k = 0; k < MH_PAT_KIND_COUNT; k++)
        if (per_tp[k] + per_fn[k] + per_fp[k])
            printf("per pattern: %-18s %4lu %4lu %4lu %9.3f %9.3f\n", mh_pat_kind_name(k), per_tp[k], per_fn[k],
                   per_fp[k], per_tp[k] + per_fp[k] ? (double)per_tp[k] / (double)(per_tp[k] + per_fp[k]) : 1.0,
                   per_tp[k] + per_fn[k] ? (double)per_tp[k] / (double)(per_tp[k] + per_fn[k]) : 1.0);
    double prec = tp + fp ? (double)tp / (double)(tp + fp) : 1.0, rec = tp + fn ? (double)tp / (double)(tp + fn) : 1.0;
    printf("\n%s labels: %zu objects in %d runs; precision %.3f (%lu/%lu), recall %.3f (%lu/%lu); false findings on "
           "controls: %lu; run errors: %lu\n",
           source, nv, runs, prec, tp, tp + fp, rec, tp, tp + fn, control_fp, run_errors);
    free(done);
    free(v);
    return (fn || control_fp || (strict && fp) || run_errors) ? 1 : 0;
}
