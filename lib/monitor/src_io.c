/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * src_io.c -- read and write functions, overridden for IO, IO_READ and
 * IO_WRITE (mon_sync.h).
 *
 * System-call wrappers: read, write, pread, pwrite (and their 64-bit
 * names), readv, writev.  stdio: fread, fwrite, fgets, fputs, puts, fputc,
 * putc, putchar, fgetc, getc, getchar, getline, getdelim, printf, fprintf,
 * vprintf, vfprintf and the _FORTIFY_SOURCE entry points __printf_chk,
 * __fprintf_chk, __vprintf_chk, __vfprintf_chk, __fread_chk, __read_chk.
 * Each counts the bytes the call moved (its result) at the caller's
 * context.  glibc's stdio reaches the kernel through internal calls that
 * bypass the PLT (_IO_file_read calls __read, not read), so stdio bytes are
 * counted once, at the stdio call, when the program hands them over or
 * takes them -- not when the buffer is flushed.  Not counted: the inline
 * macros getc_unlocked/putc_unlocked, scanf, dprintf, sendfile, splice,
 * mmap'd files, recv/send.
 *
 * The real functions (mon_real_NAME, found with mon_real_resolve in scope
 * MON_REAL_NEXT) are resolved in this file's constructor, before
 * csprof's constructor arms any sampling signal; until then the system-call
 * wrappers issue the system call themselves.  csprof's own IO (profiles,
 * /proc reads, perf counter reads, warnings) never comes through here: it
 * uses the raw system calls of support/sysio.h, so its bytes are never
 * counted as the program's.  Ordinary context (an override reached from a
 * signal handler of the program's forwards async-signal-safely, and the
 * counting path never runs in csprof's handler, which sets td->inside).
 * errno is the real function's.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <unistd.h>

#include "monitor/mon_internal.h"
#include "monitor/mon_real.h"
#include "monitor/mon_sync.h"

typedef ssize_t rw_fn(int, void *, size_t);
typedef ssize_t prw_fn(int, void *, size_t, off_t);
typedef ssize_t rwv_fn(int, const struct iovec *, int);
typedef size_t fio_fn(void *, size_t, size_t, FILE *);
typedef char *fgets_fn(char *, int, FILE *);
typedef int fputs_fn(const char *, FILE *);
typedef int puts_fn(const char *);
typedef int fputc_fn(int, FILE *);
typedef int putchar_fn(int);
typedef int fgetc_fn(FILE *);
typedef int getchar_fn(void);
typedef ssize_t getdelim_fn(char **, size_t *, int, FILE *);
typedef int vfprintf_fn(FILE *, const char *, va_list);
typedef int vfprintf_chk_fn(FILE *, int, const char *, va_list);
typedef size_t fread_chk_fn(void *, size_t, size_t, size_t, FILE *);
typedef ssize_t read_chk_fn(int, void *, size_t, size_t);

static rw_fn *mon_real_read, *mon_real_write;
static prw_fn *mon_real_pread, *mon_real_pwrite, *mon_real_pread64, *mon_real_pwrite64;
static rwv_fn *mon_real_readv, *mon_real_writev;
static fio_fn *mon_real_fread, *mon_real_fwrite;
static fgets_fn *mon_real_fgets;
static fputs_fn *mon_real_fputs;
static puts_fn *mon_real_puts;
static fputc_fn *mon_real_fputc, *mon_real_putc;
static putchar_fn *mon_real_putchar;
static fgetc_fn *mon_real_fgetc, *mon_real_getc;
static getchar_fn *mon_real_getchar;
static getdelim_fn *mon_real_getdelim;
static vfprintf_fn *mon_real_vfprintf;
static vfprintf_chk_fn *mon_real___vfprintf_chk;
static fread_chk_fn *mon_real___fread_chk;
static read_chk_fn *mon_real___read_chk;

/* Exported overrides without a prototype in the headers (-Wmissing-prototypes). */
ssize_t pread64(int fd, void *buf, size_t n, off_t off);
ssize_t pwrite64(int fd, const void *buf, size_t n, off_t off);
int __printf_chk(int flag, const char *fmt, ...);
int __fprintf_chk(FILE *f, int flag, const char *fmt, ...);
int __vprintf_chk(int flag, const char *fmt, va_list ap);
int __vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap);
size_t __fread_chk(void *buf, size_t bufsize, size_t size, size_t n, FILE *f);
ssize_t __read_chk(int fd, void *buf, size_t n, size_t bufsize);

