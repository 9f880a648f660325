/* results.c -- copies of emitted results (results.h). */
#include "pass/results.h"

#include <stdlib.h>
#include <string.h>

mh_result *mh_result_copy(int kind, unsigned row, const void *r) {
    mh_result *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->kind = kind;
    c->row = row;
    if (kind == MH_RESULT_HEAT) {
        const mh_heat_result *h = r;
        c->has_launch = 1;
        c->launch = h->launch->l.id;
        c->u.heat = *h;
        mh_heat_row *rows = malloc((h->nrows ? h->nrows : 1) * sizeof *rows);
        mh_heat_region *reg = malloc((h->nregions ? h->nregions : 1) * sizeof *reg);
        c->u.heat.rows = rows;
        c->u.heat.regions = reg;
        if (!rows || !reg) {
            mh_result_free(c);
            return NULL;
        }
        memcpy(rows, h->rows, h->nrows * sizeof *rows);
        memcpy(reg, h->regions, h->nregions * sizeof *reg);
    } else {
        const mh_loc_result *l = r;
        c->has_launch = l->launch != NULL;
        c->launch = l->launch ? l->launch->l.id : 0;
        c->u.loc = *l; /* flat */
    }
    return c;
}

int mh_result_repoint(mh_result *c, const mh_model *m) {
    const mh_model_launch *ml = c->has_launch ? mh_model_launch_get(m, c->launch) : NULL;
    if (c->has_launch && !ml) return 0;
    if (c->kind == MH_RESULT_HEAT) {
        c->u.heat.model = m;
        c->u.heat.launch = ml;
        mh_heat_region *reg = (mh_heat_region *)c->u.heat.regions;
        for (size_t i = 0; i < c->u.heat.nregions; i++)
            if (reg[i].obj >= 0 && (size_t)reg[i].obj < m->nobjs) reg[i].label = m->objs[reg[i].obj].a.label;
    } else {
        c->u.loc.model = m;
        c->u.loc.launch = ml;
    }
    return 1;
}

const void *mh_result_get(const mh_result *c) { return &c->u; }

void mh_result_free(mh_result *c) {
    if (!c) return;
    if (c->kind == MH_RESULT_HEAT) {
        free((void *)c->u.heat.rows);
        free((void *)c->u.heat.regions);
    }
    free(c);
}
