#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# dlopen by bare name searches the caller's run path (DT_RUNPATH, or
# DT_RPATH and that of the objects that loaded the caller).  csprof's dlopen
# override calls glibc's dlopen from libcsprof.so, and glibc takes the
# library that called it as the one whose paths to search: before the fix a
# program whose executable (DT_RUNPATH $ORIGIN/lib) or library (DT_RPATH
# $ORIGIN/midlib) opened a library by bare name found it without csprof and
# failed under csrun.  Each variant must give the baseline's output.
. "$(dirname "$0")/lib.sh"
runs=$(rel_runs 2)

# build_variant DIR DTAGS: the program, its lib/ and lib/midlib/ in DIR.
build_variant() {
    local d=$1 tags=$2 p=$rel_dir/programs
    mkdir -p "$d/lib/midlib"
    gcc -O2 -g -shared -fPIC -DLEAF_NAME='"leafexe"' -o "$d/lib/libleafexe.so" \
        "$p/dlopen_search_lib.c" &&
        gcc -O2 -g -shared -fPIC -DLEAF_NAME='"leafmid"' -o "$d/lib/midlib/libleafmid.so" \
            "$p/dlopen_search_lib.c" &&
        gcc -O2 -g -shared -fPIC -Wl,"$tags" -Wl,-rpath,'$ORIGIN/midlib' -o "$d/lib/libmid.so" \
            "$p/dlopen_search_lib.c" -ldl &&
        gcc -O2 -g -Wl,"$tags" -Wl,-rpath,'$ORIGIN/lib' -o "$d/prog" "$p/dlopen_search.c" -ldl
}

for v in runpath rpath; do
    tags=--enable-new-dtags
    [ "$v" = rpath ] && tags=--disable-new-dtags
    check "build the $v variant" build_variant "$work/$v" "$tags"
    want=RUNPATH
    [ "$v" = rpath ] && want=RPATH
    check "$v: the executable has $want" sh -c "readelf -d '$work/$v/prog' | grep -q '($want)'"
    rel_plain "$v-base" "$work/$v/prog"
    check "$v: baseline finds every library" \
        sh -c "[ \"\$(cat '$v-base.rc')\" -eq 0 ] && grep -q 'opened leafmid' '$v-base.out'"
    for ((r = 1; r <= runs; r++)); do
        rel_prof "$v-p$r" "$v-m$r" "$work/$v/prog"
        check "$v run $r: same output and exit status as without csprof" rel_same "$v-p$r" "$v-base"
    done
done
finish
