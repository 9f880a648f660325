/* finding_view.h -- one finding as people read it, as text and as JSON:
 * the one renderer for `memheat analyze` on a trace (a finding of the
 * analyses, analyses/patterns.h's mh_pat_finding) and on a profile (the
 * row the store keeps), and for any summary that lists findings (`memheat
 * run`'s end-of-run summary reads the profile's rows the same way).
 *
 * A view holds what one source knows of a finding; the fields a profile
 * does not keep (the per-pc list, the request counts and temperatures) are
 * left out of both renderings when they are not known. Usage:
 *
 *   mh_fview v;
 *   mh_fview_from_trace(&v, model, finding);      or
 *   mh_fview_from_profile(&v, summary, row);      (mh_db_read_summary's root)
 *   mh_fview_text(stdout, rank, &v);              "#1   hot_spot  cost ..."
 *   json_t *o = mh_fview_json(&v);                the analyze JSON's element
 *   mh_fview_free(&v);
 *
 * Strings are borrowed from the source (the model, the summary JSON), which
 * must outlive the view. */
#ifndef MH_RENDER_FINDING_VIEW_H
#define MH_RENDER_FINDING_VIEW_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "analyses/heat.h"
#include "analyses/model.h"
#include "analyses/patterns.h"

typedef struct mh_fview {
    const char *kind;
    double cost;
    int64_t launch;
    const char *kernel;
    const char *space;
    int has_obj;             /* obj names a data object (else: outside the known objects) */
    int64_t obj;
    const char *label;
    json_t *arg;             /* a kernel argument's view, or NULL (owned) */
    uint64_t pc;             /* 0 = none */
    const char *file;        /* NULL = no source */
    int64_t line;
    const char *function;    /* NULL = not known */
    int has_pcs;             /* pcs known (a trace's): every pc, npcs of them */
    const mh_pat_pc *pcs;
    size_t npcs;
    const char *summary;     /* summary_len bytes */
    size_t summary_len;
    const char *pcs_text;    /* "at N pcs: ..." or NULL */
    int counts;              /* flagged .. max_sector_temp known (a trace's) */
    uint64_t sectors, flagged, requests, req_sectors, ideal_sectors;
    int64_t stride;
    uint32_t elem_size, max_word_temp, max_sector_temp;
    int has_degree;
    double degree_avg;
    uint32_t degree_max;
    int has_example, has_offset;
    uint64_t example_off, example_tag;
    uint32_t words[MH_HEAT_WORDS], sector;
    const char *example_kinds; /* per word: L, S, A, M, . (mh_heat_kinds_text), or NULL */
    const char *suggestion;
    char buf[1024 + MH_HEAT_WORDS + 1]; /* pcs_text and example_kinds of a trace's finding */
} mh_fview;

/* The view of finding f of a trace, named from model m. */
void mh_fview_from_trace(mh_fview *v, const mh_model *m, const mh_pat_finding *f);
/* The view of findings row `row` of a profile's summary `root` (store.h:
 * mh_db_read_summary): kernel, object and argument from its other tables. */
void mh_fview_from_profile(mh_fview *v, const json_t *root, const json_t *row);
/* Its text, numbered rank + 1: a heading line, the evidence, the fix. */
void mh_fview_text(FILE *f, size_t rank, const mh_fview *v);
/* Its JSON object (docs/metrics.md: analyze's "findings"); NULL without memory. */
json_t *mh_fview_json(const mh_fview *v);
void mh_fview_free(mh_fview *v);

#endif
