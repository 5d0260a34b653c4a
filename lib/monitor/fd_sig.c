/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fd_sig.c -- csprof's descriptors kept out of the program's way (mon_fd_high, mon_internal.h):
 * the program's open() returns the numbers it returns without csprof (rel_48_fd_numbers).
 * [async-signal-safe: prlimit64 (a raw system call), fcntl and close only]
 */
#include <fcntl.h>
#include <stdbool.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_sys.h"

int
mon_fd_high(int fd, bool many)
{
    struct rlimit rl;
    rlim_t top = 1024;
    int hi;

    if (fd < 0)
        return fd;
    if (mon_raw_syscall(SYS_prlimit64, 0, RLIMIT_NOFILE, 0, (long)&rl, 0, 0) == 0 &&
        rl.rlim_cur < top)
        top = rl.rlim_cur;
    if (top < 64)
        return fd;
    hi = fcntl(fd, F_DUPFD_CLOEXEC, many ? (int)(top / 2) : (int)(top - 24));
    if (hi < 0)
        return fd;
    close(fd);
    return hi;
}
