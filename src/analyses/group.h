/* group.h -- findings, kernel time and bandwidth rolled up by the user's
 * code (`memheat analyze --group-by site|nvtx|kernel`, issue 43).
 *
 * The caller names each finding's and each timed kernel's group (a site's
 * label, an NVTX path, a kernel name) and adds it; the groups are ordered
 * by findings' cost, then time, and rendered the same way from a trace
 * (analyze.c) and from a profile (cli/profile_in.c): one text table, one
 * JSON array. */
#ifndef MH_ANALYSES_GROUP_H
#define MH_ANALYSES_GROUP_H

#include <jansson.h>
#include <stdint.h>
#include <stdio.h>

#include "memheat/err.h"

enum mh_group_by { MH_GROUP_NONE = 0, MH_GROUP_SITE, MH_GROUP_NVTX, MH_GROUP_KERNEL };

/* "site", "nvtx", "kernel" -> MH_GROUP_*; -1 for anything else. */
int mh_group_parse(const char *s);
const char *mh_group_name(int by);

typedef struct mh_groups mh_groups;

mh_groups *mh_groups_new(int by);
void mh_groups_free(mh_groups *g);
/* One finding of group `key` (label = what people read for the key; the
 * first one given is kept). The costliest finding of a group is its top. */
int mh_groups_add_finding(mh_groups *g, const char *key, const char *label, const char *kind, double cost,
                          const char *kernel, const char *object, const char *evidence, const char *fix);
/* Launches, GPU time (ns) and DRAM bytes (0: unknown) that belong to group key. */
int mh_groups_add_time(mh_groups *g, const char *key, const char *label, double launches, double time_ns,
                       double bytes);
/* A launch traced in the group (counted once per launch id). */
int mh_groups_add_traced(mh_groups *g, const char *key, const char *label);
/* Sorts (cost, then time, most first); call once after the adds. */
void mh_groups_finish(mh_groups *g);
/* The table, at most max groups (0 = all). */
void mh_groups_print(const mh_groups *g, FILE *f, size_t max);
/* [{"key", "label", "findings", "cost", "launches", "traced", "time_ns",
 *   "bandwidth_Bps", "top": {...} | null}, ...] (a new reference). */
json_t *mh_groups_json(const mh_groups *g);

#endif
