/* ocl_enqueue.c -- the call site of every kernel enqueue under Oclgrind.
 *
 * Oclgrind runs a kernel when its queue is flushed (clFinish, a blocking
 * read), not inside clEnqueueNDRangeKernel, so the plugin's kernelBegin sees
 * the host stack of the flush. The call site is the enqueue's: the program's
 * calls to clEnqueueNDRangeKernel are routed through memheat first by
 * rewriting their GOT slots (the dynamic linker's table of imported
 * functions) in every loaded object except Oclgrind's, the ICD loader and
 * this plugin: `oclgrind` preloads its runtime ahead of anything the run
 * layer could preload, so interposing by symbol is not possible. The hook
 * captures the site (collectors/site/site.h), queues (kernel name, site) in
 * the sink (mh_ocl_enqueued) and calls Oclgrind's function. Objects loaded
 * later are patched when a launch finds no queued site (mh_ocl_hook_rescan).
 * x86-64 and AArch64 (RELA relocations, JUMP_SLOT and GLOB_DAT). */
#define _GNU_SOURCE
#include <CL/cl.h>
#include <dlfcn.h>
#include <elf.h>
#include <link.h>
#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ocl_sink.h"

#if defined(__x86_64__)
#define R_SLOT R_X86_64_JUMP_SLOT
#define R_GLOB R_X86_64_GLOB_DAT
#elif defined(__aarch64__)
#define R_SLOT R_AARCH64_JUMP_SLOT
#define R_GLOB R_AARCH64_GLOB_DAT
#endif

typedef cl_int (*enqueue_fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *, const size_t *,
                             cl_uint, const cl_event *, cl_event *);
typedef cl_int (*kinfo_fn)(cl_kernel, cl_kernel_info, size_t, void *, size_t *);

static struct {
    pthread_mutex_t mu;
    enqueue_fn real;
    kinfo_fn kinfo;
    mh_ocl *sink;
    unsigned long long patched; /* slots rewritten */
} g_hook = {.mu = PTHREAD_MUTEX_INITIALIZER};

static cl_int hook_enqueue(cl_command_queue q, cl_kernel k, cl_uint dims, const size_t *off, const size_t *gsz,
                           const size_t *lsz, cl_uint nev, const cl_event *ev, cl_event *out) {
    char name[256] = "";
    if (g_hook.kinfo && g_hook.kinfo(k, CL_KERNEL_FUNCTION_NAME, sizeof name - 1, name, NULL) != CL_SUCCESS)
        name[0] = '\0';
    if (g_hook.sink) mh_ocl_enqueued(g_hook.sink, name);
    return g_hook.real(q, k, dims, off, gsz, lsz, nev, ev, out);
}

static int skip_object(const char *name) {
    return strstr(name, "liboclgrind") || strstr(name, "libmemheat_oclgrind") || strstr(name, "libOpenCL") ||
           strstr(name, "linux-vdso") || strstr(name, "/ld-linux");
}

static uintptr_t dyn_ptr(const struct dl_phdr_info *info, uintptr_t v) {
    return v < info->dlpi_addr ? v + info->dlpi_addr : v; /* the dynamic linker relocates most in place */
}

/* Rewrites the slots of clEnqueueNDRangeKernel in relocations [rel, rel + bytes). */
static void patch_relocs(const struct dl_phdr_info *info, const ElfW(Rela) *rel, size_t bytes, const ElfW(Sym) *sym,
                         const char *str) {
#ifdef R_SLOT
    long page = sysconf(_SC_PAGESIZE);
    for (size_t i = 0; i < bytes / sizeof *rel; i++) {
        unsigned long type = ELF64_R_TYPE(rel[i].r_info);
        if (type != R_SLOT && type != R_GLOB) continue;
        const ElfW(Sym) *s = &sym[ELF64_R_SYM(rel[i].r_info)];
        if (!s->st_name || strcmp(str + s->st_name, "clEnqueueNDRangeKernel") != 0) continue;
        void **slot = (void **)(info->dlpi_addr + rel[i].r_offset);
        if (*slot == (void *)hook_enqueue) continue;
        uintptr_t p = (uintptr_t)slot & ~(uintptr_t)(page - 1);
        if (mprotect((void *)p, (size_t)page, PROT_READ | PROT_WRITE) != 0) continue; /* RELRO: made writable */
        __atomic_store_n(slot, (void *)hook_enqueue, __ATOMIC_RELEASE);
        g_hook.patched++;
    }
#else
    (void)info, (void)rel, (void)bytes, (void)sym, (void)str;
#endif
}

static int patch_object(struct dl_phdr_info *info, size_t size, void *ctx) {
    (void)size, (void)ctx;
    const char *name = info->dlpi_name ? info->dlpi_name : "";
    if (skip_object(name)) return 0;
    const ElfW(Dyn) *dyn = NULL;
    for (int i = 0; i < info->dlpi_phnum; i++)
        if (info->dlpi_phdr[i].p_type == PT_DYNAMIC) dyn = (const ElfW(Dyn) *)(info->dlpi_addr + info->dlpi_phdr[i].p_vaddr);
    if (!dyn) return 0;
    const ElfW(Sym) *sym = NULL;
    const char *str = NULL;
    const ElfW(Rela) *jmprel = NULL, *rela = NULL;
    size_t jmpsz = 0, relasz = 0;
    for (; dyn->d_tag != DT_NULL; dyn++) {
        switch (dyn->d_tag) {
        case DT_SYMTAB: sym = (const ElfW(Sym) *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_STRTAB: str = (const char *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_JMPREL: jmprel = (const ElfW(Rela) *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_PLTRELSZ: jmpsz = dyn->d_un.d_val; break;
        case DT_RELA: rela = (const ElfW(Rela) *)dyn_ptr(info, dyn->d_un.d_ptr); break;
        case DT_RELASZ: relasz = dyn->d_un.d_val; break;
        default: break;
        }
    }
    if (!sym || !str) return 0;
    if (jmprel) patch_relocs(info, jmprel, jmpsz, sym, str);
    if (rela) patch_relocs(info, rela, relasz, sym, str);
    return 0;
}

int mh_ocl_hook_install(mh_ocl *o) {
    pthread_mutex_lock(&g_hook.mu);
    if (!g_hook.real) {
        *(void **)&g_hook.real = dlsym(RTLD_DEFAULT, "clEnqueueNDRangeKernel");
        *(void **)&g_hook.kinfo = dlsym(RTLD_DEFAULT, "clGetKernelInfo");
        if (g_hook.real == hook_enqueue) g_hook.real = NULL;
    }
    g_hook.sink = o;
    int ok = g_hook.real != NULL;
    if (ok) dl_iterate_phdr(patch_object, NULL);
    pthread_mutex_unlock(&g_hook.mu);
    return ok;
}

void mh_ocl_hook_rescan(void) {
    pthread_mutex_lock(&g_hook.mu);
    if (g_hook.real) dl_iterate_phdr(patch_object, NULL);
    pthread_mutex_unlock(&g_hook.mu);
}

void mh_ocl_hook_detach(void) {
    pthread_mutex_lock(&g_hook.mu);
    g_hook.sink = NULL; /* the slots stay: the hook then only forwards */
    pthread_mutex_unlock(&g_hook.mu);
}
