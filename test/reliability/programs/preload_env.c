/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * preload_env.c -- reliability row 35 (LD_PRELOAD handling).
 *   preload_env            print whether LD_PRELOAD holds libfoo and libcsprof,
 *                          then run "preload_env child" with an empty
 *                          environment (execve, envp = {NULL}) and wait
 *   preload_env child      burn a little CPU, print "child ran, env empty: yes|no"
 *   preload_env system     as the first, then system("preload_env showenv")
 *   preload_env showenv    print the LD_PRELOAD check (run by system())
 * Only facts that do not depend on csprof go to stdout; the LD_PRELOAD
 * check goes to stderr.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;
static volatile double sink;

static void
show_preload(const char *who)
{
    const char *p = getenv("LD_PRELOAD");

    fprintf(stderr, "%s: LD_PRELOAD has libfoo: %s, libcsprof: %s\n", who,
            p && strstr(p, "libfoo") ? "yes" : "no", p && strstr(p, "libcsprof") ? "yes" : "no");
}

int
main(int argc, char **argv)
{
    char self[4096];
    ssize_t n;
    pid_t pid;
    int status;

    if (argc > 1 && strcmp(argv[1], "child") == 0) {
        for (long i = 0; i < 20000000; i++)
            sink = sink + (double)i;
        printf("child ran, env empty: %s\n", environ == NULL || environ[0] == NULL ? "yes" : "no");
        return 7;
    }
    if (argc > 1 && strcmp(argv[1], "showenv") == 0) {
        show_preload("system child");
        return 0;
    }
    show_preload("parent");
    n = readlink("/proc/self/exe", self, sizeof(self) - 1);
    if (n <= 0)
        return 90;
    self[n] = '\0';
    fflush(stdout);
    pid = fork();
    if (pid == 0) {
        char *args[] = {self, (char *)"child", NULL};
        char *empty[] = {NULL};

        execve(self, args, empty);
        _exit(91);
    }
    if (pid < 0 || waitpid(pid, &status, 0) != pid)
        return 92;
    printf("child exit %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    if (argc > 1 && strcmp(argv[1], "system") == 0) {
        char cmd[4200];

        snprintf(cmd, sizeof(cmd), "%s showenv", self);
        fflush(stdout);
        printf("system: %d\n", system(cmd));
    }
    return 0;
}
