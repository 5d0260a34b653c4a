/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * rel_close_range.c -- a program that closes every descriptor above stderr
 * (as daemons and spawn helpers do), opens a file that may get the number
 * csprof used, then runs argv[1] threads of CPU work.  Prints "fd N".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <unistd.h>

__attribute__((noinline)) static void *
spin(void *arg)
{
    volatile double x = 0;

    for (long i = 0; i < 40000000; i++)
        x += (double)i;
    return arg;
}

int
main(int argc, char **argv)
{
    int n = argc > 1 ? atoi(argv[1]) : 3, fd;
    pthread_t t[16];

    if (n > 16)
        n = 16;
    syscall(SYS_close_range, 3u, ~0u, 0u);
    fd = open("/dev/null", O_RDONLY);
    for (int i = 0; i < n; i++)
        pthread_create(&t[i], NULL, spin, NULL);
    for (int i = 0; i < n; i++)
        pthread_join(t[i], NULL);
    spin(NULL);
    printf("fd %d\n", fd);
    return 0;
}
