/* fuzz_oracle.c -- the checks of a fuzzed input (fuzz_oracle.h), through
 * the library entry points the commands use. */
#define _GNU_SOURCE
#include "fuzz_oracle.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <jansson.h>

#include "cli/profile_in.h"
#include "render/analyze.h"
#include "import/import.h"
#include "pass/pass.h"
#include "report/report.h"
#include "util/crc32c.h"

/* ---- failures and tallies ---- */

static void fail(fz_oracle *o, unsigned long *counter, const char *what, const char *cmd, const char *msg) {
    (*counter)++;
    if (o->on_fail) o->on_fail(o->fail_ctx, what, cmd, msg);
}

void fz_oracle_count_kind(fz_oracle *o, const char *kind) {
    fz_tally *t = &o->t;
    size_t n = sizeof t->kinds / sizeof *t->kinds;
    for (size_t i = 0; i < n; i++) {
        if (!t->kind_names[i]) t->kind_names[i] = kind;
        if (!strcmp(t->kind_names[i], kind)) {
            t->kinds[i]++;
            return;
        }
    }
}

unsigned long fz_oracle_failures(const fz_oracle *o) {
    return o->t.bad_codes + o->t.lies + o->t.lost + o->t.raw_msgs + o->t.multi_line;
}

int fz_oracle_init(fz_oracle *o, const char *work, fz_fail_fn on_fail, void *ctx) {
    memset(o, 0, sizeof *o);
    snprintf(o->work, sizeof o->work, "%s", work);
    if (mkdir(work, 0755) != 0 && errno != EEXIST) return -1;
    snprintf(o->in_t, sizeof o->in_t, "%s/in.mht", work);
    snprintf(o->in_p, sizeof o->in_p, "%s/in.mhdb", work);
    snprintf(o->json, sizeof o->json, "%s/out.json", work);
    snprintf(o->imp, sizeof o->imp, "%s/imported.mhdb", work);
    o->budget = 1u << 20;
    o->on_fail = on_fail;
    o->fail_ctx = ctx;
    o->devnull = fopen("/dev/null", "w");
    /* chunks read inline: no helper threads started and joined per input
     * (FZ_CHECK_THREADS turns them on for its pass) */
    setenv("MEMHEAT_READAHEAD", "0", 0);
    return o->devnull ? 0 : -1;
}

void fz_oracle_free(fz_oracle *o) {
    if (o->devnull) fclose(o->devnull);
    o->devnull = NULL;
}

/* The exit code the command would give (src/cli/cli.c). */
static int exit_of(int rc, int noted) {
    if (rc == MH_OK) return noted ? 4 : 0;
    if (rc == MH_ERR_TRUNCATED) return 4;
    if (rc == MH_ERR_ARG) return 2;
    if (rc == MH_ERR_CHILD) return 3;
    return 1;
}

/* SQLite's own words in a message are memheat's only after "SQLite: ". */
static int raw_sqlite(const char *msg) {
    static const char *const raw[] = {"no such column", "no such table", "misuse of", "SQLite error",
                                      "database or disk is full", "readonly database", "btreeInitPage",
                                      "disk image is malformed", "malformed JSON", "disk I/O error",
                                      "unable to open database", "while executing SQL"};
    const char *said = strstr(msg, "SQLite: ");
    for (size_t i = 0; i < sizeof raw / sizeof *raw; i++) {
        const char *at = strstr(msg, raw[i]);
        if (at && (!said || said > at)) return 1;
    }
    return 0;
}

