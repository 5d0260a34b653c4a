/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * export_pprof.c -- pprof's profile.proto (github.com/google/pprof,
 * proto/profile.proto), gzip-compressed, with a protobuf encoder of our own:
 * the message needs only varints and length-delimited fields
 * (protobuf encoding guide: wire types 0 and 2, packed repeated scalars).
 *
 * One sample_type per value column (event name, raw unit); one Sample per
 * calling context with self cost, its location_ids leaf first; one
 * Location per (frame name, line): the leaf's line is its declaration, a
 * caller's line is the call site of the frame below it; one Function per
 * frame name.  The root's own cost is a sample at a frame named after the
 * program, as in the other exports.  default_sample_type is the chosen
 * column's event, so that pprof shows the metric the report was asked for.
 * Tool code.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "export/export_internal.h"

struct buf {
    uint8_t *p;
    size_t len, cap;
    bool oom;
};

static void
put(struct buf *b, const void *data, size_t n)
{
    if (b->oom)
        return;
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 4096;
        uint8_t *p;
        while (cap < b->len + n)
            cap *= 2;
        p = realloc(b->p, cap);
        if (p == NULL) {
            b->oom = true;
            return;
        }
        b->p = p;
        b->cap = cap;
    }
    memcpy(b->p + b->len, data, n);
    b->len += n;
}

