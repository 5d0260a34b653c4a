/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * xml_read.c -- read a csprof structure file back into modules.
 *
 * Streams the file through libxml2's xmlTextReader (no network; the only
 * external entity is our own DTD): LM and F elements are read as they
 * start, each procedure is expanded alone and read as a small tree, so no
 * document tree is built (libc's 8 MB structure: 30 MB and 0.4 s, against
 * 156 MB and 0.7 s for a DOM).  The file is validated against
 * csprof-structure.dtd while streaming when the DTD can be found
 * (struct_options.schema_dir, else <dir of the running executable>/../
 * share/csprof/schemas, the layout of both the build and the install
 * tree): a DOCTYPE naming it is inserted after the XML declaration on the
 * same line.  Element nesting and attribute syntax are always checked
 * while rebuilding the model, so a file that does not validate is
 * rejected either way.  Errors name the file and the line.  Scope ids,
 * order and strings are kept as in the file, so reading then writing
 * gives the same bytes.
 *
 * Tool code only; never runs in a profiled process.  libxml2 messages are
 * captured, never printed.
 */
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libxml/parser.h>
#include <libxml/tree.h>
#include <libxml/valid.h>
#include <libxml/xmlerror.h>
#include <libxml/xmlreader.h>

#include "structure/structure_internal.h"
#include "support/install.h"
#include "support/vec.h"

#define DTD_NAME "csprof-structure.dtd"

/*
 * Files from this size on are read into modules with huge-page arenas
 * (struct_module_new_large): fewer page faults, which are what a large
 * structure file's read mostly waits for after parsing.
 */
#define LARGE_FILE_BYTES ((off_t)8 * 1024 * 1024)

static bool
large_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && st.st_size >= LARGE_FILE_BYTES;
}

struct reader {
    const char *path;
    const char *schema_dir; /* NULL: next to the executable */
    char *err;
    size_t errlen;
    bool have_err;
    struct struct_rvec rv;
    char *attr_copy; /* see attr() */
    bool large;      /* a large file: modules get huge-page arenas (module.c) */
};

/* Record the first error only: later ones are usually consequences. */
static void __attribute__((format(printf, 3, 4)))
rd_error(struct reader *rd, long line, const char *fmt, ...)
{
    char msg[512];
    va_list ap;
    size_t len;

    if (rd->have_err)
        return;
    rd->have_err = true;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    len = strlen(msg);
    while (len > 0 && (msg[len - 1] == '\n' || msg[len - 1] == ' '))
        msg[--len] = '\0';
    if (rd->err != NULL && rd->errlen > 0) {
        if (line > 0)
            snprintf(rd->err, rd->errlen, "%s:%ld: %s", rd->path, line, msg);
        else
            snprintf(rd->err, rd->errlen, "%s: %s", rd->path, msg);
    }
}

static void
capture_error(void *ctx, xmlErrorPtr e)
{
    struct reader *rd = ctx;

    if (e == NULL || e->level == XML_ERR_WARNING)
        return;
    rd_error(rd, e->line, "%s", e->message ? e->message : "XML error");
}

/*
 * Path of the DTD: in @dir when given, else installed beside the running
 * executable (BINDIR/../share/csprof/schemas); NULL when it cannot be found.
 */
static char *
find_dtd(const char *dir)
{
    char installed[PATH_MAX], *path;

    if (dir != NULL && dir[0] != '\0') {
        if (asprintf(&path, "%s/%s", dir, DTD_NAME) < 0)
            return NULL;
        if (access(path, R_OK) == 0)
            return path;
        free(path);
    }
    if (csp_install_path("share/csprof/schemas/" DTD_NAME, installed, sizeof installed) < 0 ||
        access(installed, R_OK) != 0)
        return NULL;
    return strdup(installed);
}

/* ---- attribute helpers --------------------------------------------- */

/*
 * Value of the attribute @name of element @n, or NULL when absent.  Read
 * from the element's own attribute list (no copy, no look-up of DTD
 * defaults: the structure DTD declares none), so the value is borrowed
 * from the tree and valid while @n is.  A value libxml2 keeps as several
 * nodes (entity references) is joined into rd->attr_copy, valid until the
 * next call; out of memory there is a read error.
 */
