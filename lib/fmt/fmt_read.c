/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fmt_read.c -- the measurement-file reader.
 *
 * Runs in the tools only (csprof-prof), never in the profiled process: it
 * allocates with malloc and formats messages with snprintf.  Input is
 * untrusted: every read is bounds-checked against its section and the file,
 * every count is checked against the bytes that could hold it before
 * anything is allocated for it, and every error names the byte offset of
 * the field (or record) that is wrong.  Layout: measurement-format.md.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fmt/fmt.h"
#include "fmt/fmt_internal.h"
#include "support/bytes.h"
#include "support/hashmap.h"
#include "support/search.h"
#include "support/vec.h"

/*
 * Everything a profile owns lives in a list of malloc'd blocks, so that
 * fmt_profile_free() need not know the shape of the data.  Small requests
 * are carved from the newest block; large ones get a block of their own.
 */
struct blk {
    struct blk *next;
    size_t size, used;
    max_align_t data[]; /* aligned for any member type */
};

struct profile_impl {
    struct fmt_profile pub; /* first: fmt_profile_free() converts back */
    struct blk *blocks;     /* newest first; blocks->data is the bump area */
};

#define BLK_SMALL 65536u

/* @n bytes aligned for any type, or NULL.  n == 0 gives a valid pointer. */
static void *
p_alloc(struct profile_impl *p, size_t n)
{
    size_t a = sizeof(max_align_t);
    struct blk *b;

    if (n > SIZE_MAX - a - sizeof *b)
        return NULL;
    n = (n + a - 1) / a * a;
    b = p->blocks;
    if (b != NULL && b->size - b->used >= n) {
        void *r = (char *)b->data + b->used;

        b->used += n;
        return r;
    }
    b = malloc(sizeof *b + (n > BLK_SMALL ? n : BLK_SMALL));
    if (b == NULL)
        return NULL;
    b->size = n > BLK_SMALL ? n : BLK_SMALL;
    b->used = n;
    if (n > BLK_SMALL && p->blocks != NULL) { /* keep the bump block in front */
        b->next = p->blocks->next;
        p->blocks->next = b;
    } else {
        b->next = p->blocks;
        p->blocks = b;
    }
    return b->data;
}

/* Reader state: the whole file, and the section being parsed. */
struct rd {
    const uint8_t *b;
    size_t len; /* bytes in the file */
    const char *name;
    char *err;
    size_t errlen;
    struct profile_impl *p;

    size_t pos;        /* next byte to read, from the start of the file */
    size_t end;        /* end of the open section's bytes that are present */
    uint64_t decl_end; /* end the section header announces (may be > len) */
    bool truncated;    /* decl_end > len: the file ends inside this section */

    bool record; /* one record of a multi-record file: bytes may follow END */

    struct csp_hmap ids;  /* node id -> its struct fmt_node */
    struct mod_key *mods; /* module ids, sorted, for node lookups */
};

struct mod_key {
    uint64_t id; /* a uint32_t module id; 64 bits for csp_lower_bound_u64 */
    size_t at;   /* byte offset of the module record */
};

__attribute__((format(printf, 4, 5))) static int
rd_fail(struct rd *r, int status, uint64_t at, const char *fmt, ...)
{
    va_list ap;
    int k;

    if (r->err == NULL || r->errlen == 0)
        return status;
    k = snprintf(r->err, r->errlen, "%s: byte %" PRIu64 ": ", r->name, at);
    if (k >= 0 && (size_t)k < r->errlen) {
        va_start(ap, fmt);
        vsnprintf(r->err + k, r->errlen - (size_t)k, fmt, ap);
        va_end(ap);
    }
    return status;
}

static int
rd_nomem(struct rd *r, const char *what)
{
    if (r->err != NULL && r->errlen > 0)
        snprintf(r->err, r->errlen, "%s: out of memory for %s", r->name, what);
    return FMT_ENOMEM;
}

/*
 * Ensure @n more bytes of the open section are there.  Past the present
 * bytes but within the announced section: the file was cut (ETRUNC).  Past
 * the announced section: a length or count field is wrong (ECORRUPT).
 */
static int
rd_need(struct rd *r, uint64_t n, const char *what)
{
    if (n <= r->end - r->pos)
        return FMT_OK;
    if (n <= r->decl_end - r->pos)
        return rd_fail(r, FMT_ETRUNC, r->pos, "file ends inside %s (truncated)", what);
    return rd_fail(r, FMT_ECORRUPT, r->pos,
                   "%s needs %" PRIu64 " bytes but its section ends at byte %" PRIu64, what, n,
                   r->decl_end);
}

/* Ensure @count records of at least @min bytes each can follow. */
static int
rd_need_count(struct rd *r, uint64_t count, uint64_t min, const char *what)
{
    uint64_t fit_decl = (r->decl_end - r->pos) / min;
    uint64_t fit_here = (r->end - r->pos) / min;

    if (count > fit_decl)
        return rd_fail(r, FMT_ECORRUPT, r->pos,
                       "%s announces %" PRIu64 " entries but its section can hold at most %" PRIu64,
                       what, count, fit_decl);
    if (count > fit_here)
        return rd_fail(r, FMT_ETRUNC, r->pos,
                       "file ends inside %s: %" PRIu64 " entries announced, at most %" PRIu64
                       " present (truncated)",
                       what, count, fit_here);
    return FMT_OK;
}

