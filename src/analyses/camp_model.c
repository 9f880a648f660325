/* camp_model.c -- the camping model per device as a JSON file (save, load,
 * path), and calibration: running the micro-benchmark sweep, fitting, and
 * saving. Part of the partition-camping model (camp_band.c). */
#include "analyses/camp.h"

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

#include <jansson.h>

#include "analyses/camp_shared.h"

/* ---- model file ---------------------------------------------------------- */

static json_t *dbl_array(const double *v, int n) {
    json_t *a = json_array();
    for (int i = 0; a && i < n; i++) json_array_append_new(a, mh_camp_num_or_null(v[i]));
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
            json_object_set_new(e, "op", json_string(mh_camp_op_names[op]));
            json_object_set_new(e, "layout", json_string(mh_camp_layout_names[lay]));
            json_object_set_new(e, "form", json_string(mh_camp_form_names[eq->form]));
            json_object_set_new(e, "names", names);
            json_object_set_new(e, "coef", dbl_array(eq->coef, eq->ncoef));
            json_object_set_new(e, "se", dbl_array(eq->se, eq->ncoef));
            json_object_set_new(e, "t", dbl_array(eq->tstat, eq->ncoef));
            json_object_set_new(e, "p", dbl_array(eq->pval, eq->ncoef));
            json_object_set_new(e, "knee", dbl_array(eq->knee, MH_CAMP_NWORD));
            json_object_set_new(e, "r2", mh_camp_num_or_null(eq->r2));
            json_object_set_new(e, "rmse", mh_camp_num_or_null(eq->rmse));
            json_object_set_new(e, "cv_err", mh_camp_num_or_null(eq->cv_err));
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
        int op = lookup(mh_camp_op_names, 2, json_string_value(json_object_get(e, "op")));
        int lay = lookup(mh_camp_layout_names, 2, json_string_value(json_object_get(e, "layout")));
        int form = lookup(mh_camp_form_names, MH_CAMP_NFORM, json_string_value(json_object_get(e, "form")));
        if (op < 0 || lay < 0 || form < 0) {
            rc = mh_err_set(err, MH_ERR_FORMAT, "camping model %s: equation %zu: bad op/layout/form",
                            path, i);
            goto out;
        }
        mh_camp_eq *eq = &m->eq[op][lay];
        memset(eq, 0, sizeof *eq);
        eq->form = form;
        eq->ncoef = mh_camp_form_ncoef(form);
        eq->sms = m->sms;
        mh_camp_form_names_fill(eq);
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
                            mh_camp_op_names[op], mh_camp_layout_names[lay]);
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
