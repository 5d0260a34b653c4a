// SPDX-License-Identifier: BSD-3-Clause
// hostile_names.cc -- the hostile-names measurement set of the viewer tests
// (reliability.md row 32, issue 9 "Safety"), profiled for real by
// test/viewer/hostile.sh from a source path that is itself hostile (a
// double quote, "</script><img ...>", a newline, invalid UTF-8).  Built with
// DWARF; ordinary C++ names full of '<', '>' and '&': a deep template,
// operators, a lambda in an anonymous namespace.  It calls f_markup, the
// head of the hostile symbol chain of hostile_syms.c.  Prints a
// deterministic checksum.
#include <cstdint>
#include <cstdio>

#define NOINLINE __attribute__((noinline))

extern "C" uint64_t
    f_markup(uint64_t) __asm__("\"</script><img src=x onerror=window.__csprofPwned=1>\"");

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

namespace hostile
{
template <class T, int N> struct Box {
    T inner;
};

// A type whose demangled name is long and full of '<', '>' and ','.
typedef Box<Box<Box<Box<Box<Box<Box<Box<int, 1>, 2>, 3>, 4>, 5>, 6>, 7>, 8> Deep;

struct Acc {
    uint64_t v;
};

NOINLINE Acc
operator<(Acc a, uint64_t b)
{
    return Acc{burn(a.v) + b};
}

NOINLINE Acc
operator&&(Acc a, Acc b)
{
    return Acc{burn(a.v) ^ b.v};
}

template <class T>
NOINLINE uint64_t
run(uint64_t s)
{
    Acc a = Acc{s} < static_cast<uint64_t>(sizeof(T));
    return f_markup((a && Acc{s}).v);
}
} // namespace hostile

namespace
{
NOINLINE uint64_t
anon_lambda_host(uint64_t s)
{
    auto lam = [](uint64_t x) NOINLINE { return burn(x) + 9; };
    return lam(s);
}
} // namespace

int
main()
{
    uint64_t s = 0;

    s += hostile::run<hostile::Deep>(s);
    s += anon_lambda_host(s);
    std::printf("checksum %016llx\n", static_cast<unsigned long long>(s));
    return 0;
}
