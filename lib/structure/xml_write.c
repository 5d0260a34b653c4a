/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xml_write.c -- write structure modules as a csprof structure file
 * (share/schemas/csprof-structure.dtd).
 *
 * Elements: csprof-structure > LM > F > P > (A | L | S | C)*, A and L nest.
 * Ranges are written as v="0x1130-0x1150 0x1160-0x1170" (half-open, hex).
 * An S omits f when its file equals the file of its nearest P or A
 * ancestor; the reader restores it from there.  The output depends only on
 * the model, so the same model always gives the same bytes.
 *
 * The bytes are those libxml2's xmlTextWriter wrote before (one space of
 * indentation per level, empty elements as "<X .../>", attribute values
 * escaped as libxml2 does: the markup characters < > & " and tab,
 * newline, return as references, UTF-8 as it is), formatted here into a
 * buffer: xmlTextWriter took about a tenth of csprof-struct's time on a
 * DWARF-heavy library.
 *
 * Tool code only; never runs in a profiled process.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "structure/structure_internal.h"
#include "support/text.h"

#define OUT_BUF_BYTES (64 * 1024)

/* Buffered output to a stdio stream; the first write error sticks. */
struct xw {
    FILE *out;
    size_t n;
    bool failed;
    char buf[OUT_BUF_BYTES];
};

static void
xw_flush(struct xw *w)
{
    if (w->n > 0 && !w->failed && fwrite(w->buf, 1, w->n, w->out) != w->n)
        w->failed = true;
    w->n = 0;
}

static void
xw_put(struct xw *w, const char *s, size_t len)
{
    if (len > sizeof(w->buf) - w->n) {
        xw_flush(w);
        if (len > sizeof(w->buf)) {
            if (!w->failed && fwrite(s, 1, len, w->out) != len)
                w->failed = true;
            return;
        }
    }
    memcpy(w->buf + w->n, s, len);
    w->n += len;
}

static void
xw_puts(struct xw *w, const char *s)
{
    xw_put(w, s, strlen(s));
}

/*
 * Room for @need more bytes at the end of the buffer (flushed first when
 * short); NULL when @need exceeds the buffer: the caller takes a slower
 * path.  The caller writes there and adds what it wrote to w->n.
 */
static char *
xw_room(struct xw *w, size_t need)
{
    if (need > sizeof(w->buf))
        return NULL;
    if (need > sizeof(w->buf) - w->n)
        xw_flush(w);
    return w->buf + w->n;
}

static void
xw_indent(struct xw *w, unsigned depth)
{
    static const char spaces[] = "                                ";

    while (depth > 0) {
        unsigned k = depth < sizeof(spaces) - 1 ? depth : (unsigned)sizeof(spaces) - 1;

        xw_put(w, spaces, k);
        depth -= k;
    }
}

/* Append " NAME=\"" */
static void
attr_open(struct xw *w, const char *name)
{
    xw_put(w, " ", 1);
    xw_puts(w, name);
    xw_put(w, "=\"", 2);
}

/* Append @val escaped as an attribute value (@val: clean UTF-8, see text_clean). */
static void
put_escaped(struct xw *w, const char *val)
{
    const char *cur = val, *base = val;

    for (; *cur != '\0'; cur++) {
        const char *ref;

        switch (*cur) {
        case '\n':
            ref = "&#10;";
            break;
        case '\r':
            ref = "&#13;";
            break;
        case '\t':
            ref = "&#9;";
            break;
        case '"':
            ref = "&quot;";
            break;
        case '<':
            ref = "&lt;";
            break;
        case '>':
            ref = "&gt;";
            break;
        case '&':
            ref = "&amp;";
            break;
        default:
            continue;
        }
        xw_put(w, base, (size_t)(cur - base));
        xw_puts(w, ref);
        base = cur + 1;
    }
    xw_put(w, base, (size_t)(cur - base));
}

/*
 * Names come from the binary and are bytes: invalid UTF-8 or control
 * characters would make the file unreadable ("Input is not proper UTF-8"),
 * so such bytes are written as "\xNN" (support/text.h).
 */