static int
rd_u32(struct rd *r, const char *what, uint32_t *v)
{
    int rc = rd_need(r, 4, what);

    if (rc == FMT_OK) {
        *v = csp_le_load32(r->b + r->pos);
        r->pos += 4;
    }
    return rc;
}

static int
rd_u64(struct rd *r, const char *what, uint64_t *v)
{
    int rc = rd_need(r, 8, what);

    if (rc == FMT_OK) {
        *v = csp_le_load64(r->b + r->pos);
        r->pos += 8;
    }
    return rc;
}

static int
rd_f64(struct rd *r, const char *what, double *d)
{
    uint64_t v = 0;
    int rc = rd_u64(r, what, &v);

    if (rc == FMT_OK)
        memcpy(d, &v, sizeof *d);
    return rc;
}

/* u32 length + bytes; copied NUL-terminated into the profile. */
static int
rd_str(struct rd *r, const char *what, const char **out)
{
    size_t at = r->pos;
    uint32_t n = 0;
    char *s;
    int rc;

    if ((rc = rd_u32(r, what, &n)) < 0)
        return rc;
    r->pos = at; /* a bad length is reported at the length field */
    if ((rc = rd_need(r, 4 + (uint64_t)n, what)) < 0)
        return rc;
    r->pos += 4;
    if (memchr(r->b + r->pos, '\0', n) != NULL)
        return rd_fail(r, FMT_ECORRUPT, at, "%s contains a NUL byte", what);
    s = p_alloc(r->p, (size_t)n + 1);
    if (s == NULL)
        return rd_nomem(r, what);
    if (n > 0)
        memcpy(s, r->b + r->pos, n);
    s[n] = '\0';
    r->pos += n;
    *out = s;
    return FMT_OK;
}

static int
parse_ident(struct rd *r)
{
    struct fmt_header *h = &r->p->pub.header;
    uint32_t rank = 0;
    int rc;

    if ((rc = rd_u32(r, "the pid", &h->pid)) < 0 || (rc = rd_u32(r, "the tid", &h->tid)) < 0 ||
        (rc = rd_u32(r, "the thread index", &h->thread_index)) < 0 ||
        (rc = rd_u32(r, "the rank", &rank)) < 0 ||
        (rc = rd_u32(r, "the generation", &h->generation)) < 0 ||
        (rc = rd_u64(r, "the start time", &h->start_ns)) < 0 ||
        (rc = rd_u64(r, "the end time", &h->end_ns)) < 0 ||
        (rc = rd_u64(r, "the CPU time", &h->cpu_ns)) < 0 ||
        (rc = rd_str(r, "the program path", &h->program)) < 0 ||
        (rc = rd_str(r, "the command line", &h->command)) < 0 ||
        (rc = rd_str(r, "the host name", &h->host)) < 0)
        return rc;
    h->rank = rank <= INT32_MAX ? (int32_t)rank : (int32_t)((int64_t)rank - 4294967296LL);
    return FMT_OK;
}

static int
parse_events(struct rd *r)
{
    struct fmt_profile *pf = &r->p->pub;
    uint32_t n = 0;
    int rc;

    if ((rc = rd_u32(r, "the event count", &n)) < 0 ||
        (rc = rd_need_count(r, n, FMT_EVENT_MIN_SIZE, "the event table")) < 0)
        return rc;
    pf->events = p_alloc(r->p, (size_t)n * sizeof *pf->events);
    if (pf->events == NULL)
        return rd_nomem(r, "the event table");
    for (uint32_t i = 0; i < n; i++) {
        struct fmt_event *e = &pf->events[i];

        if ((rc = rd_str(r, "an event name", &e->name)) < 0 ||
            (rc = rd_str(r, "an event unit", &e->unit)) < 0 ||
            (rc = rd_str(r, "an event mechanism", &e->mechanism)) < 0 ||
            (rc = rd_u64(r, "an event period", &e->period)) < 0 ||
            (rc = rd_f64(r, "an event display scale", &e->display_scale)) < 0 ||
            (rc = rd_str(r, "an event display unit", &e->display_unit)) < 0)
            return rc;
        pf->nevents = i + 1;
    }
    return FMT_OK;
}

static int
mod_cmp(const void *a, const void *b)
{
    const struct mod_key *x = a, *y = b;

    if (x->id != y->id)
        return x->id < y->id ? -1 : 1;
    return x->at < y->at ? -1 : x->at > y->at;
}

