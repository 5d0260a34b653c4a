// SPDX-License-Identifier: BSD-3-Clause
// sort.cc -- std::sort of N pseudo-random integers (call-intensive: the
// comparator and the introsort helpers are called hundreds of millions of times).
#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

int
main(int argc, char **argv)
{
    size_t n = argc > 1 ? strtoul(argv[1], nullptr, 10) : 30000000;
    std::vector<int> v(n);
    unsigned x = 12345;
    for (auto &e : v)
        e = (int)(x = x * 1103515245u + 12345u);
    std::sort(v.begin(), v.end());
    long sum = 0;
    for (size_t i = 0; i < n; i += n / 100 + 1)
        sum += v[i] % 1000;
    printf("%ld\n", sum);
    return 0;
}
