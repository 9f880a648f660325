/* rankdata.h -- the numbers of the view by rank (rankdata.c), computed once
 * from a profile's summary JSON (mh_db_read_summary) and shown by the report's
 * rank section (ranks.c, rankview.c), `memheat diff` (diff.c) and `memheat
 * analyze` on a profile. Internal to
 * memheat (src/report and src/cli). */
#ifndef MEMHEAT_REPORT_RANKDATA_H
#define MEMHEAT_REPORT_RANKDATA_H

#include <jansson.h>
#include <stddef.h>

/* One process of the profile, in rank order. */
typedef struct mh_rank_proc {
    const json_t *p;  /* its row of root.processes */
    long long id;     /* process id (the `process` column) */
    long long rank;   /* first rank variable set (RANK, OMPI, PMI, SLURM), when has_rank */
    int has_rank;
    char label[64];   /* "rank 3", else "pid 1234" */
} mh_rank_proc;

typedef struct mh_rank_procs {
    mh_rank_proc *v; /* sorted: ranks ascending, then processes without one by id */
    size_t n;        /* 0 for a profile of schema 1 or 2 (no process table) */
    size_t *byid;    /* indexes into v in process id order (mh_report_rank_index) */
} mh_rank_procs;

/* The processes of root in rank order. Returns 0, -1 when out of memory. */
int mh_report_rank_procs(const json_t *root, mh_rank_procs *out);
void mh_report_rank_procs_free(mh_rank_procs *p);
/* Index of process id in p, or -1. */
int mh_report_rank_index(const mh_rank_procs *p, long long id);
/* The processes marked in on[0..p->n) for people: "ranks 0-3, 6", "rank 1",
 * "pid 12, pid 14". */
void mh_report_rank_list(const mh_rank_procs *p, const unsigned char *on, char *buf, size_t cap);

/* The same, or where more than half and not all are marked and it is
 * shorter, as the others: "all but ranks 90, 92" (returns 1 then, else 0). */
int mh_report_rank_list_short(const mh_rank_procs *p, const unsigned char *on, char *buf, size_t cap);

/* Per kernel name, one cell per process: kernel time (ns) and bandwidth
 * (B/s) where the run was timed, else traced launches and accesses. */
typedef struct mh_rank_cell {
    double v, v2;
    int set;
} mh_rank_cell;

typedef struct mh_rank_krow {
    char name[256];
    mh_rank_cell *c;  /* [procs.n] */
    size_t m;         /* ranks that ran it */
    size_t worst;     /* index of the slowest rank (time; accesses when not timed) */
    double median;    /* median of that metric over the ranks that ran it */
    double ratio;     /* slowest / median; 0 when the median is 0 */
} mh_rank_krow;

typedef struct mh_rank_kernels {
    int timed;        /* kernels carry a process (timing pass) */
    mh_rank_krow *v;
    size_t n, np;
} mh_rank_kernels;

#define MH_RANK_IMBALANCE 1.10 /* slowest / median above this is flagged */

int mh_report_rank_kernels(const json_t *root, const mh_rank_procs *p, mh_rank_kernels *out);
void mh_report_rank_kernels_free(mh_rank_kernels *k);
/* The row of kernel `name`, or NULL. */
const mh_rank_krow *mh_report_rank_kernel(const mh_rank_kernels *k, const char *name);

/* Findings grouped by (kernel, kind, space, object) across processes: the
 * ranks that have it and the spread of its cost (summed per rank). */
typedef struct mh_rank_fgroup {
    char kernel[256], kind[64], space[32], object[256];
    unsigned char *on;     /* [procs.n] */
    double *cost;          /* [procs.n]: cost on that rank */
    size_t nranks;         /* ranks that have it */
    double cost_min, cost_max, cost_total;
    size_t top;            /* index in root.findings of its costliest finding */
} mh_rank_fgroup;

typedef struct mh_rank_findings {
    mh_rank_fgroup *v; /* costliest (total over ranks) first */
    size_t n, np;
} mh_rank_findings;

/* with_coalesced = 0 leaves "coalesced" (no problem) out. */
int mh_report_rank_findings(const json_t *root, const mh_rank_procs *p, int with_coalesced, mh_rank_findings *out);
void mh_report_rank_findings_free(mh_rank_findings *f);

#endif