/* Common checks of one run: its code and its message. */
static void check_run(fz_oracle *o, const char *cmd, int code, int rc, const char *msg, const fz_expect *e) {
    fz_tally *t = &o->t;
    t->runs++;
    if (code >= 0 && code <= 4) t->codes[code]++;
    if (code != 0 && code != 1 && code != 4) fail(o, &t->bad_codes, "exit code", cmd, msg);
    if (rc != MH_OK && !msg[0]) fail(o, &t->multi_line, "an error without a message", cmd, msg);
    if (strchr(msg, '\n')) fail(o, &t->multi_line, "more than one line", cmd, msg);
    if (raw_sqlite(msg)) fail(o, &t->raw_msgs, "raw SQLite message", cmd, msg);
    if (e->must_fail && code == 0) fail(o, &t->lies, "exit 0 on a damaged input", cmd, msg);
    if (e->must_error && rc == MH_OK) fail(o, &t->lies, "damage not reported as an error", cmd, msg);
    if (e->must_partial && code != 4) fail(o, &t->lies, "not exit 4 on skipped records", cmd, msg);
    if (e->clean && code != 0) fail(o, &t->lies, "the seed itself does not exit 0", cmd, msg);
}

/* ---- heat maps as CRCs of their CSV ---- */

/* A map's CRC: every row and region as the CSV and regions files show them
 * (tag, word and sector temperatures, kinds, region; each region's object,
 * bytes, tags, rows and label), without formatting them as text. */
static uint32_t map_crc(const mh_heat_result *r, uint64_t *len) {
    uint32_t c = 0;
    for (size_t i = 0; i < r->nrows; i++) {
        const mh_heat_row *w = &r->rows[i];
        uint64_t v[4 + MH_HEAT_WORDS] = {w->tag, w->sector, (uint64_t)(int64_t)w->region, 0};
        for (unsigned k = 0; k < MH_HEAT_WORDS; k++) v[4 + k] = w->word[k] | (uint64_t)w->kinds[k] << 32;
        c = mh_crc32c(c, v, sizeof v);
    }
    for (size_t i = 0; i < r->nregions; i++) {
        const mh_heat_region *g = &r->regions[i];
        uint64_t v[9] = {(uint64_t)g->obj, g->start, g->end,     g->first_tag, g->last_tag,
                         g->first_row,     g->nrows, g->used_lo, g->used_hi};
        c = mh_crc32c(c, v, sizeof v);
        if (g->label) c = mh_crc32c(c, g->label, strlen(g->label) + 1);
    }
    *len = r->nrows * 1000003ull + r->nregions;
    return c;
}

static int on_heat(void *ctx, const mh_heat_result *r, mh_err *err) {
    fz_maps *m = ctx;
    uint64_t len;
    uint32_t crc = map_crc(r, &len);
    for (size_t i = 0; i < m->n; i++)
        if (m->v[i].launch == r->launch->l.id && m->v[i].space == r->space) m->twice = 1;
    if (m->n == m->cap) {
        m->cap = m->cap ? 2 * m->cap : 64;
        fz_map *v = realloc(m->v, m->cap * sizeof *v);
        if (!v) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        m->v = v;
    }
    m->v[m->n++] = (fz_map){r->launch->l.id, r->space, crc, len};
    return MH_OK;
}

/* Maps of the seed whose launch ended in a chunk before keep, missing or different in got. */
static size_t lost_maps(const fz_trace_seed *s, size_t keep, const fz_maps *got) {
    size_t lost = 0;
    for (size_t i = 0; i < s->maps.n; i++) {
        if (keep != FZ_KEEP_ALL && s->end_chunk[i] >= keep) continue;
        const fz_map *a = &s->maps.v[i];
        int same = 0;
        for (size_t j = 0; j < got->n && !same; j++) {
            const fz_map *b = &got->v[j];
            same = a->launch == b->launch && a->space == b->space && a->crc == b->crc && a->len == b->len;
        }
        lost += !same;
    }
    return lost;
}

static int same_maps(const fz_maps *a, const fz_maps *b) {
    if (a->n != b->n) return 0;
    for (size_t i = 0; i < a->n; i++)
        if (a->v[i].launch != b->v[i].launch || a->v[i].space != b->v[i].space || a->v[i].crc != b->v[i].crc ||
            a->v[i].len != b->v[i].len)
            return 0;
    return 1;
}

/* ---- a trace input ---- */