__attribute__((constructor(101))) static void
resolve_io(void)
{
    if (mon_real_getdelim != NULL)
        return;
    MON_REAL_RESOLVE_NEXT(mon_real_read, "read", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_write, "write", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_pread, "pread", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_pwrite, "pwrite", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_pread64, "pread64", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_pwrite64, "pwrite64", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_readv, "readv", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_writev, "writev", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_fread, "fread", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_fwrite, "fwrite", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_fgets, "fgets", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_fputs, "fputs", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_puts, "puts", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_fputc, "fputc", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_putc, "putc", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_putchar, "putchar", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_fgetc, "fgetc", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_getc, "getc", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_getchar, "getchar", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_vfprintf, "vfprintf", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real___vfprintf_chk, "__vfprintf_chk", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real___fread_chk, "__fread_chk", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real___read_chk, "__read_chk", NULL);
    MON_REAL_RESOLVE_NEXT(mon_real_getdelim, "getdelim", NULL); /* last: resolve_io tests it */
}

#define CALLER ((uintptr_t)__builtin_return_address(0))

/* stdio may be called by another library's constructor before resolve_io ran. */
#define RESOLVED(var) (__builtin_expect((var) == NULL, 0) ? resolve_io() : (void)0)

/* Account @n bytes read (@reading) or written, when an IO event is on and @n > 0. */
static inline void
count_io(bool reading, long long n, uintptr_t caller)
{
    if (mon_sync_io_on && n > 0)
        mon_sync_account(MON_SYNC_IO, reading ? MON_SYNC_IO_READ : MON_SYNC_IO_WRITE, (uint64_t)n,
                         NULL, caller);
}

/* ---- system-call wrappers ---- */

CSP_EXPORT ssize_t
read(int fd, void *buf, size_t n)
{
    struct mon_thread *td = mon_thread_self();
    ssize_t r;

    if (td != NULL && td->in_unwind) {
        /* libunwind's memory validation draining its pipe during a walk (unwind_guard_sig.c) */
        errno = EAGAIN;
        return -1;
    }

    if (!mon_sync_io_on && mon_real_read != NULL)
        return mon_real_read(fd, buf, n); /* a tail call: no csprof frame in the program's stacks */
    r = mon_real_read != NULL ? mon_real_read(fd, buf, n) : syscall(SYS_read, fd, buf, n);
    count_io(true, r, CALLER);
    return r;
}

CSP_EXPORT ssize_t
write(int fd, const void *buf, size_t n)
{
    ssize_t r;

    if (!mon_sync_io_on && mon_real_write != NULL)
        return mon_real_write(fd, (void *)(uintptr_t)buf,
                              n); /* a tail call: no csprof frame in the program's stacks */
    r = mon_real_write != NULL ? mon_real_write(fd, (void *)(uintptr_t)buf, n)
                               : syscall(SYS_write, fd, buf, n);
    count_io(false, r, CALLER);
    return r;
}

CSP_EXPORT ssize_t
pread(int fd, void *buf, size_t n, off_t off)
{
    ssize_t r;

    if (!mon_sync_io_on && mon_real_pread != NULL)
        return mon_real_pread(fd, buf, n,
                              off); /* a tail call: no csprof frame in the program's stacks */
    r = mon_real_pread != NULL ? mon_real_pread(fd, buf, n, off)
                               : syscall(SYS_pread64, fd, buf, n, off);
    count_io(true, r, CALLER);
    return r;
}

CSP_EXPORT ssize_t
pread64(int fd, void *buf, size_t n, off_t off)
{
    ssize_t r;

    if (!mon_sync_io_on && mon_real_pread64 != NULL)
        return mon_real_pread64(fd, buf, n,
                                off); /* a tail call: no csprof frame in the program's stacks */
    r = mon_real_pread64 != NULL ? mon_real_pread64(fd, buf, n, off)
                                 : syscall(SYS_pread64, fd, buf, n, off);
    count_io(true, r, CALLER);
    return r;
}

CSP_EXPORT ssize_t
pwrite(int fd, const void *buf, size_t n, off_t off)
{
    ssize_t r;

    if (!mon_sync_io_on && mon_real_pwrite != NULL)
        return mon_real_pwrite(fd, (void *)(uintptr_t)buf, n,
                               off); /* a tail call: no csprof frame in the program's stacks */
    r = mon_real_pwrite != NULL ? mon_real_pwrite(fd, (void *)(uintptr_t)buf, n, off)
                                : syscall(SYS_pwrite64, fd, buf, n, off);
    count_io(false, r, CALLER);
    return r;
}

CSP_EXPORT ssize_t
pwrite64(int fd, const void *buf, size_t n, off_t off)
{
    ssize_t r;

    if (!mon_sync_io_on && mon_real_pwrite64 != NULL)
        return mon_real_pwrite64(fd, (void *)(uintptr_t)buf, n,
                                 off); /* a tail call: no csprof frame in the program's stacks */
    r = mon_real_pwrite64 != NULL ? mon_real_pwrite64(fd, (void *)(uintptr_t)buf, n, off)
                                  : syscall(SYS_pwrite64, fd, buf, n, off);
    count_io(false, r, CALLER);
    return r;
}