static int
parse_loadmap(struct rd *r)
{
    struct fmt_profile *pf = &r->p->pub;
    uint32_t n = 0;
    int rc;

    if ((rc = rd_u32(r, "the module count", &n)) < 0 ||
        (rc = rd_need_count(r, n, FMT_MODULE_MIN_SIZE, "the load map")) < 0)
        return rc;
    pf->modules = p_alloc(r->p, (size_t)n * sizeof *pf->modules);
    r->mods = p_alloc(r->p, (size_t)n * sizeof *r->mods);
    if (pf->modules == NULL || r->mods == NULL)
        return rd_nomem(r, "the load map");
    for (uint32_t i = 0; i < n; i++) {
        struct fmt_module *m = &pf->modules[i];
        size_t at = r->pos;
        uint8_t *bid;

        if ((rc = rd_u32(r, "a module id", &m->id)) < 0 ||
            (rc = rd_u32(r, "a module epoch", &m->epoch)) < 0 ||
            (rc = rd_str(r, "a module path", &m->path)) < 0)
            return rc;
        if ((rc = rd_need(r, 4, "a build-id length")) < 0)
            return rc;
        m->build_id_len = csp_le_load32(r->b + r->pos);
        if ((rc = rd_need(r, 4 + (uint64_t)m->build_id_len, "a build-id")) < 0)
            return rc;
        r->pos += 4;
        bid = p_alloc(r->p, m->build_id_len);
        if (bid == NULL)
            return rd_nomem(r, "a build-id");
        if (m->build_id_len > 0)
            memcpy(bid, r->b + r->pos, m->build_id_len);
        m->build_id = m->build_id_len > 0 ? bid : NULL;
        r->pos += m->build_id_len;
        if ((rc = rd_u64(r, "a module load bias", &m->load_bias)) < 0 ||
            (rc = rd_u64(r, "a module start address", &m->start)) < 0 ||
            (rc = rd_u64(r, "a module end address", &m->end)) < 0)
            return rc;
        if (m->id == FMT_MODULE_NONE)
            return rd_fail(r, FMT_ECORRUPT, at, "module id %" PRIu32 " is reserved for 'no module'",
                           m->id);
        if (m->end < m->start)
            return rd_fail(r, FMT_ECORRUPT, at,
                           "module %" PRIu32 " ends (0x%" PRIx64 ") before it starts (0x%" PRIx64
                           ")",
                           m->id, m->end, m->start);
        r->mods[i].id = m->id;
        r->mods[i].at = at;
        pf->nmodules = i + 1;
    }
    if (n > 0)
        qsort(r->mods, n, sizeof *r->mods, mod_cmp);
    for (uint32_t i = 1; i < n; i++)
        if (r->mods[i].id == r->mods[i - 1].id)
            return rd_fail(r, FMT_ECORRUPT, r->mods[i].at,
                           "module id %" PRIu32 " already used by the module at byte %zu",
                           (uint32_t)r->mods[i].id, r->mods[i - 1].at);
    return FMT_OK;
}

static bool
module_known(const struct rd *r, uint32_t id)
{
    size_t n = r->p->pub.nmodules;
    size_t i = csp_lower_bound_u64(r->mods, n, sizeof(*r->mods), offsetof(struct mod_key, id), id);

    return i < n && r->mods[i].id == id;
}

static const char *
kind_text(uint32_t kind)
{
    return kind == FMT_NODE_ROOT ? "root" : kind == FMT_NODE_CALLSITE ? "callsite" : "leaf";
}

/* Validate and store node @i, whose fixed part starts at r->pos. */
static int
decode_node(struct rd *r, uint64_t i, struct fmt_metric **mnext)
{
    struct fmt_node *nd = &r->p->pub.nodes[i];
    const uint8_t *b = r->b + r->pos;
    size_t at = r->pos;

    nd->id = csp_le_load64(b);
    nd->parent = csp_le_load64(b + 8);
    nd->kind = csp_le_load32(b + 16);
    nd->module = csp_le_load32(b + 20);
    nd->offset = csp_le_load64(b + 24);
    nd->samples = csp_le_load64(b + 32);
    nd->calls = csp_le_load64(b + 40);
    nd->nmetrics = csp_le_load32(b + 48);
    nd->metrics = nd->nmetrics > 0 ? *mnext : NULL;
    r->pos += FMT_NODE_FIXED_SIZE;

    if (nd->kind > FMT_NODE_LEAF)
        return rd_fail(r, FMT_ECORRUPT, at + 16,
                       "node %" PRIu64 " has kind %" PRIu32
                       ", not root (0), callsite (1) or leaf (2)",
                       nd->id, nd->kind);
    if (i == 0 && (nd->id != 0 || nd->kind != FMT_NODE_ROOT))
        return rd_fail(r, FMT_ECORRUPT, at,
                       "the first CCT node must be the root (id 0, kind root), not id %" PRIu64
                       " kind %s",
                       nd->id, kind_text(nd->kind));
    if (i == 0 && nd->parent != 0)
        return rd_fail(r, FMT_ECORRUPT, at + 8, "the root's parent is %" PRIu64 ", not 0",
                       nd->parent);
    if (i > 0 && nd->kind == FMT_NODE_ROOT)
        return rd_fail(r, FMT_ECORRUPT, at + 16, "node %" PRIu64 " is a second root", nd->id);
    if (csp_hmap_get(&r->ids, nd->id) != NULL)
        return rd_fail(r, FMT_ECORRUPT, at, "duplicate node id %" PRIu64, nd->id);
    if (i > 0 && csp_hmap_get(&r->ids, nd->parent) == NULL)
        return rd_fail(r, FMT_ECORRUPT, at + 8,
                       "parent %" PRIu64 " of node %" PRIu64 " does not precede it", nd->parent,
                       nd->id);
    if (csp_hmap_put(&r->ids, nd->id, nd) != 0) /* room reserved: cannot fail */
        return rd_nomem(r, "the CCT");
    if (nd->module != FMT_MODULE_NONE && !module_known(r, nd->module))
        return rd_fail(r, FMT_ECORRUPT, at + 20,
                       "module id %" PRIu32 " of node %" PRIu64 " is not in the load map",
                       nd->module, nd->id);

    for (uint32_t k = 0; k < nd->nmetrics; k++) {
        struct fmt_metric *m = (*mnext)++;

        m->event = csp_le_load32(r->b + r->pos);
        m->value = csp_le_load64(r->b + r->pos + 4);
        if (m->event >= r->p->pub.nevents)
            return rd_fail(r, FMT_ECORRUPT, r->pos,
                           "metric event index %" PRIu32 " of node %" PRIu64
                           " is out of range (%" PRIu32 " events)",
                           m->event, nd->id, r->p->pub.nevents);
        if (k > 0 && m->event <= m[-1].event)
            return rd_fail(r, FMT_ECORRUPT, r->pos,
                           "metric event indices of node %" PRIu64 " are not strictly increasing",
                           nd->id);
        r->pos += FMT_METRIC_SIZE;
    }
    return FMT_OK;
}