/* One pass with the heat maps, as `heatmap` runs it (`analyze` adds the other analyses). */
static int pass_maps(const char *path, size_t budget, unsigned threads, fz_maps *got, mh_pass_stats *st, char *note,
                     size_t cap, mh_err *err) {
    mh_model m;
    mh_pass *p;
    mh_pass_opts po = {.analyses = MH_PASS_HEAT, .threads = threads, .group_budget = budget};
    memset(st, 0, sizeof *st);
    note[0] = '\0';
    int rc = mh_pass_open(&p, path, &m, &po, err);
    if (rc != MH_OK) return rc;
    mh_pass_consumer pc = {.ctx = got, .heat = on_heat};
    rc = mh_pass_add(p, &pc, err);
    if (rc == MH_OK) rc = mh_pass_run(p, err);
    *st = *mh_pass_stats_get(p);
    mh_pass_notice(st, path, note, cap);
    mh_pass_close(p);
    mh_model_free(&m);
    return rc;
}

static void check_analyze(fz_oracle *o, const fz_expect *e, int code) {
    mh_analyze_opts ao = {.threads = 1, .group_budget = o->budget};
    mh_analyze_result res;
    memset(&res, 0, sizeof res);
    mh_err aerr = {0};
    unlink(o->json);
    int arc = mh_analyze_file(o->in_t, &ao, &res, &aerr);
    int wrote = 0;
    if (arc == MH_OK || arc == MH_ERR_TRUNCATED) {
        mh_err jerr = {0};
        if (mh_analyze_write_json(o->json, &res, &jerr) != MH_OK) fail(o, &o->t.lies, "JSON not written", "analyze", jerr.msg);
        else wrote = 1;
    }
    int acode = exit_of(arc, res.notice[0] != 0);
    check_run(o, "analyze", acode, arc, arc ? aerr.msg : res.notice, e);
    mh_analyze_free(&res);
    if (acode != code) {
        char what[96];
        snprintf(what, sizeof what, "analyze exits %d, the pass %d", acode, code);
        fail(o, &o->t.lies, "two commands, two exit codes", "analyze", what);
    }
    if (wrote) {
        fz_buf j = {0};
        if (fz_slurp(o->json, &j) == 0) {
            j.p[j.n] = '\0';
            int says_complete = strstr((char *)j.p, "\"complete\": true") != NULL;
            if (says_complete != (acode == 0)) fail(o, &o->t.lies, "JSON 'complete' vs exit code", "analyze", "");
        }
        free(j.p);
    }
}

/* `memheat import`: the same code as the pass, and a kept profile that opens
 * and says whether it is complete. */
static void check_import(fz_oracle *o, const fz_expect *e, int code) {
    mh_db_import_opts io = {.trace_path = o->in_t, .threads = 1};
    mh_err err = {0};
    unlink(o->imp);
    int rc = mh_db_import_trace(o->imp, 1, &io, &err);
    int icode = exit_of(rc, 0);
    check_run(o, "import", icode, rc, rc ? err.msg : "", e);
    if (icode != code) {
        char what[96];
        snprintf(what, sizeof what, "import exits %d, the pass %d: %.60s", icode, code, err.msg);
        fail(o, &o->t.lies, "two commands, two exit codes", "import", what);
    }
    if (access(o->imp, F_OK) != 0) {
        if (icode == 0) fail(o, &o->t.lies, "exit 0 without a profile", "import", "");
        return;
    }
    mh_db *db;
    mh_err oerr = {0};
    if (mh_db_open(&db, o->imp, 0, &oerr) != MH_OK) {
        fail(o, &o->t.lies, "the profile it kept does not open", "import", oerr.msg);
        return;
    }
    char note[600];
    if (mh_db_notice(db, note, sizeof note) != (icode != 0))
        fail(o, &o->t.lies, "the profile's completeness vs the exit code", "import", note);
    mh_db_close(db);
}

