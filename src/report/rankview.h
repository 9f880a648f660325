/* rankview.h -- the report of a profile of many ranks (rankview.c): the
 * launches across ranks and their distinct contents, the findings across
 * ranks, the summary per rank, and what the page shows of them. Internal to
 * src/report. */
#ifndef MEMHEAT_REPORT_RANKVIEW_H
#define MEMHEAT_REPORT_RANKVIEW_H

#include <jansson.h>
#include <stddef.h>
#include <stdint.h>

#include "report/rankdata.h"

/* The ranks whose launch of a group has one content (heat maps, regions). */
typedef struct mh_rank_variant {
    long long launch;  /* the launch shown: that of the first of these ranks in rank order */
    unsigned char *on; /* [procs.n] */
    size_t n;
} mh_rank_variant;

/* One launch across ranks: a kernel configuration and its n-th launch in
 * each process. */
typedef struct mh_rank_group {
    mh_rank_variant *v; /* in order of their first rank */
    size_t nv, nranks;  /* variants; ranks that have the launch */
} mh_rank_group;

/* One finding across ranks: (launch group, kind, space, object). */
typedef struct mh_rank_fkey {
    unsigned char *on; /* [procs.n] */
    size_t n;
    double cost_min, cost_max; /* of its cost per rank */
} mh_rank_fkey;

/* One rank of the summary. */
typedef struct mh_rank_sum {
    size_t pi;              /* index in procs */
    int set;                /* metric known (a timed profile: the rank has kernel times) */
    double metric;          /* kernel time (ns) where timed, else accesses traced */
    double bw;              /* DRAM bytes / time of its kernels with counters (B/s); < 0: unknown */
    double ratio;           /* metric / median of the ranks; 0 when unknown */
    long long traced, run;  /* launches traced and run (run < 0: unknown) */
    double accesses;
    size_t absent, extra;   /* common findings (on more than half the ranks) it lacks; others it has */
    int outlier;            /* 2: metric beyond MH_RANK_IMBALANCE of the median either way; 1: findings unlike
                               the common ones; 0 */
} mh_rank_sum;

typedef struct mh_rank_id {
    long long id;
    size_t a, b, c;
} mh_rank_id;

typedef struct mh_rank_view {
    json_t *rows;        /* mh_db_read_ranks's JSON (owned) */
    mh_rank_procs p;
    int timed;
    double median;       /* of the summary metric */
    size_t ref;          /* index of the reference rank (the first in rank order) */
    mh_rank_group *g;
    size_t ng;
    mh_rank_fkey *fk;
    size_t nfk;
    mh_rank_id *lg;      /* launch id -> group (a), variant (b); sorted by id */
    size_t nlg;
    mh_rank_id *fl;      /* finding id -> finding key (a); sorted by id */
    size_t nfl;
    mh_rank_sum *s;      /* [p.n]: time outliers first (most off the median first), then ranks with other
                            findings, then the rest, slowest first */
    mh_rank_findings fg; /* by (kernel, kind, space, object), rankdata.c */
    mh_rank_kernels k;   /* per kernel, a cell per rank, rankdata.c */
    int64_t *keep;       /* the launches the page shows: one per variant */
    size_t nkeep;
    int64_t *keep_procs; /* their processes and the reference rank's */
    size_t nkp;
} mh_rank_view;

/* The view of rows (mh_db_read_ranks; take: the view owns it). *out = NULL
 * for fewer than two processes (rows freed). Returns 0, -1 when out of memory. */
int mh_report_rank_view(json_t *rows, mh_rank_view **out);
void mh_report_rank_view_free(mh_rank_view *v);
/* The page data of the report (root: mh_db_read_summary's JSON while the
 * profile is read through the view's launches, mh_db_read_keep): processes'
 * "label", launches' "rank_group" and "variant", findings' "ranks_on"
 * (base64 of a bit per rank in rank order: the ranks with the same finding
 * of that launch), "ranks_n", "cost_min", "cost_max"; root "rank_groups"
 * [{id, ranks, n, identical, variants: [{launch, n, ranks}]}] and
 * "rank_view" {n, ref, ref_label, ranks: [rank number, or label, in rank
 * order]}. Returns 0, -1 when out of memory. */
int mh_report_rank_view_annotate(const mh_rank_view *v, json_t *root);

#endif
