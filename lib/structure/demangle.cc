// SPDX-License-Identifier: BSD-3-Clause
/*
 * demangle.cc -- C++ symbol demangling for lib/structure, the only C++ in
 * the module: a C wrapper around abi::__cxa_demangle from libstdc++
 * (Itanium C++ ABI, section 5.1).
 *
 * Tool code only; never runs in a profiled process.  Throws nothing.
 */
#include <cstdlib>
#include <cstring>
#include <cxxabi.h>

extern "C" char *struct_demangle(const char *mangled);

extern "C" char *
struct_demangle(const char *mangled)
{
    int status = 0;

    // Only "_Z..." names are mangled; plain C names ("main") would be
    // demangled as types ("main" -> "main", "i" -> "int") otherwise.
    if (mangled == nullptr || std::strncmp(mangled, "_Z", 2) != 0)
        return nullptr;
    char *out = abi::__cxa_demangle(mangled, nullptr, nullptr, &status);
    if (status != 0) {
        std::free(out);
        return nullptr;
    }
    return out;
}
