/* cmd_info.c -- `memheat info TRACE`: what a trace holds.
 * Header, device, per-launch access counts by space and kind, allocations,
 * dropped accesses and whether the file was closed cleanly. */
#include <getopt.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "analyses/model.h"
#include "pass/pass.h"
#include "store/store.h"
#include "memheat/trace.h"

#include <jansson.h>

typedef struct launch_count {
    uint64_t by[MH_SPACE_COUNT][3];
} launch_count;

typedef struct counts {
    launch_count *lc; /* per model launch */
    size_t nlc;
    uint64_t total;
    char process[512]; /* the MH_REC_PROCESS record as one line, "" = none */
} counts;

static void rank_text(char *buf, size_t cap, const char *name, int32_t v) {
    size_t n = strlen(buf);
    if (v >= 0 && n < cap) snprintf(buf + n, cap - n, " %s %d", name, (int)v);
}

/* mh_pass consumer: accesses per launch, space and kind. */
static int count_record(void *ctx, const mh_model *m, const mh_record *rec, mh_err *err) {
    counts *c = ctx;
    if (rec->type == MH_REC_LAUNCH && m->nlaunches > c->nlc) {
        launch_count *p = realloc(c->lc, m->nlaunches * sizeof *p);
        if (!p) return mh_err_set(err, MH_ERR_NOMEM, "out of memory");
        c->lc = p;
        memset(&c->lc[c->nlc], 0, (m->nlaunches - c->nlc) * sizeof *c->lc);
        c->nlc = m->nlaunches;
    }
    if (rec->type == MH_REC_PROCESS && !c->process[0]) {
        const mh_process *pr = &rec->u.process;
        snprintf(c->process, sizeof c->process, "pid %llu (parent %llu) on %s", (unsigned long long)pr->pid,
                 (unsigned long long)pr->ppid, pr->host);
        rank_text(c->process, sizeof c->process, "rank", pr->rank);
        rank_text(c->process, sizeof c->process, "local rank", pr->local_rank);
        rank_text(c->process, sizeof c->process, "world size", pr->world_size);
        rank_text(c->process, sizeof c->process, "OMPI rank", pr->ompi_rank);
        rank_text(c->process, sizeof c->process, "PMI rank", pr->pmi_rank);
        rank_text(c->process, sizeof c->process, "Slurm proc", pr->slurm_procid);
        for (uint32_t i = 0; i < pr->n_devices; i++) {
            size_t n = strlen(c->process);
            snprintf(c->process + n, sizeof c->process - n, "%s%s", i ? ", " : "  devices ", pr->devices[i]);
        }
    }
    if (rec->type != MH_REC_ACCESSES) return MH_OK;
    for (size_t i = 0; i < rec->u.accesses.n; i++) {
        const mh_access *a = &rec->u.accesses.v[i];
        const mh_model_launch *ml = mh_model_launch_get(m, a->launch);
        unsigned s = MH_ACCESS_SPACE(a), k = MH_ACCESS_KIND(a);
        if (ml && s < MH_SPACE_COUNT && k < 3) c->lc[ml - m->launches].by[s][k]++;
        c->total++;
    }
    return MH_OK;
}

static void help(FILE *f) {
    fputs("usage: memheat info TRACE | PROFILE.mhdb\n\n"
          "Prints a trace's header, process, device, launches (with accesses per address\n"
          "space and kind), data objects, dropped accesses and whether the trace is\n"
          "complete; for a profile, its run and processes (pid, host, ranks, launches).\n", f);
}

static void print_str(const char *s) {
    for (; *s; s++) putchar((unsigned char)*s < 0x20 ? '?' : *s);
}

static int is_profile(const char *path) {
    char magic[16] = {0};
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    size_t n = fread(magic, 1, sizeof magic, f);
    fclose(f);
    return n == sizeof magic && !memcmp(magic, "SQLite format 3", 16);
}