static int
attr_str(struct xw *w, const char *name, const char *val)
{
    char stack[256], *esc;
    size_t size;

    attr_open(w, name);
    if (text_clean(val)) {
        put_escaped(w, val);
    } else {
        size = text_escaped_size(val);
        esc = size <= sizeof(stack) ? stack : malloc(size);
        if (esc == NULL)
            return -1;
        text_escape(esc, val);
        put_escaped(w, esc);
        if (esc != stack)
            free(esc);
    }
    xw_put(w, "\"", 1);
    return 0;
}

/* Attribute whose value needs no escaping (digits, "0x", '-', ' '). */
static int
attr_plain(struct xw *w, const char *name, const char *val)
{
    attr_open(w, name);
    xw_puts(w, val);
    xw_put(w, "\"", 1);
    return 0;
}

/* @name="@val" in decimal, written straight into the buffer. */
static int
attr_u64(struct xw *w, const char *name, uint64_t val)
{
    char digits[20], *d = digits + sizeof(digits), *p;
    size_t nlen = strlen(name), dlen;

    do {
        *--d = (char)('0' + val % 10);
        val /= 10;
    } while (val != 0);
    dlen = (size_t)(digits + sizeof(digits) - d);
    p = xw_room(w, nlen + dlen + 4);
    if (p == NULL)
        return -1; /* an attribute name longer than the buffer: never */
    *p++ = ' ';
    memcpy(p, name, nlen);
    p += nlen;
    *p++ = '=';
    *p++ = '"';
    memcpy(p, d, dlen);
    p += dlen;
    *p++ = '"';
    w->n = (size_t)(p - w->buf);
    return 0;
}

#define RANGES_STACK 8 /* ranges formatted without malloc (a small frame: write_scope recurses) */

static int
attr_ranges(struct xw *w, const char *name, const struct struct_range *r, size_t n)
{
    size_t nlen = strlen(name);
    char stack[RANGES_STACK * STRUCT_RANGE_CHARS + 1], *v, *p;
    int rc;

    if (n <= RANGES_STACK && (p = xw_room(w, nlen + n * STRUCT_RANGE_CHARS + 5)) != NULL) {
        *p++ = ' '; /* formatted straight into the buffer */
        memcpy(p, name, nlen);
        p += nlen;
        *p++ = '=';
        *p++ = '"';
        p += struct_ranges_format_buf(r, n, p);
        *p++ = '"';
        w->n = (size_t)(p - w->buf);
        return 0;
    }
    v = n <= RANGES_STACK ? stack : malloc(n * STRUCT_RANGE_CHARS + 1);
    if (v == NULL)
        return -1;
    struct_ranges_format_buf(r, n, v);
    rc = attr_plain(w, name, v);
    if (v != stack)
        free(v);
    return rc;
}

/* Write the children of an element at @depth and close it ("/>" when it has none). */
static int write_scope(struct xw *w, const struct struct_scope *s, unsigned depth);

static int
write_children(struct xw *w, const struct struct_scope *s, const char *tag, unsigned depth)
{
    if (s->first_child == NULL) {
        xw_put(w, "/>\n", 3);
        return 0;
    }
    xw_put(w, ">\n", 2);
    for (const struct struct_scope *c = s->first_child; c != NULL; c = c->next_sibling)
        if (write_scope(w, c, depth + 1) != 0)
            return -1;
    xw_indent(w, depth);
    xw_put(w, "</", 2);
    xw_puts(w, tag);
    xw_put(w, ">\n", 2);
    return 0;
}

