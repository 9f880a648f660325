/* finding.h -- a finding (analyses/patterns.h's mh_pat_finding) as every
 * analysis that finds makes one: its launch, object and pc named from the
 * model (finding.c), and re-pointed at another model when a launch lane's
 * run is merged into the pass's. */
#ifndef MH_ANALYSES_FINDING_H
#define MH_ANALYSES_FINDING_H

#include "analyses/model.h"
#include "analyses/patterns.h"

/* qsort's order of findings: most costly first, then (launch, object,
 * kind); total on one analysis's output (one finding per launch, object
 * and kind: the kinds of global and shared memory differ). */
int mh_pat_cmp_finding(const void *a, const void *b);
/* f zeroed, then its kind, launch (ml, may be NULL), kernel, space, object,
 * label, name (mh_model_obj_text), pc and the pc's source filled from m. */
void mh_finding_fill(mh_pat_finding *f, const mh_model *m, int kind, const mh_model_launch *ml, unsigned space,
                     int64_t obj, uint64_t pc);
/* f's strings, taken from model `from`, as the same entries of `to` (a
 * lane's model copy and the pass's, fed the same records). */
void mh_finding_rebind(mh_pat_finding *f, const mh_model *from, const mh_model *to);

#endif