/* `memheat info PROFILE.mhdb`: the run and its processes. */
static int info_profile(const char *path) {
    mh_err err = {0};
    mh_db *db;
    if (mh_db_open(&db, path, 0, &err) != MH_OK) return mh_cli_fail_err("info", &err);
    json_t *sum = NULL;
    char notice[600];
    int rc = mh_db_read_summary(db, &sum, &err);
    mh_db_notice(db, notice, sizeof notice);
    mh_db_close(db);
    if (rc != MH_OK) return mh_cli_fail_err("info", &err);
    json_t *run = json_object_get(sum, "run");
    const char *ver = json_string_value(json_object_get(json_object_get(sum, "meta"), "schema_version"));
    printf("profile    %s (schema %s)\ncommand    ", path, ver ? ver : "?");
    const char *cmd = json_string_value(json_object_get(run, "command"));
    print_str(cmd ? cmd : "");
    json_t *procs = json_object_get(sum, "processes");
    printf("\nlaunches   %zu traced\nprocesses  %zu%s\n", json_array_size(json_object_get(sum, "launches")),
           procs ? json_array_size(procs) : (size_t)1, procs ? "" : " (profile of schema 1 or 2: one process)");
    size_t i;
    json_t *p;
    json_array_foreach(procs, i, p) {
        printf("  #%lld pid %lld", (long long)json_integer_value(json_object_get(p, "id")),
               (long long)json_integer_value(json_object_get(p, "pid")));
        const char *host = json_string_value(json_object_get(p, "host"));
        if (host) printf(" on %s", host);
        static const char *const ranks[][2] = {{"rank", "rank"}, {"local_rank", "local rank"},
                                               {"world_size", "world size"}, {"ompi_rank", "OMPI rank"},
                                               {"pmi_rank", "PMI rank"}, {"slurm_procid", "Slurm proc"}};
        for (size_t k = 0; k < 6; k++) {
            json_t *v = json_object_get(p, ranks[k][0]);
            if (json_is_integer(v)) printf("  %s %lld", ranks[k][1], (long long)json_integer_value(v));
        }
        printf("  launches traced %lld", (long long)json_integer_value(json_object_get(p, "launches_traced")));
        json_t *ran = json_object_get(p, "launches_run");
        if (json_is_integer(ran)) printf(" of %lld", (long long)json_integer_value(ran));
        const char *devs = json_string_value(json_object_get(p, "devices"));
        if (devs && *devs) printf("  devices %s", devs);
        printf("\n      ");
        cmd = json_string_value(json_object_get(p, "command"));
        print_str(cmd ? cmd : "");
        putchar('\n');
    }
    json_decref(sum);
    return notice[0] ? mh_cli_fail("info", MH_EXIT_PARTIAL, "%s", notice) : MH_EXIT_OK; /* as report and diff */
}

