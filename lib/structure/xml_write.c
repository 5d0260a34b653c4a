/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xml_write.c -- write structure modules as a csprof structure file
 * (share/schemas/csprof-structure.dtd) with libxml2's xmlTextWriter, which
 * does the escaping (numbers and ranges, which need none, are formatted
 * here and written raw).
 *
 * Elements: csprof-structure > LM > F > P > (A | L | S | C)*, A and L nest.
 * Ranges are written as v="0x1130-0x1150 0x1160-0x1170" (half-open, hex).
 * An S omits f when its file equals the file of its nearest P or A
 * ancestor; the reader restores it from there.  The output depends only on
 * the model, so the same model always gives the same bytes.
 *
 * Tool code only; never runs in a profiled process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <libxml/xmlwriter.h>

#include "structure/structure_internal.h"
#include "support/text.h"

#define W(x) BAD_CAST(x)

/*
 * Names come from the binary and are bytes: invalid UTF-8 or control
 * characters would make the file unreadable ("Input is not proper UTF-8"),
 * so such bytes are written as "\xNN" (support/text.h).
 */
static int
attr_str(xmlTextWriterPtr w, const char *name, const char *val)
{
    char stack[256], *esc;
    size_t size;
    int rc;

    if (text_clean(val))
        return xmlTextWriterWriteAttribute(w, W(name), W(val)) < 0 ? -1 : 0;
    size = text_escaped_size(val);
    esc = size <= sizeof(stack) ? stack : malloc(size);
    if (esc == NULL)
        return -1;
    text_escape(esc, val);
    rc = xmlTextWriterWriteAttribute(w, W(name), W(esc)) < 0 ? -1 : 0;
    if (esc != stack)
        free(esc);
    return rc;
}

/*
 * Attribute whose value needs no escaping (digits, "0x", '-', ' '):
 * written raw, which inside an attribute libxml2 copies as it is.
 */
static int
attr_plain(xmlTextWriterPtr w, const char *name, const char *val)
{
    return xmlTextWriterStartAttribute(w, W(name)) < 0 || xmlTextWriterWriteRaw(w, W(val)) < 0 ||
                   xmlTextWriterEndAttribute(w) < 0
               ? -1
               : 0;
}

static int
attr_u64(xmlTextWriterPtr w, const char *name, uint64_t val)
{
    char buf[24], *p = buf + sizeof(buf);

    *--p = '\0';
    do {
        *--p = (char)('0' + val % 10);
        val /= 10;
    } while (val != 0);
    return attr_plain(w, name, p);
}

#define RANGES_STACK 8 /* ranges formatted without malloc (a small frame: write_scope recurses) */

static int
attr_ranges(xmlTextWriterPtr w, const char *name, const struct struct_range *r, size_t n)
{
    char stack[RANGES_STACK * STRUCT_RANGE_CHARS + 1];
    char *v = n <= RANGES_STACK ? stack : malloc(n * STRUCT_RANGE_CHARS + 1);
    int rc;

    if (v == NULL)
        return -1;
    struct_ranges_format_buf(r, n, v);
    rc = attr_plain(w, name, v);
    if (v != stack)
        free(v);
    return rc;
}

/* File of the nearest enclosing PROC or INLINE (NULL when unknown). */
static const char *
enclosing_file(const struct struct_scope *s)
{
    for (const struct struct_scope *p = s->parent; p != NULL; p = p->parent)
        if (p->kind == STRUCT_SCOPE_PROC || p->kind == STRUCT_SCOPE_INLINE)
            return p->file;
    return NULL;
}