static void
varint(struct buf *b, uint64_t v)
{
    uint8_t tmp[10];
    size_t n = 0;

    do {
        tmp[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v != 0);
    put(b, tmp, n);
}

static void
field_varint(struct buf *b, unsigned field, uint64_t v)
{
    varint(b, (uint64_t)field << 3 | 0);
    varint(b, v);
}

static void
field_bytes(struct buf *b, unsigned field, const void *data, size_t n)
{
    varint(b, (uint64_t)field << 3 | 2);
    varint(b, n);
    put(b, data, n);
}

/* A nested message: @sub is encoded, appended, and emptied. */
static void
field_msg(struct buf *b, unsigned field, struct buf *sub)
{
    if (sub->oom)
        b->oom = true;
    field_bytes(b, field, sub->p, sub->len);
    sub->len = 0;
}

/* Profile fields (profile.proto) */
enum {
    P_SAMPLE_TYPE = 1,
    P_SAMPLE = 2,
    P_MAPPING = 3,
    P_LOCATION = 4,
    P_FUNCTION = 5,
    P_STRING_TABLE = 6,
    P_PERIOD_TYPE = 11,
    P_PERIOD = 12,
    P_COMMENT = 13,
    P_DEFAULT_SAMPLE_TYPE = 14,
};

struct loc_key {
    uint32_t name;
    int32_t line;
    uint64_t id;
};

struct pp {
    const struct rpt_tree *t;
    struct buf out, sub, sub2;
    int64_t nstrings;
    int64_t *str_of_name;   /* name id -> string index + 1 */
    int64_t *str_of_file;   /* file -> string index + 1 */
    uint64_t *func_of_name; /* name id -> function id */
    uint32_t *func_node;    /* function id - 1 -> node */
    uint64_t nfuncs;
    struct loc_key *locs; /* open addressing */
    size_t nlocs_slot;
    uint64_t nlocs;
    struct loc_key *loc_list; /* by id - 1 */
    uint64_t *stack;
    size_t depth_cap;
};

static int64_t
add_string(struct pp *p, struct buf *strings, const char *s)
{
    field_bytes(strings, P_STRING_TABLE, s, strlen(s));
    return p->nstrings++;
}

static uint64_t
location(struct pp *p, uint32_t node, int32_t line)
{
    uint32_t name = p->t->nodes[node].name;
    uint64_t h = ((uint64_t)name * 0x9e3779b97f4a7c15ull) ^ (uint32_t)line;
    size_t i = (size_t)(h ^ (h >> 31)) & (p->nlocs_slot - 1);

    while (p->locs[i].id != 0) {
        if (p->locs[i].name == name && p->locs[i].line == line)
            return p->locs[i].id;
        i = (i + 1) & (p->nlocs_slot - 1);
    }
    if (p->func_of_name[name] == 0) {
        p->func_node[p->nfuncs] = node;
        p->func_of_name[name] = ++p->nfuncs;
    }
    p->locs[i] = (struct loc_key){name, line, ++p->nlocs};
    p->loc_list[p->nlocs - 1] = p->locs[i];
    return p->nlocs;
}

int
export_pprof(const struct rpt_tree *t, int col, FILE *out)
{
    struct pp p;
    struct buf strings = {0}, packed = {0}, gz = {0};
    uint32_t maxname = 0;
    int nv = t->nvalues, rc = -1;
    int64_t dflt = 0; /* string index of column @col's event */
    z_stream zs;

    memset(&p, 0, sizeof p);
    p.t = t;
    for (uint32_t n = 0; n < t->nnodes; n++)
        if (t->nodes[n].name > maxname)
            maxname = t->nodes[n].name;
    p.str_of_name = calloc((size_t)maxname + 1, sizeof *p.str_of_name);
    p.func_of_name = calloc((size_t)maxname + 1, sizeof *p.func_of_name);
    p.str_of_file = calloc((size_t)t->db->nfiles + 1, sizeof *p.str_of_file);
    p.func_node = calloc(2 * (size_t)t->nnodes + 2, sizeof *p.func_node);
    p.nlocs_slot = 1024;
    while (p.nlocs_slot < 4 * (size_t)t->nnodes + 4) /* locations <= 2 per node */
        p.nlocs_slot *= 2;
    p.locs = calloc(p.nlocs_slot, sizeof *p.locs);
    p.loc_list = calloc(2 * (size_t)t->nnodes + 2, sizeof *p.loc_list);
    p.stack = malloc(((size_t)t->nnodes + 1) * sizeof *p.stack);
    if (p.str_of_name == NULL || p.func_of_name == NULL || p.str_of_file == NULL ||
        p.func_node == NULL || p.locs == NULL || p.loc_list == NULL || p.stack == NULL)
        goto out_free;

    add_string(&p, &strings, ""); /* string_table[0] must be "" */
    for (int c = 0; c < nv; c++) {
        const struct rpt_metric *m = &t->db->metrics[t->metric_of[c]];
        const char *u = m->raw_unit != NULL ? m->raw_unit : m->unit;
        if (u == NULL || strcmp(m->event, "samples") == 0)
            u = "count";
        else if (strcmp(u, "ns") == 0)
            u = "nanoseconds";
        int64_t ev = add_string(&p, &strings, m->event);
        if (c == col)
            dflt = ev;
        field_varint(&p.sub, 1, (uint64_t)ev);
        field_varint(&p.sub, 2, (uint64_t)add_string(&p, &strings, u));
        field_msg(&p.out, P_SAMPLE_TYPE, &p.sub);
    }

    /* Samples: every node with self cost in some column. */
    for (uint32_t n = 0; n < t->nnodes; n++) {
        bool any = false;
        size_t depth = 0;
        int32_t line;

        for (int c = 0; c < nv && !any; c++)
            any = exp_raw(t, c, rpt_self(t, n, c)) != 0;
        if (!any)
            continue;
        line = t->nodes[n].kind == CSP_SCOPE_ROOT ? 0 : t->nodes[n].line;
        for (uint32_t u = n;; u = t->nodes[u].parent) {
            p.stack[depth++] = location(&p, u, line);
            line = t->nodes[u].cs_line;
            if (t->nodes[u].parent == 0 || u == 0)
                break;
        }
        for (size_t i = 0; i < depth; i++)
            varint(&packed, p.stack[i]);
        field_msg(&p.sub, 1, &packed);
        for (int c = 0; c < nv; c++)
            varint(&packed, (uint64_t)exp_raw(t, c, rpt_self(t, n, c)));
        field_msg(&p.sub, 2, &packed);
        field_msg(&p.out, P_SAMPLE, &p.sub);
    }

    /* One Mapping, the program, with has_functions: pprof need not symbolize. */
    field_varint(&p.sub, 1, 1);
    field_varint(&p.sub, 5,
                 (uint64_t)add_string(&p, &strings, t->db->program != NULL ? t->db->program : "?"));
    field_varint(&p.sub, 7, 1);
    field_varint(&p.sub, 8, 1); /* has_filenames */
    field_varint(&p.sub, 9, 1); /* has_line_numbers */
    field_msg(&p.out, P_MAPPING, &p.sub);
    for (uint64_t i = 0; i < p.nlocs; i++) {
        field_varint(&p.sub, 1, i + 1);
        field_varint(&p.sub, 2, 1); /* mapping_id */
        field_varint(&p.sub2, 1, p.func_of_name[p.loc_list[i].name]);
        if (p.loc_list[i].line > 0)
            field_varint(&p.sub2, 2, (uint64_t)p.loc_list[i].line);
        field_msg(&p.sub, 4, &p.sub2);
        field_msg(&p.out, P_LOCATION, &p.sub);
    }
    for (uint64_t i = 0; i < p.nfuncs; i++) {
        const struct rpt_vnode *v = &t->nodes[p.func_node[i]];
        int64_t s;
        if (p.str_of_name[v->name] == 0)
            p.str_of_name[v->name] = add_string(&p, &strings, rpt_tree_name(t, p.func_node[i])) + 1;
        s = p.str_of_name[v->name] - 1;
        field_varint(&p.sub, 1, i + 1);
        field_varint(&p.sub, 2, (uint64_t)s);
        field_varint(&p.sub, 3, (uint64_t)s);
        if (v->kind != CSP_SCOPE_ROOT && v->file >= 0 && v->file < t->db->nfiles) {
            if (p.str_of_file[v->file] == 0)
                p.str_of_file[v->file] = add_string(&p, &strings, t->db->files[v->file]) + 1;
            field_varint(&p.sub, 4, (uint64_t)(p.str_of_file[v->file] - 1));
        }
        if (v->line > 0)
            field_varint(&p.sub, 5, (uint64_t)v->line);
        field_msg(&p.out, P_FUNCTION, &p.sub);
    }
    put(&p.out, strings.p, strings.len); /* string_table entries, already framed */
    if (strings.oom)
        p.out.oom = true;
    if (nv > 0) {
        field_varint(&p.sub, 1, 1); /* period_type: the first column's event and unit */
        field_varint(&p.sub, 2, 2);
        field_msg(&p.out, P_PERIOD_TYPE, &p.sub);
    }
    if (dflt != 0)
        field_varint(&p.out, P_DEFAULT_SAMPLE_TYPE, (uint64_t)dflt);
    if (p.out.oom || p.sub.oom || packed.oom) {
        errno = ENOMEM;
        goto out_free;
    }

    /* gzip: deflate with a gzip header (windowBits 15 + 16, zlib manual) */
    memset(&zs, 0, sizeof zs);
    if (deflateInit2(&zs, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
        errno = ENOMEM;
        goto out_free;
    }
    gz.cap = deflateBound(&zs, p.out.len) + 64;
    gz.p = malloc(gz.cap);
    if (gz.p == NULL) {
        deflateEnd(&zs);
        errno = ENOMEM;
        goto out_free;
    }
    zs.next_in = p.out.p;
    zs.avail_in = (uInt)p.out.len;
    zs.next_out = gz.p;
    zs.avail_out = (uInt)gz.cap;
    if (deflate(&zs, Z_FINISH) != Z_STREAM_END) {
        deflateEnd(&zs);
        errno = EIO;
        goto out_free;
    }
    gz.len = zs.total_out;
    deflateEnd(&zs);
    if (fwrite(gz.p, 1, gz.len, out) != gz.len || ferror(out))
        goto out_free;
    rc = 0;
out_free:
    free(gz.p);
    free(strings.p);
    free(packed.p);
    free(p.out.p);
    free(p.sub.p);
    free(p.sub2.p);
    free(p.str_of_name);
    free(p.func_of_name);
    free(p.str_of_file);
    free(p.func_node);
    free(p.locs);
    free(p.loc_list);
    free(p.stack);
    return rc;
}
