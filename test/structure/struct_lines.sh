#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# struct_lines.sh -- line-table agreement of csprof-struct's statements with
# libdw and with binutils' addr2line.
#
#   struct_lines.sh MODE      run the checks of MODE: each function test_NAME
#                             below is the mode NAME with '_' written '-'
#   struct_lines.sh --list    print the modes, one a line
#
# test/structure/CMakeLists.txt registers one ctest struct_lines-MODE per
# mode it reads from this file; an unknown MODE is an error (exit 2).
#
# libdw modes (libc, libstdcxx, libpython, programs, programs-clang, self):
# runs csprof-struct and struct_linecheck, which compares every statement
# entry (the first address of every STMT range) with libdw's line lookup for
# that address (same debug file, found by libdwfl's standard lookup) and
# requires >= 99.5% agreement ("another row at the same address" agrees);
# every other difference is printed.
#
# addr2line modes (addr2line-libc, addr2line-libstdcxx, addr2line-programs,
# addr2line-clang): struct_linecheck -P draws a sample of addresses (half
# statement entries, half spread uniformly over the bytes statements cover;
# fixed seed), "addr2line -i -e BINARY -a ADDR..." (binutils' BFD reader,
# independent of libdw) answers them, and struct_linecheck -B compares each
# answer with the statement struct_lookup() finds there, and the call sites
# addr2line -i lists with those of the inlined calls (A scopes) around that
# statement (>= 99.5% agreement).  Two statement differences are by design and
# counted apart, each only when libdw's rows at the address show exactly it
# (struct_linecheck.c says how): several rows at one address whose last is
# not a statement boundary (BFD keeps the last row, csprof-struct the nearest
# is_stmt row, as gdb does), and BFD's file 0 for rows of file 1 in DWARF 5
# tables whose file 1 is not file 0 (libc6-dbg).  Line-0 answers (clang's
# line-0 rows, to which csprof-struct gives a neighbour's line) are not
# counted.  Every other answer must agree at >= 99.5%; differences are listed.
#
# Binaries:
#   - libc.so.6 with Debian's libc6-dbg (detached debug file by build-id);
#   - libstdc++ from libstdc++6-12-dbg (/usr/lib/x86_64-linux-gnu/debug/:
#     Debian ships no detached debug file for the -O2 libstdc++.so.6, this
#     is its -O0 DWARF build);
#   - libpython3.11.so.1.0 when a debug file for it is installed (Debian 12
#     ships none in main);
#   - test/programs/loops_c.c, loops_cxx.cc and struct_prog.c built here at
#     -O2 -g and -O3 -g with gcc, loops_c.c with clang;
#   - csprof-struct itself (the project's RelWithDebInfo build, -O2 -g).
# A mode whose binary, debug information, compiler or addr2line is not
# installed is skipped (exit 77, "SKIP: reason"); whether debug information
# exists is judged without csprof-struct (has_dwarf), so a csprof-struct that
# loses it fails.  Environment (set by CMakeLists.txt): CSPROF_STRUCT,
# STRUCT_LINECHECK, STRUCT_PROGRAMS, CC, CXX; CLANG optional.  Ends with
# "N passed, N failed"; exit 0, 1 (failures), 77 (skipped) or 2.
set -u

mode=${1:-}
CC=${CC:-gcc}
CXX=${CXX:-g++}
CLANG=${CLANG:-$(command -v clang || command -v clang-14 || true)}
LIBC=/lib/x86_64-linux-gnu/libc.so.6
LIBSTDCXX_DBG=/usr/lib/x86_64-linux-gnu/debug/libstdc++.so.6.0.30
LIBPYTHON=/usr/lib/x86_64-linux-gnu/libpython3.11.so.1.0
. "$(dirname "$0")/../harness.sh"

# has_dwarf BIN: BIN has DWARF of its own, or a debug file where libdwfl's
# standard search looks (by build-id, or by its .gnu_debuglink name).
has_dwarf() {
    local bin=$1 bid link dir
    readelf -S -W "$bin" 2>/dev/null | grep -q ' \.debug_info ' && return 0
    bid=$(readelf -n "$bin" 2>/dev/null | awk '/Build ID:/ { print $3; exit }')
    [ -n "$bid" ] && [ -r "/usr/lib/debug/.build-id/${bid:0:2}/${bid:2}.debug" ] && return 0
    link=$(readelf --string-dump=.gnu_debuglink "$bin" 2>/dev/null | awk '/\]/ { print $3; exit }')
    dir=$(dirname "$(readlink -f "$bin")")
    [ -n "$link" ] && { [ -r "$dir/$link" ] || [ -r "$dir/.debug/$link" ] ||
        [ -r "/usr/lib/debug$dir/$link" ]; }
}

# need_dwarf BIN WHAT: skip unless BIN and its debug information are installed.
need_dwarf() {
    [ -r "$1" ] || skip "$1 is not installed ($2)"
    has_dwarf "$1" || skip "$1 has no debug information installed ($2)"
}

# structure BIN NAME: csprof-struct's output in $work/NAME.struct; false on error.
structure() {
    "$CSPROF_STRUCT" -o "$work/$2.struct" "$1" 2>"$work/$2.err" && return 0
    bad "$2: csprof-struct: $(cat "$work/$2.err")"
    return 1
}

# check BIN NAME: statements against libdw.
check() {
    local bin=$1 name=$2
    structure "$bin" "$name" || return
    if "$STRUCT_LINECHECK" "$bin" "$work/$name.struct" >"$work/$name.out" 2>&1; then
        pass
        tail -n 1 "$work/$name.out"
    else
        bad "$name:"
        cat "$work/$name.out"
    fi
}