/*
 * Two passes: the first checks that every node and its metrics are within
 * the bytes present and counts the metrics; the second allocates exactly
 * and checks the values.
 */
static int
parse_cct(struct rd *r)
{
    struct fmt_profile *pf = &r->p->pub;
    uint64_t n = 0, nmetrics = 0;
    struct fmt_metric *metrics;
    size_t first;
    int rc;

    if ((rc = rd_u32(r, "the CCT epoch", &pf->epoch)) < 0 ||
        (rc = rd_u64(r, "the CCT node count", &n)) < 0 ||
        (rc = rd_need_count(r, n, FMT_NODE_FIXED_SIZE, "the CCT node table")) < 0)
        return rc;

    first = r->pos;
    for (uint64_t i = 0; i < n; i++) {
        uint32_t nm;

        if ((rc = rd_need(r, FMT_NODE_FIXED_SIZE, "a CCT node")) < 0)
            return rc;
        nm = csp_le_load32(r->b + r->pos + 48);
        if ((rc = rd_need(r, FMT_NODE_FIXED_SIZE + (uint64_t)nm * FMT_METRIC_SIZE,
                          "a CCT node with its metrics")) < 0)
            return rc;
        r->pos += FMT_NODE_FIXED_SIZE + (size_t)nm * FMT_METRIC_SIZE;
        nmetrics += nm;
    }

    /* Both counts are bounded by the bytes just walked. */
    pf->nodes = p_alloc(r->p, (size_t)n * sizeof *pf->nodes);
    metrics = p_alloc(r->p, (size_t)nmetrics * sizeof *metrics);
    if (pf->nodes == NULL || metrics == NULL || csp_hmap_reserve(&r->ids, (size_t)n) != 0)
        return rd_nomem(r, "the CCT");

    r->pos = first;
    for (uint64_t i = 0; i < n; i++) {
        if ((rc = decode_node(r, i, &metrics)) < 0)
            return rc;
        pf->nnodes = i + 1;
    }
    return FMT_OK;
}

static int
parse_stats(struct rd *r)
{
    struct fmt_profile *pf = &r->p->pub;
    uint32_t n = 0;
    int rc;

    if ((rc = rd_u32(r, "the statistics count", &n)) < 0 ||
        (rc = rd_need_count(r, n, FMT_STAT_MIN_SIZE, "the statistics table")) < 0)
        return rc;
    pf->stats = p_alloc(r->p, (size_t)n * sizeof *pf->stats);
    if (pf->stats == NULL)
        return rd_nomem(r, "the statistics table");
    for (uint32_t i = 0; i < n; i++) {
        if ((rc = rd_str(r, "a statistic name", &pf->stats[i].name)) < 0 ||
            (rc = rd_u64(r, "a statistic value", &pf->stats[i].value)) < 0)
            return rc;
        pf->nstats = i + 1;
    }
    return FMT_OK;
}

static int
parse_record(struct rd *r)
{
    int rc;

    if ((rc = rd_u32(r, "the record flags", &r->p->pub.record_flags)) < 0 ||
        (rc = rd_u64(r, "the record sequence number", &r->p->pub.record_seq)) < 0)
        return rc;
    return FMT_OK;
}

