// SPDX-License-Identifier: BSD-3-Clause
// perf_sw.c -- known amounts of two kernel software events in known functions,
// for the perf-event sample source's attribution tests (test/integration/perf_events.sh).
//   perf_sw faults: touch_three() takes 3x the page faults of touch_one() (fresh anonymous
//                   pages, 4 KiB each: 76,800 and 25,600).
//   perf_sw yields: sleep_three() blocks 3x as often as sleep_one() (600 and 200 short
//                   sleeps, each a context switch).
//   perf_sw kernel: read_zero() spends about 0.6 CPU-seconds, nearly all of it in the
//                   kernel (1 MiB reads of /dev/zero).
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define MB (1024u * 1024u)

/* Fault in @mb fresh megabytes, one write per page, then give them back. */
static __attribute__((noinline, noclone)) void
touch(size_t mb)
{
    long page = sysconf(_SC_PAGESIZE);
    volatile char *p =
        mmap(NULL, mb * MB, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

    if (p == MAP_FAILED) {
        perror("mmap");
        return;
    }
    for (size_t i = 0; i < mb * MB; i += (size_t)page)
        p[i] = 1;
    munmap((void *)p, mb * MB);
}

static __attribute__((noinline, noclone)) void
touch_three(void)
{
    for (int i = 0; i < 30; i++)
        touch(10);
}

static __attribute__((noinline, noclone)) void
touch_one(void)
{
    for (int i = 0; i < 10; i++)
        touch(10);
}

static __attribute__((noinline, noclone)) void
nap(void)
{
    struct timespec ts = {0, 200000}; /* 0.2 ms: the thread blocks, a context switch */

    nanosleep(&ts, NULL);
}

static __attribute__((noinline, noclone)) void
sleep_three(void)
{
    for (int i = 0; i < 600; i++)
        nap();
}

static __attribute__((noinline, noclone)) void
sleep_one(void)
{
    for (int i = 0; i < 200; i++)
        nap();
}

static __attribute__((noinline, noclone)) void
read_zero(void)
{
    static char buf[1 << 20];
    struct timespec t0, t;
    FILE *f = fopen("/dev/zero", "r");

    if (f == NULL)
        return;
    setvbuf(f, NULL, _IONBF, 0);
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t0);
    do {
        for (int i = 0; i < 16; i++)
            if (fread(buf, 1, sizeof(buf), f) != sizeof(buf))
                break;
        clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    } while ((double)(t.tv_sec - t0.tv_sec) + (double)(t.tv_nsec - t0.tv_nsec) / 1e9 < 0.6);
    fclose(f);
}

int
main(int argc, char **argv)
{
    if (argc > 1 && strcmp(argv[1], "faults") == 0) {
        touch_one();
        touch_three();
    } else if (argc > 1 && strcmp(argv[1], "yields") == 0) {
        sleep_one();
        sleep_three();
    } else if (argc > 1 && strcmp(argv[1], "kernel") == 0) {
        read_zero();
    } else {
        fprintf(stderr, "usage: perf_sw faults|yields|kernel\n");
        return 2;
    }
    return 0;
}
