/* site_py.c -- the Python frames of the calling thread, read from the
 * running CPython without its GIL (site.h).
 *
 * A launch made from Python runs inside a C function that has usually
 * released the GIL (PyTorch's ops do; ctypes does): taking it back could
 * deadlock, and the public frame API (PyThreadState_GetFrame, PyFrame_GetBack,
 * PyFrame_GetCode) creates frame objects and changes reference counts of
 * objects other threads share, which is only safe under the GIL. But the
 * thread's own frames cannot change while it is in C, so they are read here
 * in place: the interpreter's C API, found with dlsym in the process, gives
 * the thread's state (PyGILState_GetThisThreadState: thread-local, no lock),
 * the version (Py_GetVersion), the types that validate every object before
 * it is read (PyCode_Type, PyUnicode_Type) and the line of an instruction
 * (PyCode_Addr2Line; PyUnstable_InterpreterFrame_GetLine on 3.12+;
 * PyFrame_GetLineNumber on 3.10); the frame chain and the code objects'
 * fields are read at the offsets of the version's own headers (the table
 * below; tests/collectors/test_site_py.c checks the running Python's entry
 * against its headers where they are installed). Nothing is written, nothing
 * allocated in the interpreter, no lock taken: a version the table does not
 * know, or an object of the wrong type, gives no Python frames. */
#define _GNU_SOURCE
#include "collectors/site/site.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Where one CPython version keeps what the walk reads (64-bit builds, the
 * default configuration: not debug, not free-threaded). */
typedef struct py_layout {
    int minor;
    size_t ts_frame;      /* PyThreadState: the frame pointer (3.10/3.13) or cframe (3.11/3.12) */
    int via_cframe;       /* 1: ts_frame is a _PyCFrame*, the frame at cframe_frame inside it */
    size_t cframe_frame;
    int frame_objects;    /* 3.10: the chain is PyFrameObjects */
    size_t f_code;        /* frame: its code object */
    size_t f_back;        /* frame: the caller's frame */
    size_t f_instr;       /* frame: the instruction pointer (3.11+), f_lasti (3.10, int) */
    size_t f_owner;       /* frame: owner byte (3.12+: 3 = a C-stack shim frame, skipped); 0 = none */
    size_t co_filename, co_name, co_qualname; /* code object; co_qualname 0 = none (3.10) */
    size_t co_code;       /* code object: first instruction (3.11: co_code_adaptive) */
    size_t ascii_size;    /* sizeof(PyASCIIObject) */
    size_t compact_size;  /* sizeof(PyCompactUnicodeObject) */
} py_layout;

static const py_layout k_layouts[] = {
    /* minor ts_frame cframe? cframe_frame frameobj f_code f_back f_instr owner filename name qualname code ascii compact */
    {10, 24, 0, 0, 1, 32, 24, 96, 0, 104, 112, 0, 0, 48, 72},
    {11, 56, 1, 8, 0, 32, 48, 56, 0, 112, 120, 128, 184, 48, 72},
    {12, 56, 1, 0, 0, 0, 8, 56, 70, 112, 120, 128, 192, 40, 56},
    {13, 72, 0, 0, 0, 0, 8, 56, 70, 112, 120, 128, 0, 40, 56},
};

typedef void *(*fn_tstate)(void);
typedef const char *(*fn_version)(void);
typedef int (*fn_addr2line)(void *code, int byte_offset);
typedef int (*fn_frame_line)(void *frame);

static struct {
    pthread_once_t once;
    int ok;
    const py_layout *L;
    fn_tstate tstate;
    fn_addr2line addr2line;
    fn_frame_line frame_line; /* 3.10: PyFrame_GetLineNumber; 3.12+: PyUnstable_InterpreterFrame_GetLine */
    const void *code_type, *str_type;
    char version[32];
} g_py = {.once = PTHREAD_ONCE_INIT};

static void py_init_once(void) {
    fn_version ver;
    *(void **)&ver = dlsym(RTLD_DEFAULT, "Py_GetVersion");
    *(void **)&g_py.tstate = dlsym(RTLD_DEFAULT, "PyGILState_GetThisThreadState");
    *(void **)&g_py.addr2line = dlsym(RTLD_DEFAULT, "PyCode_Addr2Line");
    g_py.code_type = dlsym(RTLD_DEFAULT, "PyCode_Type");
    g_py.str_type = dlsym(RTLD_DEFAULT, "PyUnicode_Type");
    if (!ver || !g_py.tstate || !g_py.addr2line || !g_py.code_type || !g_py.str_type) return;
    const char *v = ver();
    int major = 0, minor = 0;
    if (!v || sscanf(v, "%d.%d", &major, &minor) != 2 || major != 3) return;
    snprintf(g_py.version, sizeof g_py.version, "%d.%d", major, minor);
    if (strstr(v, "free-threading")) return; /* another object layout */
    for (size_t i = 0; i < sizeof k_layouts / sizeof *k_layouts; i++)
        if (k_layouts[i].minor == minor) g_py.L = &k_layouts[i];
    if (!g_py.L) return;
    if (minor == 10) *(void **)&g_py.frame_line = dlsym(RTLD_DEFAULT, "PyFrame_GetLineNumber");
    if (minor >= 12) *(void **)&g_py.frame_line = dlsym(RTLD_DEFAULT, "PyUnstable_InterpreterFrame_GetLine");
    if (minor != 11 && !g_py.frame_line) return;
    g_py.ok = 1;
}

