/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * early_lib.c -- a library whose constructor works before csprof's monitor
 * is set up (reliability row 10, like libmonitor's tests/early.c).  The
 * environment variable EARLY selects what the constructor does:
 *   thread  create a thread that burns 0.5 CPU-seconds (early_wait joins it)
 *   fork    fork a child that burns 0.2 CPU-seconds and exits 0 (waited for)
 *   dlopen  dlopen libm and call cos through it
 *   _exit   _exit(5) before main
 *   thread_exit  create a thread that burns 0.3 CPU-seconds and then calls
 *           _exit(5) (while main works or waits in early_wait)
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cpu_burn.h"

void early_wait(void);

static pthread_t early_thread;
static int have_thread;

static void *
early_worker(void *arg)
{
    (void)arg;
    burn(0.5);
    return NULL;
}

static void *
early_exit_worker(void *arg)
{
    (void)arg;
    burn(0.3);
    _exit(5);
}

__attribute__((constructor)) static void
early_init(void)
{
    const char *what = getenv("EARLY");

    if (what == NULL)
        return;
    if (strcmp(what, "thread") == 0) {
        have_thread = pthread_create(&early_thread, NULL, early_worker, NULL) == 0;
    } else if (strcmp(what, "thread_exit") == 0) {
        have_thread = pthread_create(&early_thread, NULL, early_exit_worker, NULL) == 0;
    } else if (strcmp(what, "fork") == 0) {
        pid_t pid = fork();
        int status;

        if (pid == 0) {
            burn(0.2);
            _exit(0);
        }
        if (pid > 0)
            waitpid(pid, &status, 0);
    } else if (strcmp(what, "dlopen") == 0) {
        void *h = dlopen("libm.so.6", RTLD_NOW);
        double (*cosine)(double) = NULL;

        if (h != NULL)
            *(void **)&cosine = dlsym(h, "cos");
        if (cosine != NULL)
            sink = cosine(0.0);
    } else if (strcmp(what, "_exit") == 0) {
        _exit(5);
    }
}

void
early_wait(void)
{
    if (have_thread)
        pthread_join(early_thread, NULL);
}
