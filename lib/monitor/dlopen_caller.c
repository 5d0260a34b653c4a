/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * dlopen_caller.c -- dlopen on behalf of the program's caller.
 *
 * glibc's dlopen searches for a bare library name ("libfoo.so") in the run
 * paths of the object that called it: that object's DT_RPATH and its
 * loaders' (when it has no DT_RUNPATH), the executable's DT_RPATH,
 * LD_LIBRARY_PATH, the caller's DT_RUNPATH, then the ld.so cache and the
 * system directories (ld.so(8), "Rpath token expansion"; glibc
 * elf/dl-load.c, _dl_map_object).  It learns the caller from its own return
 * address.  csprof's dlopen override calls glibc's from libcsprof.so, so
 * glibc would search libcsprof.so's paths instead, and a program that finds
 * a library through its own run path would fail to under csrun.
 *
 * So for a bare name the override asks glibc for the caller's search list
 * (dlinfo RTLD_DI_SERINFO, dlinfo(3): the directories it would search for
 * that object, DSTs such as $ORIGIN expanded, before the ld.so cache) and
 * for libcsprof.so's, and tries the directories only the caller has, in
 * the caller's order, by full path; then glibc's own search.  A library
 * already loaded under that name is returned first, as glibc does.
 *
 * Ordinary context only (dlinfo, malloc); never from the signal handler.
 */
#include <dlfcn.h>
#include <fcntl.h>
#include <link.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "monitor/mon_loadmap.h"

/* An address inside libcsprof.so, to find its own link map. */
static const char self_anchor;

/* The search list of the object @map, malloc'ed, or NULL. */
static Dl_serinfo *
search_list(struct link_map *map)
{
    Dl_serinfo size, *si;

    if (dlinfo(map, RTLD_DI_SERINFOSIZE, &size) != 0 || size.dls_size < sizeof(size))
        return NULL;
    si = malloc(size.dls_size);
    if (si == NULL)
        return NULL;
    *si = size; /* dlinfo fills a buffer initialized by RTLD_DI_SERINFOSIZE */
    if (dlinfo(map, RTLD_DI_SERINFOSIZE, si) != 0 || dlinfo(map, RTLD_DI_SERINFO, si) != 0) {
        free(si);
        return NULL;
    }
    return si;
}

/* The link map of the object containing @addr, or NULL. */
static struct link_map *
map_of(const void *addr)
{
    Dl_info info;
    struct link_map *map = NULL;

    if (dladdr1(addr, &info, (void **)&map, RTLD_DL_LINKMAP) == 0)
        return NULL;
    return map;
}

/*
 * Try "DIR/FILE" for each directory of @caller's list that libcsprof.so's
 * list lacks at the same distance from its end (the common tail is
 * LD_LIBRARY_PATH's and the system directories, which glibc's own search
 * covers), after checking that no library is loaded under that name already.
 * Returns the first handle, or NULL.
 */
static void *
open_from_caller_dirs(void *(*real)(const char *, int), const char *file, int mode,
                      const Dl_serinfo *caller, const Dl_serinfo *self)
{
    unsigned nc = caller->dls_cnt, ns = self->dls_cnt, tail = 0;
    size_t flen = strlen(file);
    void *h;

    while (tail < nc && tail < ns &&
           strcmp(caller->dls_serpath[nc - 1 - tail].dls_name,
                  self->dls_serpath[ns - 1 - tail].dls_name) == 0)
        tail++;
    if (tail == nc)
        return NULL;                    /* no directory of the caller's own */
    h = real(file, mode | RTLD_NOLOAD); /* loaded already: glibc matches names first */
    if (h != NULL)
        return h;
    for (unsigned i = 0; i < nc - tail; i++) {
        const char *dir = caller->dls_serpath[i].dls_name;
        size_t dlen = strlen(dir);
        char *path = malloc(dlen + flen + 2);

        if (path == NULL)
            return NULL;
        h = NULL;
        memcpy(path, dir, dlen);
        path[dlen] = '/';
        memcpy(path + dlen + 1, file, flen + 1);
        if (access(path, F_OK) == 0)
            h = real(path, mode); /* a file of the wrong ELF class fails: go on, as glibc */
        free(path);
        if (h != NULL)
            return h;
    }
    return NULL;
}

void *
mon_dlopen_as_caller(void *(*real)(const char *, int), const char *file, int mode,
                     const void *caller)
{
    struct link_map *cmap, *smap;
    Dl_serinfo *cl = NULL, *sl = NULL;
    void *h = NULL;

    if (file == NULL || strchr(file, '/') != NULL)
        return real(file, mode); /* no search: the caller does not matter */
    cmap = map_of(caller);
    smap = map_of(&self_anchor);
    if (cmap == NULL || smap == NULL || cmap == smap)
        return real(file, mode);
    cl = search_list(cmap);
    sl = search_list(smap);
    if (cl != NULL && sl != NULL)
        h = open_from_caller_dirs(real, file, mode, cl, sl);
    free(cl);
    free(sl);
    if (h == NULL)
        h = real(file, mode);
    return h;
}