void fz_check_trace(fz_oracle *o, const fz_trace_seed *s, const fz_buf *b, const fz_expect *e, unsigned checks) {
    if (fz_spit(o->in_t, b->p, b->n) != 0) {
        fprintf(stderr, "fuzz: cannot write %s\n", o->in_t);
        exit(2);
    }
    fz_maps got = {0};
    mh_pass_stats st;
    char note[1024];
    mh_err err = {0};
    int rc = pass_maps(o->in_t, o->budget, 1, &got, &st, note, sizeof note, &err);
    int code = exit_of(rc, note[0] != 0);
    check_run(o, "pass", code, rc, rc ? err.msg : note, e);
    if (strchr(note, '\n')) fail(o, &o->t.multi_line, "a notice of more than one line", "pass", note);
    if (code == 0 && (!st.complete || st.partial || st.skipped_total || st.miscounted || st.inconsistency[0]))
        fail(o, &o->t.lies, "exit 0 on an incomplete trace or with records skipped", "pass", note);
    if (code == 0 && got.twice) fail(o, &o->t.lies, "a heat map emitted twice", "pass", note);
    if (s) {
        size_t lost = lost_maps(s, e->keep_chunks, &got);
        if (lost) {
            char what[64];
            snprintf(what, sizeof what, "%zu of %zu heat maps", lost, s->maps.n);
            fail(o, &o->t.lost, "finished launches lost", "pass", what);
        }
        if (e->clean && got.n != s->maps.n) fail(o, &o->t.lies, "the seed's maps differ in number", "pass", "");
    }
    if (checks & FZ_CHECK_THREADS) { /* launch lanes and the workers' ring: the same results */
        fz_maps g3 = {0};
        mh_pass_stats st3;
        char note3[1024];
        mh_err err3 = {0};
        char *ra = getenv("MEMHEAT_READAHEAD") ? strdup(getenv("MEMHEAT_READAHEAD")) : NULL;
        setenv("MEMHEAT_READAHEAD", "2", 1); /* and the reader's helpers */
        int rc3 = pass_maps(o->in_t, o->budget, 3, &g3, &st3, note3, sizeof note3, &err3);
        if (ra) setenv("MEMHEAT_READAHEAD", ra, 1);
        else unsetenv("MEMHEAT_READAHEAD");
        free(ra);
        if (rc3 != rc || strcmp(note3, note) || (rc3 ? strcmp(err3.msg, err.msg) : 0) || !same_maps(&g3, &got)) {
            char what[200];
            snprintf(what, sizeof what, "3 threads: %d %.80s, 1 thread: %d %.80s", rc3, rc3 ? err3.msg : note3, rc,
                     rc ? err.msg : note);
            fail(o, &o->t.lies, "threads change the result", "pass", what);
        }
        free(g3.v);
    }
    free(got.v);
    if (checks & FZ_CHECK_ANALYZE) check_analyze(o, e, code);
    if (checks & FZ_CHECK_IMPORT) check_import(o, e, code);
}

/* ---- a profile input ---- */

static int row_crc(void *ctx, const mh_db_heat_row *row) {
    uint32_t *crc = ctx;
    *crc = mh_crc32c(*crc, row, sizeof *row);
    return 0;
}

static int profile_sum(mh_db *db, fz_prof_sum *s, mh_err *err) {
    json_t *root = NULL;
    memset(s, 0, sizeof *s);
    int rc = mh_db_read_summary(db, &root, err);
    if (rc != MH_OK) return rc;
    json_t *hm = json_object_get(root, "heat_maps"), *v;
    s->launches = json_array_size(json_object_get(root, "launches"));
    s->maps = json_array_size(hm);
    size_t i;
    json_array_foreach(hm, i, v) {
        rc = mh_db_read_heat(db, json_integer_value(json_object_get(v, "id")), row_crc, &s->crc, err);
        if (rc != MH_OK) break;
    }
    json_decref(root);
    return rc;
}

static int heat_count(void *ctx, const mh_heat_result *r, mh_err *err) {
    (void)r;
    (void)err;
    (*(size_t *)ctx)++;
    return MH_OK;
}

/* The profile side of `analyze` (its text to /dev/null, its JSON to a
 * file), `heatmap` and `info`: each agrees with `report` on whether the
 * profile can be read (exit 1 or not). */
