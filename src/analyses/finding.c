/* finding.c -- a finding named from the model, and re-pointed at another
 * model (finding.h). */
#include "analyses/finding.h"

#include <string.h>

int mh_pat_cmp_finding(const void *a, const void *b) {
    const mh_pat_finding *x = a, *y = b;
    if (x->cost != y->cost) return x->cost > y->cost ? -1 : 1;
    if (x->launch != y->launch) return x->launch < y->launch ? -1 : 1;
    if (x->obj != y->obj) return x->obj < y->obj ? -1 : 1;
    return x->kind - y->kind;
}

void mh_finding_fill(mh_pat_finding *f, const mh_model *m, int kind, const mh_model_launch *ml, unsigned space,
                     int64_t obj, uint64_t pc) {
    memset(f, 0, sizeof *f);
    f->kind = kind;
    f->launch = ml ? ml->l.id : 0;
    f->kernel = ml ? ml->l.display_name : "";
    f->space = space;
    f->obj = obj;
    f->label = (obj >= 0 && (size_t)obj < m->nobjs) ? m->objs[obj].a.label : "";
    if (!f->label) f->label = "";
    mh_model_obj_text(m, obj, f->name, sizeof f->name);
    f->pc = pc;
    const mh_pcinfo *pi = pc ? mh_model_pcinfo(m, pc) : NULL;
    if (pi) {
        f->file = pi->file;
        f->line = pi->line;
        f->function = pi->function;
    }
}

/* s, taken from run model `from` (a pcinfo's file or function of pc), as the
 * same entry of `to`. */
static const char *pc_str(const mh_model *from, const mh_model *to, uint64_t pc, const char *s, int function) {
    if (!s) return NULL;
    const mh_pcinfo *pi = mh_model_pcinfo(from, pc);
    size_t i = pi ? (size_t)(pi - from->pcs) : 0;
    if (!pi || (function ? pi->function : pi->file) != s)
        for (i = 0; i < from->npcs && (function ? from->pcs[i].function : from->pcs[i].file) != s; i++) {
        }
    if (i >= from->npcs || i >= to->npcs) return s;
    return function ? to->pcs[i].function : to->pcs[i].file;
}

void mh_finding_rebind(mh_pat_finding *f, const mh_model *from, const mh_model *to) {
    if (from == to) return;
    const mh_model_launch *ml = mh_model_launch_get(from, f->launch);
    if (ml && f->kernel == ml->l.display_name) {
        size_t i = (size_t)(ml - from->launches);
        if (i < to->nlaunches) f->kernel = to->launches[i].l.display_name;
    }
    if (f->obj >= 0 && (size_t)f->obj < from->nobjs && (size_t)f->obj < to->nobjs &&
        f->label == from->objs[f->obj].a.label)
        f->label = to->objs[f->obj].a.label;
    f->file = pc_str(from, to, f->pc, f->file, 0);
    f->function = pc_str(from, to, f->pc, f->function, 1);
    for (size_t j = 0; j < f->npcs; j++) f->pcs[j].file = pc_str(from, to, f->pcs[j].pc, f->pcs[j].file, 0);
}
