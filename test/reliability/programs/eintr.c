/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * eintr.c -- reliability row 7: system calls a signal handler interrupts
 * with EINTR even under SA_RESTART (signal(7)): poll, select, epoll_wait,
 * nanosleep -- and a blocking read on a pipe fed by a thread (restarted
 * under SA_RESTART).  Between calls it burns CPU so that CPU-time samples
 * arrive close to the calls.  Any EINTR aborts (exit 3) naming the call;
 * otherwise it prints "ok" and exits 0.  argv[1]: rounds (default 200).
 */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/epoll.h>
#include <sys/select.h>
#include <time.h>
#include <unistd.h>

static int pipefd[2];
static volatile double sink;

static void
fail(const char *call)
{
    printf("EINTR from %s\n", call);
    fflush(stdout);
    exit(3);
}

__attribute__((noinline)) static void
burn(int n)
{
    for (int i = 0; i < n; i++)
        sink = sink + i * 0.5;
}

static void *
feeder(void *arg)
{
    int rounds = *(int *)arg;
    struct timespec ms = {0, 1000000};

    for (int i = 0; i < rounds; i++) {
        burn(200000);
        while (nanosleep(&ms, &ms) != 0 && errno == EINTR)
            ; /* the feeder's own sleep may be interrupted: not what is tested */
        if (write(pipefd[1], "x", 1) != 1)
            break;
    }
    return NULL;
}

int
main(int argc, char **argv)
{
    int rounds = argc > 1 ? atoi(argv[1]) : 200;
    int ep = epoll_create1(0);
    struct epoll_event ev;
    pthread_t t;
    char c;

    if (ep < 0 || pipe(pipefd) != 0 || pthread_create(&t, NULL, feeder, &rounds) != 0)
        return 90;
    for (int i = 0; i < rounds; i++) {
        struct timeval tv = {0, 2000};
        struct timespec ts = {0, 2000000};

        burn(300000);
        if (poll(NULL, 0, 2) < 0 && errno == EINTR)
            fail("poll");
        burn(300000);
        if (select(0, NULL, NULL, NULL, &tv) < 0 && errno == EINTR)
            fail("select");
        burn(300000);
        if (epoll_wait(ep, &ev, 1, 2) < 0 && errno == EINTR)
            fail("epoll_wait");
        burn(300000);
        if (nanosleep(&ts, NULL) < 0 && errno == EINTR)
            fail("nanosleep");
        if (read(pipefd[0], &c, 1) < 0 && errno == EINTR)
            fail("read");
    }
    pthread_join(t, NULL);
    printf("ok\n");
    return 0;
}