static const char *
attr(struct reader *rd, xmlNodePtr n, const char *name)
{
    for (xmlAttrPtr a = n->properties; a != NULL; a = a->next) {
        xmlNodePtr t = a->children;

        if (a->ns != NULL || strcmp((const char *)a->name, name) != 0)
            continue;
        if (t == NULL)
            return "";
        if (t->next == NULL && t->type == XML_TEXT_NODE && t->content != NULL)
            return (const char *)t->content;
        xmlFree(rd->attr_copy);
        rd->attr_copy = (char *)xmlNodeListGetString(n->doc, t, 1);
        if (rd->attr_copy == NULL)
            rd_error(rd, xmlGetLineNo(n), "out of memory");
        return rd->attr_copy;
    }
    return NULL;
}

static int
attr_u32(struct reader *rd, xmlNodePtr n, const char *name, bool required, uint32_t *out)
{
    const char *v = attr(rd, n, name);
    char *end;
    unsigned long long x;

    *out = 0;
    if (v == NULL) {
        if (required)
            rd_error(rd, xmlGetLineNo(n), "<%s> lacks attribute %s", (const char *)n->name, name);
        return required ? STRUCT_EXML : 0;
    }
    errno = 0;
    x = strtoull(v, &end, 10);
    if (v[0] < '0' || v[0] > '9' || *end != '\0' || errno != 0 || x > UINT32_MAX) {
        rd_error(rd, xmlGetLineNo(n), "<%s %s=\"%s\">: not a 32-bit unsigned number",
                 (const char *)n->name, name, v);
        return STRUCT_EXML;
    }
    *out = (uint32_t)x;
    return 0;
}

static int
attr_string(struct reader *rd, struct struct_module *m, xmlNodePtr n, const char *name,
            bool required, const char **out)
{
    const char *v = attr(rd, n, name);

    *out = NULL;
    if (v == NULL) {
        if (required)
            rd_error(rd, xmlGetLineNo(n), "<%s> lacks attribute %s", (const char *)n->name, name);
        return required ? STRUCT_EXML : 0;
    }
    *out = struct_intern(m, v);
    return *out == NULL ? STRUCT_ENOMEM : 0;
}

/* ---- scopes ---------------------------------------------------------- */

static enum csp_scope
kind_of(xmlNodePtr n)
{
    static const char *const tag[CSP_SCOPE_NKINDS] = {
        [CSP_SCOPE_MODULE] = "LM", [CSP_SCOPE_FILE] = "F", [CSP_SCOPE_PROC] = "P",
        [CSP_SCOPE_INLINE] = "A",  [CSP_SCOPE_LOOP] = "L", [CSP_SCOPE_STMT] = "S",
        [CSP_SCOPE_CALL] = "C"};

    for (int k = 0; k < CSP_SCOPE_NKINDS; k++)
        if (tag[k] != NULL && xmlStrcmp(n->name, BAD_CAST tag[k]) == 0)
            return (enum csp_scope)k;
    return (enum csp_scope) - 1;
}

/* May a scope of kind @child appear directly inside one of kind @parent? */
static bool
nesting_ok(enum csp_scope parent, enum csp_scope child)
{
    switch (parent) {
    case CSP_SCOPE_MODULE:
        return child == CSP_SCOPE_FILE;
    case CSP_SCOPE_FILE:
        return child == CSP_SCOPE_PROC;
    case CSP_SCOPE_PROC:
    case CSP_SCOPE_INLINE:
    case CSP_SCOPE_LOOP:
        return child == CSP_SCOPE_INLINE || child == CSP_SCOPE_LOOP || child == CSP_SCOPE_STMT ||
               child == CSP_SCOPE_CALL;
    default:
        return false;
    }
}

static int read_children(struct reader *rd, struct struct_module *m, xmlNodePtr node,
                         struct struct_scope *parent);

/* A flag attribute: absent or "0" is false, "1" is true. */
static int
attr_flag(struct reader *rd, xmlNodePtr n, const char *name, unsigned bit, unsigned *flags)
{
    const char *v = attr(rd, n, name);
    int rc = 0;

    if (v == NULL)
        return 0;
    if (strcmp(v, "1") == 0)
        *flags |= bit;
    else if (strcmp(v, "0") != 0) {
        rd_error(rd, xmlGetLineNo(n), "<%s %s=\"%.40s\">: expected 0 or 1", (const char *)n->name,
                 name, v);
        rc = STRUCT_EXML;
    }
    return rc;
}

