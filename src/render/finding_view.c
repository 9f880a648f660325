/* finding_view.c -- a finding as text and JSON, from a trace or a profile
 * (finding_view.h). */
#include "render/finding_view.h"

#include <inttypes.h>
#include <string.h>

#include "render/summary.h"

static json_t *jstr(const char *s) { return json_string(s ? s : ""); }

/* A kernel-argument view of the model: {"index", "type", "name",
 * "allocation", "offset", "range": [first byte, last byte] used}; NULL for
 * any other object. */
static json_t *arg_json(const mh_model *m, int64_t obj) {
    if (obj < 0 || (size_t)obj >= m->nobjs || m->objs[obj].arg < 0) return NULL;
    const mh_model_obj *o = &m->objs[obj];
    json_t *a = json_object();
    json_object_set_new(a, "index", json_integer(o->arg));
    json_object_set_new(a, "type", jstr(o->arg_type));
    if (o->arg_name && *o->arg_name) json_object_set_new(a, "name", jstr(o->arg_name));
    if (o->parent >= 0 && (size_t)o->parent < m->nobjs) {
        const mh_alloc *p = &m->objs[o->parent].a;
        json_object_set_new(a, "allocation", json_integer(o->parent));
        json_object_set_new(a, "allocation_label", jstr(p->label));
        json_object_set_new(a, "offset", json_integer((json_int_t)(o->a.base - p->base)));
    }
    if (o->used_hi > o->used_lo)
        json_object_set_new(a, "range", json_pack("[I, I]", (json_int_t)o->used_lo, (json_int_t)(o->used_hi - 1)));
    return a;
}

void mh_fview_from_trace(mh_fview *v, const mh_model *m, const mh_pat_finding *f) {
    memset(v, 0, sizeof *v);
    v->kind = mh_pat_kind_name(f->kind);
    v->cost = f->cost;
    v->launch = f->launch;
    v->kernel = f->kernel;
    v->space = mh_space_name(f->space);
    v->has_obj = f->obj >= 0;
    v->obj = f->obj;
    v->label = f->label;
    v->arg = arg_json(m, f->obj);
    v->pc = f->pc;
    v->file = f->file;
    v->line = f->line;
    v->function = f->file ? (f->function ? f->function : "") : NULL;
    v->has_pcs = 1;
    v->pcs = f->pcs;
    v->npcs = f->npcs;
    v->summary = f->summary;
    v->summary_len = strlen(f->summary);
    size_t room = sizeof v->buf - (MH_HEAT_WORDS + 1);
    if (mh_pat_pcs_text(f, v->buf, room)) v->pcs_text = v->buf;
    v->counts = 1;
    v->sectors = f->sectors;
    v->flagged = f->flagged;
    v->requests = f->requests;
    v->req_sectors = f->req_sectors;
    v->ideal_sectors = f->ideal_sectors;
    v->stride = f->stride;
    v->elem_size = f->elem_size;
    v->max_word_temp = f->max_word_temp;
    v->max_sector_temp = f->max_sector_temp;
    v->has_degree = f->kind == MH_PAT_BANK_CONFLICT || f->kind == MH_PAT_ATOMIC;
    v->degree_avg = f->degree_avg;
    v->degree_max = f->degree_max;
    v->has_example = f->has_example;
    if (f->has_example) {
        v->has_offset = 1;
        v->example_off = f->example_off;
        v->example_tag = f->example.tag;
        memcpy(v->words, f->example.word, sizeof v->words);
        v->sector = f->example.sector;
        v->example_kinds =
            mh_heat_kinds_text(mh_heat_kinds_pack(&f->example), f->example.word, v->buf + room);
    }
    v->suggestion = f->suggestion;
}

/* The summary of a stored evidence line: the text before "; at N pcs:". */
static size_t summary_len(const char *ev) {
    for (const char *p = strstr(ev, "; at "); p; p = strstr(p + 1, "; at ")) {
        const char *q = p + 5;
        while (*q >= '0' && *q <= '9') q++;
        if (q > p + 5 && !strncmp(q, " pcs:", 5)) return (size_t)(p - ev);
    }
    return strlen(ev);
}

