// SPDX-License-Identifier: BSD-3-Clause
// hostile_syms.c -- the part of the hostile-names measurement set whose names
// come from the symbol table (built without DWARF: with DWARF, a procedure
// is named by its C name, not its asm label).  Functions whose symbols break
// HTML, JS and XML if a writer or the viewer inserts them unescaped: a
// </script> with an <img onerror> that sets window.__csprofPwned, a <script>
// element, an attribute breakout, control bytes with invalid UTF-8,
// U+2028/U+2029 (line terminators in JS), template-literal, CDATA
// and comment syntax, and a 4 KiB name made of "</script>" repeats.  (A
// double quote or a backslash in a symbol trips GNU as; the source path of
// hostile_names.cc holds both instead.)  Each burns CPU itself and calls the
// next, so every name is a caller and a callee.
#include <stdint.h>

#define NOINLINE __attribute__((noinline))
#define S9       "</script>"
#define S72      S9 S9 S9 S9 S9 S9 S9 S9
#define S576     S72 S72 S72 S72 S72 S72 S72 S72
#define S4K      S576 S576 S576 S576 S576 S576 S576 S72 S9 // 4113 bytes

uint64_t f_markup(uint64_t) __asm__("\"</script><img src=x onerror=window.__csprofPwned=1>\"");
uint64_t f_script(uint64_t) __asm__("\"<script>window.__csprofPwned=2</script>\"");
uint64_t f_attr(uint64_t) __asm__("\"q';&amp;<>;x ' onmouseover='window.__csprofPwned=3' x='\"");
uint64_t f_control(uint64_t) __asm__("\"ctl\001\033[31mred\377\376end\"");
uint64_t f_lineterm(uint64_t) __asm__("\"line\xe2\x80\xa8sep\xe2\x80\xa9para\"");
uint64_t f_syntax(uint64_t) __asm__("\"${x}`tick]]><!--c-->\"");
uint64_t f_long(uint64_t) __asm__("\"" S4K "\"");

static unsigned long units = 25;

// burn: inlined into each caller, so each function has exclusive cost.
static inline __attribute__((always_inline)) uint64_t
burn(uint64_t s)
{
    uint64_t x = s | 1;

    for (unsigned long i = 0; i < units * 1000000ul; i++) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
    }
    return x;
}

NOINLINE uint64_t
f_long(uint64_t s)
{
    return burn(s) + 7;
}

NOINLINE uint64_t
f_syntax(uint64_t s)
{
    return burn(s) + f_long(s + 6);
}

NOINLINE uint64_t
f_lineterm(uint64_t s)
{
    return burn(s) + f_syntax(s + 5);
}

NOINLINE uint64_t
f_control(uint64_t s)
{
    return burn(s) + f_lineterm(s + 4);
}

NOINLINE uint64_t
f_attr(uint64_t s)
{
    return burn(s) + f_control(s + 3);
}

NOINLINE uint64_t
f_script(uint64_t s)
{
    return burn(s) + f_attr(s + 2);
}

NOINLINE uint64_t
f_markup(uint64_t s)
{
    return burn(s) + f_script(s + 1);
}
