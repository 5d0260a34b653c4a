/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * mon_write.h -- writing one thread's profile (write.c).
 */
#ifndef CSP_MON_WRITE_H
#define CSP_MON_WRITE_H

struct mon_thread;

/*
 * Write @td's CCT, load map, events and counters to a new file
 * OUTDIR/PROG-PID-TINDEX-TID-GEN.cspm, where GEN is the smallest number
 * that names no existing file (O_EXCL: nothing is ever overwritten).  The
 * thread's sources must be stopped.  Returns 0, or -1 with errno set.
 * Allocates only with mmap and writes with write(2), so it is usable after
 * fork and before exec.  [not async-signal-safe: takes the load-map mutex]
 */
int mon_write_profile(struct mon_thread *td);

#endif /* CSP_MON_WRITE_H */