/* RUN (minor 2): the run id, once. */
static int
parse_run(struct rd *r)
{
    struct fmt_header *h = &r->p->pub.header;
    size_t at = r->pos;
    int rc;

    if (h->run_id != NULL)
        return rd_fail(r, FMT_ECORRUPT, at, "a second RUN section");
    if ((rc = rd_str(r, "the run id", &h->run_id)) < 0)
        return rc;
    if (strlen(h->run_id) > FMT_RUN_ID_MAX)
        return rd_fail(r, FMT_ECORRUPT, at, "a run id of %zu bytes (at most %d)", strlen(h->run_id),
                       FMT_RUN_ID_MAX);
    return FMT_OK;
}

static const char *const sec_name[] = {
    [FMT_SEC_IDENT] = "IDENT", [FMT_SEC_EVENTS] = "EVENTS", [FMT_SEC_LOADMAP] = "LOADMAP",
    [FMT_SEC_CCT] = "CCT",     [FMT_SEC_STATS] = "STATS",   [FMT_SEC_END] = "END",
};

static int
parse_end(struct rd *r, uint32_t crc)
{
    size_t at = r->pos;
    uint64_t flen = 0;
    uint32_t want = 0;
    int rc;

    if ((rc = rd_u64(r, "the file length", &flen)) < 0 ||
        (rc = rd_u32(r, "the checksum", &want)) < 0)
        return rc;
    if (flen != r->decl_end)
        return rd_fail(r, FMT_ECORRUPT, at,
                       "END section says the file is %" PRIu64
                       " bytes, but it ends at byte %" PRIu64,
                       flen, r->decl_end);
    if (want != crc)
        return rd_fail(r, FMT_ECORRUPT, at + 8,
                       "checksum mismatch: the file says 0x%08" PRIx32
                       ", the sections give 0x%08" PRIx32,
                       want, crc);
    return FMT_OK;
}

/* Fixed header; on success r->pos is just past it. */
static int
parse_file_header(struct rd *r)
{
    size_t k = r->len < 8 ? r->len : 8;
    uint32_t major;

    if (r->len == 0)
        return rd_fail(r, FMT_ETRUNC, 0, "empty file (truncated)");
    if (memcmp(r->b, FMT_MAGIC, k) != 0)
        return rd_fail(r, FMT_EMAGIC, 0, "not a csprof measurement file (bad magic)");
    if (r->len < FMT_FILE_HEADER_SIZE)
        return rd_fail(r, FMT_ETRUNC, r->len, "file ends inside the file header (truncated)");
    major = csp_le_load32(r->b + 8);
    if (major != FMT_VERSION)
        return rd_fail(r, FMT_EVERSION, 8,
                       "format version %" PRIu32 ".%" PRIu32 ", this reader knows version %u",
                       major, csp_le_load32(r->b + 12), FMT_VERSION);
    r->pos = FMT_FILE_HEADER_SIZE;
    return FMT_OK;
}

static int
parse_sections(struct rd *r)
{
    uint32_t expect = FMT_SEC_IDENT, nsections = 0, crc = 0;
    int rc;

    for (;;) {
        size_t at = r->pos, payload;
        uint32_t kind, flags;
        uint64_t length;

        if (at == r->len)
            return rd_fail(r, FMT_ETRUNC, at,
                           "file ends after %" PRIu32
                           " sections, before the END section (truncated)",
                           nsections);
        if (r->len - at < FMT_SECTION_HEADER_SIZE)
            return rd_fail(r, FMT_ETRUNC, at, "file ends inside a section header (truncated)");
        kind = csp_le_load32(r->b + at);
        flags = csp_le_load32(r->b + at + 4);
        length = csp_le_load64(r->b + at + 8);
        payload = at + FMT_SECTION_HEADER_SIZE;
        r->pos = payload;
        r->truncated = length > r->len - payload;
        r->end = r->truncated ? r->len : payload + (size_t)length;
        r->decl_end = length > UINT64_MAX - payload ? UINT64_MAX : payload + length;

        if (kind >= FMT_SEC_IDENT && kind <= FMT_SEC_END) {
            if (kind < expect)
                return rd_fail(r, FMT_ECORRUPT, at,
                               kind == FMT_SEC_CCT
                                   ? "a second %s section: this reader takes one epoch per file"
                                   : "a second %s section",
                               sec_name[kind]);
            if (kind > expect)
                return rd_fail(r, FMT_ECORRUPT, at, "%s section where the %s section must come",
                               sec_name[kind], sec_name[expect]);
            expect++;
        } else if (flags & FMT_SECTION_REQUIRED) {
            return rd_fail(r, FMT_EVERSION, at,
                           "section kind %" PRIu32 " is required but unknown to this reader", kind);
        }

        switch (kind) {
        case FMT_SEC_IDENT:
            rc = parse_ident(r);
            break;
        case FMT_SEC_EVENTS:
            rc = parse_events(r);
            break;
        case FMT_SEC_LOADMAP:
            rc = parse_loadmap(r);
            break;
        case FMT_SEC_CCT:
            rc = parse_cct(r);
            break;
        case FMT_SEC_STATS:
            rc = parse_stats(r);
            break;
        case FMT_SEC_END:
            rc = parse_end(r, crc);
            break;
        case FMT_SEC_RECORD:
            rc = parse_record(r);
            break;
        case FMT_SEC_RUN:
            rc = parse_run(r);
            break;
        default: /* unknown, optional: skip it */
            r->pos = r->end;
            rc = FMT_OK;
            break;
        }
        if (rc < 0)
            return rc;
        if (r->truncated) /* all records were there, but the section goes on */
            return rd_fail(r, FMT_ETRUNC, at,
                           "file ends inside a section of %" PRIu64 " bytes (truncated)", length);
        if (r->pos != r->end)
            return rd_fail(r, FMT_ECORRUPT, r->pos,
                           "%zu bytes left over at the end of the %s section", r->end - r->pos,
                           kind <= FMT_SEC_END && kind >= FMT_SEC_IDENT ? sec_name[kind] : "?");
        if (kind == FMT_SEC_END)
            break;
        crc = fmt_crc32(crc, r->b + payload, (size_t)length);
        nsections++;
    }
    if (r->pos != r->len && !r->record)
        return rd_fail(r, FMT_ECORRUPT, r->pos, "%zu bytes after the END section", r->len - r->pos);
    return FMT_OK;
}

