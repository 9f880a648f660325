/* outname.c -- substitutions in output names (%p %h %r %q{VAR} %%), one
 * implementation for `memheat run -o` and anything else naming files per
 * process (src/util/outname.h). */
#include "util/outname.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const mh_outname_rank_vars[4] = {"RANK", "OMPI_COMM_WORLD_RANK", "PMI_RANK", "SLURM_PROCID"};

void mh_outname_rank(char *out, size_t cap) {
    for (size_t i = 0; i < sizeof mh_outname_rank_vars / sizeof *mh_outname_rank_vars; i++) {
        const char *v = getenv(mh_outname_rank_vars[i]);
        if (v && *v) {
            snprintf(out, cap, "%s", v);
            return;
        }
    }
    snprintf(out, cap, "0");
}

static void host_short(char *out, size_t cap) {
    char h[256];
    if (gethostname(h, sizeof h) != 0) snprintf(h, sizeof h, "localhost");
    h[sizeof h - 1] = '\0';
    char *dot = strchr(h, '.');
    if (dot && dot != h) *dot = '\0';
    snprintf(out, cap, "%s", h);
}

int mh_outname_expand(const char *tmpl, char *out, size_t cap, mh_err *err) {
    size_t n = 0;
    if (cap == 0) return mh_err_set(err, MH_ERR_ARG, "output name '%s': no room", tmpl);
    for (const char *p = tmpl; *p; p++) {
        char piece[1024];
        const char *add = piece;
        if (*p != '%') {
            piece[0] = *p;
            piece[1] = '\0';
        } else {
            p++;
            switch (*p) {
            case 'p': snprintf(piece, sizeof piece, "%ld", (long)getpid()); break;
            case 'h': host_short(piece, sizeof piece); break;
            case 'r': mh_outname_rank(piece, sizeof piece); break;
            case '%': snprintf(piece, sizeof piece, "%%"); break;
            case 'q': {
                const char *close = p[1] == '{' ? strchr(p + 2, '}') : NULL;
                if (!close || close == p + 2 || (size_t)(close - p - 2) >= sizeof piece)
                    return mh_err_set(err, MH_ERR_ARG, "output name '%s': %%q needs {VARIABLE}", tmpl);
                char var[1024];
                memcpy(var, p + 2, (size_t)(close - p - 2));
                var[close - p - 2] = '\0';
                add = getenv(var);
                if (!add)
                    return mh_err_set(err, MH_ERR_ARG, "output name '%s': environment variable %s is not set",
                                      tmpl, var);
                p = close;
                break;
            }
            case '\0':
                return mh_err_set(err, MH_ERR_ARG, "output name '%s' ends in a lone %%", tmpl);
            default:
                return mh_err_set(err, MH_ERR_ARG,
                                  "output name '%s': unknown substitution %%%c (known: %%p %%h %%r %%q{VAR} %%%%)",
                                  tmpl, *p);
            }
        }
        size_t k = strlen(add);
        if (n + k >= cap) return mh_err_set(err, MH_ERR_ARG, "output name '%s' is too long once expanded", tmpl);
        memcpy(out + n, add, k);
        n += k;
    }
    out[n] = '\0';
    return MH_OK;
}
