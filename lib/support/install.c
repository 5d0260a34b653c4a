/* SPDX-License-Identifier: BSD-3-Clause */
/* install.c -- paths of csprof's own files beside the running executable (install.h). */
#include "support/install.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

int
csp_install_path(const char *rel, char *out, size_t size)
{
    char exe[PATH_MAX];
    ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
    char *slash;
    int len;

    if (n < 0)
        return -1;
    exe[n] = '\0';
    slash = strrchr(exe, '/');
    if (slash != NULL)
        *slash = '\0';
    len = snprintf(out, size, "%s/../%s", exe, rel);
    if (len < 0 || (size_t)len >= size) {
        errno = ENAMETOOLONG;
        return -1;
    }
    return 0;
}
