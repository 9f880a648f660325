/* rollup.h -- findings, launches and GPU time of a profile rolled up by the
 * user's code (mh_rollup_): the same groups in `memheat analyze --group-by`
 * and in the HTML report. */
#ifndef MH_REPORT_ROLLUP_H
#define MH_REPORT_ROLLUP_H

#include <jansson.h>

#include "analyses/group.h"

/* The groups of summary `root` (store's JSON: findings, launches, sites,
 * site_configs, kernels) by `by` (enum mh_group_by): findings and traced
 * launches by their launch's site, every launch by its site configuration,
 * and each kernel's time and DRAM bytes (kernel table) shared among its sites
 * in proportion to their launches of it, since the timing pass does not name
 * sites. Finished (sorted); NULL when out of memory. take: the caller frees
 * it (mh_groups_free). */
mh_groups *mh_rollup_profile(const json_t *root, int by);

#endif
