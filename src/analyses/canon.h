/* canon.h -- placement-independent ("canonical") addresses for the analyses.
 *
 * Locality metrics and pattern detection must not depend on where the driver
 * or the simulator placed a buffer, so every access address is rewritten as
 * (space, data object, offset in that object) and packed into one 64-bit key:
 *
 *   bits 62..63  address space (enum mh_space)
 *   bits 40..61  slot: model object index + 1 (global, shared, constant);
 *                the thread's global linear id (local space: private frames
 *                are per thread); MH_CANON_NOOBJ when no object contains it
 *   bits  0..39  byte offset inside the object (or the raw address's low 40
 *                bits when unattributed)
 *
 * Dropping n <= 10 low bits of a key therefore never merges two objects, and
 * the same offset in two blocks' shared windows is the same key (AIWC's view
 * of OpenCL local memory). docs/metrics.md states the definition.
 *
 * mh_canon caches the last object found per space, because mh_model_find_obj
 * is a linear scan; call mh_canon_reset whenever the model gained or lost an
 * object. */
#ifndef MEMHEAT_ANALYSES_CANON_H
#define MEMHEAT_ANALYSES_CANON_H

#include <stdint.h>

#include "analyses/model.h"
#include "memheat/trace.h"

#define MH_CANON_OFF_BITS 40
#define MH_CANON_OFF_MASK ((UINT64_C(1) << MH_CANON_OFF_BITS) - 1)
#define MH_CANON_SLOT_MASK UINT64_C(0x3FFFFF)
#define MH_CANON_NOOBJ MH_CANON_SLOT_MASK

#define MH_CANON_SPACE(k) ((unsigned)((k) >> 62))
#define MH_CANON_SLOT(k) (((k) >> MH_CANON_OFF_BITS) & MH_CANON_SLOT_MASK)
#define MH_CANON_OFF(k) ((k) & MH_CANON_OFF_MASK)
/* Model object index of a key, or -1 (unattributed, or a local-space key). */
#define MH_CANON_OBJ(k) \
    ((MH_CANON_SPACE(k) == MH_SPACE_LOCAL || MH_CANON_SLOT(k) == MH_CANON_NOOBJ) ? (int64_t)-1 \
                                                                                 : (int64_t)MH_CANON_SLOT(k) - 1)

typedef struct mh_canon_cache {
    uint32_t launch;
    int valid;
    uint64_t base, end; /* [base, end) of the cached object */
    uint64_t slot;
} mh_canon_cache;

typedef struct mh_canon {
    const mh_model *model;
    mh_canon_cache c[MH_SPACE_COUNT];
} mh_canon;

void mh_canon_init(mh_canon *c, const mh_model *m);
void mh_canon_reset(mh_canon *c);
static inline uint64_t mh_canon_pack(unsigned space, uint64_t slot, uint64_t off) {
    return ((uint64_t)(space & 3u) << 62) | ((slot & MH_CANON_SLOT_MASK) << MH_CANON_OFF_BITS) |
           (off & MH_CANON_OFF_MASK);
}

/* mh_canon_key past the cached object (canon.c). */
uint64_t mh_canon_key_slow(mh_canon *c, const mh_model_launch *ml, const mh_access *a);

/* Key of access a (which belongs to launch ml): inline while the access
 * falls in the object its space found last, as nearly all do. */
static inline uint64_t mh_canon_key(mh_canon *c, const mh_model_launch *ml, const mh_access *a) {
    unsigned space = MH_ACCESS_SPACE(a);
    if (space < MH_SPACE_COUNT && space != MH_SPACE_LOCAL) {
        const mh_canon_cache *cc = &c->c[space];
        if (cc->valid && cc->launch == a->launch && a->addr >= cc->base && a->addr < cc->end)
            return mh_canon_pack(space, cc->slot, a->addr - cc->base);
    }
    return mh_canon_key_slow(c, ml, a);
}

#endif
