/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * forkexec.c -- a parent that forks; the child exec's this program again in
 * "child" mode.  Parent and exec'd child burn CPU in differently named
 * functions, so their separate profiles can be told apart:
 *   forkexec            parent: fork, then parent_work, then wait
 *   forkexec child      the exec'd image: child_work
 * Exit status: the child's status + 0 (so a lost child shows).
 */
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define NOIPA          __attribute__((noipa))
#define NO_TAIL_CALL() __asm__ volatile("" ::: "memory") /* keep the caller's frame */

static double
cpu_ms(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

NOIPA static double
burn(double ms)
{
    double x = 1, start = cpu_ms();

    while (cpu_ms() - start < ms)
        for (int i = 0; i < 10000; i++)
            x = x * 1.0000001 + 1e-9;
    return x;
}

NOIPA static double
parent_work(void)
{
    double r = burn(500);

    NO_TAIL_CALL();
    return r;
}

NOIPA static double
child_work(void)
{
    double r = burn(500);

    NO_TAIL_CALL();
    return r;
}

int
main(int argc, char **argv)
{
    pid_t pid;
    int status;

    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        printf("child %s\n", child_work() > 0 ? "done" : "?");
        return 0;
    }
    fflush(stdout);
    pid = fork();
    if (pid < 0)
        return 1;
    if (pid == 0) {
        execl("/proc/self/exe", argv[0], "child", (char *)NULL);
        _exit(127);
    }
    printf("parent %s\n", parent_work() > 0 ? "done" : "?");
    if (waitpid(pid, &status, 0) < 0 || !WIFEXITED(status))
        return 1;
    return WEXITSTATUS(status);
}
