/* table.h -- the pass's analyses: one row each (analyses/analysis.h), in
 * the order they are fed, finished and handed on. Row i is the analysis of
 * bit 1 << i in mh_pass_opts.analyses (MH_PASS_HEAT, MH_PASS_PATTERNS,
 * MH_PASS_LOCALITY are rows 0, 1 and 2). */
#ifndef MH_PASS_TABLE_H
#define MH_PASS_TABLE_H

#include "analyses/analysis.h"

#define MH_ANALYSES_MAX MH_PLAN_MAX_ANALYSES

extern const mh_analysis *const mh_analyses[];
extern const unsigned mh_nanalyses;

/* The analyses that run for the asked bits: each asked one, what they
 * need, and those that run with any of them. */
unsigned mh_analyses_resolve(unsigned asked);
/* The bit of the analysis named name (1 << row), 0 for none. */
unsigned mh_analyses_bit(const char *name);

#endif
