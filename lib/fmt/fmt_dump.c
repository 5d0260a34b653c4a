/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fmt_dump.c -- a measurement file as text (csprof-prof --dump).
 *
 * Tools only (uses stdio).  One record per line, every field named as
 * key=value, in file order, so that the text is deterministic and easy to
 * grep and diff.  Strings are double-quoted with C escapes for '"', '\\'
 * and bytes outside printable ASCII; doubles use the shortest "%.Ng" that
 * reads back to the same value.  The line formats are listed in
 * share/schemas/measurement-format.md ("Text dump").
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "fmt/fmt.h"
#include "support/bytes.h"

static void
put_str(FILE *out, const char *key, const char *s)
{
    fprintf(out, " %s=\"", key);
    for (const unsigned char *c = (const unsigned char *)(s ? s : ""); *c != '\0'; c++) {
        if (*c == '"' || *c == '\\')
            fprintf(out, "\\%c", *c);
        else if (*c < 0x20 || *c >= 0x7f)
            fprintf(out, "\\x%02x", *c);
        else
            fputc(*c, out);
    }
    fputc('"', out);
}

static void
put_double(FILE *out, const char *key, double d)
{
    char b[40];

    for (int prec = 15; prec <= 17; prec++) {
        snprintf(b, sizeof b, "%.*g", prec, d);
        if (prec == 17 || strtod(b, NULL) == d)
            break;
    }
    fprintf(out, " %s=%s", key, b);
}

static const char *
kind_name(uint32_t kind)
{
    switch (kind) {
    case FMT_NODE_ROOT:
        return "root";
    case FMT_NODE_CALLSITE:
        return "callsite";
    case FMT_NODE_LEAF:
        return "leaf";
    default:
        return "unknown";
    }
}

int
fmt_dump(const struct fmt_profile *p, FILE *out)
{
    const struct fmt_header *h;

    if (p == NULL || out == NULL)
        return FMT_EINVAL;
    h = &p->header;
    fprintf(out, "file version=%" PRIu32 "\n", p->version);
    fprintf(out,
            "header pid=%" PRIu32 " tid=%" PRIu32 " thread_index=%" PRIu32 " rank=%" PRId32
            " generation=%" PRIu32 " start_ns=%" PRIu64 " end_ns=%" PRIu64 " cpu_ns=%" PRIu64,
            h->pid, h->tid, h->thread_index, h->rank, h->generation, h->start_ns, h->end_ns,
            h->cpu_ns);
    put_str(out, "program", h->program);
    put_str(out, "command", h->command);
    put_str(out, "host", h->host);
    fputc('\n', out);
    if (h->run_id != NULL && h->run_id[0] != '\0') { /* RUN section (minor 2) */
        fputs("run", out);
        put_str(out, "id", h->run_id);
        fputc('\n', out);
    }

    for (uint32_t i = 0; i < p->nevents; i++) {
        const struct fmt_event *e = &p->events[i];

        fprintf(out, "event index=%" PRIu32, i);
        put_str(out, "name", e->name);
        put_str(out, "unit", e->unit);
        put_str(out, "mechanism", e->mechanism);
        fprintf(out, " period=%" PRIu64, e->period);
        put_double(out, "display_scale", e->display_scale);
        put_str(out, "display_unit", e->display_unit);
        fputc('\n', out);
    }

    for (uint32_t i = 0; i < p->nmodules; i++) {
        const struct fmt_module *m = &p->modules[i];

        fprintf(out, "module id=%" PRIu32 " epoch=%" PRIu32, m->id, m->epoch);
        put_str(out, "path", m->path);
        fputs(" build_id=", out);
        if (m->build_id_len == 0)
            fputs("none", out);
        for (uint32_t k = 0; k < m->build_id_len; k += 32) { /* any length, 32 bytes a time */
            char hex[65];

            csp_hex(m->build_id + k, m->build_id_len - k < 32 ? m->build_id_len - k : 32, hex,
                    sizeof hex);
            fputs(hex, out);
        }
        fprintf(out, " load_bias=0x%" PRIx64 " start=0x%" PRIx64 " end=0x%" PRIx64 "\n",
                m->load_bias, m->start, m->end);
    }

    fprintf(out, "cct epoch=%" PRIu32 " nodes=%" PRIu64 "\n", p->epoch, p->nnodes);
    for (uint64_t i = 0; i < p->nnodes; i++) {
        const struct fmt_node *n = &p->nodes[i];

        fprintf(out, "node id=%" PRIu64 " parent=%" PRIu64 " kind=%s", n->id, n->parent,
                kind_name(n->kind));
        if (n->module == FMT_MODULE_NONE)
            fputs(" module=none", out);
        else
            fprintf(out, " module=%" PRIu32, n->module);
        fprintf(out, " offset=0x%" PRIx64 " samples=%" PRIu64 " calls=%" PRIu64 " metrics=[",
                n->offset, n->samples, n->calls);
        for (uint32_t k = 0; k < n->nmetrics; k++)
            fprintf(out, "%s%" PRIu32 ":%" PRIu64, k ? "," : "", n->metrics[k].event,
                    n->metrics[k].value);
        fputs("]\n", out);
    }

    for (uint32_t i = 0; i < p->nstats; i++) {
        fputs("stat", out);
        put_str(out, "name", p->stats[i].name);
        fprintf(out, " value=%" PRIu64 "\n", p->stats[i].value);
    }
    if (p->record_flags != 0 || p->record_seq != 0)
        fprintf(out, "record checkpoint=%d seq=%" PRIu64 "\n",
                (p->record_flags & FMT_RECORD_CHECKPOINT) != 0, p->record_seq);
    return ferror(out) ? FMT_EIO : FMT_OK;
}