/* L: e (entry ranges, optional) and irr. */
static int
read_loop_attrs(struct reader *rd, struct struct_module *m, xmlNodePtr n, struct struct_scope *s)
{
    const char *v = attr(rd, n, "e");
    int rc;

    if (v != NULL) {
        rc = struct_ranges_parse(v, &rd->rv);
        if (rc != 0) {
            rd_error(rd, xmlGetLineNo(n), "<L e=...>: bad address ranges");
            return rc == STRUCT_ENOMEM ? rc : STRUCT_EXML;
        }
        if (rd->rv.n > 0) {
            s->entries = struct_module_alloc(m, rd->rv.n * sizeof(*s->entries));
            if (s->entries == NULL)
                return STRUCT_ENOMEM;
            memcpy(s->entries, rd->rv.v, rd->rv.n * sizeof(*s->entries));
            s->nentries = rd->rv.n;
        }
    }
    return attr_flag(rd, n, "irr", STRUCT_SCOPE_F_IRREDUCIBLE, &s->flags);
}

/* Optional hex address attribute "0x...": 0 when absent. */
static int
attr_hex(struct reader *rd, xmlNodePtr n, const char *name, uint64_t *out)
{
    const char *v = attr(rd, n, name);
    char *end = NULL;
    bool bad;

    *out = 0;
    if (v == NULL)
        return 0;
    errno = 0;
    *out = strtoull(v, &end, 16);
    bad = strncmp(v, "0x", 2) != 0 || end == v + 2 || *end != '\0' || errno != 0;
    if (bad)
        rd_error(rd, xmlGetLineNo(n), "<%s %s=\"%.40s\">: expected a hex address",
                 (const char *)n->name, name, v);
    return bad ? STRUCT_EXML : 0;
}

/* C: t (target, hex), n, ind, tail, nr. */
static int
read_call_attrs(struct reader *rd, struct struct_module *m, xmlNodePtr n, struct struct_scope *s)
{
    const char *v = attr(rd, n, "t");
    int rc;

    if (v != NULL) {
        char *end = NULL;

        errno = 0;
        s->target = strtoull(v, &end, 16);
        rc = (strncmp(v, "0x", 2) != 0 || end == v + 2 || *end != '\0' || errno != 0);
        if (rc)
            rd_error(rd, xmlGetLineNo(n), "<C t=\"%.40s\">: expected a hex address", v);
        if (rc)
            return STRUCT_EXML;
    }
    if ((rc = attr_string(rd, m, n, "n", false, &s->name)) != 0 ||
        (rc = attr_flag(rd, n, "ind", STRUCT_SCOPE_F_INDIRECT, &s->flags)) != 0 ||
        (rc = attr_flag(rd, n, "tail", STRUCT_SCOPE_F_TAIL, &s->flags)) != 0)
        return rc;
    return attr_flag(rd, n, "nr", STRUCT_SCOPE_F_NORETURN, &s->flags);
}

/*
 * Read element @n as a scope of @kind under @parent, and its children when
 * @children (the streaming reader reads a FILE's procedures itself).  The
 * new scope goes to *made when @made is not NULL.
 */
static int
read_scope_ex(struct reader *rd, struct struct_module *m, xmlNodePtr n, struct struct_scope *parent,
              enum csp_scope kind, bool children, struct struct_scope **made)
{
    struct struct_scope *s;
    const char *v;
    int rc;

