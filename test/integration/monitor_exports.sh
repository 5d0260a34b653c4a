#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# libcsprof.so exports only libc overrides and csprof_* (STYLE.md "Names"), and
# the objects that run in signal context (*_sig.c) import only what is
# async-signal-safe (STYLE.md "Signal path").
. "$(dirname "$0")/lib.sh"
lib=$CSPROF_BUILD/lib/csprof/libcsprof.so
map=$CSPROF_SOURCE/lib/monitor/libcsprof.map

# The allowlist is libcsprof.map itself, the version script the link uses: the
# names of its global: section, a NAME* a glob.  So the rule is checked on the
# map (each name an override or csprof_*) and on the library (it exports
# exactly the map's names: none beyond them, none of them missing, and no
# override of ours left out of the map).
map_text=$(sed -e ':a' -e 'N' -e '$!ba' -e 's|/\*\([^*]\|\*[^/]\)*\*/||g' "$map" | tr '\n\t' '  ')
names=$(sed -n 's/.*global:\(.*\)local:.*/\1/p' <<< "$map_text" | tr ';' '\n' | tr -d ' ' | grep -v '^$')
check "libcsprof.map lists names in global: ($(wc -l <<< "$names"))" [ -n "$names" ]
check "libcsprof.map hides everything else (local: *;)" grep -q 'local: *\* *;' <<< "$map_text"
bad=$(grep -Ev '^[A-Za-z_][A-Za-z0-9_]*\*?$' <<< "$names" | tr '\n' ' ')
check "libcsprof.map's entries are names or NAME* globs (${bad:-ok})" [ -z "$bad" ]
allowed="^($(sed 's/\*$/.*/' <<< "$names" | paste -sd'|'))\$"
exported=$(nm -D --defined-only "$lib" | awk '$2 ~ /^[TWDBVi]$/ { print $3 }' | sed 's/@.*//' | sort -u)
extra=$(grep -Ev "$allowed" <<< "$exported" | tr '\n' ' ')
check "no exports beyond libcsprof.map (${extra:-none})" [ -z "$extra" ]
missing=$(grep -v '\*$' <<< "$names" | sort -u | comm -23 - <(printf '%s\n' "$exported") | tr '\n' ' ')
check "every name libcsprof.map lists is exported (missing: ${missing:-none})" [ -z "$missing" ]

# Which names are overrides: functions the C library, libgcc_s or libstdc++
# define (the libc the library links, the others the compiler's), and the MPI
# and OpenMP entry points csprof intercepts (runtimes that need not be
# installed here; ompt_start_tool is the tool hook an OpenMP runtime calls).
libc=$(ldd "$lib" | awk '$1 == "libc.so.6" { print $3 }')
runtimes="$libc $(${CC:-cc} -print-file-name=libgcc_s.so.1) $(${CC:-cc} -print-file-name=libstdc++.so.6)"
for r in $runtimes; do check "found $(basename "$r") at $r" [ -f "$r" ]; done
system=$(for r in $runtimes; do nm -D --defined-only "$r" 2>/dev/null; done | awk '{ print $NF }' |
    sed 's/@.*//' | sort -u)
intercepted='^(MPI_[A-Za-z_]+|GOMP_[a-z_]+|__kmpc_[a-z_]+|ompt_start_tool)$'
not_override=$(grep -v '^csprof_' <<< "$names" | sort -u | comm -23 - <(printf '%s\n' "$system") |
    grep -Ev "$intercepted" | tr '\n' ' ')
check "libcsprof.map lists only overrides and csprof_* (${not_override:-ok})" [ -z "$not_override" ]
# An override of ours the map leaves out is silently not one: the program calls the real function.
ours=$(find "$CSPROF_BUILD/lib/monitor" -name '*.o' -print0 | xargs -0 nm --defined-only |
    awk 'NF >= 2 && $(NF - 1) ~ /^[TWi]$/ { print $NF }' | sort -u)
overrides=$( (comm -12 <(printf '%s\n' "$ours") <(printf '%s\n' "$system"); grep -E "$intercepted" <<< "$ours") | sort -u)
check "lib/monitor's overrides found ($(wc -l <<< "$overrides"))" [ -n "$overrides" ]
unexported=$(comm -23 <(printf '%s\n' "$overrides") <(printf '%s\n' "$exported") | tr '\n' ' ')
check "every override lib/monitor defines is exported (not: ${unexported:-none})" [ -z "$unexported" ]

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
# mon_loader_dl_iterate_phdr: the dl_iterate_phdr override outside a sample's walk;
# mon_key_decode and the three load-map counters: record_sig.c when ctx->may_lock.
ordinary_only='^(mon_loader_dl_iterate_phdr|mon_key_decode|mon_snapshot_count|mon_snapshot_misses|mon_loader_lock_timeouts)$'
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
