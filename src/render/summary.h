/* summary.h -- reading a profile's summary, the JSON document the store
 * gives (store.h: mh_db_read_summary): small readers of its fields, and
 * the launches and objects its findings and maps name (summary.c). */
#ifndef MH_RENDER_SUMMARY_H
#define MH_RENDER_SUMMARY_H

#include <jansson.h>
#include <stdint.h>

/* Field key of o: a hex string ("0x..."), an integer, a number, a string (dflt when absent). */
uint64_t mh_sum_hex(const json_t *o, const char *key);
int64_t mh_sum_int(const json_t *o, const char *key);
double mh_sum_num(const json_t *o, const char *key);
const char *mh_sum_str(const json_t *o, const char *key, const char *dflt);
/* The launch of id `id` (NULL: none), and its kernel's display name ("?"). */
const json_t *mh_sum_launch(const json_t *root, int64_t id);
const char *mh_sum_kernel(const json_t *root, int64_t launch);
/* Object obj's base address (0: none); its kernel-argument view as analyze's
 * JSON on a trace gives it (index, type, name, allocation, offset, range),
 * NULL for any other object or a profile without argument columns. */
uint64_t mh_sum_object_base(const json_t *root, int64_t obj);
json_t *mh_sum_object_arg(const json_t *root, int64_t obj);

#endif