CSP_EXPORT ssize_t
readv(int fd, const struct iovec *iov, int cnt)
{
    ssize_t r;

    if (!mon_sync_io_on && mon_real_readv != NULL)
        return mon_real_readv(fd, iov,
                              cnt); /* a tail call: no csprof frame in the program's stacks */
    r = mon_real_readv != NULL ? mon_real_readv(fd, iov, cnt) : syscall(SYS_readv, fd, iov, cnt);
    count_io(true, r, CALLER);
    return r;
}

CSP_EXPORT ssize_t
writev(int fd, const struct iovec *iov, int cnt)
{
    ssize_t r;

    if (!mon_sync_io_on && mon_real_writev != NULL)
        return mon_real_writev(fd, iov,
                               cnt); /* a tail call: no csprof frame in the program's stacks */
    r = mon_real_writev != NULL ? mon_real_writev(fd, iov, cnt) : syscall(SYS_writev, fd, iov, cnt);
    count_io(false, r, CALLER);
    return r;
}

CSP_EXPORT ssize_t
__read_chk(int fd, void *buf, size_t n, size_t bufsize)
{
    ssize_t r;

    if (mon_real___read_chk == NULL && n > bufsize)
        __builtin_trap(); /* as glibc's __chk_fail, without its message */
    r = mon_real___read_chk != NULL ? mon_real___read_chk(fd, buf, n, bufsize) : read(fd, buf, n);
    count_io(true, r, CALLER);
    return r;
}

/* ---- stdio ---- */

CSP_EXPORT size_t
fread(void *buf, size_t size, size_t n, FILE *f)
{
    size_t r;

    RESOLVED(mon_real_fread);
    if (!mon_sync_io_on)
        return mon_real_fread(buf, size, n, f);
    r = mon_real_fread(buf, size, n, f);
    count_io(true, (long long)(r * size), CALLER);
    return r;
}

CSP_EXPORT size_t
__fread_chk(void *buf, size_t bufsize, size_t size, size_t n, FILE *f)
{
    size_t r;

    RESOLVED(mon_real___fread_chk);
    if (!mon_sync_io_on)
        return mon_real___fread_chk(buf, bufsize, size, n, f);
    r = mon_real___fread_chk(buf, bufsize, size, n, f);
    count_io(true, (long long)(r * size), CALLER);
    return r;
}

CSP_EXPORT size_t
fwrite(const void *buf, size_t size, size_t n, FILE *f)
{
    size_t r;

    RESOLVED(mon_real_fwrite);
    if (!mon_sync_io_on)
        return mon_real_fwrite((void *)(uintptr_t)buf, size, n, f);
    r = mon_real_fwrite((void *)(uintptr_t)buf, size, n, f);
    count_io(false, (long long)(r * size), CALLER);
    return r;
}

CSP_EXPORT char *
fgets(char *s, int n, FILE *f)
{
    char *r;

    RESOLVED(mon_real_fgets);
    if (!mon_sync_io_on)
        return mon_real_fgets(s, n, f);
    r = mon_real_fgets(s, n, f);
    if (r != NULL)
        count_io(true, (long long)strlen(r), CALLER);
    return r;
}

CSP_EXPORT int
fputs(const char *s, FILE *f)
{
    int r;

    RESOLVED(mon_real_fputs);
    if (!mon_sync_io_on)
        return mon_real_fputs(s, f);
    r = mon_real_fputs(s, f);
    if (r >= 0)
        count_io(false, (long long)strlen(s), CALLER);
    return r;
}

CSP_EXPORT int
puts(const char *s)
{
    int r;

    RESOLVED(mon_real_puts);
    if (!mon_sync_io_on)
        return mon_real_puts(s);
    r = mon_real_puts(s);
    if (r >= 0)
        count_io(false, (long long)strlen(s) + 1, CALLER);
    return r;
}

CSP_EXPORT int
fputc(int c, FILE *f)
{
    int r;

    RESOLVED(mon_real_fputc);
    if (!mon_sync_io_on)
        return mon_real_fputc(c, f);
    r = mon_real_fputc(c, f);
    if (r != EOF)
        count_io(false, 1, CALLER);
    return r;
}

CSP_EXPORT int
putc(int c, FILE *f)
{
    int r;

    RESOLVED(mon_real_putc);
    if (!mon_sync_io_on)
        return mon_real_putc(c, f);
    r = mon_real_putc(c, f);
    if (r != EOF)
        count_io(false, 1, CALLER);
    return r;
}

