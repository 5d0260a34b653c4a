/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * quality_blocked.c -- a run the trust report must call doubtful, for the
 * viewer's Quality pane (test/viewer/quality_test.js): main burns 0.3
 * CPU-seconds and is sampled; a worker blocks every signal with a raw
 * rt_sigprocmask (out of csprof's reach) and burns 0.3 CPU-seconds, so it
 * gets no sample: a notable thread, counted as blocked, its time in the
 * ledger's "in blocked threads".
 */
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cpu_burn.h" /* test/reliability/programs: burn(SECONDS) */

static void *
blocked(void *arg)
{
    sigset_t all;

    (void)arg;
    sigfillset(&all);
    syscall(SYS_rt_sigprocmask, SIG_SETMASK, &all, NULL, (size_t)(_NSIG / 8));
    burn(0.3);
    return NULL;
}

int
main(void)
{
    pthread_t t;

    burn(0.3);
    pthread_create(&t, NULL, blocked, NULL);
    pthread_join(t, NULL);
    return 0;
}
