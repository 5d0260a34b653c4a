/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * floor.c -- the floor of a sample's cost: preloaded into a program, it
 * samples the main thread's CPU time with the perf task-clock at
 * FLOOR_HZ (default 1000) exactly as csprof's perf source does (overflow
 * signal SIGRTMIN+4, re-armed every 64 overflows), but its handler does
 * nothing.  The CPU time it adds per signal is the kernel's delivery and
 * return, which no profiler built on signals avoids.  Prints the number of
 * signals at exit.  Built by bench/sample/run.sh; not part of csprof.
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/perf_event.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

static volatile long signals;
static int fd = -1;

static void
on_signal(int sig, siginfo_t *si, void *uc)
{
    (void)sig;
    (void)uc;
    signals++;
    if (si->si_code == POLL_HUP)
        ioctl(fd, PERF_EVENT_IOC_REFRESH, 64);
}

__attribute__((constructor)) static void
floor_start(void)
{
    struct perf_event_attr attr;
    struct f_owner_ex owner = {.type = F_OWNER_TID, .pid = (pid_t)syscall(SYS_gettid)};
    struct sigaction sa;
    const char *hz = getenv("FLOOR_HZ");

    memset(&sa, 0, sizeof(sa));
    sa.sa_sigaction = on_signal;
    sa.sa_flags = SA_SIGINFO | SA_RESTART;
    sigaction(SIGRTMIN + 4, &sa, NULL);
    memset(&attr, 0, sizeof(attr));
    attr.size = sizeof(attr);
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_TASK_CLOCK;
    attr.sample_period = 1000000000ull / (unsigned long long)(hz ? atoi(hz) : 1000);
    attr.disabled = 1;
    attr.exclude_kernel = 1;
    attr.wakeup_events = 1;
    fd = (int)syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC);
    if (fd < 0) {
        perror("floor: perf_event_open");
        return;
    }
    fcntl(fd, F_SETFL, O_ASYNC | O_NONBLOCK);
    fcntl(fd, F_SETSIG, SIGRTMIN + 4);
    fcntl(fd, F_SETOWN_EX, &owner);
    ioctl(fd, PERF_EVENT_IOC_REFRESH, 64);
}

__attribute__((destructor)) static void
floor_end(void)
{
    fprintf(stderr, "floor: %ld signals\n", signals);
}