static int
write_scope(xmlTextWriterPtr w, const struct struct_scope *s)
{
    static const char *const tag[] = {"LM", "F", "P", "A", "L", "S", "C"};
    const char *ef;

    if ((unsigned)s->kind > STRUCT_SCOPE_CALL)
        return -1;
    if (xmlTextWriterStartElement(w, W(tag[s->kind])) < 0 || attr_u64(w, "i", s->id) != 0)
        return -1;
    switch (s->kind) {
    case STRUCT_SCOPE_MODULE:
        break; /* n and build-id are written by write_module */
    case STRUCT_SCOPE_FILE:
        if (attr_str(w, "n", s->name ? s->name : STRUCT_UNKNOWN_FILE) != 0)
            return -1;
        break;
    case STRUCT_SCOPE_PROC:
        if ((s->name && attr_str(w, "n", s->name) != 0) ||
            (s->link_name && attr_str(w, "ln", s->link_name) != 0) ||
            (s->line && attr_u64(w, "l", s->line) != 0))
            return -1;
        break;
    case STRUCT_SCOPE_INLINE:
        if ((s->name && attr_str(w, "n", s->name) != 0) ||
            (s->file && attr_str(w, "f", s->file) != 0) ||
            (s->line && attr_u64(w, "l", s->line) != 0) ||
            (s->call_file && attr_str(w, "cf", s->call_file) != 0) ||
            (s->call_line && attr_u64(w, "cl", s->call_line) != 0))
            return -1;
        break;
    case STRUCT_SCOPE_LOOP:
    case STRUCT_SCOPE_STMT:
    case STRUCT_SCOPE_CALL:
        ef = enclosing_file(s);
        if ((s->file && (ef == NULL || strcmp(ef, s->file) != 0) &&
             attr_str(w, "f", s->file) != 0) ||
            (s->line && attr_u64(w, "l", s->line) != 0))
            return -1;
        break;
    }
    if (s->kind >= STRUCT_SCOPE_PROC && attr_ranges(w, "v", s->ranges, s->nranges) != 0)
        return -1;
    if (s->kind == STRUCT_SCOPE_LOOP &&
        ((s->nentries > 0 && attr_ranges(w, "e", s->entries, s->nentries) != 0) ||
         ((s->flags & STRUCT_SCOPE_F_IRREDUCIBLE) && attr_str(w, "irr", "1") != 0)))
        return -1;
    if (s->kind == STRUCT_SCOPE_CALL) {
        char t[24];

        *struct_put_hex(t, s->target) = '\0';
        if ((s->target != 0 && attr_plain(w, "t", t) != 0) ||
            (s->name != NULL && attr_str(w, "n", s->name) != 0) ||
            ((s->flags & STRUCT_SCOPE_F_INDIRECT) && attr_str(w, "ind", "1") != 0) ||
            ((s->flags & STRUCT_SCOPE_F_TAIL) && attr_str(w, "tail", "1") != 0) ||
            ((s->flags & STRUCT_SCOPE_F_NORETURN) && attr_str(w, "nr", "1") != 0))
            return -1;
    }
    for (const struct struct_scope *c = s->first_child; c != NULL; c = c->next_sibling)
        if (write_scope(w, c) != 0)
            return -1;
    return xmlTextWriterEndElement(w) < 0 ? -1 : 0;
}

static int
write_module(xmlTextWriterPtr w, const struct struct_module *m)
{
    const struct struct_scope *root = struct_module_root(m);

    if (xmlTextWriterStartElement(w, W("LM")) < 0 || attr_u64(w, "i", root->id ? root->id : 1) ||
        attr_str(w, "n", root->name ? root->name : "") != 0)
        return -1;
    if (m->build_id != NULL && m->build_id[0] != '\0' && attr_str(w, "build-id", m->build_id) != 0)
        return -1;
    if (m->entry != 0) {
        char e[24];

        *struct_put_hex(e, m->entry) = '\0';
        if (attr_plain(w, "entry", e) != 0)
            return -1;
    }
    for (const struct struct_scope *c = root->first_child; c != NULL; c = c->next_sibling)
        if (write_scope(w, c) != 0)
            return -1;
    return xmlTextWriterEndElement(w) < 0 ? -1 : 0;
}

int
struct_write_xml(FILE *out, struct struct_module *const *mods, size_t n)
{
    xmlOutputBufferPtr buf;
    xmlTextWriterPtr w;
    int rc = STRUCT_EIO;

    buf = xmlOutputBufferCreateFile(out, NULL);
    if (buf == NULL)
        return STRUCT_ENOMEM;
    w = xmlNewTextWriter(buf); /* owns buf from here on */
    if (w == NULL) {
        xmlOutputBufferClose(buf);
        return STRUCT_ENOMEM;
    }
    if (xmlTextWriterSetIndent(w, 1) < 0 || xmlTextWriterSetIndentString(w, W(" ")) < 0 ||
        xmlTextWriterStartDocument(w, "1.0", "UTF-8", NULL) < 0 ||
        xmlTextWriterStartElement(w, W("csprof-structure")) < 0 ||
        attr_str(w, "version", STRUCT_XML_VERSION) != 0)
        goto out_free_writer;
    for (size_t i = 0; i < n; i++)
        if (write_module(w, mods[i]) != 0)
            goto out_free_writer;
    if (xmlTextWriterEndElement(w) < 0 || xmlTextWriterEndDocument(w) < 0 ||
        xmlTextWriterFlush(w) < 0)
        goto out_free_writer;
    rc = 0;
out_free_writer:
    xmlFreeTextWriter(w);
    if (rc == 0 && (fflush(out) != 0 || ferror(out)))
        rc = STRUCT_EIO;
    return rc;
}
