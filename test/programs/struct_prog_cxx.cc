// SPDX-License-Identifier: BSD-3-Clause
/*
 * struct_prog_cxx.cc -- C++ test input for csprof-struct (test/structure):
 * a method in a namespace and a function template, whose demangled names
 * the test expects ("shapes::Rect::area() const", "double twice<double>(double)").
 */
#include <cstdio>

namespace shapes
{
struct Rect {
    int w, h;
    __attribute__((noinline)) int area() const;
};

int
Rect::area() const
{
    return w * h;
}
} // namespace shapes

template <typename T>
__attribute__((noinline)) T
twice(T x)
{
    return x + x;
}

int
main(int argc, char **)
{
    shapes::Rect r{argc, 3};

    std::printf("%d %g\n", r.area(), twice(1.5 * argc));
    return 0;
}
