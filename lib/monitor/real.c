/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * real.c -- the one resolver of the real functions behind csprof's
 * overrides (mon_real.h).
 *
 * dlsym(RTLD_NEXT) is relative to the object that calls dlsym: this file is
 * in libcsprof.so, so "next" means after libcsprof.so for every override.
 * Ordinary context only (dlsym and dlopen take the loader's lock and may
 * allocate); never called from the sampling handler.
 */
#include <dlfcn.h>
#include <stddef.h>

#include "monitor/mon_real.h"

void *
mon_real_resolve(const char *name, enum mon_real_scope scope, const char *soname)
{
    void *p = dlsym(RTLD_NEXT, name);

    if (p != NULL)
        return p;
    if (scope == MON_REAL_NEXT_OR_DEFAULT)
        return dlsym(RTLD_DEFAULT, name);
    if (soname != NULL) {
        /* csprof's dlopen override (overrides.c) forwards it; RTLD_NOLOAD loads nothing.
         * The handle is kept (the library stays loaded while a pointer into it is used). */
        void *h = dlopen(soname, RTLD_LAZY | RTLD_NOLOAD);

        if (h != NULL)
            return dlsym(h, name);
    }
    return NULL;
}