void mh_fview_from_profile(mh_fview *v, const json_t *root, const json_t *x) {
    memset(v, 0, sizeof *v);
    const json_t *obj = json_object_get(x, "object");
    const char *ev = mh_sum_str(x, "evidence", "");
    v->kind = mh_sum_str(x, "kind", "");
    v->cost = mh_sum_num(x, "cost");
    v->launch = mh_sum_int(x, "launch");
    v->kernel = mh_sum_kernel(root, v->launch);
    v->space = mh_sum_str(x, "space", "");
    v->has_obj = json_is_integer(obj);
    v->obj = v->has_obj ? json_integer_value(obj) : -1;
    v->label = mh_sum_str(x, "object_label", "");
    v->arg = v->has_obj ? mh_sum_object_arg(root, v->obj) : NULL;
    v->pc = mh_sum_hex(x, "pc");
    v->file = mh_sum_str(x, "file", NULL);
    v->line = mh_sum_int(x, "line");
    v->summary = ev;
    v->summary_len = summary_len(ev);
    if (ev[v->summary_len]) v->pcs_text = ev + v->summary_len + 2;
    v->sectors = (uint64_t)mh_sum_int(x, "sectors");
    v->stride = mh_sum_int(x, "stride");
    const json_t *temps = json_object_get(x, "temps");
    if (json_array_size(temps) == MH_HEAT_WORDS + 1) {
        v->has_example = 1;
        v->example_tag = mh_sum_hex(x, "example_tag");
        uint64_t base = v->has_obj ? mh_sum_object_base(root, v->obj) : 0, at = v->example_tag * 32u;
        v->example_off = at >= base ? at - base : 0; /* the text says it; the profile's JSON does not */
        for (int w = 0; w < MH_HEAT_WORDS; w++) v->words[w] = (uint32_t)json_integer_value(json_array_get(temps, (size_t)w));
        v->sector = (uint32_t)json_integer_value(json_array_get(temps, MH_HEAT_WORDS));
    }
    v->suggestion = mh_sum_str(x, "advice", "");
}

void mh_fview_text(FILE *f, size_t rank, const mh_fview *v) {
    fprintf(f, "#%-3zu %-17s cost %-10.0f launch %" PRId64 " %s  %s", rank + 1, v->kind, v->cost, v->launch,
            v->kernel ? v->kernel : "?", v->space);
    if (v->has_obj) fprintf(f, " '%s' (object %" PRId64 ")", v->label && *v->label ? v->label : "?", v->obj);
    else fprintf(f, " (outside known objects)");
    if (v->pc) fprintf(f, "  pc 0x%" PRIx64, v->pc);
    if (v->file) fprintf(f, " %s:%" PRId64, v->file, v->line);
    fputc('\n', f);
    fprintf(f, "     %.*s\n", (int)v->summary_len, v->summary);
    if (v->pcs_text) fprintf(f, "     %s; figures above: pc 0x%" PRIx64 ", the costliest\n", v->pcs_text, v->pc);
    if (v->sectors && !strcmp(v->space, "global")) {
        if (v->counts)
            fprintf(f, "     heat: %" PRIu64 " sectors, hottest word %u warps, hottest sector %u warps\n", v->sectors,
                    v->max_word_temp, v->max_sector_temp);
        else
            fprintf(f, "     heat: %" PRIu64 " sectors\n", v->sectors);
    }
    if (v->has_example) {
        fprintf(f, "     example sector at offset %" PRIu64 " (tag 0x%" PRIx64 "): words", v->example_off, v->example_tag);
        for (int w = 0; w < MH_HEAT_WORDS; w++) fprintf(f, " %u", v->words[w]);
        fprintf(f, " | sector %u\n", v->sector);
    }
    fprintf(f, "     fix: %s\n", v->suggestion);
}

