/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sysio_sig.c -- csprof's own read/write/pwrite as raw system calls (see
 * sysio.h).  Runs in any context, the sampling handler included: each
 * function is one syscall(2).
 */
#include <sys/syscall.h>
#include <unistd.h>

#include "support/sysio.h"

ssize_t
csp_sys_write(int fd, const void *buf, size_t n)
{
    return syscall(SYS_write, fd, buf, n);
}

ssize_t
csp_sys_pwrite(int fd, const void *buf, size_t n, off_t off)
{
    return syscall(SYS_pwrite64, fd, buf, n, off);
}

ssize_t
csp_sys_read(int fd, void *buf, size_t n)
{
    return syscall(SYS_read, fd, buf, n);
}
