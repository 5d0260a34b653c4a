// SPDX-License-Identifier: BSD-3-Clause
// sync_bytes.cc -- known byte counts in known functions, for the MEMALLOC,
// MEMLEAK and IO tests (r43_sync_bytes.sh).
//   sync_bytes alloc R   f_alloc allocates 3 x what g_alloc does, through malloc,
//                        calloc, realloc, operator new, new[] and aligned_alloc
//                        (churn: 20608 bytes a round; f does 3R rounds, g R);
//                        everything is freed.  Prints the bytes each allocated.
//   sync_bytes leak R    leak_a leaks 3 x what leak_b leaks (blocks of 8 KiB:
//                        3R and R of them); no_leak allocates 4R blocks and
//                        frees them.  Prints the bytes leaked.
//   sync_bytes threads R two threads: one runs f_alloc(R) and leak_a(R / 4), the
//                        other g_alloc(R) and leak_b(R / 4); the threads end
//                        before main does.  Prints the bytes of each.
//   sync_bytes io R      writer writes R x 64 KiB with write() and R x 64 KiB
//                        with fwrite() to /dev/null; reader reads R x 64 KiB
//                        with read() and R x 32 KiB with fread() from /dev/zero.
//   sync_bytes noio R    no_leak(R), and no IO at all (no output): any IO bytes
//                        in its profile are csprof's own.
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <pthread.h>
#include <unistd.h>

static void *volatile sink;

#define NOINLINE __attribute__((noinline))
// After a call: keeps the caller's frame on the stack (no tail call).
#define KEEP_FRAME() __asm__ volatile("" ::: "memory")

// 4000 + 4000 + (1000 + 4000) + 4000 + 8 * 50 + 4096 = 21496 bytes a round.
static const unsigned long round_bytes = 4000 + 4000 + 1000 + 4000 + 4000 + 8 * 50 + 4096;

NOINLINE static void
churn(long rounds)
{
    for (long i = 0; i < rounds; i++) {
        errno = 77; // a sampled allocation must leave errno as the allocator does
        void *p = malloc(4000);
        if (errno != 77)
            exit(5);
        sink = p;
        free(p);
        p = calloc(10, 400);
        sink = p;
        free(p);
        p = malloc(1000);
        sink = p;
        p = realloc(p, 4000);
        sink = p;
        free(p);
        char *c = new char[4000];
        sink = c;
        delete[] c;
        long *l = new long[50];
        sink = l;
        delete[] l;
        p = aligned_alloc(64, 4096);
        sink = p;
        free(p);
    }
}

NOINLINE void
f_alloc(long r)
{
    churn(3 * r);
    KEEP_FRAME();
}
NOINLINE void
g_alloc(long r)
{
    churn(r);
    KEEP_FRAME();
}

NOINLINE static void *
block()
{
    return malloc(8192);
}
NOINLINE void
leak_a(long r)
{
    for (long i = 0; i < 3 * r; i++)
        sink = block();
    KEEP_FRAME();
}
NOINLINE void
leak_b(long r)
{
    for (long i = 0; i < r; i++)
        sink = block();
    KEEP_FRAME();
}
NOINLINE void
no_leak(long r)
{
    void **keep = (void **)malloc(4 * r * sizeof(void *));
    for (long i = 0; i < 4 * r; i++)
        keep[i] = block();
    for (long i = 0; i < 4 * r; i++)
        free(keep[i]);
    free(keep);
}

static char buf[64 * 1024];

NOINLINE void
writer(long r)
{
    int fd = open("/dev/null", O_WRONLY);
    FILE *f = fopen("/dev/null", "w");
    for (long i = 0; i < r; i++) {
        if (write(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
            exit(3);
        if (fwrite(buf, 1, sizeof(buf), f) != sizeof(buf))
            exit(3);
    }
    fclose(f);
    close(fd);
}

NOINLINE void
reader(long r)
{
    int fd = open("/dev/zero", O_RDONLY);
    FILE *f = fopen("/dev/zero", "r");
    for (long i = 0; i < r; i++) {
        if (read(fd, buf, sizeof(buf)) != (ssize_t)sizeof(buf))
            exit(3);
        if (fread(buf, 1, sizeof(buf) / 2, f) != sizeof(buf) / 2)
            exit(3);
    }
    fclose(f);
    close(fd);
}

static long thread_rounds;

static void *
thread_one(void *)
{
    f_alloc(thread_rounds);
    leak_a(thread_rounds / 4);
    return nullptr;
}

static void *
thread_two(void *)
{
    g_alloc(thread_rounds);
    leak_b(thread_rounds / 4);
    return nullptr;
}

int
main(int argc, char **argv)
{
    long r = argc > 2 ? atol(argv[2]) : 1000;
    const char *mode = argc > 1 ? argv[1] : "alloc";

    if (strcmp(mode, "alloc") == 0) {
        errno = 0; // a failed allocation is passed through: NULL and ENOMEM
        sink = malloc(SIZE_MAX / 2);
        if (sink != nullptr || errno != ENOMEM)
            return 4;
        f_alloc(r);
        g_alloc(r);
        printf("f_alloc %lu g_alloc %lu\n", 3 * r * round_bytes, r * round_bytes);
    } else if (strcmp(mode, "leak") == 0) {
        leak_a(r);
        leak_b(r);
        no_leak(r);
        printf("leak_a %ld leak_b %ld no_leak 0\n", 3 * r * 8192, r * 8192);
    } else if (strcmp(mode, "threads") == 0) {
        pthread_t t1, t2;

        thread_rounds = r;
        if (pthread_create(&t1, nullptr, thread_one, nullptr) != 0 ||
            pthread_create(&t2, nullptr, thread_two, nullptr) != 0)
            return 3;
        pthread_join(t1, nullptr);
        pthread_join(t2, nullptr);
        printf("f_alloc %lu g_alloc %lu leak_a %ld leak_b %ld\n", 3 * r * round_bytes,
               r * round_bytes, 3 * (r / 4) * 8192, (r / 4) * 8192);
    } else if (strcmp(mode, "io") == 0) {
        writer(r);
        reader(r);
        printf("writer %ld reader %ld\n", r * 2 * 65536, r * (65536 + 32768));
    } else if (strcmp(mode, "noio") == 0) {
        no_leak(r); // work without a byte of IO of its own, and no output
    } else {
        return 2;
    }
    return 0;
}