static int
write_scope(struct xw *w, const struct struct_scope *s, unsigned depth)
{
    static const char *const tag[CSP_SCOPE_NKINDS] = {
        [CSP_SCOPE_MODULE] = "LM", [CSP_SCOPE_FILE] = "F", [CSP_SCOPE_PROC] = "P",
        [CSP_SCOPE_INLINE] = "A",  [CSP_SCOPE_LOOP] = "L", [CSP_SCOPE_STMT] = "S",
        [CSP_SCOPE_CALL] = "C"};
    const char *ef;

    if ((unsigned)s->kind >= CSP_SCOPE_NKINDS || tag[s->kind] == NULL)
        return -1;
    xw_indent(w, depth);
    xw_put(w, "<", 1);
    xw_puts(w, tag[s->kind]);
    if (attr_u64(w, "i", s->id) != 0)
        return -1;
    switch (s->kind) {
    case CSP_SCOPE_MODULE:
        break; /* n and build-id are written by write_module */
    case CSP_SCOPE_FILE:
        if (attr_str(w, "n", s->name ? s->name : STRUCT_UNKNOWN_FILE) != 0)
            return -1;
        break;
    case CSP_SCOPE_PROC:
        if ((s->name && attr_str(w, "n", s->name) != 0) ||
            (s->link_name && attr_str(w, "ln", s->link_name) != 0) ||
            (s->line && attr_u64(w, "l", s->line) != 0))
            return -1;
        break;
    case CSP_SCOPE_INLINE:
        if ((s->name && attr_str(w, "n", s->name) != 0) ||
            (s->file && attr_str(w, "f", s->file) != 0) ||
            (s->line && attr_u64(w, "l", s->line) != 0) ||
            (s->call_file && attr_str(w, "cf", s->call_file) != 0) ||
            (s->call_line && attr_u64(w, "cl", s->call_line) != 0))
            return -1;
        break;
    case CSP_SCOPE_LOOP:
    case CSP_SCOPE_STMT:
    case CSP_SCOPE_CALL:
        ef = struct_enclosing_file(s);
        if ((s->file && (ef == NULL || strcmp(ef, s->file) != 0) &&
             attr_str(w, "f", s->file) != 0) ||
            (s->line && attr_u64(w, "l", s->line) != 0))
            return -1;
        break;
    default: /* ROOT, TRUNC, GROUP: no structure scope (refused above) */
        return -1;
    }
    if (s->kind >= CSP_SCOPE_PROC && attr_ranges(w, "v", s->ranges, s->nranges) != 0)
        return -1;
    if (s->kind == CSP_SCOPE_LOOP &&
        ((s->nentries > 0 && attr_ranges(w, "e", s->entries, s->nentries) != 0) ||
         ((s->flags & STRUCT_SCOPE_F_IRREDUCIBLE) && attr_plain(w, "irr", "1") != 0)))
        return -1;
    if (s->kind == CSP_SCOPE_CALL) {
        char t[24];

        *struct_put_hex(t, s->target) = '\0';
        if ((s->target != 0 && attr_plain(w, "t", t) != 0) ||
            (s->name != NULL && attr_str(w, "n", s->name) != 0) ||
            ((s->flags & STRUCT_SCOPE_F_INDIRECT) && attr_plain(w, "ind", "1") != 0) ||
            ((s->flags & STRUCT_SCOPE_F_TAIL) && attr_plain(w, "tail", "1") != 0) ||
            ((s->flags & STRUCT_SCOPE_F_NORETURN) && attr_plain(w, "nr", "1") != 0))
            return -1;
    }
    return write_children(w, s, tag[s->kind], depth);
}

static int
write_module(struct xw *w, const struct struct_module *m)
{
    const struct struct_scope *root = struct_module_root(m);

    xw_puts(w, " <LM");
    if (attr_u64(w, "i", root->id ? root->id : 1) != 0 ||
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
    return write_children(w, root, "LM", 1);
}

int
struct_write_xml(FILE *out, struct struct_module *const *mods, size_t n)
{
    struct xw *w = malloc(sizeof(*w));
    int rc = STRUCT_EIO;

    if (w == NULL)
        return STRUCT_ENOMEM;
    w->out = out;
    w->n = 0;
    w->failed = false;
    xw_puts(w, "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<csprof-structure");
    if (attr_plain(w, "version", STRUCT_XML_VERSION) != 0)
        goto out;
    if (n == 0) {
        xw_puts(w, "/>\n");
    } else {
        xw_puts(w, ">\n");
        for (size_t i = 0; i < n; i++)
            if (write_module(w, mods[i]) != 0)
                goto out;
        xw_puts(w, "</csprof-structure>\n");
    }
    xw_flush(w);
    if (!w->failed && fflush(out) == 0 && !ferror(out))
        rc = 0;
out:
    free(w);
    return rc;
}