int mh_cmd_info(int argc, char **argv) {
    static const struct option longopts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 1;
    opterr = 0;
    while ((c = getopt_long(argc, argv, ":h", longopts, NULL)) != -1) {
        if (c != 'h') return mh_cli_bad_option("info", argv, c);
        help(stdout);
        return MH_EXIT_OK;
    }
    if (optind != argc - 1)
        return optind >= argc ? mh_cli_usage("info", "no trace or profile given")
                              : mh_cli_usage("info", "one trace or profile at a time, not also '%s'", argv[optind + 1]);
    mh_err err = {0};
    if (is_profile(argv[optind])) return info_profile(argv[optind]);
    mh_model m;
    mh_pass *p;
    mh_pass_opts po = {0}; /* no analyses: the model and the counts below */
    if (mh_pass_open(&p, argv[optind], &m, &po, &err) != MH_OK) return mh_cli_fail_err("info", &err);
    counts cn = {0};
    mh_pass_consumer pc = {.ctx = &cn, .record = count_record};
    int rc = mh_pass_add(p, &pc, &err);
    if (rc == MH_OK) rc = mh_pass_run(p, &err);
    launch_count *lc = cn.lc;
    uint64_t total = cn.total;
    const mh_pass_stats *st = mh_pass_stats_get(p);
    const mh_trace_header *h = &m.hdr;
    printf("trace      %s (format v%u, %s)\n", argv[optind], h->version,
           rc == MH_OK && st->complete ? "complete" : "INCOMPLETE");
    printf("producer   ");
    print_str(h->producer);
    printf("\ncommand    ");
    print_str(h->command);
    if (cn.process[0]) {
        printf("\nprocess    ");
        print_str(cn.process);
    }
    printf("\ndevice     ");
    print_str(h->device.name);
    printf(" (warp %u, sector %u B", h->device.warp_size, h->device.sector_size);
    if (h->device.sm_count) printf(", %u SMs", h->device.sm_count);
    if (h->device.cc_major) printf(", cc %u.%u", h->device.cc_major, h->device.cc_minor);
    if (h->device.mem_clock_khz && h->device.bus_width_bits)
        printf(", %u MHz x %u-bit memory", h->device.mem_clock_khz / 1000, h->device.bus_width_bits);
    printf(")\n");
    if (h->note[0]) {
        printf("note       ");
        print_str(h->note);
        putchar('\n');
    }
    printf("chunks     %" PRIu64 "\naccesses   %" PRIu64 "\ndropped    %" PRIu64 "%s\n", st->chunks,
           total, m.dropped_total, m.dropped_total ? "  (results undercount these)" : "");
    printf("launches   %zu\n", m.nlaunches);
    for (size_t i = 0; i < m.nlaunches; i++) {
        const mh_model_launch *ml = &m.launches[i];
        printf("  #%u ", ml->l.id);
        print_str(ml->l.display_name);
        printf("  grid %ux%ux%u block %ux%ux%u  sampled %s%u", ml->l.grid.x, ml->l.grid.y, ml->l.grid.z,
               ml->l.block.x, ml->l.block.y, ml->l.block.z,
               ml->l.n_sampled == MH_TRACE_ALL_BLOCKS ? "all " : "", ml->n_sampled);
        if (!ml->ended) printf("  (no kernel end)");
        putchar('\n');
        for (unsigned s = 0; s < MH_SPACE_COUNT; s++) {
            const uint64_t *k = lc ? lc[i].by[s] : NULL;
            if (!k || k[0] + k[1] + k[2] == 0) continue;
            printf("      %-8s loads %" PRIu64 "  stores %" PRIu64 "  atomics %" PRIu64 "\n", mh_space_name(s), k[0],
                   k[1], k[2]);
        }
        if (ml->ended && ml->end.dropped) printf("      dropped %" PRIu64 "\n", ml->end.dropped);
    }
    /* Every launch the collector saw, per kernel and configuration: the launch
     * policy traces some and samples out the rest (not "dropped"). */
    if (m.nstats) {
        uint64_t ran = 0, traced = 0;
        for (size_t i = 0; i < m.nstats; i++) ran += m.stats[i].launches, traced += m.stats[i].traced;
        printf("ran        %" PRIu64 " launches in %zu configurations, traced %" PRIu64 " (launch policy)\n", ran,
               m.nstats, traced);
        for (size_t i = 0; i < m.nstats; i++) {
            const mh_launch_stats *ls = &m.stats[i];
            printf("  traced %" PRIu64 " of %" PRIu64 "  ", ls->traced, ls->launches);
            print_str(ls->name);
            printf("  grid %ux%ux%u block %ux%ux%u", ls->grid.x, ls->grid.y, ls->grid.z, ls->block.x, ls->block.y,
                   ls->block.z);
            if (ls->dyn_smem) printf(" dyn smem %u B", ls->dyn_smem);
            putchar('\n');
        }
    }
    printf("objects    %zu\n", m.nobjs);
    for (size_t i = 0; i < m.nobjs; i++) {
        const mh_alloc *a = &m.objs[i].a;
        printf("  %-8s 0x%" PRIx64 " %10" PRIu64 " B  ", mh_space_name(a->space), a->base, a->size);
        print_str(a->label[0] ? a->label : "(unnamed)");
        putchar('\n');
    }
    char note[1024];
    int noted = mh_pass_notice(st, argv[optind], note, sizeof note);
    mh_pass_close(p);
    free(lc);
    mh_model_free(&m);
    if (rc != MH_OK) return mh_cli_fail_err("info", &err);
    if (noted) return mh_cli_fail("info", MH_EXIT_PARTIAL, "%s", note);
    return MH_EXIT_OK;
}
