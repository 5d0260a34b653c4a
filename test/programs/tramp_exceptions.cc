// SPDX-License-Identifier: BSD-3-Clause
/*
 * tramp_exceptions.cc -- C++ exceptions thrown and caught through sampled
 * frames, for test/integration/trampoline.sh.
 *
 * Recursion to varying depths (noinline frames that do a little work and
 * hold a local object whose destructor counts), throwing at the bottom and
 * catching at various levels: a typed catch part-way up, rethrow from a
 * handler, nested try/catch, catch (...), std::exception subclasses and
 * plain ints.  The profiler's trampoline sits in these frames most of the
 * time; if the unwinder met it, std::terminate would abort the run or a
 * destructor would be skipped.  The output is a set of counters that
 * depend only on the iteration count: it must be the same with and
 * without csprof.  An optional argument scales the iteration count.
 */
#include <cstdio>
#include <cstdlib>
#include <stdexcept>

#define NOINLINE __attribute__((noinline))

namespace
{

long constructed;
long destroyed;
long caught_typed;
long caught_any;
long caught_runtime;
long caught_int;
long rethrown;
long nested;
volatile unsigned long sink;

struct bottom_error {
    int depth;
    unsigned long token;
};

// A local object in every frame: its destructor must run exactly once per frame.
struct guard {
    explicit guard(long v) : value(v)
    {
        constructed++;
    }
    ~guard()
    {
        destroyed++;
        sink += static_cast<unsigned long>(value);
    }
    guard(const guard &) = delete;
    guard &operator=(const guard &) = delete;
    long value;
};

// A little work per frame, so samples land in the recursion.
NOINLINE unsigned long
work(unsigned long x, int n)
{
    for (int i = 0; i < n; i++)
        x = x * 6364136223846793005UL + 1442695040888963407UL;
    sink += x;
    return x;
}

NOINLINE void
throw_at_bottom(int kind, int depth, unsigned long token)
{
    switch (kind % 4) {
    case 0:
        throw bottom_error{depth, token};
    case 1:
        throw std::runtime_error("bottom");
    case 2:
        throw static_cast<int>(token & 0xffff);
    default:
        throw static_cast<double>(depth) + 0.5; // only catch (...) takes it
    }
}

NOINLINE unsigned long dive(int depth, int kind, int catch_at, unsigned long acc);

// A frame with its own handler: catches bottom_error, rethrows every other one.
NOINLINE unsigned long
catching_frame(int depth, int kind, int catch_at, unsigned long acc)
{
    guard g(depth);
    try {
        return dive(depth - 1, kind, catch_at, work(acc, 8)) + 1;
    } catch (bottom_error &e) {
        caught_typed++;
        if ((e.token & 1) != 0) {
            rethrown++;
            throw; // caught again further up
        }
        return e.token + static_cast<unsigned long>(e.depth);
    }
}

// A frame with nested try blocks: the inner one catches and throws a new exception.
NOINLINE unsigned long
nesting_frame(int depth, int kind, int catch_at, unsigned long acc)
{
    guard g(depth);
    try {
        try {
            return dive(depth - 1, kind, catch_at, work(acc, 8)) + 1;
        } catch (std::runtime_error &) {
            nested++;
            throw std::logic_error("converted");
        }
    } catch (std::logic_error &) {
        caught_runtime++;
        return 7;
    }
}

NOINLINE unsigned long
dive(int depth, int kind, int catch_at, unsigned long acc)
{
    guard g(depth);
    unsigned long r;

    acc = work(acc + static_cast<unsigned long>(depth), 300);
    if (depth == 0) {
        if (kind < 0)
            return acc; // a quiet round: plain returns through the trampoline
        throw_at_bottom(kind, depth, acc);
    }
    if (depth == catch_at)
        r = (kind & 4) ? nesting_frame(depth, kind, catch_at - 1000, acc)
                       : catching_frame(depth, kind, catch_at - 1000, acc);
    else
        r = dive(depth - 1, kind, catch_at, acc);
    return r + (acc & 3); // not a tail call: the guard must outlive the call
}

NOINLINE unsigned long
round_trip(int i)
{
    bool quiet = i % 16 == 15;
    int depth = quiet ? 2000 : 5 + (i * 37) % 300;
    int kind = quiet ? -1 : i % 8;
    int catch_at = (i % 3 == 0 && !quiet) ? depth / 2 : -1;
    unsigned long r = 0;

    try {
        r = dive(depth, kind, catch_at, static_cast<unsigned long>(i));
    } catch (bottom_error &e) {
        caught_typed++;
        r = static_cast<unsigned long>(e.depth) + 1;
    } catch (std::exception &e) {
        caught_runtime++;
        r = 2;
    } catch (int v) {
        caught_int++;
        r = static_cast<unsigned long>(v);
    } catch (...) {
        caught_any++;
        r = 3;
    }
    return r;
}

} // namespace

int
main(int argc, char **argv)
{
    long iterations = 8000;
    unsigned long checksum = 0;

    if (argc > 1)
        iterations = std::atol(argv[1]);
    for (long i = 0; i < iterations; i++)
        checksum = checksum * 31 + round_trip(static_cast<int>(i));
    std::printf("iterations %ld\n", iterations);
    std::printf("constructed %ld destroyed %ld\n", constructed, destroyed);
    std::printf("caught typed %ld runtime %ld int %ld any %ld\n", caught_typed, caught_runtime,
                caught_int, caught_any);
    std::printf("rethrown %ld nested %ld\n", rethrown, nested);
    std::printf("checksum %lx\n", checksum);
    if (constructed != destroyed) {
        std::printf("FAIL: %ld objects never destroyed\n", constructed - destroyed);
        return 3;
    }
    return 0;
}