/* One file image at @buf; in @record mode bytes may follow it and *used gets its length. */
static int
read_one(const void *buf, size_t len, const char *name, bool record, struct fmt_profile **out,
         size_t *used, char *err, size_t errlen)
{
    struct rd r = {.b = buf,
                   .len = len,
                   .name = name ? name : "(buffer)",
                   .err = err,
                   .errlen = errlen,
                   .record = record};
    int rc;

    if (out == NULL || (buf == NULL && len > 0))
        return FMT_EINVAL;
    *out = NULL;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if (buf == NULL)
        r.b = (const uint8_t *)"";
    r.p = calloc(1, sizeof *r.p);
    if (r.p == NULL)
        return rd_nomem(&r, "the profile");

    if ((rc = parse_file_header(&r)) < 0 || (rc = parse_sections(&r)) < 0)
        goto out_free;
    r.p->pub.version = FMT_VERSION;
    if (r.p->pub.header.run_id == NULL) /* no RUN section: no run id */
        r.p->pub.header.run_id = "";
    *out = &r.p->pub;
    r.p = NULL;
    if (used != NULL)
        *used = r.pos;
out_free:
    csp_hmap_free(&r.ids);
    fmt_profile_free(r.p ? &r.p->pub : NULL);
    return rc;
}

int
fmt_read_buffer(const void *buf, size_t len, const char *name, struct fmt_profile **out, char *err,
                size_t errlen)
{
    return read_one(buf, len, name, false, out, NULL, err, errlen);
}

