/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * multiproc.c -- a multi-process program with known CPU times, for the
 * threads view of csprof-report and the viewer (report_test.sh processes,
 * test/viewer/threads_test.js).
 *
 * Run without arguments, the parent spends 0.04 s in parent_work, then forks
 * five children and waits for them:
 *   child 0: 0.05 s in child_a;  child 1: 0.20 s in child_b;
 *   child 2: 0.02 s in pre_exec, then execs PROGRAM_exec (this program built
 *            under that name; argv[0] + "_exec") with an argument, which
 *            spends 0.15 s in exec_work;
 *   child 3: exits at once (no sample);
 *   child 4: two threads, 0.06 s and 0.12 s in thread_work; its main thread
 *            only waits.
 * So 6 processes and 8 threads; CPU time by process 0.04, 0.05, 0.20, 0.17,
 * 0, 0.18 s (parent, child 0, ...).  Exit status 0, or 1 if a fork, exec or
 * thread failed.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "../reliability/programs/cpu_burn.h"

__attribute__((noinline)) static void
parent_work(void)
{
    burn(0.04);
}

__attribute__((noinline)) static void
child_a(void)
{
    burn(0.05);
}

__attribute__((noinline)) static void
child_b(void)
{
    burn(0.20);
}

__attribute__((noinline)) static void
pre_exec(void)
{
    burn(0.02);
}

__attribute__((noinline)) static void
exec_work(double seconds)
{
    burn(seconds);
}

__attribute__((noinline)) static void *
thread_work(void *arg)
{
    burn(*(const double *)arg);
    return NULL;
}

static void
exec_child(const char *self)
{
    char path[4096];

    pre_exec();
    snprintf(path, sizeof path, "%s_exec", self);
    execl(path, path, "0.15", (char *)NULL);
    perror(path);
    _exit(1);
}

static int
threads_child(void)
{
    static const double t[2] = {0.06, 0.12};
    pthread_t th[2];

    for (int i = 0; i < 2; i++)
        if (pthread_create(&th[i], NULL, thread_work, (void *)&t[i]) != 0)
            return 1;
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    return 0;
}

int
main(int argc, char **argv)
{
    pid_t pid[5];
    int rc = 0, status;

    if (argc > 1) { /* the exec'd image */
        exec_work(atof(argv[1]));
        return 0;
    }
    parent_work();
    for (int k = 0; k < 5; k++) {
        pid[k] = fork();
        if (pid[k] < 0)
            return 1;
        if (pid[k] > 0)
            continue;
        switch (k) {
        case 0:
            child_a();
            exit(0);
        case 1:
            child_b();
            exit(0);
        case 2:
            exec_child(argv[0]);
            break;
        case 3:
            _exit(0);
        default:
            exit(threads_child());
        }
    }
    for (int k = 0; k < 5; k++)
        if (waitpid(pid[k], &status, 0) != pid[k] || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            rc = 1;
    return rc;
}
