// SPDX-License-Identifier: BSD-3-Clause
// fatal_exits.cc -- a program that burns CPU in main and in a worker thread,
// then ends in the way argv[1] names (reliability rows 22 and 23):
//   exit0 _exit3 thread_exit0 pthread_exit quick_exit          (orderly)
//   abort segv throw sigterm sigint kill_term                  (fatal)
//   spin                                     (runs until killed by timeout(1))
// It prints "start" (and, for quick_exit, what its at_quick_exit handler
// saw) so stdout can be compared with an unprofiled run.
#include <pthread.h>
#include <signal.h>
#include <stdexcept>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cpu_burn.h"

static volatile int stop_worker;

static void *
worker(void *arg)
{
    const char *how = (const char *)arg;

    burn(0.3);
    if (strcmp(how, "thread_exit0") == 0) {
        fflush(stdout);
        exit(0); // from a non-main thread while main runs
    }
    while (!stop_worker)
        burn(0.01);
    return NULL;
}

static void
on_quick_exit(void)
{
    printf("at_quick_exit handler ran\n");
    fflush(stdout);
}

__attribute__((noinline)) static void
fault(void)
{
    *(volatile int *)(void *)(sizeof(int) * 3) = 1;
}

int
main(int argc, char **argv)
{
    const char *how = argc > 1 ? argv[1] : "exit0";
    pthread_t t;

    printf("start %s\n", how);
    fflush(stdout);
    at_quick_exit(on_quick_exit);
    if (pthread_create(&t, NULL, worker, (void *)how) != 0)
        return 99;
    burn(0.3);
    if (strcmp(how, "thread_exit0") == 0) {
        for (;;)
            burn(0.01); // the worker ends the process
    }
    if (strcmp(how, "pthread_exit") == 0) {
        stop_worker = 1;
        pthread_exit(NULL); // the worker's return ends the process (exit status 0)
    }
    if (strcmp(how, "_exit3") == 0)
        _exit(3);
    if (strcmp(how, "quick_exit") == 0)
        quick_exit(4);
    if (strcmp(how, "abort") == 0)
        abort();
    if (strcmp(how, "segv") == 0)
        fault();
    if (strcmp(how, "throw") == 0)
        throw std::runtime_error("uncaught");
    if (strcmp(how, "sigterm") == 0)
        raise(SIGTERM);
    if (strcmp(how, "sigint") == 0)
        raise(SIGINT);
    if (strcmp(how, "spin") == 0) {
        for (;;)
            burn(0.01);
    }
    if (strcmp(how, "kill_term") == 0) {
        kill(getpid(), SIGTERM); // process-directed: any thread may take it
        for (;;)
            burn(0.01);
    }
    stop_worker = 1;
    pthread_join(t, NULL);
    return 0;
}
