/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * sysio.h -- read(2), write(2) and pwrite(2) as raw system calls, for
 * csprof's own input and output.
 *
 * libcsprof.so overrides read, write and pwrite to count the program's
 * bytes (IO events, lib/monitor/src_io.c), and a call from inside the
 * library to `write` binds to that override.  The monitor's own IO (its
 * measurement file, the vDSO copy, /proc reads, perf counter reads,
 * warnings) goes through these wrappers instead, so it never enters the
 * override: it is never counted as the program's IO and needs nothing that
 * the override resolves.  Each is one syscall(2): no allocation, no lock,
 * not a cancellation point.  Return value and errno as the system call's
 * (the number of bytes, or -1 with errno set).  [async-signal-safe]
 */
#ifndef CSP_SYSIO_H
#define CSP_SYSIO_H

#include <stddef.h>
#include <sys/types.h>

#include "support/compiler.h"

/* write(2) of @n bytes at @buf to @fd.  [async-signal-safe] */
CSP_SIGSAFE ssize_t csp_sys_write(int fd, const void *buf, size_t n);

/* pwrite(2) of @n bytes at @buf to @fd at byte @off.  [async-signal-safe] */
CSP_SIGSAFE ssize_t csp_sys_pwrite(int fd, const void *buf, size_t n, off_t off);

/* read(2) of up to @n bytes from @fd into @buf.  [async-signal-safe] */
CSP_SIGSAFE ssize_t csp_sys_read(int fd, void *buf, size_t n);

#endif /* CSP_SYSIO_H */