static void check_readers(fz_oracle *o, const fz_expect *e, int report_code) {
    const char *cmds[3] = {"analyze", "heatmap", "info"};
    for (int k = 0; k < 3; k++) {
        mh_err err = {0};
        int rc;
        if (k == 0) {
            mh_cli_profile_analyze_opts po = {.out = o->json};
            fflush(stdout);
            int saved = dup(1);
            dup2(fileno(o->devnull), 1);
            rc = mh_cli_profile_analyze(o->in_p, &po, &err);
            fflush(stdout);
            dup2(saved, 1);
            close(saved);
        } else if (k == 1) {
            size_t n = 0;
            rc = mh_cli_profile_heat(o->in_p, 0, heat_count, &n, NULL, NULL, &err);
        } else {
            mh_db *db;
            json_t *sum = NULL;
            rc = mh_db_open(&db, o->in_p, 0, &err);
            if (rc == MH_OK) {
                rc = mh_db_read_summary(db, &sum, &err);
                char note[600];
                if (rc == MH_OK && mh_db_notice(db, note, sizeof note)) rc = mh_err_set(&err, MH_ERR_TRUNCATED, "%s", note);
                json_decref(sum);
                mh_db_close(db);
            }
        }
        int code = exit_of(rc, 0);
        check_run(o, cmds[k], code, rc, rc ? err.msg : "", e);
        if ((code == 1) != (report_code == 1)) {
            char what[400];
            snprintf(what, sizeof what, "%s exits %d, report %d: %.300s", cmds[k], code, report_code, err.msg);
            fail(o, &o->t.lies, "readers of one profile disagree", cmds[k], what);
        }
    }
}

void fz_check_profile(fz_oracle *o, const fz_profile_seed *s, const fz_expect *e, unsigned checks) {
    /* `memheat report` */
    mh_err err = {0};
    mh_db *db = NULL;
    char note[600] = "";
    int rc = mh_db_open(&db, o->in_p, 0, &err);
    if (rc == MH_OK) {
        mh_report_opts ro = {0};
        rc = mh_report_html(db, o->devnull, &ro, &err);
        mh_db_notice(db, note, sizeof note);
        if (rc == MH_OK && e->must_partial && s) { /* interrupted: everything written is still there */
            fz_prof_sum sum;
            mh_err serr = {0};
            if (profile_sum(db, &sum, &serr) != MH_OK || sum.launches != s->sum.launches || sum.maps != s->sum.maps ||
                sum.crc != s->sum.crc)
                fail(o, &o->t.lost, "an interrupted profile lost launches or heat rows", "report", serr.msg);
        }
        mh_db_close(db);
    }
    int code = exit_of(rc, note[0] != 0);
    check_run(o, "report", code, rc, rc ? err.msg : note, e);
    /* `memheat diff SEED INPUT` */
    if (s) {
        mh_err derr = {0};
        char dnote[600] = "";
        int drc = mh_db_open(&db, o->in_p, 0, &derr);
        if (drc == MH_OK) {
            drc = mh_report_diff(s->db, db, o->devnull, 0, o->devnull, &derr);
            mh_db_notice(db, dnote, sizeof dnote);
            mh_db_close(db);
        }
        check_run(o, "diff", exit_of(drc, dnote[0] != 0), drc, drc ? derr.msg : dnote, e);
    }
    if (checks & FZ_CHECK_READERS) check_readers(o, e, code);
}

/* ---- seeds ---- */

