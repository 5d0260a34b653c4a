// SPDX-License-Identifier: BSD-3-Clause
/*
 * loader_locks.cc -- threads that keep the dynamic loader's locks busy
 * (reliability row 9).
 *
 * Usage: loader_locks MODES MILLISECONDS
 *   MODES: comma-separated list of phdr, dladdr, backtrace, dlopen, dlopenx,
 *          throw; one thread per entry (a mode may repeat).  dlopen opens
 *          and closes libm.so.6 (already mapped in a C++ program: only the
 *          loader's locks and reference counts), dlopenx the library named
 *          by $LOADER_LOCKS_LIB (mapped and unmapped each time when nothing
 *          else holds it: mostly system time, so this thread runs three
 *          times as long).
 * Each thread runs its mode's loop (loop_phdr, loop_dladdr... one function
 * per mode, so that a profile tells the threads apart) until it has used
 * MILLISECONDS of CPU time, whatever the machine's speed or a profiler's
 * cost, and checks every result; the program prints "MODE ok" per thread
 * (or how many calls failed) and exits 0.  Under a profiler the output must
 * be the same.  On stderr, each thread prints its thread id, the calls it
 * made and the user and system CPU time it used ("cpu MODE TID CALLS USER_NS
 * SYSTEM_NS", getrusage RUSAGE_THREAD): a CPU-time profile of the thread
 * should hold about USER_NS / period samples (the perf task clock takes no
 * sample in the kernel).
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include <stdexcept>

namespace
{

struct job {
    char mode[16];
    double ms;
    long calls, failed;
};

// Whether the calling thread has used @ms milliseconds of CPU time.
bool
spent(double ms)
{
    struct timespec t;

    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6 >= ms;
}

int
count_module(struct dl_phdr_info *info, size_t, void *arg)
{
    *static_cast<unsigned long *>(arg) += info->dlpi_phnum > 0;
    return 0;
}

__attribute__((noinline)) void
thrower(long i)
{
    if (i >= 0)
        throw std::runtime_error("loader_locks");
}

// Each loop makes calls in batches (cheap calls 256 at a time, so that reading the clock, a
// system call, costs little beside them) until the thread has used its CPU time; it counts
// the calls (j->calls) and those that failed (j->failed).
__attribute__((noinline)) void
loop_phdr(job *j)
{
    while (!spent(j->ms))
        for (int i = 0; i < 256; i++, j->calls++) {
            unsigned long k = 0;

            dl_iterate_phdr(count_module, &k);
            j->failed += k == 0;
        }
}

__attribute__((noinline)) void
loop_dladdr(job *j)
{
    while (!spent(j->ms))
        for (int i = 0; i < 256; i++, j->calls++) {
            Dl_info info;

            j->failed += dladdr(reinterpret_cast<void *>(&thrower), &info) == 0;
        }
}

__attribute__((noinline)) void
loop_backtrace(job *j)
{
    while (!spent(j->ms))
        for (int i = 0; i < 16; i++, j->calls++) {
            void *frames[64];

            j->failed += backtrace(frames, 64) <= 0;
        }
}

__attribute__((noinline)) void
open_close(job *j, const char *lib, const char *sym)
{
    void *h = lib != NULL ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;

    if (h == NULL || dlsym(h, sym) == NULL)
        j->failed++;
    if (h != NULL)
        dlclose(h);
}

__attribute__((noinline)) void
loop_dlopen(job *j)
{
    while (!spent(j->ms))
        for (int i = 0; i < 16; i++, j->calls++)
            open_close(j, "libm.so.6", "cos");
}

__attribute__((noinline)) void
loop_dlopenx(job *j)
{
    const char *lib = getenv("LOADER_LOCKS_LIB");

    while (!spent(j->ms))
        for (int i = 0; i < 1; i++, j->calls++)
            open_close(j, lib, "loader_locks_probe");
}

__attribute__((noinline)) void
loop_throw(job *j)
{
    while (!spent(j->ms))
        for (int i = 0; i < 16; i++, j->calls++) {
            try {
                thrower(i);
                j->failed++;
            } catch (const std::runtime_error &) {
            }
        }
}

void *
run(void *p)
{
    job *j = static_cast<job *>(p);
    const char *m = j->mode;
    struct rusage ru;

    if (strcmp(m, "phdr") == 0)
        loop_phdr(j);
    else if (strcmp(m, "dladdr") == 0)
        loop_dladdr(j);
    else if (strcmp(m, "backtrace") == 0)
        loop_backtrace(j);
    else if (strcmp(m, "dlopen") == 0)
        loop_dlopen(j);
    else if (strcmp(m, "dlopenx") == 0)
        loop_dlopenx(j);
    else if (strcmp(m, "throw") == 0)
        loop_throw(j);
    else
        j->failed = -1;
    if (getrusage(RUSAGE_THREAD, &ru) == 0)
        fprintf(stderr, "cpu %s %ld %ld %lld %lld\n", m, (long)gettid(), j->calls,
                (long long)ru.ru_utime.tv_sec * 1000000000LL + ru.ru_utime.tv_usec * 1000LL,
                (long long)ru.ru_stime.tv_sec * 1000000000LL + ru.ru_stime.tv_usec * 1000LL);
    return NULL;
}

} // namespace

int
main(int argc, char **argv)
{
    job jobs[16];
    pthread_t threads[16];
    int n = 0;
    char *modes, *save = NULL;

    if (argc != 3) {
        fprintf(stderr, "usage: loader_locks MODES MILLISECONDS\n");
        return 2;
    }
    modes = strdup(argv[1]);
    for (char *m = strtok_r(modes, ",", &save); m != NULL && n < 16;
         m = strtok_r(NULL, ",", &save), n++) {
        snprintf(jobs[n].mode, sizeof(jobs[n].mode), "%s", m);
        jobs[n].ms = atof(argv[2]) * (strcmp(m, "dlopenx") == 0 ? 3 : 1);
        jobs[n].calls = jobs[n].failed = 0;
    }
    for (int i = 0; i < n; i++)
        if (pthread_create(&threads[i], NULL, run, &jobs[i]) != 0) {
            fprintf(stderr, "loader_locks: pthread_create failed\n");
            return 1;
        }
    for (int i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < n; i++) {
        if (jobs[i].failed == 0 && jobs[i].calls > 0)
            printf("%s ok\n", jobs[i].mode);
        else
            printf("%s: %ld of %ld calls failed\n", jobs[i].mode, jobs[i].failed, jobs[i].calls);
    }
    free(modes);
    return 0;
}
