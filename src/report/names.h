/* names.h -- kernel names as a user reads them (mh_names_): CUDA reports
 * Itanium-mangled names (_Z11h_histogramPKfPfi); reports and diffs show the
 * demangled name, long template names shortened, the whole name on demand. */
#ifndef MH_REPORT_NAMES_H
#define MH_REPORT_NAMES_H

#include <stddef.h>

struct json_t;

#define MH_NAMES_SHORT 64 /* names longer than this are shortened */

/* Demangling itself is util/demangle.h (mh_demangle), shared with the CUDA
 * collector. */
/* A short form of a (mangled or demangled) name into out, at most
 * MH_NAMES_SHORT columns: util/kname.h's MH_KNAME_SHORT. Returns strlen(out). */
size_t mh_names_short(const char *full, char *out, size_t cap);
/* Both: the short form of the demangled name (or of name). */
size_t mh_names_display(const char *name, char *out, size_t cap);
/* Adds "full_name" (demangled, or as stored) and "short_name" beside "name"
 * to every object of the summary's launches, kernels and launch_counts. */
void mh_names_annotate(struct json_t *summary);

#endif