/* Read all of @path into a malloc'd *buf, *len bytes.  0 or a status with @err set. */
static int
slurp(const char *path, uint8_t **bufp, size_t *lenp, char *err, size_t errlen)
{
    size_t cap, len = 0;
    uint8_t *buf = NULL;
    struct stat st;
    int fd, rc;

    *bufp = NULL;
    *lenp = 0;
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        goto out_io;
    if (fstat(fd, &st) < 0)
        goto out_io_close;
    /* Read to EOF, whatever st_size says (a file still being written, a pipe). */
    cap = S_ISREG(st.st_mode) && st.st_size > 0 ? (size_t)st.st_size + 1 : 65536;
    for (;;) {
        ssize_t n;

        if (len == cap || buf == NULL) {
            uint8_t *nb;

            if (buf != NULL)
                cap = cap > SIZE_MAX / 2 ? SIZE_MAX : cap * 2;
            nb = realloc(buf, cap);
            if (nb == NULL) {
                rc = FMT_ENOMEM;
                if (err != NULL && errlen > 0)
                    snprintf(err, errlen, "%s: out of memory reading %zu bytes", path, cap);
                goto out_close;
            }
            buf = nb;
        }
        n = read(fd, buf + len, cap - len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            goto out_io_close;
        if (n == 0)
            break;
        len += (size_t)n;
    }
    close(fd);
    *bufp = buf;
    *lenp = len;
    return FMT_OK;

out_io_close:
    rc = errno;
    close(fd);
    errno = rc;
out_io:
    rc = errno;
    if (err != NULL && errlen > 0)
        snprintf(err, errlen, "%s: %s", path, strerror(rc));
    free(buf);
    errno = rc;
    return FMT_EIO;
out_close:
    close(fd);
    free(buf);
    return rc;
}

int
fmt_read_file(const char *path, struct fmt_profile **out, char *err, size_t errlen)
{
    uint8_t *buf;
    size_t len;
    int rc;

    if (path == NULL || out == NULL)
        return FMT_EINVAL;
    *out = NULL;
    if ((rc = slurp(path, &buf, &len, err, errlen)) < 0)
        return rc;
    rc = fmt_read_buffer(buf, len, path, out, err, errlen);
    free(buf);
    return rc;
}

/* @n bytes of @fd at @off into @buf; false when fewer are there. */
static bool
peek_at(int fd, void *buf, size_t n, uint64_t off)
{
    size_t done = 0;

    while (done < n) {
        ssize_t k = pread(fd, (uint8_t *)buf + done, n - done, (off_t)(off + done));

        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            return false;
        done += (size_t)k;
    }
    return true;
}

/* Offset of the first record of @fd (the magic at a multiple of 8: a checkpoint slot never
 * written is zeros), or a negative fmt_status. */
static int64_t
peek_first_record(int fd)
{
    uint8_t b[4096];

    for (uint64_t base = 0; base < (64u << 20); base += sizeof b) {
        ssize_t n = pread(fd, b, sizeof b, (off_t)base);

        if (n < 0 && errno == EINTR) {
            base -= sizeof b;
            continue;
        }
        if (n < 0)
            return FMT_EIO;
        if (n < 8)
            return base == 0 && n == 0 ? FMT_ETRUNC : FMT_EMAGIC;
        for (size_t k = 0; k + 8 <= (size_t)n; k += FMT_RECORD_ALIGN)
            if (memcmp(b + k, FMT_MAGIC, 8) == 0)
                return (int64_t)(base + k);
    }
    return FMT_EMAGIC;
}

int
fmt_peek_run_id(const char *path, char *id, size_t idlen, uint64_t *start_ns, char *err,
                size_t errlen)
{
    /* file header, IDENT's section header and its fixed fields (44 bytes) */
    uint8_t head[FMT_FILE_HEADER_SIZE + FMT_SECTION_HEADER_SIZE + 44];
    uint8_t sec[FMT_SECTION_HEADER_SIZE], run[4 + FMT_RUN_ID_MAX];
    uint64_t ident_len, run_len, at;
    struct stat st;
    int64_t first;
    int fd, rc, saved_errno;

    if (path == NULL || id == NULL || idlen <= FMT_RUN_ID_MAX)
        return FMT_EINVAL;
    id[0] = '\0';
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    /* Not blocking on a FIFO, not reading a device: only a regular file is peeked at. */
    fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        rc = FMT_EIO;
        goto out;
    }
    rc = FMT_EMAGIC;
    if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode))
        goto out_close;
    first = peek_first_record(fd);
    if (first < 0) {
        rc = (int)first;
        goto out_close;
    }
    at = (uint64_t)first;
    rc = FMT_ETRUNC;
    if (!peek_at(fd, head, sizeof head, at))
        goto out_close;
    rc = FMT_EVERSION;
    if (csp_le_load32(head + 8) != FMT_VERSION)
        goto out_close;
    rc = FMT_ECORRUPT;
    ident_len = csp_le_load64(head + FMT_FILE_HEADER_SIZE + 8);
    if (csp_le_load32(head + FMT_FILE_HEADER_SIZE) != FMT_SEC_IDENT || ident_len < 44 ||
        ident_len > (1u << 24))
        goto out_close;
    if (start_ns != NULL) /* IDENT's start_ns: payload offset 20 */
        *start_ns = csp_le_load64(head + FMT_FILE_HEADER_SIZE + FMT_SECTION_HEADER_SIZE + 20);
    at += FMT_FILE_HEADER_SIZE + FMT_SECTION_HEADER_SIZE + ident_len;
    rc = FMT_ETRUNC;
    if (!peek_at(fd, sec, sizeof sec, at))
        goto out_close;
    rc = 0;
    if (csp_le_load32(sec) != FMT_SEC_RUN) /* written without a run id */
        goto out_close;
    run_len = csp_le_load64(sec + 8);
    rc = FMT_ECORRUPT;
    if (run_len < 4 || run_len > sizeof run ||
        !peek_at(fd, run, (size_t)run_len, at + FMT_SECTION_HEADER_SIZE) ||
        csp_le_load32(run) != run_len - 4 || memchr(run + 4, '\0', (size_t)run_len - 4) != NULL)
        goto out_close;
    memcpy(id, run + 4, (size_t)run_len - 4);
    id[run_len - 4] = '\0';
    rc = id[0] != '\0';
out_close:
    saved_errno = errno;
    close(fd);
    errno = saved_errno;
out:
    if (rc < 0 && err != NULL && errlen > 0)
        snprintf(err, errlen, "%s: %s", path, rc == FMT_EIO ? strerror(errno) : fmt_strerror(rc));
    return rc;
}

/* Order: thread (pid, generation, index), then sequence number, then file order. */
static int
record_cmp(const void *a, const void *b)
{
    const struct fmt_profile *x = *(struct fmt_profile *const *)a;
    const struct fmt_profile *y = *(struct fmt_profile *const *)b;

    if (x->header.pid != y->header.pid)
        return x->header.pid < y->header.pid ? -1 : 1;
    if (x->header.generation != y->header.generation)
        return x->header.generation < y->header.generation ? -1 : 1;
    if (x->header.thread_index != y->header.thread_index)
        return x->header.thread_index < y->header.thread_index ? -1 : 1;
    if (x->record_seq != y->record_seq)
        return x->record_seq < y->record_seq ? -1 : 1;
    return 0;
}

static bool
same_thread(const struct fmt_profile *x, const struct fmt_profile *y)
{
    return x->header.pid == y->header.pid && x->header.generation == y->header.generation &&
           x->header.thread_index == y->header.thread_index;
}