int mh_site_py_init(void) {
    pthread_once(&g_py.once, py_init_once);
    return g_py.ok;
}

const char *mh_site_py_version(void) {
    mh_site_py_init();
    return g_py.version[0] ? g_py.version : "";
}

static inline uintptr_t rd_ptr(uintptr_t base, size_t off) { return *(const uintptr_t *)(base + off); }
static inline const void *type_of(uintptr_t obj) { return (const void *)rd_ptr(obj, 8); }

/* The code object of a frame, or 0 (a shim frame, or not a code object). */
static uintptr_t frame_code(uintptr_t f) {
    const py_layout *L = g_py.L;
    if (L->f_owner && *(const char *)(f + L->f_owner) == 3) return 0; /* owned by the C stack */
    uintptr_t code = rd_ptr(f, L->f_code);
    return code && type_of(code) == g_py.code_type ? code : 0;
}

int mh_site_py_read(mh_site_pystack *st) {
    st->n = 0;
    st->cut = 0;
    if (!mh_site_py_init()) return 0;
    const py_layout *L = g_py.L;
    uintptr_t ts = (uintptr_t)g_py.tstate();
    if (!ts) return 0; /* a thread Python never ran on */
    uintptr_t f = rd_ptr(ts, L->ts_frame);
    if (L->via_cframe && f) f = rd_ptr(f, L->cframe_frame);
    for (int guard = 0; f && guard < 4096; guard++, f = rd_ptr(f, L->f_back)) {
        uintptr_t code = frame_code(f);
        if (!code) continue;
        if (st->n == MH_SITE_PY_DEPTH) {
            st->cut = 1;
            break;
        }
        /* the frame itself stands for its instruction on 3.10 and 3.12+
         * (their line functions take the frame), resolved while alive */
        uintptr_t instr = L->frame_objects ? (uintptr_t) * (const int *)(f + L->f_instr) : rd_ptr(f, L->f_instr);
        st->key[st->n].code = code;
        st->key[st->n].instr = instr;
        st->frame[st->n] = f;
        st->n++;
    }
    return 1;
}

/* UTF-8 copy of a str object, NULL when it is not a compact str. */
static char *str_copy(uintptr_t o) {
    const py_layout *L = g_py.L;
    if (!o || type_of(o) != g_py.str_type) return NULL;
    size_t len = (size_t)rd_ptr(o, 16);
    uint32_t state = *(const uint32_t *)(o + 32);
    unsigned kind = (state >> 2) & 7u, compact = (state >> 5) & 1u, ascii = (state >> 6) & 1u;
    if (!compact || len > 65536) return NULL;
    const unsigned char *d = (const unsigned char *)(o + (ascii ? L->ascii_size : L->compact_size));
    char *out = malloc(4 * len + 1), *p = out;
    if (!out) return NULL;
    for (size_t i = 0; i < len; i++) {
        uint32_t c = kind == 1 ? d[i] : kind == 2 ? ((const uint16_t *)(const void *)d)[i]
                                                  : ((const uint32_t *)(const void *)d)[i];
        if (c < 0x80) *p++ = (char)c;
        else if (c < 0x800) *p++ = (char)(0xC0 | c >> 6), *p++ = (char)(0x80 | (c & 63));
        else if (c < 0x10000) *p++ = (char)(0xE0 | c >> 12), *p++ = (char)(0x80 | ((c >> 6) & 63)), *p++ = (char)(0x80 | (c & 63));
        else *p++ = (char)(0xF0 | c >> 18), *p++ = (char)(0x80 | ((c >> 12) & 63)), *p++ = (char)(0x80 | ((c >> 6) & 63)),
             *p++ = (char)(0x80 | (c & 63));
    }
    *p = '\0';
    return out;
}

int mh_site_py_resolve(const mh_site_pystack *st, uint32_t i, mh_site_pyframe *out) {
    memset(out, 0, sizeof *out);
    if (!g_py.ok || i >= st->n) return 0;
    const py_layout *L = g_py.L;
    uintptr_t code = st->key[i].code, f = st->frame[i];
    int line;
    if (L->minor == 11) {
        uintptr_t first = code + L->co_code;
        line = st->key[i].instr >= first ? g_py.addr2line((void *)code, (int)(st->key[i].instr - first)) : -1;
    } else {
        line = g_py.frame_line((void *)f);
    }
    out->line = line > 0 ? (uint32_t)line : 0;
    char *file = str_copy(rd_ptr(code, L->co_filename));
    char *fn = L->co_qualname ? str_copy(rd_ptr(code, L->co_qualname)) : NULL;
    if (!fn) fn = str_copy(rd_ptr(code, L->co_name));
    if (!file || !fn) {
        free(file);
        free(fn);
        return 0;
    }
    out->file = file;
    out->function = fn;
    return 1;
}