json_t *mh_fview_json(const mh_fview *v) {
    json_t *o = json_object();
    if (!o) return NULL;
    json_object_set_new(o, "kind", jstr(v->kind));
    json_object_set_new(o, "cost", json_real(v->cost));
    json_object_set_new(o, "launch", json_integer(v->launch));
    json_object_set_new(o, "kernel", jstr(v->kernel));
    json_object_set_new(o, "space", jstr(v->space));
    json_object_set_new(o, "object", json_integer(v->obj));
    json_object_set_new(o, "label", jstr(v->label));
    if (v->arg) json_object_set(o, "arg", v->arg);
    json_object_set_new(o, "pc", json_integer((json_int_t)v->pc));
    if (v->has_pcs) {
        json_t *pa = json_array();
        for (size_t i = 0; i < v->npcs; i++) {
            json_t *p = json_object();
            json_object_set_new(p, "pc", json_integer((json_int_t)v->pcs[i].pc));
            json_object_set_new(p, "cost", json_real(v->pcs[i].cost));
            if (v->pcs[i].file) {
                json_object_set_new(p, "file", jstr(v->pcs[i].file));
                json_object_set_new(p, "line", json_integer(v->pcs[i].line));
            }
            json_array_append_new(pa, p);
        }
        json_object_set_new(o, "pcs", pa);
    }
    if (v->file) {
        json_t *s = json_object();
        json_object_set_new(s, "file", jstr(v->file));
        json_object_set_new(s, "line", json_integer(v->line));
        if (v->function) json_object_set_new(s, "function", jstr(v->function));
        json_object_set_new(o, "source", s);
    } else {
        json_object_set_new(o, "source", json_null());
    }
    json_t *e = json_object();
    json_object_set_new(e, "sectors", json_integer((json_int_t)v->sectors));
    if (v->counts) {
        json_object_set_new(e, "flagged", json_integer((json_int_t)v->flagged));
        json_object_set_new(e, "requests", json_integer((json_int_t)v->requests));
        json_object_set_new(e, "request_sectors", json_integer((json_int_t)v->req_sectors));
        json_object_set_new(e, "ideal_sectors", json_integer((json_int_t)v->ideal_sectors));
    }
    json_object_set_new(e, "stride_bytes", json_integer(v->stride));
    if (v->counts) {
        json_object_set_new(e, "elem_size", json_integer(v->elem_size));
        json_object_set_new(e, "max_word_temp", json_integer(v->max_word_temp));
        json_object_set_new(e, "max_sector_temp", json_integer(v->max_sector_temp));
    }
    if (v->has_degree) {
        json_object_set_new(e, "degree_avg", json_real(v->degree_avg));
        json_object_set_new(e, "degree_max", json_integer(v->degree_max));
    }
    if (v->has_example) {
        json_t *ex = json_object(), *w = json_array();
        for (int i = 0; i < MH_HEAT_WORDS; i++) json_array_append_new(w, json_integer(v->words[i]));
        if (v->has_offset) json_object_set_new(ex, "offset", json_integer((json_int_t)v->example_off));
        json_object_set_new(ex, "tag", json_integer((json_int_t)v->example_tag));
        json_object_set_new(ex, "words", w);
        json_object_set_new(ex, "sector", json_integer(v->sector));
        if (v->example_kinds) json_object_set_new(ex, "kinds", json_string(v->example_kinds));
        json_object_set_new(e, "example", ex);
    }
    json_object_set_new(o, "evidence", e);
    json_object_set_new(o, "summary", json_stringn(v->summary, v->summary_len));
    if (v->pcs_text && !v->has_pcs) json_object_set_new(o, "pcs_text", json_string(v->pcs_text));
    json_object_set_new(o, "suggestion", jstr(v->suggestion));
    return o;
}

void mh_fview_free(mh_fview *v) {
    json_decref(v->arg);
    v->arg = NULL;
}
