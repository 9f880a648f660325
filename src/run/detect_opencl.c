/* detect_opencl.c -- the Oclgrind back end's detection: is PROGRAM an OpenCL host?
 * Yes when its ELF lists libOpenCL.so among the libraries it needs (DT_NEEDED).
 * A program that loads OpenCL with dlopen is not detected: use --backend oclgrind. */
#include <elf.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "run/run.h"

static int read_at(FILE *f, long off, void *buf, size_t n) {
    return fseek(f, off, SEEK_SET) == 0 && fread(buf, 1, n, f) == n;
}

/* 1 if the ELF64 file at path lists a DT_NEEDED entry starting with prefix. */
static int elf_needs(const char *path, const char *prefix) {
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    int found = 0;
    Elf64_Ehdr eh;
    if (!read_at(f, 0, &eh, sizeof eh) || memcmp(eh.e_ident, ELFMAG, SELFMAG) != 0 ||
        eh.e_ident[EI_CLASS] != ELFCLASS64 || eh.e_shentsize != sizeof(Elf64_Shdr) || eh.e_shnum == 0 ||
        eh.e_shnum > 4096)
        goto done;
    for (unsigned i = 0; i < eh.e_shnum && !found; i++) {
        Elf64_Shdr sh, strsh;
        if (!read_at(f, (long)(eh.e_shoff + (uint64_t)i * sizeof sh), &sh, sizeof sh)) goto done;
        if (sh.sh_type != SHT_DYNAMIC || sh.sh_link >= eh.e_shnum) continue;
        if (!read_at(f, (long)(eh.e_shoff + (uint64_t)sh.sh_link * sizeof strsh), &strsh, sizeof strsh)) goto done;
        size_t ndyn = sh.sh_size / sizeof(Elf64_Dyn);
        for (size_t k = 0; k < ndyn && k < 4096 && !found; k++) {
            Elf64_Dyn d;
            if (!read_at(f, (long)(sh.sh_offset + k * sizeof d), &d, sizeof d)) goto done;
            if (d.d_tag == DT_NULL) break;
            if (d.d_tag != DT_NEEDED || d.d_un.d_val >= strsh.sh_size) continue;
            char name[128] = {0};
            size_t want = sizeof name - 1;
            if (strsh.sh_size - d.d_un.d_val < want) want = strsh.sh_size - d.d_un.d_val;
            if (!read_at(f, (long)(strsh.sh_offset + d.d_un.d_val), name, want)) continue;
            if (strncmp(name, prefix, strlen(prefix)) == 0) found = 1;
        }
    }
done:
    fclose(f);
    return found;
}

int mh_run_is_opencl_host(const char *program) {
    char path[PATH_MAX];
    if (!program || !mh_run_which(program, path, sizeof path)) return 0;
    return elf_needs(path, "libOpenCL.so");
}

