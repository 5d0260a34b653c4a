// SPDX-License-Identifier: BSD-3-Clause
// test_text.c -- table-driven tests of support/text.h: which byte sequences
// are escaped as \xNN, that the result is clean, and that escaping is
// idempotent.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "csp_test.h"
#include "support/text.h"

static const struct {
    const char *name;
    const char *in;
    const char *want;
    size_t replaced;
} cases[] = {
    {"plain ASCII", "main", "main", 0},
    {"markup is not text's business", "</script><img>", "</script><img>", 0},
    {"newline", "a\nb", "a\\x0ab", 1},
    {"tab and CR", "a\tb\r", "a\\x09b\\x0d", 2},
    {"ANSI escape", "\033[31mred", "\\x1b[31mred", 1},
    {"DEL", "a\177", "a\\x7f", 1},
    {"valid 2-byte UTF-8", "h\xc3\xa9", "h\xc3\xa9", 0},
    {"valid 4-byte UTF-8", "\xf0\x9f\x98\x80", "\xf0\x9f\x98\x80", 0},
    {"lone continuation byte", "a\x80z", "a\\x80z", 1},
    {"invalid lead bytes", "\xff\xfe", "\\xff\\xfe", 2},
    {"overlong '/'", "\xc0\xaf", "\\xc0\\xaf", 2},
    {"overlong 3-byte", "\xe0\x80\xaf", "\\xe0\\x80\\xaf", 3},
    {"truncated sequence at the end", "ab\xe2\x82", "ab\\xe2\\x82", 2},
    {"surrogate U+D800", "\xed\xa0\x80", "\\xed\\xa0\\x80", 3},
    {"non-character U+FFFE", "\xef\xbf\xbe", "\\xef\\xbf\\xbe", 3},
    {"above U+10FFFF", "\xf4\x90\x80\x80", "\\xf4\\x90\\x80\\x80", 4},
    {"C1 control U+009B (CSI)",
     "\xc2\x9b"
     "2J",
     "\\xc2\\x9b2J", 2},
    {"U+00A0 is fine", "\xc2\xa0", "\xc2\xa0", 0},
    {"empty", "", "", 0},
};

int
main(void)
{
    size_t i, passed = 0, failed = 0;

    for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
        size_t size = text_escaped_size(cases[i].in), replaced;
        char *out = malloc(size), *again;
        int ok;

        if (out == NULL)
            return 1;
        replaced = text_escape(out, cases[i].in);
        again = malloc(text_escaped_size(out));
        if (again == NULL)
            return 1;
        ok = strcmp(out, cases[i].want) == 0 && replaced == cases[i].replaced &&
             size == strlen(out) + 1 && text_clean(out) &&
             text_clean(cases[i].in) == (cases[i].replaced == 0) && text_escape(again, out) == 0 &&
             strcmp(again, out) == 0;
        if (ok) {
            passed++;
        } else {
            failed++;
            printf("FAIL: %s: got \"%s\" (%zu replaced, size %zu)\n", cases[i].name, out, replaced,
                   size);
        }
        free(again);
        free(out);
    }
    return csp_test_finish((long)(passed), (long)failed);
}