int
fmt_read_records(const char *path, struct fmt_record_set *out, char *err, size_t errlen)
{
    struct fmt_profile **all = NULL;
    size_t n = 0, cap = 0, off = 0, len, keep = 0;
    uint8_t *buf;
    int rc, first_bad = FMT_OK;

    if (path == NULL || out == NULL)
        return FMT_EINVAL;
    memset(out, 0, sizeof *out);
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    if ((rc = slurp(path, &buf, &len, err, errlen)) < 0)
        return rc;
    while (off < len) {
        struct fmt_profile *p = NULL;
        char msg[512];
        size_t used = 0;

        if (len - off < 8 || memcmp(buf + off, FMT_MAGIC, 8) != 0) {
            size_t step = len - off < FMT_RECORD_ALIGN ? len - off : FMT_RECORD_ALIGN;

            out->skipped_bytes += step;
            off += step;
            continue;
        }
        rc = read_one(buf + off, len - off, path, true, &p, &used, msg, sizeof msg);
        if (rc == FMT_ENOMEM) {
            if (err != NULL && errlen > 0)
                snprintf(err, errlen, "%s", msg);
            goto out_fail;
        }
        if (rc < 0) {
            /* Name the byte in the file, not in the record. */
            if (first_bad == FMT_OK)
                first_bad = rc;
            if (out->damaged++ == 0 && err != NULL && errlen > 0)
                snprintf(err, errlen, "%s: record at byte %zu: %s", path, off,
                         msg + (strlen(msg) > strlen(path) + 2 ? strlen(path) + 2 : 0));
            out->skipped_bytes += FMT_RECORD_ALIGN;
            off += FMT_RECORD_ALIGN;
            continue;
        }
        if (csp_vec_reserve(&all, &cap, n + 1, sizeof *all) != 0) {
            fmt_profile_free(p);
            rc = FMT_ENOMEM;
            if (err != NULL && errlen > 0)
                snprintf(err, errlen, "%s: out of memory for the record list", path);
            goto out_fail;
        }
        all[n++] = p;
        off += (used + FMT_RECORD_ALIGN - 1) / FMT_RECORD_ALIGN * FMT_RECORD_ALIGN;
        if (off > len)
            off = len;
    }
    if (n == 0) { /* nothing to show: say why, as fmt_read_file would */
        struct fmt_profile *none = NULL;

        if (first_bad == FMT_OK)
            first_bad = read_one(buf, len, path, true, &none, NULL, err, errlen);
        fmt_profile_free(none);
        free(buf);
        free(all);
        return first_bad < 0 ? first_bad : FMT_ECORRUPT;
    }
    free(buf);
    out->nrecords = n;
    if (n > 1)
        qsort(all, n, sizeof *all, record_cmp);
    for (size_t i = 0; i < n; i++) {
        if (i + 1 < n && same_thread(all[i], all[i + 1])) {
            fmt_profile_free(all[i]);
            out->superseded++;
            continue;
        }
        all[keep++] = all[i];
    }
    out->profiles = all;
    out->nprofiles = keep;
    return FMT_OK;

out_fail:
    free(buf);
    for (size_t i = 0; i < n; i++)
        fmt_profile_free(all[i]);
    free(all);
    return rc;
}

void
fmt_record_set_free(struct fmt_record_set *s)
{
    if (s == NULL)
        return;
    for (size_t i = 0; i < s->nprofiles; i++)
        fmt_profile_free(s->profiles[i]);
    free(s->profiles);
    memset(s, 0, sizeof *s);
}

void
fmt_profile_free(struct fmt_profile *p)
{
    struct profile_impl *impl = (struct profile_impl *)p;
    struct blk *b, *next;

    if (impl == NULL)
        return;
    for (b = impl->blocks; b != NULL; b = next) {
        next = b->next;
        free(b);
    }
    free(impl);
}

uint64_t
fmt_profile_stat(const struct fmt_profile *p, const char *name)
{
    if (p == NULL || name == NULL)
        return 0;
    for (uint32_t i = 0; i < p->nstats; i++)
        if (strcmp(p->stats[i].name, name) == 0)
            return p->stats[i].value;
    return 0;
}

uint64_t
fmt_profile_sampled_cpu_ns(const struct fmt_profile *p)
{
    if (p == NULL)
        return 0;
    for (uint32_t i = 0; i < p->nstats; i++)
        if (strcmp(p->stats[i].name, "thread.sampled_cpu_ns") == 0)
            return p->stats[i].value;
    return p->header.cpu_ns;
}

uint64_t
fmt_profile_explained_samples(const struct fmt_profile *p)
{
    uint64_t n = 0;

    for (uint32_t i = 0; p != NULL && i < p->nstats; i++) {
        const char *name = p->stats[i].name != NULL ? p->stats[i].name : "";

        if (strncmp(name, "samples.dropped.", 16) == 0 || strcmp(name, "timer.overruns") == 0 ||
            strcmp(name, "perf.unsampled_periods") == 0)
            n += p->stats[i].value;
    }
    return n;
}
