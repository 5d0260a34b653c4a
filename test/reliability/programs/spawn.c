// SPDX-License-Identifier: BSD-3-Clause
// spawn.c -- reliability row 5: every way of starting a program.  The parent
// computes (parent_before), fails to exec a path that does not exist (execv
// returns -1 and the parent goes on), computes again (parent_after), then
// starts itself as a child with fork+exec, vfork+exec, posix_spawn and
// system(), one after the other, and last forks a child whose exec fails.
// Each child runs its own function (child_fork, child_vfork, child_spawn,
// child_system) and prints one line; the parent prints each child's status.
// Usage: spawn [UNITS] (default 50; one unit is about 2 ms of CPU);
// spawn --child MODE UNITS (internal).
#include "burn.h"
#include <errno.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

extern char **environ;

#define MISSING "/nonexistent/csprof-no-such-program"

// Writable copies of the strings put in argument vectors (execv takes char *const []).
static char missing_path[] = MISSING;
static char opt_child[] = "--child";
static char mode_fork[] = "fork";
static char mode_vfork[] = "vfork";
static char mode_spawn[] = "spawn";

static uint64_t
work(uint64_t seed, unsigned long units)
{
    for (unsigned long u = 0; u < units; u++)
        seed = 3 * rel_burn(seed + u, 1000000) + 1;
    return seed;
}

// One function per way of starting, so that a profile names how it began.
static __attribute__((noinline)) uint64_t
child_fork(unsigned long units)
{
    return work(100, units) + 1;
}

static __attribute__((noinline)) uint64_t
child_vfork(unsigned long units)
{
    return work(200, units) + 1;
}

static __attribute__((noinline)) uint64_t
child_spawn(unsigned long units)
{
    return work(300, units) + 1;
}

static __attribute__((noinline)) uint64_t
child_system(unsigned long units)
{
    return work(400, units) + 1;
}

static __attribute__((noinline)) uint64_t
parent_before(unsigned long units)
{
    return work(500, units) + 1;
}

static __attribute__((noinline)) uint64_t
parent_after(unsigned long units)
{
    return work(600, units) + 1;
}

static int
child_main(const char *mode, unsigned long units)
{
    uint64_t sum;
    if (strcmp(mode, "fork") == 0)
        sum = child_fork(units);
    else if (strcmp(mode, "vfork") == 0)
        sum = child_vfork(units);
    else if (strcmp(mode, "spawn") == 0)
        sum = child_spawn(units);
    else if (strcmp(mode, "system") == 0)
        sum = child_system(units);
    else
        return 2;
    printf("child %s: checksum %016llx\n", mode, (unsigned long long)sum);
    return 0;
}

static void
report(const char *how, int status)
{
    if (WIFEXITED(status))
        printf("%s: exit %d\n", how, WEXITSTATUS(status));
    else
        printf("%s: signal %d\n", how, WIFSIGNALED(status) ? WTERMSIG(status) : -1);
    fflush(stdout);
}

static int
wait_for(pid_t pid, const char *how)
{
    int status;
    if (pid < 0 || waitpid(pid, &status, 0) != pid) {
        perror(how);
        return -1;
    }
    report(how, status);
    return 0;
}

int
main(int argc, char **argv)
{
    if (argc == 4 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2], strtoul(argv[3], NULL, 10));
    unsigned long units = argc > 1 ? strtoul(argv[1], NULL, 10) : 50;
    char self[PATH_MAX], arg[32], cmd[PATH_MAX + 64];
    ssize_t len = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (len < 0) {
        perror("readlink /proc/self/exe");
        return 1;
    }
    self[len] = '\0';
    snprintf(arg, sizeof(arg), "%lu", units);

    uint64_t sum = parent_before(units);
    char *missing[] = {missing_path, NULL};
    int rc = execv(MISSING, missing);
    printf("exec of a missing path: %d (%s)\n", rc, strerror(errno));
    sum += parent_after(units);
    fflush(stdout);

    char *fork_argv[] = {self, opt_child, mode_fork, arg, NULL};
    pid_t pid = fork();
    if (pid == 0) {
        execv(self, fork_argv);
        _exit(127);
    }
    if (wait_for(pid, "fork+exec") < 0)
        return 1;

    char *vfork_argv[] = {self, opt_child, mode_vfork, arg, NULL};
    pid = vfork();
    if (pid == 0) {
        execv(self, vfork_argv);
        _exit(127);
    }
    if (wait_for(pid, "vfork+exec") < 0)
        return 1;

    char *spawn_argv[] = {self, opt_child, mode_spawn, arg, NULL};
    int err = posix_spawn(&pid, self, NULL, NULL, spawn_argv, environ);
    if (err != 0) {
        fprintf(stderr, "posix_spawn: %s\n", strerror(err));
        return 1;
    }
    if (wait_for(pid, "posix_spawn") < 0)
        return 1;

    snprintf(cmd, sizeof(cmd), "'%s' --child system %s", self, arg);
    report("system", system(cmd));

    pid = fork();
    if (pid == 0) {
        execv(MISSING, missing);
        _exit(127);
    }
    if (wait_for(pid, "fork+failed exec") < 0)
        return 1;
    printf("parent: checksum %016llx\n", (unsigned long long)sum);
    return 0;
}
