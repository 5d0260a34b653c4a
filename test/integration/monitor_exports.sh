#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# libcsprof.so exports only libc overrides and csprof_* (STYLE.md "Names"), and
# the objects that run in signal context (*_sig.c) import only what is
# async-signal-safe (STYLE.md "Signal path").
. "$(dirname "$0")/lib.sh"
lib=$CSPROF_BUILD/lib/csprof/libcsprof.so
allowed='^(pthread_create|vfork|execve|execvpe|fexecve|execv|execvp|execl|execlp|execle|_exit|_Exit|dlopen|dlclose|dl_iterate_phdr|sigaction|signal|sigprocmask|pthread_sigmask|sigsuspend|pselect|ppoll|epoll_pwait|poll|select|epoll_wait|nanosleep|longjmp|_longjmp|siglongjmp|__longjmp_chk|setcontext|swapcontext|_Unwind_RaiseException|_Unwind_Resume|_Unwind_Resume_or_Rethrow|_Unwind_ForcedUnwind|_Unwind_Backtrace|__cxa_begin_catch|backtrace|pthread_exit|__pthread_unwind_next|pthread_cancel|setjmp|_setjmp|__sigsetjmp|getcontext|MPI_Init|MPI_Init_thread|MPI_Comm_rank|GOMP_parallel.*|GOMP_task|__kmpc_fork_call|__kmpc_omp_task_alloc|ompt_start_tool|malloc|free|calloc|realloc|reallocarray|posix_memalign|aligned_alloc|memalign|valloc|pvalloc|read|write|pread|pread64|pwrite|pwrite64|readv|writev|__read_chk|fread|__fread_chk|fwrite|fgets|fputs|puts|fputc|putc|putchar|fgetc|getc|getchar|getline|getdelim|printf|fprintf|vprintf|vfprintf|__printf_chk|__fprintf_chk|__vprintf_chk|__vfprintf_chk|csprof_.*)$'
extra=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TWDBV]$/ { print $3 }' | sed 's/@.*//' | grep -Ev "$allowed")
check "no unexpected exports (${extra:-none})" [ -z "$extra" ]

# Every *_sig.o: undefined symbols must be on the allowlist.
# pthread_setcancelstate: atomic operations on the thread's own descriptor in glibc.
safe='^(pthread_setcancelstate|pthread_sigmask|sigfillset|arena_alloc|arena_init_mmap|arena_destroy|mmap|munmap|memcpy|memset|memmove|strlen|open|fstat|close|getpid|lseek|fcntl|ioctl|clock_gettime|__errno_location|__sigsetjmp|siglongjmp|raise|_U.*|mon_.*|cct_.*|uw_.*|fmt_.*|tramp_.*|__stack_chk_fail|_GLOBAL_OFFSET_TABLE_|__tls_get_addr|syscall|csp_sys_.*)$'
objs=$(find "$CSPROF_BUILD/lib" -name '*_sig.c.o')
check "signal-path objects found" [ -n "$objs" ]
for o in $objs; do
    bad=$(nm -u "$o" | awk '{ print $2 }' | grep -Ev "$safe" | tr '\n' ' ')
    check "$(basename "$o") imports only async-signal-safe functions (${bad:-ok})" [ -z "$bad" ]
done

# The same, one call deeper: a function of our own that a *_sig.o calls must be
# defined in a *_sig.o or in assembly (and so be checked by the loop above), or
# be listed here: first the async-signal-safe ones that live elsewhere, then
# those that signal-path files call only in ordinary context, behind a guard.
# (A checkpoint once deadlocked on a load-map counter read from record_sig.c.)
# read, write and pwrite are not allowed at all: in libcsprof.so they bind to src_io.c's
# overrides (IO events); the signal path's own IO is support/sysio.h's raw system calls.
elsewhere_safe='^(arena_alloc|mon_in_own_code)$' # lock-free bump allocator; a table fixed at start
# mon_real_dl_iterate_phdr: the dl_iterate_phdr override outside a sample's walk;
# mon_key_decode and the three load-map counters: record_sig.c when ctx->may_lock.
ordinary_only='^(mon_real_dl_iterate_phdr|mon_key_decode|mon_snapshot_count|mon_snapshot_misses|mon_loader_lock_timeouts)$'
# "SYMBOL OBJECT" for every function our objects define (nm -A: "PATH:VALUE TYPE SYMBOL").
defs=$(find "$CSPROF_BUILD/lib" -name '*.o' -print0 | xargs -0 nm -A --defined-only |
    awk '$(NF - 1) == "T" { f = $1; sub(/:.*/, "", f); n = split(f, p, "/"); print $NF, p[n] }')
for o in $objs; do
    # Each undefined symbol with the object of ours that defines it (the first one found).
    bad=$(nm -u "$o" | awk '{ print $2 }' |
        awk 'NR == FNR { if (!($1 in def)) def[$1] = $2; next } ($1 in def) { print $1, def[$1] }' \
            <(printf '%s\n' "$defs") - |
        awk -v ok="$elsewhere_safe|$ordinary_only" '$2 !~ /_sig\.c\.o$|\.S\.o$/ && $1 !~ ok' |
        awk '{ printf " %s (%s)", $1, $2 }')
    check "$(basename "$o") calls no function of ours outside the signal-path files (${bad:-ok})" [ -z "$bad" ]
done
finish
