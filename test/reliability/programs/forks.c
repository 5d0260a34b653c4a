// SPDX-License-Identifier: BSD-3-Clause
// forks.c -- reliability row 4: fork without exec.  The parent forks two
// children that compute (child_work) and leave, the first with exit(), the
// second with _exit(); meanwhile the parent computes (parent_work), then waits
// for both and prints their exit statuses (derived from their checksums) and
// its own checksum.  The children print nothing, so the output does not
// depend on scheduling.  Usage: forks [UNITS] (default 100; one unit is about
// 2 ms of CPU in each process).
#include "burn.h"
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static __attribute__((noinline)) uint64_t
child_work(uint64_t seed, unsigned long units)
{
    for (unsigned long u = 0; u < units; u++)
        seed = 3 * rel_burn(seed + u, 1000000) + 1;
    return seed;
}

static __attribute__((noinline)) uint64_t
parent_work(uint64_t seed, unsigned long units)
{
    for (unsigned long u = 0; u < units; u++)
        seed = 5 * rel_burn(seed + u, 1000000) + 1;
    return seed;
}

int
main(int argc, char **argv)
{
    unsigned long units = argc > 1 ? strtoul(argv[1], NULL, 10) : 100;
    pid_t pid[2];
    fflush(stdout);
    for (int i = 0; i < 2; i++) {
        pid[i] = fork();
        if (pid[i] < 0) {
            perror("fork");
            return 1;
        }
        if (pid[i] == 0) {
            int st = (int)(child_work(i + 1, units) % 100);
            if (i == 0)
                exit(st);
            _exit(st);
        }
    }
    uint64_t sum = parent_work(7, units);
    for (int i = 0; i < 2; i++) {
        int status;
        if (waitpid(pid[i], &status, 0) != pid[i]) {
            perror("waitpid");
            return 1;
        }
        printf("child %d: %s %d\n", i + 1, WIFEXITED(status) ? "exit" : "signal",
               WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
    }
    printf("parent: checksum %016llx\n", (unsigned long long)sum);
    return 0;
}