    rd->rv.n = 0;
    if (kind >= CSP_SCOPE_PROC) {
        v = attr(rd, n, "v");
        if (v == NULL) {
            rd_error(rd, xmlGetLineNo(n), "<%s> lacks attribute v", (const char *)n->name);
            return STRUCT_EXML;
        }
        rc = struct_ranges_parse(v, &rd->rv);
        if (rc != 0) {
            rd_error(rd, xmlGetLineNo(n), "<%s v=\"%.100s\">: bad address ranges",
                     (const char *)n->name, v);
            return rc == STRUCT_ENOMEM ? rc : STRUCT_EXML;
        }
    }
    s = struct_scope_new(m, parent, kind, rd->rv.v, rd->rv.n);
    if (s == NULL)
        return STRUCT_ENOMEM;
    if ((rc = attr_u32(rd, n, "i", true, &s->id)) != 0)
        return rc;
    if (s->id == 0) {
        rd_error(rd, xmlGetLineNo(n), "<%s i=\"0\">: ids start at 1", (const char *)n->name);
        return STRUCT_EXML;
    }
    switch (kind) {
    case CSP_SCOPE_FILE:
        rc = attr_string(rd, m, n, "n", true, &s->name);
        break;
    case CSP_SCOPE_PROC:
        if ((rc = attr_string(rd, m, n, "n", false, &s->name)) == 0 &&
            (rc = attr_string(rd, m, n, "ln", false, &s->link_name)) == 0)
            rc = attr_u32(rd, n, "l", false, &s->line);
        if (parent->name != NULL && strcmp(parent->name, STRUCT_UNKNOWN_FILE) != 0)
            s->file = parent->name;
        break;
    case CSP_SCOPE_INLINE:
        if ((rc = attr_string(rd, m, n, "n", false, &s->name)) == 0 &&
            (rc = attr_string(rd, m, n, "f", false, &s->file)) == 0 &&
            (rc = attr_u32(rd, n, "l", false, &s->line)) == 0 &&
            (rc = attr_string(rd, m, n, "cf", false, &s->call_file)) == 0)
            rc = attr_u32(rd, n, "cl", false, &s->call_line);
        break;
    case CSP_SCOPE_LOOP:
    case CSP_SCOPE_STMT:
    case CSP_SCOPE_CALL:
        if ((rc = attr_string(rd, m, n, "f", false, &s->file)) == 0)
            rc = attr_u32(rd, n, "l", false, &s->line);
        if (rc == 0 && s->file == NULL)
            s->file = struct_enclosing_file(s);
        if (rc == 0 && kind == CSP_SCOPE_LOOP)
            rc = read_loop_attrs(rd, m, n, s);
        if (rc == 0 && kind == CSP_SCOPE_CALL)
            rc = read_call_attrs(rd, m, n, s);
        break;
    default:
        break;
    }
    if (rc != 0)
        return rc;
    if (made != NULL)
        *made = s;
    return children ? read_children(rd, m, n, s) : 0;
}

static int
read_scope(struct reader *rd, struct struct_module *m, xmlNodePtr n, struct struct_scope *parent,
           enum csp_scope kind)
{
    return read_scope_ex(rd, m, n, parent, kind, true, NULL);
}

static int
read_children(struct reader *rd, struct struct_module *m, xmlNodePtr node,
              struct struct_scope *parent)
{
    struct struct_scope *prev = NULL, *c, *next;
    int rc;

    for (xmlNodePtr n = node->children; n != NULL; n = n->next) {
        enum csp_scope k;

        if (n->type != XML_ELEMENT_NODE)
            continue;
        k = kind_of(n);
        if ((int)k < 0 || !nesting_ok(parent->kind, k)) {
            rd_error(rd, xmlGetLineNo(n), "unexpected element <%s> inside <%s>",
                     (const char *)n->name, (const char *)node->name);
            return STRUCT_EXML;
        }
        if ((rc = read_scope(rd, m, n, parent, k)) != 0)
            return rc;
    }
    /* struct_scope_new prepends: restore document order. */
    for (c = parent->first_child; c != NULL; c = next) {
        next = c->next_sibling;
        c->next_sibling = prev;
        prev = c;
    }
    parent->first_child = prev;
    return 0;
}

static int
read_module_ex(struct reader *rd, xmlNodePtr n, bool children, struct struct_module **out)
{
    struct struct_module *m;
    const char *name = attr(rd, n, "n");
    const char *bid;
    int rc;

    *out = NULL;
    if (name == NULL) {
        rd_error(rd, xmlGetLineNo(n), "<LM> lacks attribute n");
        return STRUCT_EXML;
    }
    m = struct_module_new_large(name, rd->large);
    if (m == NULL)
        return STRUCT_ENOMEM;
    if ((rc = attr_u32(rd, n, "i", true, &m->root.id)) != 0 ||
        (rc = attr_string(rd, m, n, "build-id", false, &bid)) != 0)
        goto out_free;
    if (bid != NULL)
        m->build_id = bid;
    if ((rc = attr_hex(rd, n, "entry", &m->entry)) != 0)
        goto out_free;
    if (children && (rc = read_children(rd, m, n, &m->root)) != 0)
        goto out_free;
    *out = m;
    return 0;
out_free:
    struct_module_free(m);
    return rc;
}

int
struct_read_xml(const char *path, struct struct_module ***mods, size_t *n, char *err, size_t errlen)
{
    return struct_read_xml_opt(path, NULL, mods, n, err, errlen);
}

static int read_stream(struct reader *rd, const char *dtd, struct struct_module ***mods,
                       size_t *nmods);

int
struct_read_xml_opt(const char *path, const struct struct_options *opt,
                    struct struct_module ***mods, size_t *n, char *err, size_t errlen)
{
    struct reader rd = {.path = path,
                        .schema_dir = opt != NULL ? opt->schema_dir : NULL,
                        .err = err,
                        .errlen = errlen,
                        .large = large_file(path)};
    char *dtd;
    int rc;

