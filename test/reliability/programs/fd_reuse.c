/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fd_reuse.c -- a child set up as daemons and launchers set up theirs: it closes its
 * descriptors, works (so that samples are taken with them closed), opens /dev/null (the
 * lowest free descriptor: 0), makes a pipe (1 and 2), then puts another pipe onto 0 and 1
 * with dup2 and works again, then puts a third pipe's read end onto 512..531 (where csprof
 * keeps its own descriptors, libunwind's validation pipe among them) and works again.  It
 * prints what it got on descriptor 950 (kept open): the numbers and what each pipe held.
 * Under csprof the output must be the same (rel_47).
 *
 *   fd_reuse [ITERATIONS]   (default 60000000 per work phase)
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static volatile double sink;

static void __attribute__((noinline)) burn(long n)
{
    double s = 0;

    for (long i = 0; i < n; i++)
        s += (double)i * 0.5;
    sink = s;
}

/* burn() on stack pages no walk has validated yet (libunwind keeps a few validated pages), so
   that the walks of this phase validate again */
static void __attribute__((noinline)) burn_deep(long n)
{
    volatile char pad[192 * 1024];

    pad[0] = 1;
    pad[sizeof(pad) - 1] = 1;
    burn(n);
    sink += pad[0] + pad[sizeof(pad) - 1];
}

static int
child(int rep, long n)
{
    char buf[64] = {0};
    int nul, p[2], q[2];
    ssize_t got;

    for (int fd = 0; fd < rep; fd++)
        close(fd);
    burn(n);
    nul = open("/dev/null", O_RDWR);
    if (pipe(p) != 0 || write(p[1], "hello", 5) != 5)
        return 3;
    burn(n);
    fcntl(p[0], F_SETFL, O_NONBLOCK);
    got = read(p[0], buf, sizeof(buf) - 1);
    dprintf(rep, "open %d, pipe %d %d, read %zd '%s'\n", nul, p[0], p[1], got, got > 0 ? buf : "");
    if (pipe(q) != 0 || dup2(q[0], 0) != 0 || dup2(q[1], 1) != 1 || write(1, "world", 5) != 5)
        return 4;
    burn(n);
    fcntl(0, F_SETFL, O_NONBLOCK);
    memset(buf, 0, sizeof(buf));
    got = read(0, buf, sizeof(buf) - 1);
    dprintf(rep, "dup2 onto 0 and 1, read %zd '%s'\n", got, got > 0 ? buf : "");
    if (pipe(q) != 0 || write(q[1], "again", 5) != 5)
        return 5;
    for (int fd = 512; fd < 532; fd++)
        if (dup2(q[0], fd) != fd)
            return 6;
    fcntl(q[0], F_SETFL, O_NONBLOCK);
    burn_deep(n);
    memset(buf, 0, sizeof(buf));
    got = read(q[0], buf, sizeof(buf) - 1);
    dprintf(rep, "dup2 onto 512..531, read %zd '%s'\n", got, got > 0 ? buf : "");
    return 0;
}

int
main(int argc, char **argv)
{
    long n = argc > 1 ? atol(argv[1]) : 60000000L;
    int rep = dup2(1, 950), st;
    pid_t pid;

    if (rep < 0)
        return 2;
    pid = fork();
    if (pid == 0)
        _exit(child(rep, n));
    if (pid < 0 || waitpid(pid, &st, 0) != pid)
        return 2;
    return WIFEXITED(st) ? WEXITSTATUS(st) : 99;
}
