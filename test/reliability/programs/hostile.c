// SPDX-License-Identifier: BSD-3-Clause
// hostile.c -- reliability row 32: functions whose symbol names (asm labels)
// are hostile to every output: HTML/XML markup, quotes and ';', control
// bytes with an ANSI escape sequence, invalid UTF-8, and a 4 KiB name.
// (A newline cannot be put in a symbol with GNU as; r32 puts one in the
// source file's name instead.)  Each function burns the same CPU, so each
// shows up in the profile.  Prints a deterministic checksum.
#include <stdint.h>
#include <stdio.h>

#define NOINLINE __attribute__((noinline))
#define L16      "AAAAAAAAAAAAAAAA"
#define L256     L16 L16 L16 L16 L16 L16 L16 L16 L16 L16 L16 L16 L16 L16 L16 L16
#define L4K      L256 L256 L256 L256 L256 L256 L256 L256 L256 L256 L256 L256 L256 L256 L256 L256

uint64_t f_markup(uint64_t) __asm__("\"</script><img src=x onerror=alert(1)>\"");
uint64_t f_quotes(uint64_t) __asm__("\"q';&<>;x\"");
uint64_t f_control(uint64_t) __asm__("\"ctl\001\033[31mred\377\376end\"");
uint64_t f_long(uint64_t) __asm__("\"" L4K "\"");

static unsigned long units = 30;

// burn: inlined into each caller, so each hostile function has the cost itself.
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
f_markup(uint64_t s)
{
    return burn(s) + 1;
}

NOINLINE uint64_t
f_quotes(uint64_t s)
{
    return burn(s) + 2;
}

NOINLINE uint64_t
f_control(uint64_t s)
{
    return burn(s) + 3;
}

NOINLINE uint64_t
f_long(uint64_t s)
{
    return burn(s) + 4;
}

int
main(void)
{
    uint64_t s = 0;

    s += f_markup(s);
    s += f_quotes(s);
    s += f_control(s);
    s += f_long(s);
    printf("checksum %016llx\n", (unsigned long long)s);
    return 0;
}
