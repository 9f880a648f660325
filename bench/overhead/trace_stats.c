/* trace_stats.c -- per-launch summary of a memheat trace for bench/overhead
 * and scripts/gpu-check.sh: launch id, kernel, grid, block, accesses recorded
 * and dropped, and the kernel's GPU time measured by the collector.
 *
 * usage: trace_stats TRACE [REGEX]   (REGEX: only kernels whose name matches)
 * Last line: "total launches L recorded R dropped D gpu_ns G complete C". */
#include <inttypes.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "memheat/trace.h"

#define MAXL (1u << 20)

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: trace_stats TRACE [REGEX]\n");
        return 2;
    }
    regex_t re;
    int have_re = argc > 2;
    if (have_re && regcomp(&re, argv[2], REG_EXTENDED | REG_NOSUB) != 0) {
        fprintf(stderr, "trace_stats: bad regex '%s'\n", argv[2]);
        return 2;
    }
    mh_err err;
    mh_trace_reader *r;
    if (mh_trace_open(&r, argv[1], &err) != MH_OK) {
        fprintf(stderr, "trace_stats: %s\n", err.msg);
        return 1;
    }
    unsigned char *want = calloc(MAXL, 1);
    uint64_t *spaces = calloc(MH_SPACE_COUNT, sizeof *spaces);
    uint64_t nl = 0, rec = 0, drop = 0, gpu = 0;
    int rc = 0;
    mh_record x;
    for (;;) {
        rc = mh_trace_next(r, &x, &err);
        if (rc != MH_OK || x.type == MH_REC_EOF) break;
        if (x.type == MH_REC_LAUNCH) {
            const mh_launch *l = &x.u.launch;
            int w = !have_re || regexec(&re, l->name, 0, NULL, 0) == 0 ||
                    regexec(&re, l->display_name, 0, NULL, 0) == 0;
            if (l->id < MAXL) want[l->id] = (unsigned char)w;
            if (w)
                printf("launch %u %s grid %u,%u,%u block %u,%u,%u dyn_smem %u static_smem %u regs %u stream 0x%" PRIx64
                       " sampled %u\n",
                       l->id, l->display_name, l->grid.x, l->grid.y, l->grid.z, l->block.x, l->block.y, l->block.z,
                       l->dyn_smem, l->static_smem, l->regs, l->stream, l->n_sampled);
        } else if (x.type == MH_REC_ACCESSES) {
            for (size_t i = 0; i < x.u.accesses.n; i++) {
                const mh_access *a = &x.u.accesses.v[i];
                if (a->launch < MAXL && want[a->launch]) spaces[MH_ACCESS_SPACE(a) & 3]++;
            }
        } else if (x.type == MH_REC_KERNEL_END) {
            const mh_kernel_end *e = &x.u.kernel_end;
            if (e->launch < MAXL && want[e->launch]) {
                nl++;
                rec += e->recorded;
                drop += e->dropped;
                gpu += e->gpu_ns;
                printf("end %u recorded %" PRIu64 " dropped %" PRIu64 " gpu_ns %" PRIu64 "\n", e->launch, e->recorded,
                       e->dropped, e->gpu_ns);
            }
        } else if (x.type == MH_REC_DROPPED) {
            printf("dropped launch %u count %" PRIu64 " reason %s\n", x.u.dropped.launch, x.u.dropped.count,
                   x.u.dropped.reason);
        } else if (x.type == MH_REC_ALLOC) {
            printf("alloc %u base 0x%" PRIx64 " size %" PRIu64 " space %s label %s\n", x.u.alloc.id, x.u.alloc.base,
                   x.u.alloc.size, mh_space_name(x.u.alloc.space), x.u.alloc.label);
        }
    }
    if (rc != MH_OK) fprintf(stderr, "trace_stats: %s\n", err.msg);
    printf("spaces global %" PRIu64 " shared %" PRIu64 " local %" PRIu64 "\n", spaces[0], spaces[1], spaces[2]);
    printf("total launches %" PRIu64 " recorded %" PRIu64 " dropped %" PRIu64 " gpu_ns %" PRIu64 " complete %d\n", nl,
           rec, drop, gpu, mh_trace_complete(r));
    mh_trace_close_reader(r);
    free(want);
    free(spaces);
    if (have_re) regfree(&re);
    return rc == MH_OK ? 0 : 1;
}
