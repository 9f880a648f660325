/* mh_fuzz_lf_main.c -- mh_fuzz_lf without libFuzzer, in any build (gcc, the
 * ASan build): runs the inputs named (files, or every file of a folder)
 * through LLVMFuzzerTestOneInput, and with --mutate N each one N times more
 * through the custom mutator, LLVMFuzzerMutate being byte flips, inserts
 * and cuts here. It replays libFuzzer's crash-* files where clang is
 * missing and keeps mh_fuzz_lf.c built and run by every ctest; it is not
 * coverage-guided (that is tests/fuzz/libfuzzer.sh).
 *
 *   mh_fuzz_lf_replay [--mutate N] [--seed S] INPUT|DIR ... */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "fuzz_mutate.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static fz_rng g_rng = {0x9E3779B97F4A7C15ull};

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size) {
    switch (fz_rndn(&g_rng, 3)) {
    case 0: /* flips */
        for (int i = 0, n = 1 + (int)fz_rndn(&g_rng, 4); i < n && size; i++)
            data[fz_rndn(&g_rng, size)] ^= (uint8_t)(1 + fz_rndn(&g_rng, 255));
        return size;
    case 1: /* bytes inserted */
        if (size < max_size) {
            size_t at = fz_rndn(&g_rng, size + 1), k = 1 + fz_rndn(&g_rng, max_size - size < 8 ? max_size - size : 8);
            memmove(data + at + k, data + at, size - at);
            for (size_t i = 0; i < k; i++) data[at + i] = (uint8_t)fz_rnd(&g_rng);
            return size + k;
        }
        return size;
    default: /* a cut */
        return size ? fz_rndn(&g_rng, size) + 1 : 0;
    }
}

static unsigned long g_runs;

static void run_file(const char *path, unsigned long mutate) {
    fz_buf b = {0};
    if (fz_slurp(path, &b) != 0) {
        fprintf(stderr, "mh_fuzz_lf_replay: cannot read %s\n", path);
        exit(2);
    }
    LLVMFuzzerTestOneInput(b.p, b.n);
    g_runs++;
    size_t max = b.n * 2 + 4096;
    uint8_t *d = malloc(max);
    memcpy(d, b.p, b.n);
    size_t n = b.n;
    for (unsigned long i = 0; i < mutate; i++) {
        if (fz_rndn(&g_rng, 4) == 0) { /* start again from the file */
            memcpy(d, b.p, b.n);
            n = b.n;
        }
        n = LLVMFuzzerCustomMutator(d, n, max, (unsigned)fz_rnd(&g_rng));
        LLVMFuzzerTestOneInput(d, n);
        g_runs++;
    }
    free(d);
    free(b.p);
}

int main(int argc, char **argv) {
    unsigned long mutate = 0;
    int i = 1;
    for (; i + 1 < argc && !strncmp(argv[i], "--", 2); i += 2) {
        if (!strcmp(argv[i], "--mutate")) mutate = strtoul(argv[i + 1], NULL, 10);
        else if (!strcmp(argv[i], "--seed")) g_rng.s = strtoull(argv[i + 1], NULL, 10) * 2 + 1;
        else break;
    }
    if (i >= argc) {
        fputs("usage: mh_fuzz_lf_replay [--mutate N] [--seed S] INPUT|DIR ...\n", stderr);
        return 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    for (; i < argc; i++) {
        struct stat sb;
        if (stat(argv[i], &sb) == 0 && S_ISDIR(sb.st_mode)) {
            DIR *d = opendir(argv[i]);
            struct dirent *e;
            char p[2048];
            while (d && (e = readdir(d)))
                if (e->d_name[0] != '.') {
                    snprintf(p, sizeof p, "%s/%s", argv[i], e->d_name);
                    if (stat(p, &sb) == 0 && S_ISREG(sb.st_mode)) run_file(p, mutate);
                }
            if (d) closedir(d);
        } else {
            run_file(argv[i], mutate);
        }
    }
    printf("mh_fuzz_lf_replay: %lu runs, no failure\n", g_runs);
    return 0;
}
