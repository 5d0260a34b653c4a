// SPDX-License-Identifier: BSD-3-Clause
/*
 * loader_locks.cc -- threads that keep the dynamic loader's locks busy
 * (reliability row 9).
 *
 * Usage: loader_locks MODES ITERATIONS
 *   MODES: comma-separated list of phdr, dladdr, backtrace, dlopen, dlopenx,
 *          throw; one thread per entry (a mode may repeat).  dlopen opens
 *          and closes libm.so.6 (already mapped in a C++ program: only the
 *          loader's locks and reference counts), dlopenx the library named
 *          by $LOADER_LOCKS_LIB (mapped and unmapped each time when nothing
 *          else holds it; a thousand times slower than the other loops, so
 *          this thread runs ITERATIONS / 100 times).
 * Each thread runs its loop ITERATIONS times and adds a result that does not
 * depend on timing to a checksum; the program prints one line per mode and
 * exits 0.  Under a profiler the output must be the same.
 */
#include <dlfcn.h>
#include <execinfo.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stdexcept>

namespace
{

struct job {
    char mode[16];
    long iterations;
    unsigned long result;
};

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

void *
run(void *p)
{
    job *j = static_cast<job *>(p);
    unsigned long ok = 0;

    for (long i = 0; i < j->iterations; i++) {
        if (strcmp(j->mode, "phdr") == 0) {
            unsigned long n = 0;

            dl_iterate_phdr(count_module, &n);
            ok += n > 0;
        } else if (strcmp(j->mode, "dladdr") == 0) {
            Dl_info info;

            ok += dladdr(reinterpret_cast<void *>(&thrower), &info) != 0;
        } else if (strcmp(j->mode, "backtrace") == 0) {
            void *frames[64];

            ok += backtrace(frames, 64) > 0;
        } else if (strcmp(j->mode, "dlopen") == 0) {
            void *h = dlopen("libm.so.6", RTLD_NOW | RTLD_LOCAL);

            if (h != NULL) {
                ok += dlsym(h, "cos") != NULL;
                dlclose(h);
            }
        } else if (strcmp(j->mode, "dlopenx") == 0) {
            const char *lib = getenv("LOADER_LOCKS_LIB");
            void *h = lib != NULL ? dlopen(lib, RTLD_NOW | RTLD_LOCAL) : NULL;

            if (h != NULL) {
                ok += dlsym(h, "loader_locks_probe") != NULL;
                dlclose(h);
            }
        } else if (strcmp(j->mode, "throw") == 0) {
            try {
                thrower(i);
            } catch (const std::runtime_error &) {
                ok++;
            }
        }
    }
    j->result = ok;
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
        fprintf(stderr, "usage: loader_locks MODES ITERATIONS\n");
        return 2;
    }
    modes = strdup(argv[1]);
    for (char *m = strtok_r(modes, ",", &save); m != NULL && n < 16;
         m = strtok_r(NULL, ",", &save), n++) {
        snprintf(jobs[n].mode, sizeof(jobs[n].mode), "%s", m);
        jobs[n].iterations = atol(argv[2]) / (strcmp(m, "dlopenx") == 0 ? 100 : 1);
        jobs[n].result = 0;
    }
    for (int i = 0; i < n; i++)
        if (pthread_create(&threads[i], NULL, run, &jobs[i]) != 0) {
            fprintf(stderr, "loader_locks: pthread_create failed\n");
            return 1;
        }
    for (int i = 0; i < n; i++)
        pthread_join(threads[i], NULL);
    for (int i = 0; i < n; i++)
        printf("%s %lu/%ld\n", jobs[i].mode, jobs[i].result, jobs[i].iterations);
    free(modes);
    return 0;
}
