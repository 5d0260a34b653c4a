#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# struct_lines.sh -- line-table agreement of csprof-struct with libdw.
#
# For each binary below, runs csprof-struct and struct_linecheck, which
# compares every statement entry (the first address of every STMT range)
# with libdw's line lookup for that address (what addr2line answers, same
# debug file, found by libdwfl's standard lookup) and requires >= 99.5%
# agreement ("another row at the same address" agrees); every other
# difference is printed.  Binaries:
#   - libc.so.6 with Debian's libc6-dbg (detached debug file by build-id);
#   - libstdc++ from libstdc++6-12-dbg (/usr/lib/x86_64-linux-gnu/debug/:
#     Debian ships no detached debug file for the -O2 libstdc++.so.6, this
#     is its -O0 DWARF build);
#   - libpython3.11.so.1.0 when a debug file for it is installed (Debian 12
#     ships none in main: reported as not checked);
#   - test/programs/loops_c.c, loops_cxx.cc and struct_prog.c built here at
#     -O2 -g and -O3 -g (gcc; clang too when CLANG is found);
#   - csprof-struct itself (the project's RelWithDebInfo build, -O2 -g).
# A binary without debug information is reported and not counted; the test
# is skipped (77) when none could be checked.  Environment as
# struct_test.sh: CSPROF_STRUCT, STRUCT_LINECHECK, STRUCT_PROGRAMS, CC, CXX.
# Ends with "N passed, N failed".
set -u

: "${CSPROF_STRUCT:?}" "${STRUCT_LINECHECK:?}" "${STRUCT_PROGRAMS:?}"
CC=${CC:-gcc}
CXX=${CXX:-g++}
CLANG=${CLANG:-$(command -v clang || command -v clang-14 || true)}
work=$(mktemp -d "${TMPDIR:-/tmp}/struct_lines.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
passed=0
failed=0
unchecked=0

# check BINARY NAME: structure + agreement; a binary without DWARF is noted.
check() {
    local bin=$1 name=$2 rc
    if [ ! -r "$bin" ]; then
        echo "not checked: $name: $bin is not installed"
        unchecked=$((unchecked + 1))
        return
    fi
    if ! "$CSPROF_STRUCT" -o "$work/$name.struct" "$bin" 2>"$work/$name.err"; then
        echo "FAIL: $name: csprof-struct: $(cat "$work/$name.err")"
        failed=$((failed + 1))
        return
    fi
    "$STRUCT_LINECHECK" "$bin" "$work/$name.struct" >"$work/$name.out" 2>&1
    rc=$?
    case $rc in
    0)
        passed=$((passed + 1))
        tail -n 1 "$work/$name.out"
        ;;
    2 | 77)
        echo "not checked: $name: no debug information ($(tail -n 1 "$work/$name.out"))"
        unchecked=$((unchecked + 1))
        ;;
    *)
        echo "FAIL: $name:"
        cat "$work/$name.out"
        failed=$((failed + 1))
        ;;
    esac
}

check /lib/x86_64-linux-gnu/libc.so.6 libc
check /usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6.0.30 libstdc++-dbg
check /usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0 libpython3.11
for opt in -O2 -O3; do
    if "$CC" $opt -g -o "$work/loops_c$opt" "$STRUCT_PROGRAMS/loops_c.c" -lm 2>"$work/cc.err" &&
        "$CC" $opt -g -o "$work/struct_prog$opt" "$STRUCT_PROGRAMS/struct_prog.c" -lm 2>>"$work/cc.err" &&
        "$CXX" $opt -g -o "$work/loops_cxx$opt" "$STRUCT_PROGRAMS/loops_cxx.cc" 2>>"$work/cc.err"; then
        check "$work/loops_c$opt" "loops_c$opt"
        check "$work/struct_prog$opt" "struct_prog$opt"
        check "$work/loops_cxx$opt" "loops_cxx$opt"
    else
        echo "FAIL: cannot build the test programs at $opt: $(head -n 3 "$work/cc.err")"
        failed=$((failed + 1))
    fi
    if [ -n "$CLANG" ] && "$CLANG" $opt -g -o "$work/loops_c-clang$opt" "$STRUCT_PROGRAMS/loops_c.c" -lm 2>/dev/null; then
        check "$work/loops_c-clang$opt" "loops_c-clang$opt"
    fi
done
check "$CSPROF_STRUCT" csprof-struct

echo "$unchecked binaries not checked (no debug information)"
echo "$passed passed, $failed failed"
[ "$failed" -gt 0 ] && exit 1
[ "$passed" -eq 0 ] && exit 77
exit 0