CSP_EXPORT int
putchar(int c)
{
    int r;

    RESOLVED(mon_real_putchar);
    if (!mon_sync_io_on)
        return mon_real_putchar(c);
    r = mon_real_putchar(c);
    if (r != EOF)
        count_io(false, 1, CALLER);
    return r;
}

CSP_EXPORT int
fgetc(FILE *f)
{
    int r;

    RESOLVED(mon_real_fgetc);
    if (!mon_sync_io_on)
        return mon_real_fgetc(f);
    r = mon_real_fgetc(f);
    if (r != EOF)
        count_io(true, 1, CALLER);
    return r;
}

CSP_EXPORT int
getc(FILE *f)
{
    int r;

    RESOLVED(mon_real_getc);
    if (!mon_sync_io_on)
        return mon_real_getc(f);
    r = mon_real_getc(f);
    if (r != EOF)
        count_io(true, 1, CALLER);
    return r;
}

CSP_EXPORT int
getchar(void)
{
    int r;

    RESOLVED(mon_real_getchar);
    if (!mon_sync_io_on)
        return mon_real_getchar();
    r = mon_real_getchar();
    if (r != EOF)
        count_io(true, 1, CALLER);
    return r;
}

CSP_EXPORT ssize_t
getdelim(char **line, size_t *cap, int delim, FILE *f)
{
    ssize_t r;

    RESOLVED(mon_real_getdelim);
    if (!mon_sync_io_on)
        return mon_real_getdelim(line, cap, delim, f);
    r = mon_real_getdelim(line, cap, delim, f);
    count_io(true, r, CALLER);
    return r;
}

CSP_EXPORT ssize_t
getline(char **line, size_t *cap, FILE *f)
{
    ssize_t r;

    RESOLVED(mon_real_getdelim);
    r = mon_real_getdelim(line, cap, '\n', f);
    count_io(true, r, CALLER);
    return r;
}

CSP_EXPORT int
vfprintf(FILE *f, const char *fmt, va_list ap)
{
    int r;

    RESOLVED(mon_real_vfprintf);
    if (!mon_sync_io_on)
        return mon_real_vfprintf(f, fmt, ap);
    r = mon_real_vfprintf(f, fmt, ap);
    count_io(false, r, CALLER);
    return r;
}

CSP_EXPORT int
vprintf(const char *fmt, va_list ap)
{
    int r;

    RESOLVED(mon_real_vfprintf);
    r = mon_real_vfprintf(stdout, fmt, ap);
    count_io(false, r, CALLER);
    return r;
}

CSP_EXPORT int
fprintf(FILE *f, const char *fmt, ...)
{
    va_list ap;
    int r;

    RESOLVED(mon_real_vfprintf);
    va_start(ap, fmt);
    r = mon_real_vfprintf(f, fmt, ap);
    va_end(ap);
    count_io(false, r, CALLER);
    return r;
}

CSP_EXPORT int
printf(const char *fmt, ...)
{
    va_list ap;
    int r;

    RESOLVED(mon_real_vfprintf);
    va_start(ap, fmt);
    r = mon_real_vfprintf(stdout, fmt, ap);
    va_end(ap);
    count_io(false, r, CALLER);
    return r;
}

CSP_EXPORT int
__vfprintf_chk(FILE *f, int flag, const char *fmt, va_list ap)
{
    int r;

    RESOLVED(mon_real___vfprintf_chk);
    if (!mon_sync_io_on)
        return mon_real___vfprintf_chk(f, flag, fmt, ap);
    r = mon_real___vfprintf_chk(f, flag, fmt, ap);
    count_io(false, r, CALLER);
    return r;
}

CSP_EXPORT int
__vprintf_chk(int flag, const char *fmt, va_list ap)
{
    int r;

    RESOLVED(mon_real___vfprintf_chk);
    r = mon_real___vfprintf_chk(stdout, flag, fmt, ap);
    count_io(false, r, CALLER);
    return r;
}

CSP_EXPORT int
__fprintf_chk(FILE *f, int flag, const char *fmt, ...)
{
    va_list ap;
    int r;

    RESOLVED(mon_real___vfprintf_chk);
    va_start(ap, fmt);
    r = mon_real___vfprintf_chk(f, flag, fmt, ap);
    va_end(ap);
    count_io(false, r, CALLER);
    return r;
}

CSP_EXPORT int
__printf_chk(int flag, const char *fmt, ...)
{
    va_list ap;
    int r;

    RESOLVED(mon_real___vfprintf_chk);
    va_start(ap, fmt);
    r = mon_real___vfprintf_chk(stdout, flag, fmt, ap);
    va_end(ap);
    count_io(false, r, CALLER);
    return r;
}
