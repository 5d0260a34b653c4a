/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fd_numbers.c -- prints the descriptor numbers open() returns, and which of
 * the numbers below 100 are open, in main, in a thread, after some work (a
 * stack walk has run) and in a fork child: a profiled run must print what
 * the unprofiled run prints (reliability row 48).
 */
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double sink;

static void
burn(long n)
{
    for (long i = 0; i < n; i++)
        sink += (double)i * 0.5;
}

/* open()'s answer and the open numbers below 100, on one line. */
static void
show(const char *where)
{
    int fd = open("/dev/null", O_RDONLY);
    printf("%s: open %d; open below 100:", where, fd);
    for (int k = 0; k < 100; k++)
        if (k != fd && fcntl(k, F_GETFD) >= 0)
            printf(" %d", k);
    printf("\n");
    fflush(stdout);
    close(fd);
}

static void *
thread_main(void *arg)
{
    burn(*(long *)arg);
    show("thread");
    return NULL;
}

int
main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 50000000;
    pthread_t t;
    pid_t pid;
    int status;

    show("main, first");
    if (pthread_create(&t, NULL, thread_main, &n) != 0)
        return 2;
    pthread_join(t, NULL);
    burn(n);
    show("main, after work");
    pid = fork();
    if (pid == 0) {
        burn(n / 2);
        show("fork child");
        _exit(0);
    }
    waitpid(pid, &status, 0);
    return 0;
}
