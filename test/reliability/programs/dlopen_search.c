/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dlopen_search.c -- r44_dlopen_search: dlopen by bare name must search the
 * caller's own paths.  The executable is linked with a DT_RUNPATH (or
 * DT_RPATH) of $ORIGIN/lib and opens "libleafexe.so" by bare name; then
 * it opens $ORIGIN/lib/libmid.so, which opens "libleafmid.so" by bare name
 * through its own run path.  glibc searches the run path of the object that
 * called dlopen; an interposed dlopen that calls glibc's from another
 * library must not change the answer.  Prints what it opened; exits 0 when
 * everything was found.
 */
#include <dlfcn.h>
#include <stdio.h>

int
main(void)
{
    const char *(*name)(void);
    int (*mid)(void);
    void *h;
    int bad = 0;

    for (int round = 0; round < 200; round++) { /* long enough to be sampled */
        h = dlopen("libleafexe.so", RTLD_NOW);
        if (h == NULL) {
            printf("exe: dlopen libleafexe.so failed: %s\n", dlerror());
            return 1;
        }
        *(void **)&name = dlsym(h, "leaf_name");
        if (round == 0)
            printf("exe: opened %s\n", name != NULL ? name() : "(no leaf_name)");
        dlclose(h);
        h = dlopen("libmid.so", RTLD_NOW); /* in the executable's run path too */
        if (h == NULL) {
            printf("exe: dlopen libmid.so failed: %s\n", dlerror());
            return 1;
        }
        *(void **)&mid = dlsym(h, "mid_open_leaf");
        if (round == 0)
            bad |= mid != NULL ? mid() : 1;
        dlclose(h);
    }
    return bad;
}
