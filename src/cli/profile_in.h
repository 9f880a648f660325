/* profile_in.h -- commands that take "a trace or a profile" (heatmap,
 * analyze): which of the two a file is (by its first bytes, not its name),
 * and the profile side of each command, read back from the database the way
 * the trace side computes it, so both print the same thing where the profile
 * holds it. */
#ifndef MH_CLI_PROFILE_IN_H
#define MH_CLI_PROFILE_IN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analyses/heat.h"
#include "memheat/err.h"

enum mh_cli_input { MH_CLI_IN_TRACE = 0, MH_CLI_IN_PROFILE = 1 };

/* MH_CLI_IN_PROFILE when the file starts with the SQLite header, else
 * MH_CLI_IN_TRACE (the trace reader then names what is wrong with it, a
 * missing file included). */
int mh_cli_input_kind(const char *path);

/* Every stored heat map of the profile at path whose space is in space_mask
 * (bit 1 << space; 0 = all), in (launch, map) order, handed to fn as the
 * trace side's mh_heat_run would (r->model is NULL). *nlaunches and
 * *dropped (may be NULL) receive the profile's launch count and
 * meta.dropped_total. */
typedef int (*mh_cli_heat_fn)(void *ctx, const mh_heat_result *r, mh_err *err);
/* Both below check the profile as every reader does (mh_db_open), and an
 * incomplete one (mh_db_notice: interrupted, or from an incomplete trace)
 * gives its maps or findings, then MH_ERR_TRUNCATED with the notice (exit 4,
 * as report and diff). */
int mh_cli_profile_heat(const char *path, uint32_t space_mask, mh_cli_heat_fn fn, void *ctx, size_t *nlaunches,
                        uint64_t *dropped, mh_err *err);

typedef struct mh_cli_profile_analyze_opts {
    int json;            /* print JSON on stdout instead of text */
    const char *out;     /* also write JSON here, NULL = no */
    size_t max_findings; /* 0 = all */
    int show_coalesced;
    int no_locality, no_patterns;
    int group_by;        /* enum mh_group_by (analyses/group.h) */
} mh_cli_profile_analyze_opts;

/* `memheat analyze PROFILE`: the findings, bank table and locality stored in
 * the profile, printed as `memheat analyze TRACE` prints them (text, and JSON
 * format memheat-analyze-2 with "source": "profile"). What a profile does not
 * store (per-finding request counts, hottest temperatures, the bank table's
 * extra wavefronts) is named in a note and left out, never printed as 0. */
int mh_cli_profile_analyze(const char *path, const mh_cli_profile_analyze_opts *o, mh_err *err);

#endif
