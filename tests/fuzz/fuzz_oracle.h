/* fuzz_oracle.h -- what memheat must do with a fuzzed trace or profile,
 * checked through the library entry points the commands use, in one
 * process; shared by mh_fuzz_inproc.c (its own mutators, inputs by number)
 * and mh_fuzz_lf.c (libFuzzer, coverage-guided).
 *
 * A trace input goes through one mh_pass with the heat maps (`heatmap`,
 * `info`; its chunks read inline: MEMHEAT_READAHEAD=0 unless set), and on request mh_analyze_file + its JSON (`analyze -o`), the
 * import into a profile (`import`, `run`'s last step) and a threaded pass
 * (launch lanes, the workers' ring, the reader's helpers); a profile input through
 * mh_db_open + mh_report_html (`report`), mh_report_diff against its seed
 * (`diff`) and on request the profile side of `analyze`, `heatmap` and
 * `info`. The exit code each command would give is derived as the CLI does.
 * An input fails when:
 *   - the code is not 0, 1 or 4; an error or notice is not one line or is
 *     SQLite's raw words;
 *   - the code contradicts what the input is (fz_expect): exit 0 on an
 *     input that must fail, no error where the reader must find one, no
 *     exit 4 where records must be skipped, not exit 0 on the seed itself;
 *   - the output contradicts the code: exit 0 with the trace incomplete,
 *     records skipped, a launch miscounted or the end record contradicted;
 *     a heat map emitted twice; an analyze JSON whose "complete" differs
 *     from exit 0; analyze, the import or a threaded pass giving another
 *     code (or other maps) than the pass; a kept profile that does not
 *     open or does not say it is incomplete; profile readers that do not
 *     agree whether the profile is usable; an interrupted profile missing
 *     launches or heat rows;
 *   - a finished launch is lost: every heat map of a launch that ended in
 *     the seed chunks before the damage comes out byte for byte.
 * The process dying (a crash, a sanitizer report) or hanging is the
 * harness's to catch. */
#ifndef MH_FUZZ_ORACLE_H
#define MH_FUZZ_ORACLE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "fuzz_mutate.h"
#include "store/store.h"

typedef struct fz_tally {
    unsigned long inputs, runs, bad_codes, lies, lost, raw_msgs, multi_line;
    unsigned long codes[5];  /* exit codes 0..4 of every run */
    unsigned long kinds[48]; /* inputs per mutation */
    const char *kind_names[48];
} fz_tally;

/* Called after each failure is counted (what failed, the command, the
 * message): mh_fuzz_inproc prints it, mh_fuzz_lf aborts (libFuzzer keeps
 * the input). */
typedef void (*fz_fail_fn)(void *ctx, const char *what, const char *cmd, const char *msg);

typedef struct fz_oracle {
    char work[900];                   /* a folder of its own (a tmpfs is best) */
    char in_t[1024], in_p[1024], json[1024], imp[1024];
    size_t budget;                    /* grouping budget of the analyses */
    FILE *devnull;
    fz_tally t;
    fz_fail_fn on_fail;
    void *fail_ctx;
} fz_oracle;

int fz_oracle_init(fz_oracle *o, const char *work, fz_fail_fn on_fail, void *ctx); /* -1: work not usable */
void fz_oracle_free(fz_oracle *o);
void fz_oracle_count_kind(fz_oracle *o, const char *kind);
unsigned long fz_oracle_failures(const fz_oracle *o);

/* Heat maps as the CRCs of their CSV and regions. */
typedef struct fz_map {
    uint32_t launch, space, crc;
    uint64_t len;
} fz_map;
typedef struct fz_maps {
    fz_map *v;
    size_t n, cap;
    int twice; /* a (launch, space) emitted twice */
} fz_maps;

/* A seed trace: its chunks, encoding, END, heat maps and, per map, the
 * chunk holding its launch's kernel end. */
typedef struct fz_trace_seed {
    fz_trace t;
    fz_buf enc;
    size_t *off;
    fz_seed_end end;
    fz_maps maps;
    uint32_t *end_chunk;
    uint32_t id; /* CRC-32C of enc */
} fz_trace_seed;

/* The seed from a trace's bytes: rechunk = split after every kernel end as
 * collectors flush (a synthetic trace); -1 when it does not read whole. */
int fz_trace_seed_make(fz_oracle *o, const fz_buf *bytes, int rechunk, fz_trace_seed *s);
void fz_trace_seed_free(fz_trace_seed *s);

typedef struct fz_prof_sum {
    size_t launches, maps;
    uint32_t crc; /* of every heat row of every map */
} fz_prof_sum;

/* A seed profile: its bytes, kept open for `diff`, and its summary. */
typedef struct fz_profile_seed {
    fz_buf bytes;
    char path[1024];
    mh_db *db;
    fz_prof_sum sum;
    uint32_t id; /* CRC-32C of bytes */
} fz_profile_seed;

/* The seed from a profile's bytes (written to o->work/seedN.mhdb); -1 when
 * it does not open clean. */
int fz_profile_seed_make(fz_oracle *o, const fz_buf *bytes, unsigned n, fz_profile_seed *s);
/* A profile imported from a trace seed, as `run` writes it. */
int fz_profile_seed_import(fz_oracle *o, const fz_trace_seed *ts, unsigned n, fz_profile_seed *s);
void fz_profile_seed_free(fz_profile_seed *s);

#define FZ_CHECK_ANALYZE 1u /* trace: mh_analyze_file + JSON */
#define FZ_CHECK_IMPORT 2u  /* trace: the import and the profile it keeps */
#define FZ_CHECK_THREADS 4u /* trace: a pass on 3 threads gives what 1 gave */
#define FZ_CHECK_READERS 8u /* profile: analyze, heatmap and info agree with report */

/* One trace input (bytes b, written to o->in_t), what it must give (e) and
 * its seed (NULL: unknown; then no finished launch is looked for). */
void fz_check_trace(fz_oracle *o, const fz_trace_seed *s, const fz_buf *b, const fz_expect *e, unsigned checks);
/* One profile input, already at o->in_p, and its seed. */
void fz_check_profile(fz_oracle *o, const fz_profile_seed *s, const fz_expect *e, unsigned checks);

#endif
