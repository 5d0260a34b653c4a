/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * masks.c -- issue 7 item 4: threads that block signals.  Each worker burns
 * 0.3 CPU-seconds:
 *   1  blocks every signal with pthread_sigmask, then checks that a query
 *      still reports SIGRTMIN+4 blocked (the program's view is kept)
 *   2  created while main has every signal blocked (inherited mask)
 *   3  blocks every signal with sigprocmask
 *   4  (argv[1] == "raw") blocks every signal by a raw system call: out of
 *      csprof's reach, and must be reported as not sampled
 * Prints "view ok" or "view wrong" for worker 1.
 */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_burn.h"

static void *
worker(void *arg)
{
    long kind = (long)arg;
    sigset_t all, now;

    sigfillset(&all);
    if (kind == 1) {
        pthread_sigmask(SIG_BLOCK, &all, NULL);
        pthread_sigmask(SIG_BLOCK, NULL, &now);
        printf("view %s\n", sigismember(&now, SIGRTMIN + 4) == 1 ? "ok" : "wrong");
    } else if (kind == 3) {
        sigprocmask(SIG_SETMASK, &all, NULL);
    } else if (kind == 4) {
        syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, (size_t)(_NSIG / 8));
    }
    burn(0.3);
    return NULL;
}

int
main(int argc, char **argv)
{
    pthread_t t[4];
    sigset_t all, old;
    int n = argc > 1 && strcmp(argv[1], "raw") == 0 ? 4 : 3;

    sigfillset(&all);
    pthread_create(&t[0], NULL, worker, (void *)1L);
    pthread_join(t[0], NULL);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    pthread_create(&t[1], NULL, worker, (void *)2L);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    for (long k = 3; k <= n; k++)
        pthread_create(&t[k - 1], NULL, worker, (void *)k);
    for (int k = 1; k < n; k++)
        pthread_join(t[k], NULL);
    return 0;
}
