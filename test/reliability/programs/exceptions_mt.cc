// SPDX-License-Identifier: BSD-3-Clause
// exceptions_mt.cc -- reliability row 12 (issue 7 item 1): two threads each, in
// a loop, throw exceptions through 5-65 frames of recursion, rethrow some of
// them from catch blocks, longjmp out of recursion to a setjmp in the loop,
// and throw from a std::sort comparator.  The main thread waits in
// pthread_join (std::thread::join).  Prints per-thread counts that do not
// depend on timing.  Argument: iterations per thread.
#include <algorithm>
#include <csetjmp>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <thread>
#include <vector>

#define NOINLINE __attribute__((noinline))

static thread_local std::jmp_buf env;
static volatile unsigned long sink;

struct Boom : std::runtime_error {
    int depth;
    explicit Boom(int d) : std::runtime_error("boom"), depth(d)
    {
    }
};

NOINLINE static unsigned long
work(unsigned long x)
{
    for (int i = 0; i < 30; i++)
        x = x * 2862933555777941757UL + 3037000493UL;
    sink += x;
    return x;
}

struct Guard { // a destructor to run during unwinding
    unsigned long *p;
    ~Guard()
    {
        *p += 1;
    }
};

NOINLINE static unsigned long
recurse(int depth, unsigned long acc, int mode, unsigned long *cleanups)
{
    Guard g{cleanups};
    acc = work(acc + (unsigned long)depth);
    if (depth > 0)
        return recurse(depth - 1, acc, mode, cleanups) ^ (acc & 0xf);
    if (mode == 0)
        throw Boom(depth);
    if (mode == 1)
        std::longjmp(env, 1);
    return acc;
}

NOINLINE static unsigned long
rethrower(int depth, unsigned long acc, unsigned long *cleanups)
{
    try {
        return recurse(depth, acc, 0, cleanups);
    } catch (Boom &b) {
        work(acc);
        throw; // rethrow from the catch block
    }
}

NOINLINE static int
sort_throwing(unsigned long seed, int n)
{
    std::vector<unsigned long> v((size_t)n);
    int compares = 0;
    for (auto &x : v)
        x = seed = seed * 6364136223846793005UL + 1442695040888963407UL;
    try {
        std::sort(v.begin(), v.end(), [&](unsigned long a, unsigned long b) {
            if (++compares == n * 2)
                throw std::logic_error("comparator");
            return work(a) % 1000 < work(b) % 1000;
        });
    } catch (std::logic_error &) {
        return 1;
    }
    return 0;
}

struct Result {
    unsigned long thrown = 0, rethrown = 0, jumped = 0, sorted = 0, cleanups = 0;
};

static void
worker(int id, long iters, Result *r)
{
    for (long i = 0; i < iters; i++) {
        int depth = 5 + (int)((i * 7 + id) % 61);
        switch (i % 4) {
        case 0:
            try {
                recurse(depth, (unsigned long)i, 0, &r->cleanups);
            } catch (Boom &b) {
                r->thrown += (unsigned long)b.depth + 1;
            }
            break;
        case 1:
            try {
                rethrower(depth, (unsigned long)i, &r->cleanups);
            } catch (Boom &) {
                r->rethrown++;
            }
            break;
        case 2:
            if (setjmp(env) == 0)
                recurse(depth, (unsigned long)i, 1, &r->cleanups);
            else
                r->jumped++;
            break;
        default:
            r->sorted += (unsigned long)sort_throwing((unsigned long)i, 200);
        }
    }
}

int
main(int argc, char **argv)
{
    long iters = argc > 1 ? std::atol(argv[1]) : 20000;
    Result r[2];
    std::thread t0(worker, 0, iters, &r[0]);
    std::thread t1(worker, 1, iters, &r[1]);
    t0.join();
    t1.join();
    for (int i = 0; i < 2; i++)
        std::printf("thread %d: thrown %lu rethrown %lu jumped %lu sorted %lu\n", i, r[i].thrown,
                    r[i].rethrown, r[i].jumped, r[i].sorted);
    return 0;
}