# a2l_check BIN NAME N: statements at N sampled addresses against addr2line.
a2l_check() {
    local bin=$1 name=$2 n=$3
    structure "$bin" "$name" || return
    if ! "$STRUCT_LINECHECK" -P "$n" "$bin" "$work/$name.struct" >"$work/$name.addrs" 2>&1; then
        bad "$name: no sample: $(head -c 300 "$work/$name.addrs")"
        return
    fi
    # shellcheck disable=SC2046 # one argument per address
    if ! addr2line -i -e "$bin" -a $(cat "$work/$name.addrs") >"$work/$name.a2l" 2>"$work/$name.a2l.err"; then
        bad "$name: addr2line: $(head -c 300 "$work/$name.a2l.err")"
        return
    fi
    if "$STRUCT_LINECHECK" -q -B "$work/$name.a2l" "$bin" "$work/$name.struct" \
        >"$work/$name.out" 2>&1; then
        pass
        tail -n 1 "$work/$name.out"
    else
        bad "$name:"
        cat "$work/$name.out"
    fi
}

# build NAME COMPILER OPT SRC: $work/NAME built with OPT -g; false (and a failure) when not.
build() {
    # shellcheck disable=SC2086 # OPT is one flag
    "$2" $3 -g -o "$work/$1" "$4" 2>"$work/$1.cc.err" && return 0
    bad "$1: $2 $3 -g failed: $(head -n 3 "$work/$1.cc.err")"
    return 1
}

need_clang() {
    [ -n "$CLANG" ] && command -v "$CLANG" >/dev/null 2>&1 || skip "clang is not installed"
}

need_addr2line() {
    command -v addr2line >/dev/null 2>&1 || skip "addr2line (binutils) is not installed"
}

test_libc() {
    need_dwarf "$LIBC" "libc6-dbg"
    check "$LIBC" libc
}

test_libstdcxx() {
    need_dwarf "$LIBSTDCXX_DBG" "libstdc++6-12-dbg"
    check "$LIBSTDCXX_DBG" libstdc++-dbg
}

test_libpython() {
    need_dwarf "$LIBPYTHON" "Debian 12 ships no debug file for it"
    check "$LIBPYTHON" libpython3.11
}

test_programs() {
    local opt
    for opt in -O2 -O3; do
        build "loops_c$opt" "$CC" $opt "$STRUCT_PROGRAMS/loops_c.c" && check "$work/loops_c$opt" "loops_c$opt"
        build "struct_prog$opt" "$CC" $opt "$STRUCT_PROGRAMS/struct_prog.c" &&
            check "$work/struct_prog$opt" "struct_prog$opt"
        build "loops_cxx$opt" "$CXX" $opt "$STRUCT_PROGRAMS/loops_cxx.cc" &&
            check "$work/loops_cxx$opt" "loops_cxx$opt"
    done
}

test_programs_clang() {
    local opt
    need_clang
    for opt in -O2 -O3; do
        build "loops_c-clang$opt" "$CLANG" $opt "$STRUCT_PROGRAMS/loops_c.c" &&
            check "$work/loops_c-clang$opt" "loops_c-clang$opt"
    done
}

test_self() {
    need_dwarf "$CSPROF_STRUCT" "a build without -g"
    check "$CSPROF_STRUCT" csprof-struct
}

test_addr2line_libc() {
    need_addr2line
    need_dwarf "$LIBC" "libc6-dbg"
    a2l_check "$LIBC" libc 4000
}

test_addr2line_libstdcxx() {
    need_addr2line
    need_dwarf "$LIBSTDCXX_DBG" "libstdc++6-12-dbg"
    a2l_check "$LIBSTDCXX_DBG" libstdc++-dbg 3000
}

test_addr2line_programs() {
    need_addr2line
    build loops_c-O2 "$CC" -O2 "$STRUCT_PROGRAMS/loops_c.c" && a2l_check "$work/loops_c-O2" loops_c-O2 3000
    build loops_cxx-O2 "$CXX" -O2 "$STRUCT_PROGRAMS/loops_cxx.cc" &&
        a2l_check "$work/loops_cxx-O2" loops_cxx-O2 3000
    if has_dwarf "$CSPROF_STRUCT"; then
        a2l_check "$CSPROF_STRUCT" csprof-struct 3000
    else
        bad "csprof-struct has no DWARF (the project builds RelWithDebInfo)"
    fi
}

test_addr2line_clang() {
    need_addr2line
    need_clang
    build loops_c-clang-O2 "$CLANG" -O2 "$STRUCT_PROGRAMS/loops_c.c" &&
        a2l_check "$work/loops_c-clang-O2" loops_c-clang-O2 3000
}

# The modes: the test_* functions defined above.
modes() {
    declare -F | awk '$3 ~ /^test_/ { m = substr($3, 6); gsub("_", "-", m); print m }'
}

if [ "$mode" = --list ]; then
    modes
    exit 0
fi
if [ -z "$mode" ] || [[ $mode == *_* ]] || ! declare -F "test_${mode//-/_}" >/dev/null; then
    echo "struct_lines.sh: unknown mode '$mode' (modes: $(modes | tr '\n' ' '))" >&2
    exit 2
fi
: "${CSPROF_STRUCT:?}" "${STRUCT_LINECHECK:?}" "${STRUCT_PROGRAMS:?}"
work=$(mktemp -d "${TMPDIR:-/tmp}/struct_lines.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
"test_${mode//-/_}"
finish
