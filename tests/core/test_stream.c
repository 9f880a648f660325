/* test_stream.c -- one stream per process (collect.h): name claims (plain
 * name first, then <stem>.<pid><ext>), the manifest <path>.procs written by
 * many processes at once, and the MH_REC_PROCESS record written by
 * mh_collect_trace_open and read back. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../mh_test.h"
#include "memheat/collect.h"

static char dir[256];

static void path_of(char *out, size_t cap, const char *name) { snprintf(out, cap, "%s/%s", dir, name); }

/* Lines of the manifest, each into names[i]; returns the count. */
static int read_manifest(const char *path, char names[][256], int cap) {
    char man[512];
    snprintf(man, sizeof man, "%s.procs", path);
    FILE *f = fopen(man, "r");
    if (!f) return -1;
    int n = 0;
    char line[256];
    while (n < cap && fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        char *sp = strchr(line, ' '); /* "<pid> <name>" */
        if (!sp || atol(line) <= 0) return -2;
        snprintf(names[n++], 256, "%s", sp + 1);
    }
    fclose(f);
    return n;
}

static void test_claim_order(void) {
    char path[512], got[512], want[512];
    mh_err e;
    path_of(path, sizeof path, "a.mht");
    CHECK(mh_collect_claim(path, got, sizeof got, &e) == MH_OK);
    CHECK(!strcmp(got, path));
    CHECK(mh_collect_claim(path, got, sizeof got, &e) == MH_OK);
    snprintf(want, sizeof want, "%s/a.%ld.mht", dir, (long)getpid());
    CHECK(!strcmp(got, want));
    CHECK(mh_collect_claim(path, got, sizeof got, &e) == MH_OK); /* pid reused within a run */
    snprintf(want, sizeof want, "%s/a.%ld-1.mht", dir, (long)getpid());
    CHECK(!strcmp(got, want));
    char names[8][256];
    CHECK_EQ_U(read_manifest(path, names, 8), 3);
    CHECK(!strcmp(names[0], "a.mht"));
    snprintf(want, sizeof want, "a.%ld.mht", (long)getpid());
    CHECK(!strcmp(names[1], want));
    /* no extension: the pid is appended */
    path_of(path, sizeof path, "plain");
    CHECK(mh_collect_claim(path, got, sizeof got, &e) == MH_OK && !strcmp(got, path));
    CHECK(mh_collect_claim(path, got, sizeof got, &e) == MH_OK);
    snprintf(want, sizeof want, "%s/plain.%ld", dir, (long)getpid());
    CHECK(!strcmp(got, want));
    path_of(path, sizeof path, "nodir/x.mht");
    CHECK(mh_collect_claim(path, got, sizeof got, &e) == MH_ERR_IO && strstr(e.msg, "nodir"));
}

#define NPROC 16

static void test_claim_concurrent(void) {
    char path[512];
    path_of(path, sizeof path, "c.json");
    pid_t kids[NPROC];
    for (int i = 0; i < NPROC; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            char got[512];
            mh_err e;
            _exit(mh_collect_claim(path, got, sizeof got, &e) == MH_OK ? 0 : 1);
        }
    }
    int ok = 0;
    for (int i = 0; i < NPROC; i++) {
        int st = 0;
        waitpid(kids[i], &st, 0);
        ok += WIFEXITED(st) && WEXITSTATUS(st) == 0;
    }
    CHECK_EQ_U(ok, NPROC);
    char names[NPROC + 2][256];
    CHECK_EQ_U(read_manifest(path, names, NPROC + 2), NPROC);
    int plain = 0, distinct = 1;
    for (int i = 0; i < NPROC; i++) {
        plain += !strcmp(names[i], "c.json");
        for (int j = 0; j < i; j++) distinct &= strcmp(names[i], names[j]) != 0;
        char full[800];
        snprintf(full, sizeof full, "%s/%s", dir, names[i]);
        CHECK(access(full, F_OK) == 0);
    }
    CHECK_EQ_U(plain, 1);
    CHECK(distinct);
}

static void test_process_record(void) {
    char path[512], got[512];
    path_of(path, sizeof path, "p.mht");
    setenv("RANK", "3", 1);
    setenv("WORLD_SIZE", "8", 1);
    setenv("LOCAL_RANK", "1", 1);
    unsetenv("OMPI_COMM_WORLD_RANK");
    setenv("PMI_RANK", "x", 1); /* not a number: unset */
    setenv("SLURM_PROCID", "12", 1);
    mh_trace_header h = {.producer = "t", .command = "c", .note = "",
                         .device = {.name = "d", .warp_size = 32, .sector_size = 32}};
    const char *uu[2] = {"GPU-aaaa", "GPU-bbbb"};
    mh_trace_writer *w;
    mh_err e;
    CHECK(mh_collect_trace_open(&w, path, &h, &(mh_trace_writer_opts){.background = 1}, uu, 2, got, sizeof got, &e) == MH_OK);
    CHECK(!strcmp(got, path));
    CHECK(mh_trace_close(w, &e) == MH_OK);
    mh_trace_reader *r;
    CHECK(mh_trace_open(&r, path, &e) == MH_OK);
    mh_record rec;
    CHECK(mh_trace_next(r, &rec, &e) == MH_OK);
    CHECK_EQ_U(rec.type, MH_REC_PROCESS);
    const mh_process *p = &rec.u.process;
    CHECK_EQ_U(p->pid, (uint64_t)getpid());
    CHECK_EQ_U(p->ppid, (uint64_t)getppid());
    CHECK(p->rank == 3 && p->world_size == 8 && p->local_rank == 1);
    CHECK(p->ompi_rank == -1 && p->pmi_rank == -1 && p->slurm_procid == 12);
    char host[256];
    gethostname(host, sizeof host);
    CHECK(!strcmp(p->host, host));
    CHECK(strstr(p->command, "test_stream") != NULL);
    CHECK_EQ_U(p->n_devices, 2);
    CHECK(p->n_devices == 2 && !strcmp(p->devices[0], "GPU-aaaa") && !strcmp(p->devices[1], "GPU-bbbb"));
    CHECK(mh_trace_next(r, &rec, &e) == MH_OK && rec.type == MH_REC_EOF);
    CHECK(mh_trace_complete(r));
    mh_trace_close_reader(r);
    /* a second process of the run gets its own file */
    CHECK(mh_collect_trace_open(&w, path, &h, NULL, NULL, 0, got, sizeof got, &e) == MH_OK);
    CHECK(strcmp(got, path) != 0);
    CHECK(mh_trace_close(w, &e) == MH_OK);
    unsetenv("RANK");
    unsetenv("WORLD_SIZE");
    unsetenv("LOCAL_RANK");
    unsetenv("PMI_RANK");
    unsetenv("SLURM_PROCID");
}

int main(void) {
    snprintf(dir, sizeof dir, "/tmp/memheat-test-stream-XXXXXX");
    if (!mkdtemp(dir)) return 1;
    static const mh_test_case cases[] = {T(test_claim_order), T(test_claim_concurrent), T(test_process_record)};
    int rc = mh_test_run(cases, sizeof cases / sizeof cases[0]);
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) rc = 1;
    return rc;
}
