/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dlopen_search_lib.c -- the libraries of r44_dlopen_search.  Built several
 * times: as a leaf (LEAF_NAME set: it reports its name), and as libmid.so,
 * which opens the leaf "libleafmid.so" by bare name, so that the dynamic
 * linker searches libmid.so's own DT_RUNPATH or DT_RPATH.
 */
#include <dlfcn.h>
#include <stdio.h>

#ifdef LEAF_NAME
const char *
leaf_name(void)
{
    return LEAF_NAME;
}
#else
int
mid_open_leaf(void)
{
    void *h = dlopen("libleafmid.so", RTLD_NOW);
    const char *(*name)(void);

    if (h == NULL) {
        printf("mid: dlopen libleafmid.so failed: %s\n", dlerror());
        return 1;
    }
    *(void **)&name = dlsym(h, "leaf_name");
    printf("mid: opened %s\n", name != NULL ? name() : "(no leaf_name)");
    return dlclose(h) == 0 ? 0 : 1;
}
#endif
