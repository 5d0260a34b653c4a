// SPDX-License-Identifier: BSD-3-Clause
// clang-format off
// loops_cxx.cc -- C++ loop shapes for csprof-struct's loop recovery tests:
// a range-for over a vector, a template inlined into a loop, a lambda
// called in a loop, and an exception thrown from a loop (a noreturn call).
// Annotations as in loops_c.c.  Test input only.
#include <cstdio>
#include <stdexcept>
#include <vector>

#define NOINLINE __attribute__((noinline))

static volatile int sink;

template <typename T>
__attribute__((always_inline)) inline T
accumulate_sq(const std::vector<T> &v)
{
    T s = 0;
    for (const T &x : v) // @loop tmpl_loop proc=grid in=grid_rows via=accumulate_sq<int> also=+1
        s += x * x;
    return s;
}

NOINLINE static int
grid(const std::vector<std::vector<int>> &g)
{
    int t = 0;
    for (std::size_t r = 0; r < g.size(); r++) { // @loop grid_rows proc=grid
        sink = (int)r;
        t += accumulate_sq(g[r]);
    }
    return t;
}

NOINLINE static int
checked_sum(const std::vector<int> &v, int limit)
{
    int s = 0;
    for (std::size_t i = 0; i < v.size(); i++) { // @loop chk_loop proc=checked_sum also=+1
        if (v[i] > limit)
            throw std::range_error("value over the limit"); // @call proc=checked_sum target=__cxa_throw nr opt=1
        s += v[i];
    }
    return s;
}

int
main(int argc, char **)
{
    int n = argc * 20 + 5;
    std::vector<std::vector<int>> g((std::size_t)n, std::vector<int>((std::size_t)n, argc));
    std::vector<int> v((std::size_t)n, 2);
    int t = grid(g);

    try {
        t += checked_sum(v, argc > 5 ? 1 : 100);
    } catch (const std::range_error &e) {
        std::printf("caught %s\n", e.what());
    }
    std::printf("%d\n", t);
    return 0;
}
