/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * text.c -- escape bytes that are not printable, valid UTF-8 (see text.h).
 *
 * Tool code; pure functions on NUL-terminated strings.  UTF-8 validity as
 * in RFC 3629 section 4 (shortest form, no surrogates, at most U+10FFFF);
 * XML characters as in XML 1.0 section 2.2 (production [2] Char).
 */
#include "support/text.h"

#include <stdint.h>
#include <string.h>

/*
 * Length of the clean sequence at @p (1 to 4 bytes), or 0 when the byte at
 * @p must be escaped.  @p points at a non-NUL byte.
 */
static size_t
text_seq_len(const unsigned char *p)
{
    uint32_t cp;
    size_t n, i;

    if (p[0] < 0x80)
        return p[0] >= 0x20 && p[0] != 0x7f ? 1 : 0;
    if (p[0] >= 0xc2 && p[0] <= 0xdf) {
        n = 2;
        cp = p[0] & 0x1f;
    } else if (p[0] >= 0xe0 && p[0] <= 0xef) {
        n = 3;
        cp = p[0] & 0x0f;
    } else if (p[0] >= 0xf0 && p[0] <= 0xf4) {
        n = 4;
        cp = p[0] & 0x07;
    } else {
        return 0; /* continuation byte, overlong lead 0xc0/0xc1, or > U+10FFFF */
    }
    for (i = 1; i < n; i++) {
        if ((p[i] & 0xc0) != 0x80) /* also stops at the NUL */
            return 0;
        cp = cp << 6 | (p[i] & 0x3f);
    }
    if ((n == 3 && cp < 0x800) || (n == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0; /* overlong or out of range */
    if ((cp >= 0xd800 && cp <= 0xdfff) || cp == 0xfffe || cp == 0xffff)
        return 0; /* surrogate or XML non-character */
    if (cp >= 0x80 && cp <= 0x9f)
        return 0; /* C1 control */
    return n;
}

bool
text_clean(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;

    while (*p != '\0') {
        size_t n = text_seq_len(p);

        if (n == 0)
            return false;
        p += n;
    }
    return true;
}

size_t
text_escaped_size(const char *s)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t size = 1;

    while (*p != '\0') {
        size_t n = text_seq_len(p);

        size += n == 0 ? 4 : n;
        p += n == 0 ? 1 : n;
    }
    return size;
}

size_t
text_escape(char *dst, const char *s)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    size_t replaced = 0, n;

    while (*p != '\0') {
        n = text_seq_len(p);
        if (n == 0) {
            *dst++ = '\\';
            *dst++ = 'x';
            *dst++ = hex[*p >> 4];
            *dst++ = hex[*p & 15];
            p++;
            replaced++;
            continue;
        }
        while (n-- > 0)
            *dst++ = (char)*p++;
    }
    *dst = '\0';
    return replaced;
}

const char *
text_basename(const char *path)
{
    const char *s = path != NULL ? strrchr(path, '/') : NULL;

    return s != NULL ? s + 1 : path != NULL ? path : "";
}

static bool
ident_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '$';
}

/* Index of the bracket closing the one at @s[@i] ('<' or '('), brackets of its kind nested
 * inside counted and operator symbols (operator<, operator->, operator()) skipped; 0 when
 * it is not closed. */
static size_t
closing(const char *s, size_t i)
{
    char open = s[i], close = open == '<' ? '>' : ')';
    size_t depth = 0;

    for (size_t k = i; s[k] != '\0'; k++) {
        if (k > i && strncmp(s + k, "operator", 8) == 0 && !ident_char(s[k - 1]) &&
            !ident_char(s[k + 8])) {
            k += 8;
            if (s[k] == '(' && s[k + 1] == ')')
                k += 2;
            while (s[k] != '\0' && strchr("<>=!+-*/%^&|~,", s[k]) != NULL)
                k++;
            k--;
            continue;
        }
        if (s[k] == open)
            depth++;
        else if (s[k] == close && !(close == '>' && s[k - 1] == '-') && --depth == 0)
            return k;
    }
    return 0;
}

size_t
text_short_name(char *dst, size_t size, const char *name)
{
    static const char ell[] = "\xe2\x80\xa6"; /* U+2026 HORIZONTAL ELLIPSIS */
    size_t o = 0, elided = 0;
    bool after_op = false; /* just after an operator's symbols: its parameter list follows */

#define PUT(c)              \
    do {                    \
        if (o + 1 < size)   \
            dst[o++] = (c); \
    } while (0)
    if (size == 0)
        return 0;
    for (size_t i = 0; name[i] != '\0'; i++) {
        char c = name[i], prev = i > 0 ? name[i - 1] : '\0';
        size_t end;
        if (strncmp(name + i, "operator", 8) == 0 && !ident_char(prev) &&
            !ident_char(name[i + 8])) {
            /* the operator's own symbols are copied, never read as brackets */
            size_t k = i + 8;
            if (name[k] == '(' && name[k + 1] == ')')
                k += 2;
            else if (name[k] == '[' && name[k + 1] == ']')
                k += 2;
            else
                while (name[k] != '\0' && strchr("<>=!+-*/%^&|~,", name[k]) != NULL)
                    k++;
            for (; i < k; i++)
                PUT(name[i]);
            i--;
            after_op = true;
            continue;
        }
        /* a template argument list follows a name; a parameter list a name, a template's
           '>' or an operator ("f<int>(int)", "operator<<(…)") */
        bool bracket = ident_char(prev) || (c == '(' && (prev == '>' || after_op));
        after_op = false;
        if ((c == '<' || c == '(') && bracket && name[i + 1] != (c == '<' ? '>' : ')') &&
            (end = closing(name, i)) != 0) {
            PUT(c);
            for (const char *e = ell; *e; e++)
                PUT(*e);
            PUT(name[end]);
            elided++;
            i = end;
            continue;
        }
        PUT(c);
    }
#undef PUT
    dst[o] = '\0';
    return elided;
}