int fz_trace_seed_make(fz_oracle *o, const fz_buf *bytes, int rechunk, fz_trace_seed *s) {
    memset(s, 0, sizeof *s);
    if (fz_trace_parse(bytes, &s->t)) return -1;
    if (rechunk) fz_rechunk(&s->t);
    s->off = malloc((s->t.n + 1) * sizeof *s->off);
    s->enc = fz_trace_encode(&s->t, s->off);
    for (size_t i = 0; i < s->t.n; i++) { /* compress each chunk once: mutants reuse the frames */
        fz_chunk *k = &s->t.c[i];
        free(k->comp);
        k->ncomp = s->off[i + 1] - s->off[i] - 24;
        k->comp = malloc(k->ncomp);
        memcpy(k->comp, s->enc.p + s->off[i] + 24, k->ncomp);
    }
    s->id = mh_crc32c(0, s->enc.p, s->enc.n);
    if (fz_seed_end_of(&s->t, &s->end) != 0) return -1;
    mh_pass_stats st;
    char note[1024];
    mh_err err = {0};
    if (fz_spit(o->in_t, s->enc.p, s->enc.n) != 0 ||
        pass_maps(o->in_t, o->budget, 1, &s->maps, &st, note, sizeof note, &err) != MH_OK || note[0]) {
        fprintf(stderr, "fuzz: a seed trace does not read clean: %s%s\n", err.msg, note);
        return -1;
    }
    /* each map's launch: the chunk of its kernel end (record 6, launch id first) */
    s->end_chunk = malloc((s->maps.n ? s->maps.n : 1) * sizeof *s->end_chunk);
    for (size_t i = 0; i < s->maps.n; i++) {
        s->end_chunk[i] = (uint32_t)s->t.n;
        for (size_t k = 0; k < s->t.n && s->end_chunk[i] == s->t.n; k++) {
            const fz_chunk *ch = &s->t.c[k];
            for (size_t off = 0; off + 12 <= ch->nraw; off = fz_rec_next(ch, off)) {
                const uint8_t *p = ch->raw + off + 8;
                uint32_t id = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
                if (ch->raw[off] == 6 && id == s->maps.v[i].launch) s->end_chunk[i] = (uint32_t)k;
            }
        }
        if (s->end_chunk[i] == s->t.n) return -1;
    }
    return 0;
}

void fz_trace_seed_free(fz_trace_seed *s) {
    fz_trace_free(&s->t);
    free(s->enc.p);
    free(s->off);
    free(s->maps.v);
    free(s->end_chunk);
    memset(s, 0, sizeof *s);
}

int fz_profile_seed_make(fz_oracle *o, const fz_buf *bytes, unsigned n, fz_profile_seed *s) {
    memset(s, 0, sizeof *s);
    snprintf(s->path, sizeof s->path, "%s/seed%u.mhdb", o->work, n);
    s->bytes.p = malloc(bytes->n + 1);
    memcpy(s->bytes.p, bytes->p, bytes->n);
    s->bytes.n = bytes->n;
    s->id = mh_crc32c(0, bytes->p, bytes->n);
    mh_err err = {0};
    char note[600] = "";
    if (fz_spit(s->path, bytes->p, bytes->n) != 0 || mh_db_open(&s->db, s->path, 0, &err) != MH_OK ||
        profile_sum(s->db, &s->sum, &err) != MH_OK || mh_db_notice(s->db, note, sizeof note)) {
        fprintf(stderr, "fuzz: a seed profile does not read clean: %s\n", err.msg[0] ? err.msg : note);
        fz_profile_seed_free(s);
        return -1;
    }
    return 0;
}

int fz_profile_seed_import(fz_oracle *o, const fz_trace_seed *ts, unsigned n, fz_profile_seed *s) {
    char path[1100];
    snprintf(path, sizeof path, "%s/import%u.mhdb", o->work, n);
    mh_db_import_opts io = {.trace_path = o->in_t, .threads = 1};
    mh_err err = {0};
    fz_buf b = {0};
    int rc = fz_spit(o->in_t, ts->enc.p, ts->enc.n) == 0 && mh_db_import_trace(path, 1, &io, &err) == MH_OK &&
                     fz_slurp(path, &b) == 0
                 ? fz_profile_seed_make(o, &b, n, s)
                 : -1;
    if (rc) fprintf(stderr, "fuzz: importing a seed: %s\n", err.msg);
    free(b.p);
    unlink(path);
    return rc;
}

void fz_profile_seed_free(fz_profile_seed *s) {
    if (s->db) mh_db_close(s->db);
    free(s->bytes.p);
    memset(s, 0, sizeof *s);
}