    *mods = NULL;
    *n = 0;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    dtd = find_dtd(rd.schema_dir);
    rc = read_stream(&rd, dtd, mods, n);
    free(dtd);
    if (rc == STRUCT_ENOMEM && !rd.have_err)
        rd_error(&rd, 0, "out of memory");
    struct_rvec_free(&rd.rv);
    xmlFree(rd.attr_copy);
    return rc;
}

/* Reverse the child list of @p (children are prepended while reading). */
static void
reverse_children(struct struct_scope *p)
{
    struct struct_scope *prev = NULL, *c, *next;

    for (c = p->first_child; c != NULL; c = next) {
        next = c->next_sibling;
        c->next_sibling = prev;
        prev = c;
    }
    p->first_child = prev;
}

/*
 * Input for the streaming reader: the file, with a DOCTYPE naming the DTD
 * inserted after the XML declaration (on the same line, so line numbers
 * do not move) when the file is to be validated.  Structure files carry
 * no DOCTYPE of their own; this lets libxml2 validate while streaming.
 */
struct stream_src {
    FILE *f;
    char head[4096 + PATH_MAX + 64];
    size_t nhead, pos;
};

static int
stream_read(void *ctx, char *buf, int len)
{
    struct stream_src *src = ctx;
    size_t n;

    if (len <= 0)
        return 0;
    if (src->pos < src->nhead) {
        n = src->nhead - src->pos < (size_t)len ? src->nhead - src->pos : (size_t)len;
        memcpy(buf, src->head + src->pos, n);
        src->pos += n;
        return (int)n;
    }
    n = fread(buf, 1, (size_t)len, src->f);
    return n == 0 && ferror(src->f) ? -1 : (int)n;
}

static int
stream_close(void *ctx)
{
    struct stream_src *src = ctx;

    fclose(src->f);
    free(src);
    return 0;
}

/* Open @path as a stream_src, with a DOCTYPE for @dtd (NULL: none). */
static struct stream_src *
stream_open(const char *path, const char *dtd)
{
    struct stream_src *src = calloc(1, sizeof(*src));
    char first[4096];
    size_t n, at = 0;
    int len;

    if (src == NULL)
        return NULL;
    src->f = fopen(path, "r");
    if (src->f == NULL) {
        free(src);
        return NULL;
    }
    n = fread(first, 1, sizeof(first), src->f);
    if (dtd != NULL && strchr(dtd, '"') == NULL) {
        if (n >= 5 && memcmp(first, "<?xml", 5) == 0) {
            char *end = memmem(first, n, "?>", 2);

            at = end != NULL ? (size_t)(end - first) + 2 : n;
        }
        memcpy(src->head, first, at);
        len = snprintf(src->head + at, sizeof(src->head) - at,
                       "<!DOCTYPE csprof-structure SYSTEM \"%s\">", dtd);
        src->nhead = at + (size_t)len;
    }
    memcpy(src->head + src->nhead, first + at, n - at);
    src->nhead += n - at;
    return src;
}

/*
 * The streaming reader: elements down to FILE are read as they start, and
 * each procedure is expanded alone (xmlTextReaderExpand) and read with
 * the same code as the DOM reader, so memory stays at one procedure's
 * nodes and no document tree is built.  Validated against @dtd by
 * libxml2 while streaming when @dtd is not NULL.  Returns 0 with *mods
 * (malloc'ed) and *nmods, or a negative struct_status (error in rd).
 */
static int
read_stream(struct reader *rd, const char *dtd, struct struct_module ***mods, size_t *nmods)
{
    struct struct_module **v = NULL, *m = NULL;
    struct struct_scope *file = NULL;
    size_t n = 0, cap = 0;
    struct stream_src *src;
    xmlTextReaderPtr r;
    int ret, rc = 0;

    src = stream_open(rd->path, dtd);
    if (src == NULL) {
        rd_error(rd, 0, "cannot open: %s", strerror(errno));
        return STRUCT_EIO;
    }
    r = xmlReaderForIO(stream_read, stream_close, src, rd->path, NULL,
                       XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING | XML_PARSE_HUGE |
                           XML_PARSE_NOBLANKS | XML_PARSE_COMPACT |
                           (dtd != NULL ? XML_PARSE_DTDLOAD | XML_PARSE_DTDVALID : 0));
    if (r == NULL) {
        stream_close(src);
        return STRUCT_ENOMEM;
    }
    xmlTextReaderSetStructuredErrorHandler(r, capture_error, rd);
    ret = xmlTextReaderRead(r);
    while (ret == 1 && rc == 0 && !rd->have_err) {
        xmlNodePtr node;
        int depth;
        enum csp_scope k;

        if (xmlTextReaderNodeType(r) != XML_READER_TYPE_ELEMENT) {
            ret = xmlTextReaderRead(r);
            continue;
        }
        depth = xmlTextReaderDepth(r);
        node = xmlTextReaderCurrentNode(r);
        if (node == NULL) {
            rc = STRUCT_ENOMEM;
            break;
        }
        k = depth == 0 ? (enum csp_scope) - 1 : kind_of(node);
        if (depth == 0) {
            const char *ver = attr(rd, node, "version");

            if (xmlStrcmp(node->name, BAD_CAST "csprof-structure") != 0) {
                rd_error(rd, xmlGetLineNo(node), "root element is not <csprof-structure>");
                rc = STRUCT_EXML;
            } else if (ver == NULL || strcmp(ver, STRUCT_XML_VERSION) != 0) {
                rd_error(rd, xmlGetLineNo(node),
                         "unsupported structure file version \"%s\" (want %s)", ver ? ver : "",
                         STRUCT_XML_VERSION);
                rc = STRUCT_EXML;
            }
        } else if (depth == 1 && k == CSP_SCOPE_MODULE) {
            if (csp_vec_reserve(&v, &cap, n + 1, sizeof(*v)) != 0) {
                rc = STRUCT_ENOMEM;
                break;
            }
            file = NULL;
            rc = read_module_ex(rd, node, false, &m);
            if (rc == 0)
                v[n++] = m;
        } else if (depth == 2 && k == CSP_SCOPE_FILE && m != NULL) {
            rc = read_scope_ex(rd, m, node, &m->root, k, false, &file);
        } else if (depth == 3 && (int)k >= 0 && file != NULL && nesting_ok(file->kind, k)) {
            node = xmlTextReaderExpand(r);
            if (node == NULL) {
                if (!rd->have_err)
                    rd_error(rd, 0, "XML parse error");
                rc = STRUCT_EXML;
                break;
            }
            rc = read_scope(rd, m, node, file, k);
            if (rc == 0)
                ret = xmlTextReaderNext(r);
            continue;
        } else {
            rd_error(rd, xmlGetLineNo(node), "unexpected element <%s> inside <%s>",
                     (const char *)node->name,
                     node->parent != NULL && node->parent->type == XML_ELEMENT_NODE
                         ? (const char *)node->parent->name
                         : "the document");
            rc = STRUCT_EXML;
        }
        ret = xmlTextReaderRead(r);
    }
    if (rc == 0 && (ret != 0 || rd->have_err)) {
        if (!rd->have_err)
            rd_error(rd, 0, "XML parse error");
        rc = STRUCT_EXML;
    }
    if (rc == 0 && dtd != NULL && xmlTextReaderIsValid(r) != 1) {
        if (!rd->have_err)
            rd_error(rd, 0, "does not validate against the structure DTD");
        rc = STRUCT_EXML;
    }
    xmlFreeTextReader(r);
    if (rc != 0) {
        while (n > 0)
            struct_module_free(v[--n]);
        free(v);
        return rc;
    }
    for (size_t i = 0; i < n; i++) {
        reverse_children(&v[i]->root);
        for (struct struct_scope *f = v[i]->root.first_child; f != NULL; f = f->next_sibling)
            reverse_children(f);
    }
    *mods = v;
    *nmods = n;
    return 0;
}

int
struct_read_xml_stream(const char *path, struct struct_module **out, char *err, size_t errlen)
{
    struct reader rd = {.path = path, .err = err, .errlen = errlen, .large = large_file(path)};
    struct struct_module **v = NULL;
    size_t n = 0;
    int rc;

    *out = NULL;
    if (err != NULL && errlen > 0)
        err[0] = '\0';
    rc = read_stream(&rd, NULL, &v, &n);
    struct_rvec_free(&rd.rv);
    xmlFree(rd.attr_copy);
    if (rc != 0)
        return rc;
    if (n != 1) {
        while (n > 0)
            struct_module_free(v[--n]);
        free(v);
        rd_error(&rd, 0, "expected one <LM> element");
        return STRUCT_EXML;
    }
    *out = v[0];
    free(v);
    return 0;
}
