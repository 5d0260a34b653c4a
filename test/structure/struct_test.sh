#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# struct_test.sh -- property tests of csprof-struct and lib/structure.
#
#   struct_test.sh MODE      run the tests of MODE: each function test_NAME below is the
#                            mode NAME with '_' written '-' (c, cxx, loops-c, ...)
#   struct_test.sh --list    print the modes, one a line
#
# test/structure/CMakeLists.txt registers one ctest struct_MODE per mode it
# reads from this file, so the list exists once; an unknown MODE is an error
# (exit 2), never a pass or a skip.
#
# Compiles the test programs in test/programs at test time, runs
# csprof-struct on them and checks properties with struct_check (names,
# inlining, statements for lines marked "@stmt", loops and call sites marked
# "@loop"/"@call" in test/programs/loops_*, struct_lookup of addresses
# from nm, nesting invariants), DTD validity with xmllint, round trips and
# determinism -- never golden XML.  Environment (set by CMakeLists.txt):
# CSPROF_STRUCT, STRUCT_CHECK, STRUCT_PROGRAMS, STRUCT_DTD, CC, CXX (and
# optionally CLANG, CLANGXX, FC: a mode whose compiler is missing is skipped).
# Ends with "N passed, N failed"; exit 0, 1 (failures) or 77 (skipped); 2 for
# an unknown mode.
set -u

mode=${1:-}
CC=${CC:-gcc}
CXX=${CXX:-g++}

. "$(dirname "$0")/../harness.sh"
work=$(mktemp -d "${TMPDIR:-/tmp}/struct_test.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT

# check DESCRIPTION COMMAND...: harness.sh's check, quiet when it passes and with the last
# lines of the command's output when it fails.
check() {
    local what=$1
    shift
    if "$@" >"$work/check.out" 2>&1; then
        pass
    else
        bad "$what: $(tail -n 3 "$work/check.out" | tr '\n' ' ')"
    fi
}

# Address of symbol $2 in binary $1 as bare hex without leading zeros.
sym_addr() {
    local a
    a=$(nm "$1" | awk -v s="$2" '$3 == s && ($2 == "T" || $2 == "t") { print $1; exit }')
    [ -n "$a" ] && printf '%x\n' $((16#$a))
}

# run_struct BIN OUT: run the tool; sets rc and leaves stderr in $OUT.err.
run_struct() {
    "$CSPROF_STRUCT" "$1" >"$2" 2>"$2.err"
    rc=$?
}

# Checks shared by every successful run: exit 0, valid XML, invariants,
# round trip through the reader, and the same bytes from -o and a second run.
common_checks() {
    local bin=$1 xml=$2 name=$3
    [ "$rc" -eq 0 ] && pass || bad "$name: exit $rc: $(cat "$xml.err")"
    check "$name: DTD valid" xmllint --noout --dtdvalid "$STRUCT_DTD" "$xml"
    check "$name: invariants" "$STRUCT_CHECK" invariants "$xml"
    check "$name: rewrite" "$STRUCT_CHECK" rewrite "$xml" "$xml.rt"
    check "$name: round trip gives identical bytes" cmp "$xml" "$xml.rt"
    check "$name: -o FILE" "$CSPROF_STRUCT" -o "$xml.o" "$bin"
    check "$name: -o output equals stdout output" cmp "$xml" "$xml.o"
    check "$name: struct_analyze+struct_write_xml" "$STRUCT_CHECK" analyze "$bin" "$xml.api"
    check "$name: library output equals tool output" cmp "$xml" "$xml.api"
}

# One note line on stderr, naming the binary.
note_checks() {
    local xml=$1 name=$2
    if [ "$(wc -l <"$xml.err")" -eq 1 ] && grep -q "note:" "$xml.err"; then pass; else
        bad "$name: expected one note on stderr, got: $(cat "$xml.err")"
    fi
}

test_c() {
    local src=$STRUCT_PROGRAMS/struct_prog.c lines opt bin xml a
    lines=$(grep -n '/\* @stmt known \*/' "$src" | cut -d: -f1 | tr '\n' ' ')
    [ -n "$lines" ] || { bad "no @stmt markers in $src"; return; }
    for opt in -O0 -O2 -O3; do
        bin=$work/struct_prog$opt
        xml=$bin.xml
        "$CC" $opt -g -o "$bin" "$src" || { bad "$CC $opt -g failed"; continue; }
        run_struct "$bin" "$xml"
        common_checks "$bin" "$xml" "C $opt -g"
        [ ! -s "$xml.err" ] && pass || bad "C $opt -g: unexpected stderr: $(cat "$xml.err")"
        for f in main known caller step; do
            check "C $opt: procedure $f" "$STRUCT_CHECK" proc "$xml" "$f"
            a=$(sym_addr "$bin" "$f")
            check "C $opt: lookup $f at 0x$a" "$STRUCT_CHECK" lookup "$xml" "$a" "$f"
            check "C $opt: lookup $f at 0x$a+1" "$STRUCT_CHECK" lookup "$xml" \
                "$(printf '%x' $((16#$a + 1)))" "$f"
        done
        check "C $opt: helper_inl inlined into caller" "$STRUCT_CHECK" inline "$xml" caller helper_inl
        # shellcheck disable=SC2086
        check "C $opt: statements for lines $lines" "$STRUCT_CHECK" stmts "$xml" known \
            struct_prog.c $lines
        check "C $opt: has statements" "$STRUCT_CHECK" count "$xml" S 10
    done
}

test_cxx() {
    local src=$STRUCT_PROGRAMS/struct_prog_cxx.cc opt bin xml a
    for opt in "-O0 -g" "-O2 -g" "-O2"; do
        bin=$work/struct_prog_cxx${opt// /}
        xml=$bin.xml
        # shellcheck disable=SC2086
        "$CXX" $opt -o "$bin" "$src" || { bad "$CXX $opt failed"; continue; }
        run_struct "$bin" "$xml"
        common_checks "$bin" "$xml" "C++ $opt"
        check "C++ $opt: demangled method" "$STRUCT_CHECK" proc "$xml" "shapes::Rect::area() const"
        check "C++ $opt: demangled template" "$STRUCT_CHECK" proc "$xml" "double twice<double>(double)"
        a=$(sym_addr "$bin" _ZNK6shapes4Rect4areaEv)
        check "C++ $opt: lookup Rect::area" "$STRUCT_CHECK" lookup "$xml" "$a" \
            "shapes::Rect::area() const"
        grep -q 'ln="_ZNK6shapes4Rect4areaEv"' "$xml" && pass || bad "C++ $opt: link name missing"
    done
}

test_nodebug() {
    local src=$STRUCT_PROGRAMS/struct_prog.c bin=$work/struct_prog_nodebug xml a
    xml=$bin.xml
    "$CC" -O2 -o "$bin" "$src" || { bad "$CC -O2 failed"; finish; }
    run_struct "$bin" "$xml"
    common_checks "$bin" "$xml" "no -g"
    note_checks "$xml" "no -g"
    for f in main known caller step; do
        check "no -g: procedure $f" "$STRUCT_CHECK" proc "$xml" "$f"
        a=$(sym_addr "$bin" "$f")
        check "no -g: lookup $f" "$STRUCT_CHECK" lookup "$xml" "$a" "$f"
    done
    grep -q '<S ' "$xml" && bad "no -g: statements without line info" || pass
    a=$(sym_addr "$bin" alias_local)
    check "no -g: aliases resolve to the global name" "$STRUCT_CHECK" lookup "$xml" "$a" alias_global
    grep -q 'n="alias_weak"\|n="alias_local"' "$xml" && bad "no -g: alias listed twice" || pass
}

test_stripped() {
    local src=$STRUCT_PROGRAMS/struct_prog.c bin=$work/struct_prog_strip xml a f
    xml=$bin.xml
    "$CC" -O2 -g -o "$bin.full" "$src" || { bad "$CC -O2 -g failed"; finish; }
    strip -o "$bin" "$bin.full" || skip "strip failed"
    run_struct "$bin" "$xml"
    common_checks "$bin" "$xml" "stripped"
    note_checks "$xml" "stripped"
    check "stripped: procedures" "$STRUCT_CHECK" count "$xml" P 5
    # .eh_frame keeps static functions apart: each gets its own procedure.
    for f in known caller step main; do
        a=$(sym_addr "$bin.full" "$f")
        check "stripped: $f at 0x$a is its own procedure" "$STRUCT_CHECK" lookup "$xml" "$a" \
            "$(basename "$bin")+0x$a"
    done
}

# DWARF in a separate debug file: found by .gnu_debuglink and by build-id.
test_debugfile() {
    local src=$STRUCT_PROGRAMS/struct_prog.c bin=$work/dl bid xml
    "$CC" -O2 -g -o "$bin" "$src" || { bad "$CC -O2 -g failed"; finish; }
    cp "$bin" "$work/dl2"
    objcopy --only-keep-debug "$bin" "$bin.debug" || skip "objcopy failed"
    strip --strip-debug "$bin" && objcopy --add-gnu-debuglink="$bin.debug" "$bin" ||
        skip "strip/objcopy failed"
    xml=$bin.xml
    run_struct "$bin" "$xml"
    common_checks "$bin" "$xml" "debuglink"
    check "debuglink: helper_inl inlined into caller" "$STRUCT_CHECK" inline "$xml" caller helper_inl
    check "debuglink: statements" "$STRUCT_CHECK" stmts "$xml" known struct_prog.c 31

    bid=$(readelf -n "$work/dl2" | awk '/Build ID:/ { print $3 }')
    [ -n "$bid" ] || skip "no build-id in test binary"
    mkdir -p "$work/debugroot/.build-id/${bid:0:2}"
    objcopy --only-keep-debug "$work/dl2" "$work/debugroot/.build-id/${bid:0:2}/${bid:2}.debug"
    strip --strip-debug "$work/dl2"
    xml=$work/dl2.xml
    CSPROF_DEBUG_DIR=$work/debugroot run_struct "$work/dl2" "$xml"
    [ "$rc" -eq 0 ] && pass || bad "build-id debug file: exit $rc"
    check "build-id debug file: inlined call" "$STRUCT_CHECK" inline "$xml" caller helper_inl
    grep -q "build-id=\"$bid\"" "$xml" && pass || bad "build-id attribute is not $bid"
    run_struct "$work/dl2" "$xml" # without the debug root: no DWARF, a note
    note_checks "$xml" "build-id debug file absent"

    # The note says which file would name it: the build-id path looked for
    # (under the root given) and, for a file a Debian package owns, the
    # package's -dbgsym (dpkg's file lists, here a database of our own).
    mkdir -p "$work/emptyroot" "$work/dpkg/info"
    CSPROF_DEBUG_DIR=$work/emptyroot DPKG_ADMINDIR=$work/dpkg run_struct "$work/dl2" "$xml"
    note_checks "$xml" "note without a package"
    grep -qF "looked for $work/emptyroot/.build-id/${bid:0:2}/${bid:2}.debug;" "$xml.err" && pass ||
        bad "the note does not name the build-id path looked for: $(cat "$xml.err")"
    grep -q 'dbgsym' "$xml.err" && bad "a -dbgsym named for a file no package owns" || pass
    printf '/.\n/usr\n%s\n' "$work/dl2" >"$work/dpkg/info/csprof-test-pkg:amd64.list"
    printf '/.\n/usr\n%s\n' "$work/dl2.other" >"$work/dpkg/info/another-pkg.list"
    CSPROF_DEBUG_DIR=$work/emptyroot DPKG_ADMINDIR=$work/dpkg run_struct "$work/dl2" "$xml"
    note_checks "$xml" "note with a package"
    grep -qF "install csprof-test-pkg-dbgsym (the debug symbols of Debian package csprof-test-pkg)" \
        "$xml.err" && pass || bad "the note does not name the package's -dbgsym: $(cat "$xml.err")"
    grep -qF "$work/emptyroot/.build-id/${bid:0:2}/${bid:2}.debug" "$xml.err" && pass ||
        bad "the note with a package lost the build-id path: $(cat "$xml.err")"

    # The .gnu_debuglink name under the debug root, as Debian's older -dbg
    # packages lay it out: DIR/<binary's directory>/<debuglink>.  Without
    # the root, the note names the debuglink it looked for.
    "$CC" -O1 -g -o "$work/dl3" "$src" || { bad "$CC -O1 -g failed"; finish; }
    objcopy --only-keep-debug "$work/dl3" "$work/dl3.dbg" && strip --strip-debug "$work/dl3" &&
        objcopy --add-gnu-debuglink="$work/dl3.dbg" "$work/dl3" || skip "strip/objcopy failed"
    mkdir -p "$work/linkroot$work" && mv "$work/dl3.dbg" "$work/linkroot$work/dl3.dbg"
    xml=$work/dl3.xml
    CSPROF_DEBUG_DIR=$work/linkroot run_struct "$work/dl3" "$xml"
    [ "$rc" -eq 0 ] && [ ! -s "$xml.err" ] && pass ||
        bad "debuglink under the debug root: exit $rc: $(cat "$xml.err")"
    check "debuglink under the debug root: inlined call" "$STRUCT_CHECK" inline "$xml" caller helper_inl
    check "debuglink under the debug root: statements" "$STRUCT_CHECK" stmts "$xml" known struct_prog.c 31
    CSPROF_DEBUG_DIR=$work/emptyroot DPKG_ADMINDIR=$work/dpkg run_struct "$work/dl3" "$xml"
    note_checks "$xml" "debuglink, no debug root"
    grep -qF " and its .gnu_debuglink dl3.dbg;" "$xml.err" && pass ||
        bad "the note does not name the .gnu_debuglink looked for: $(cat "$xml.err")"
}

# A Debian binary the system has no debug file for: the note names the
# package that owns it, as dpkg-query -S finds it (also through a merged-/usr
# alias: dpkg lists /lib/x86_64-linux-gnu/liblzma.so.5.4.1, the kernel shows
# /usr/lib/...), and that package's -dbgsym.
test_dbgsym() {
    local f real pkg xml n=0
    command -v dpkg-query >/dev/null || skip "not a dpkg system (no dpkg-query)"
    for f in /usr/bin/xz /lib/x86_64-linux-gnu/liblzma.so.5 /usr/bin/bzip2; do
        [ -e "$f" ] || continue
        real=$(readlink -f "$f")
        pkg=$(dpkg-query -S "$real" "${real#/usr}" 2>/dev/null | head -n 1 | sed 's/[:,].*//')
        [ -n "$pkg" ] || continue
        xml=$work/dbgsym.xml
        run_struct "$real" "$xml"
        [ "$rc" -eq 0 ] || { bad "$real: exit $rc: $(cat "$xml.err")"; continue; }
        grep -q 'note: .*no DWARF' "$xml.err" || continue # its debug file is installed
        n=$((n + 1))
        note_checks "$xml" "$real"
        grep -qF "install $pkg-dbgsym (the debug symbols of Debian package $pkg)" "$xml.err" && pass ||
            bad "$real (package $pkg): the note does not name $pkg-dbgsym: $(cat "$xml.err")"
    done
    [ "$n" -gt 0 ] || skip "no stripped Debian binary without debug file found (xz-utils, liblzma5, bzip2)"
}

# debuginfod (DEBUGINFOD_URLS): a local server (elfutils' debuginfod, on a
# loopback port) serves the debug file of a stripped binary that has none on
# disk; libdwfl fetches it through libdebuginfod into DEBUGINFOD_CACHE_PATH.
# Names and lines must come back, from the server and then from that cache
# with the server gone; the structure cache must not keep an entry made
# without DWARF once debuginfod is configured; the note says debuginfod was
# asked when it has nothing.
dfd_pid=""
stop_debuginfod() {
    if [ -n "$dfd_pid" ]; then
        kill "$dfd_pid" 2>/dev/null
        wait "$dfd_pid" 2>/dev/null
    fi
    dfd_pid=""
}

test_debuginfod() {
    local src=$STRUCT_PROGRAMS/struct_prog.c bin=$work/di srv=$work/srv bid port i url xml
    command -v debuginfod >/dev/null && command -v debuginfod-find >/dev/null ||
        skip "debuginfod is not installed (Debian: apt-get install debuginfod)"
    "$CC" -O2 -g -o "$bin.full" "$src" || { bad "$CC -O2 -g failed"; finish; }
    bid=$(readelf -n "$bin.full" | awk '/Build ID:/ { print $3 }')
    [ -n "$bid" ] || skip "no build-id in test binary"
    mkdir -p "$srv" "$work/emptyroot"
    objcopy --only-keep-debug "$bin.full" "$srv/di.debug" && strip -o "$bin" "$bin.full" ||
        skip "objcopy/strip failed"
    # A free loopback port: the server says when it listens; another try on a clash.
    for i in 1 2 3 4 5; do
        port=$((20000 + (RANDOM * 7 + i * 1009) % 40000))
        debuginfod -F -p "$port" -d "$work/dfd-$i.sqlite" -t 0 -g 0 -c 1 "$srv" \
            >"$work/dfd-$i.log" 2>&1 &
        dfd_pid=$! # global: the EXIT trap stops the server
        trap 'stop_debuginfod; rm -rf "$work"' EXIT
        for _ in $(seq 50); do
            grep -q 'started http server' "$work/dfd-$i.log" && break
            kill -0 "$dfd_pid" 2>/dev/null || break
            sleep 0.1
        done
        grep -q 'started http server' "$work/dfd-$i.log" && break
        stop_debuginfod
    done
    [ -n "$dfd_pid" ] || skip "debuginfod did not start: $(tail -n 2 "$work/dfd-$i.log" | tr '\n' ' ')"
    url=http://127.0.0.1:$port
    # Wait (at most 20 s) until its scan has indexed the file: each try with a
    # cache of its own, as the client also caches that a file is missing.
    for i in $(seq 100); do
        DEBUGINFOD_URLS=$url DEBUGINFOD_CACHE_PATH=$work/poll$i debuginfod-find debuginfo "$bid" \
            >/dev/null 2>&1 && break
        sleep 0.2
    done
    [ "$i" -lt 100 ] || { bad "debuginfod never served build-id $bid"; finish; }
    export DEBUGINFOD_CACHE_PATH=$work/dcache DEBUGINFOD_TIMEOUT=10
    unset DEBUGINFOD_PROGRESS

    # The structure cache first holds an entry made without debuginfod: no DWARF.
    check "structure cache entry without DWARF" env -u DEBUGINFOD_URLS \
        "$STRUCT_CHECK" cached "$work/scache" "$bin" "$work/c0.xml"
    grep -q '<S ' "$work/c0.xml" && bad "statements without any debug information" || pass

    xml=$bin.xml
    export DEBUGINFOD_URLS=$url CSPROF_DEBUG_DIR=$work/emptyroot
    run_struct "$bin" "$xml"
    common_checks "$bin" "$xml" "debuginfod"
    [ ! -s "$xml.err" ] && pass || bad "debuginfod: unexpected stderr: $(cat "$xml.err")"
    check "debuginfod: procedure caller" "$STRUCT_CHECK" proc "$xml" caller
    check "debuginfod: helper_inl inlined into caller" "$STRUCT_CHECK" inline "$xml" caller helper_inl
    check "debuginfod: statements" "$STRUCT_CHECK" stmts "$xml" known struct_prog.c 31
    [ -s "$work/dcache/$bid/debuginfo" ] && pass || bad "debuginfod: nothing in its client cache"
    check "debuginfod: the structure cache analyzes again" \
        "$STRUCT_CHECK" cached "$work/scache" "$bin" "$work/c1.xml"
    check "debuginfod: ... and gets the same structure" cmp "$xml" "$work/c1.xml"

    stop_debuginfod
    run_struct "$bin" "$work/c2.xml"
    [ "$rc" -eq 0 ] && pass || bad "debuginfod cache: exit $rc: $(cat "$work/c2.xml.err")"
    check "debuginfod cache, server gone: the same structure" cmp "$xml" "$work/c2.xml"

    # A build-id no server knows: no DWARF, and the note says debuginfod was asked.
    "$CC" -O1 -g -o "$bin.other" "$src" && strip "$bin.other" || { bad "second build failed"; finish; }
    run_struct "$bin.other" "$work/o.xml"
    note_checks "$work/o.xml" "debuginfod without the file"
    grep -qF "and asked debuginfod (DEBUGINFOD_URLS)" "$work/o.xml.err" && pass ||
        bad "the note does not say debuginfod was asked: $(cat "$work/o.xml.err")"
}

# expect_error NAME FILE [ARGS...]: exit 1, nothing on stdout, one line
# on stderr that names FILE.
expect_error() {
    local name=$1 file=$2 out=$work/err.out
    shift 2
    "$CSPROF_STRUCT" "$@" >"$out" 2>"$out.err"
    rc=$?
    if [ "$rc" -ne 1 ]; then
        bad "$name: exit $rc, expected 1 ($(head -c 200 "$out.err"))"
    elif [ -s "$out" ]; then
        bad "$name: wrote to stdout"
    elif [ "$(wc -l <"$out.err")" -ne 1 ] || ! grep -qF "$file" "$out.err"; then
        bad "$name: expected one line naming $file, got: $(cat "$out.err")"
    else
        pass
        echo "  $name: $(cat "$out.err")"
    fi
}

# patch_machine SRC DST MACHINE: copy an ELF with e_machine (offset 18) replaced.
patch_machine() {
    cp "$1" "$2" && printf "$3" | dd of="$2" bs=1 seek=18 conv=notrunc status=none
}

test_errors() {
    local src=$STRUCT_PROGRAMS/struct_prog.c bin=$work/prog size
    "$CC" -O2 -g -o "$bin" "$src" || { bad "$CC failed"; finish; }
    "$CC" -O2 -c -o "$work/prog.o" "$src" || { bad "$CC -c failed"; finish; }
    echo "just some text" >"$work/text.txt"
    : >"$work/empty"
    head -c 100 /bin/ls >"$work/ls100" 2>/dev/null || head -c 100 "$bin" >"$work/ls100"
    size=$(stat -c %s "$bin")
    head -c $((size / 2)) "$bin" >"$work/half"
    patch_machine "$bin" "$work/aarch64" '\267\000'
    patch_machine "$bin" "$work/i386" '\003\000'
    ar rc "$work/lib.a" "$work/prog.o"

    expect_error "missing file" "$work/missing" "$work/missing"
    expect_error "directory" "$work" "$work"
    expect_error "text file" "$work/text.txt" "$work/text.txt"
    expect_error "empty file" "$work/empty" "$work/empty"
    expect_error "truncated ELF (100 bytes)" "$work/ls100" "$work/ls100"
    expect_error "truncated ELF (half)" "$work/half" "$work/half"
    expect_error "aarch64 ELF" "$work/aarch64" "$work/aarch64"
    grep -q "AArch64" "$work/err.out.err" && pass || bad "aarch64: machine not named"
    expect_error "i386 ELF" "$work/i386" "$work/i386"
    grep -q "i386" "$work/err.out.err" && pass || bad "i386: machine not named"
    expect_error "object file" "$work/prog.o" "$work/prog.o"
    expect_error "ar archive" "$work/lib.a" "$work/lib.a"
    expect_error "unwritable output" "/nonexistent-dir/x.xml" -o /nonexistent-dir/x.xml "$bin"
    "$CSPROF_STRUCT" >/dev/null 2>&1
    [ $? -eq 2 ] && pass || bad "no argument: expected exit 2"
    "$CSPROF_STRUCT" --help | grep -q "usage:" && pass || bad "--help"
    "$CSPROF_STRUCT" -V | grep -q "csprof-struct" && pass || bad "-V"
}

# A real i386 ELF (the crafted one is in test_errors).
test_errors_m32() {
    echo 'int main(void){return 0;}' | "$CC" -m32 -x c -o "$work/m32" - 2>/dev/null ||
        skip "$CC -m32 cannot link (no 32-bit libc installed)"
    expect_error "gcc -m32 ELF" "$work/m32" "$work/m32"
}

# system_check FILE: the common checks on an installed (stripped) system binary.
system_check() {
    local f=$1 xml
    [ -r "$f" ] || skip "$f is not installed"
    xml=$work/$(basename "$f").xml
    run_struct "$f" "$xml"
    common_checks "$f" "$xml" "$f"
    check "$f: procedures" "$STRUCT_CHECK" count "$xml" P 50
}

test_system() {
    system_check /usr/bin/xz
}

test_system_liblzma() {
    local lib=/lib/x86_64-linux-gnu/liblzma.so.5 xml a
    system_check "$lib"
    # Exported functions keep their names; internal ones are split by .eh_frame.
    xml=$work/liblzma.so.5.xml
    check "liblzma: lzma_code" "$STRUCT_CHECK" proc "$xml" lzma_code
    a=$(nm -D "$lib" | awk '$3 ~ /^lzma_code(@|$)/ { print $1; exit }')
    if [ -n "$a" ]; then
        check "liblzma: lookup lzma_code" "$STRUCT_CHECK" lookup "$xml" \
            "$(printf '%x' $((16#$a + 4)))" lzma_code
    else
        bad "liblzma: nm -D finds no lzma_code"
    fi
}

# read_error NAME TEXT CONTENT: reading CONTENT fails with a message containing TEXT.
read_error() {
    printf '%s\n' "$3" >"$work/bad.xml"
    check "reader: $1" "$STRUCT_CHECK" readerr "$work/bad.xml" "$2"
}

test_readerr() {
    local head='<?xml version="1.0" encoding="UTF-8"?>'
    check "reader: missing file" "$STRUCT_CHECK" readerr "$work/missing.xml" "missing.xml: cannot open"
    read_error "not XML" "bad.xml:1:" "this is not xml"
    read_error "unclosed element" "bad.xml:" "$head
<csprof-structure version=\"1\">
 <LM i=\"1\" n=\"x\">"
    read_error "wrong version" "version" "$head
<csprof-structure version=\"9\"/>"
    read_error "wrong root" "bad.xml:2:" "$head
<hpc-structure version=\"1\"/>"
    read_error "bad ranges (line 5)" "bad.xml:5:" "$head
<csprof-structure version=\"1\">
 <LM i=\"1\" n=\"x\">
  <F i=\"2\" n=\"a.c\">
   <P i=\"3\" n=\"f\" v=\"0x20-0x10\"/>
  </F>
 </LM>
</csprof-structure>"
    read_error "S directly under F (line 4)" "bad.xml:4:" "$head
<csprof-structure version=\"1\">
 <LM i=\"1\" n=\"x\">
  <F i=\"2\" n=\"a.c\"><S i=\"3\" l=\"1\" v=\"0x1-0x2\"/></F>
 </LM>
</csprof-structure>"
    read_error "missing id (line 4)" "bad.xml:4:" "$head
<csprof-structure version=\"1\">
 <LM i=\"1\" n=\"x\">
  <F n=\"a.c\"/>
 </LM>
</csprof-structure>"
    # Only the DTD knows the attribute set: validation runs while streaming.
    read_error "undeclared attribute (line 5)" "bad.xml:5: No declaration for attribute zz" "$head
<csprof-structure version=\"1\">
 <LM i=\"1\" n=\"x\">
  <F i=\"2\" n=\"a.c\">
   <P i=\"3\" n=\"f\" zz=\"1\" v=\"0x10-0x20\"/>
  </F>
 </LM>
</csprof-structure>"
    # The DTD cannot check numbers: the reader's own checks catch this one.
    read_error "bad line number (line 5)" "bad.xml:5:" "$head
<csprof-structure version=\"1\">
 <LM i=\"1\" n=\"x\">
  <F i=\"2\" n=\"a.c\">
   <P i=\"3\" n=\"f\" l=\"-4\" v=\"0x10-0x20\"/>
  </F>
 </LM>
</csprof-structure>"
    # A hand-written file with a loop scope and escaped names reads and rewrites.
    printf '%s\n' "$head" '<csprof-structure version="1">' \
        ' <LM i="1" n="/a&amp;b" build-id="00ff">' \
        '  <F i="2" n="&lt;unknown file&gt;">' \
        '   <P i="3" n="f&lt;int&gt;" ln="_Z1fIiEvv" v="0x10-0x40">' \
        '    <L i="4" f="/x.c" l="7" v="0x10-0x30">' \
        '     <S i="5" f="/x.c" l="8" v="0x10-0x20"/>' \
        '    </L>' \
        '   </P>' \
        '  </F>' \
        ' </LM>' \
        '</csprof-structure>' >"$work/good.xml"
    check "reader: loop scope file is DTD valid" xmllint --noout --dtdvalid "$STRUCT_DTD" "$work/good.xml"
    check "reader: loop scope file reads" "$STRUCT_CHECK" rewrite "$work/good.xml" "$work/good.rt"
    check "reader: loop scope file round trips" cmp "$work/good.xml" "$work/good.rt"
    check "reader: lookup in a loop" "$STRUCT_CHECK" lookup "$work/good.xml" 15 "f<int>"
}

# loops_test LANG SRC COMPILER: compile SRC with COMPILER at -O0, -O2 and
# -O3 (and the flags in LOOPS_CFLAGS); check the annotated loops and calls
# (normalized output), the schema and invariants of both the normalized and
# the raw (-n) output, and byte-identical output for -j 1 and -j 4.  Skipped
# (77) when COMPILER is not installed: each compiler is its own mode.
loops_test() {
    local lang=$1 src=$2 cc=$3 opt bin xml name
    command -v "$cc" >/dev/null 2>&1 || skip "$cc is not installed: $lang loops not compiled with it"
    for opt in 0 2 3; do
        name="$lang $(basename "$cc") -O$opt${LOOPS_CFLAGS:+ ${LOOPS_CFLAGS:-}}"
        bin=$work/loops_$(basename "$cc")_O$opt
        xml=$bin.xml
        # shellcheck disable=SC2086 # LOOPS_CFLAGS is a list of flags
        "$cc" -O$opt -g ${LOOPS_CFLAGS:-} -o "$bin" "$src" || { bad "$name: compile failed"; continue; }
        "$CSPROF_STRUCT" -j 4 "$bin" >"$xml" 2>"$xml.err"
        rc=$?
        [ "$rc" -eq 0 ] && pass || bad "$name: exit $rc: $(cat "$xml.err")"
        [ ! -s "$xml.err" ] && pass || bad "$name: unexpected stderr: $(cat "$xml.err")"
        check "$name: DTD valid" xmllint --noout --dtdvalid "$STRUCT_DTD" "$xml"
        check "$name: invariants" "$STRUCT_CHECK" invariants "$xml"
        check "$name: annotated loops and calls" "$STRUCT_CHECK" loops "$xml" "$src" "$opt"
        check "$name: round trip" "$STRUCT_CHECK" rewrite "$xml" "$xml.rt"
        check "$name: round trip gives identical bytes" cmp "$xml" "$xml.rt"
        check "$name: -j 1" "$CSPROF_STRUCT" -j 1 -o "$xml.j1" "$bin"
        check "$name: -j 1 and -j 4 give identical bytes" cmp "$xml" "$xml.j1"
        check "$name: -n" "$CSPROF_STRUCT" -n -o "$xml.raw" "$bin"
        check "$name: -n DTD valid" xmllint --noout --dtdvalid "$STRUCT_DTD" "$xml.raw"
        check "$name: -n invariants" "$STRUCT_CHECK" invariants "$xml.raw"
        if grep -q "<L " "$xml.raw"; then pass; else bad "$name: -n output has no loops"; fi
    done
}

test_loops_c() {
    loops_test C "$STRUCT_PROGRAMS/loops_c.c" "$CC"
}

test_loops_c_clang() {
    loops_test C "$STRUCT_PROGRAMS/loops_c.c" "${CLANG:-clang}"
}

test_loops_cxx() {
    loops_test C++ "$STRUCT_PROGRAMS/loops_cxx.cc" "$CXX"
}

test_loops_cxx_clang() {
    loops_test C++ "$STRUCT_PROGRAMS/loops_cxx.cc" "${CLANGXX:-clang++}"
}

# Position-independent (label tables filled in by RELATIVE relocations) and
# fixed-address (label tables of absolute addresses in .rodata) builds.
test_loops_interp() {
    loops_test C "$STRUCT_PROGRAMS/loops_interp.c" "$CC"
    LOOPS_CFLAGS="-no-pie -fno-pie" loops_test C "$STRUCT_PROGRAMS/loops_interp.c" "$CC"
}

test_loops_interp_clang() {
    loops_test C "$STRUCT_PROGRAMS/loops_interp.c" "${CLANG:-clang}"
    LOOPS_CFLAGS="-no-pie -fno-pie" loops_test C "$STRUCT_PROGRAMS/loops_interp.c" "${CLANG:-clang}"
}

test_loops_f90() {
    loops_test Fortran "$STRUCT_PROGRAMS/loops_f90.f90" "${FC:-gfortran}"
}

# The structure cache (struct_analyze_cached): entries keyed by build-id,
# trusted only for the same file (size, time, path), written atomically.
test_cache() {
    local bin=$work/cprog cache=$work/cache bid entry i n
    "$CC" -O2 -g -o "$bin" "$STRUCT_PROGRAMS/struct_prog.c" || { bad "$CC -O2 -g failed"; finish; }
    bid=$(readelf -n "$bin" | awk '/Build ID:/ { print $3 }')
    [ -n "$bid" ] || skip "no build-id in test binary"
    entry=$cache/$bid-n0.struct
    check "cache: plain analysis" "$STRUCT_CHECK" analyze "$bin" "$work/plain.xml"
    check "cache: miss" "$STRUCT_CHECK" cached "$cache" "$bin" "$work/c1.xml"
    [ -f "$entry" ] && pass || bad "cache: no entry $entry"
    check "cache: miss gives the plain analysis" cmp "$work/plain.xml" "$work/c1.xml"
    check "cache: entry is a valid structure file" xmllint --noout --dtdvalid "$STRUCT_DTD" "$entry"
    check "cache: hit" "$STRUCT_CHECK" cached "$cache" "$bin" "$work/c2.xml"
    check "cache: hit gives the plain analysis" cmp "$work/plain.xml" "$work/c2.xml"
    # Mark the entry (its key kept): a run that shows the mark read the entry.
    sed -i 's/n="caller"/n="cached_caller"/' "$entry"
    "$STRUCT_CHECK" cached "$cache" "$bin" "$work/c3.xml" >/dev/null 2>&1
    grep -q 'n="cached_caller"' "$work/c3.xml" && pass || bad "cache: the entry was not used"
    cp -p "$bin" "$work/cprog2" # same build-id, size and time; another path
    "$STRUCT_CHECK" cached "$cache" "$work/cprog2" "$work/c4.xml" >/dev/null 2>&1
    grep -q 'n="cached_caller"' "$work/c4.xml" && bad "cache: entry used for another path" || pass
    sed -i 's/n="caller"/n="cached_caller"/' "$entry"
    touch -d '@1' "$bin" # same build-id, another modification time
    "$STRUCT_CHECK" cached "$cache" "$bin" "$work/c5.xml" >/dev/null 2>&1
    grep -q 'n="cached_caller"' "$work/c5.xml" && bad "cache: entry used for a changed file" || pass
    check "cache: changed file analyzed again" cmp "$work/plain.xml" "$work/c5.xml"
    # A damaged entry whose key still matches: read fails, the binary is analyzed.
    sed -i '0,/ v="0x/s// v="zz/' "$entry"
    check "cache: damaged entry ignored" "$STRUCT_CHECK" cached "$cache" "$bin" "$work/c5b.xml"
    check "cache: damaged entry gives the plain analysis" cmp "$work/plain.xml" "$work/c5b.xml"
    head -c 300 "$entry" >"$entry.cut" && mv "$entry.cut" "$entry"
    touch -d '@2' "$bin"
    check "cache: truncated entry ignored" "$STRUCT_CHECK" cached "$cache" "$bin" "$work/c6.xml"
    check "cache: truncated entry gives the plain analysis" cmp "$work/plain.xml" "$work/c6.xml"
    rm -rf "$cache"
    for i in 1 2 3 4; do
        "$STRUCT_CHECK" cached "$cache" "$bin" "$work/p$i.xml" >/dev/null 2>&1 &
    done
    wait
    for i in 1 2 3 4; do
        check "cache: concurrent run $i" cmp "$work/plain.xml" "$work/p$i.xml"
    done
    [ -z "$(find "$cache" -name '.tmp-*')" ] && pass || bad "cache: temporary files left"
    "$STRUCT_CHECK" cached "$cache" "$bin" "$work/p5.xml" >/dev/null 2>&1
    check "cache: entry of concurrent runs" cmp "$work/plain.xml" "$work/p5.xml"
    cp "$bin" "$work/cstripped" && strip "$work/cstripped"
    "$STRUCT_CHECK" cached "$cache" "$work/cstripped" "$work/s1.xml" >"$work/s1.note" 2>&1
    "$STRUCT_CHECK" cached "$cache" "$work/cstripped" "$work/s2.xml" >"$work/s2.note" 2>&1
    grep -q "^note: " "$work/s2.note" && cmp -s "$work/s1.note" "$work/s2.note" && pass ||
        bad "cache: note lost on a hit: $(cat "$work/s2.note")"
    "$CC" -O2 -g -Wl,--build-id=none -o "$work/nobid" "$STRUCT_PROGRAMS/struct_prog.c" ||
        skip "cannot link with --build-id=none"
    n=$(find "$cache" -type f | wc -l)
    check "cache: no build-id" "$STRUCT_CHECK" cached "$cache" "$work/nobid" "$work/nb.xml"
    [ "$(find "$cache" -type f | wc -l)" -eq "$n" ] && pass || bad "cache: entry for a binary without build-id"
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
    echo "struct_test.sh: unknown mode '$mode' (modes: $(modes | tr '\n' ' '))" >&2
    exit 2
fi
: "${CSPROF_STRUCT:?}" "${STRUCT_CHECK:?}" "${STRUCT_PROGRAMS:?}" "${STRUCT_DTD:?}"
export CSPROF_SCHEMA_DIR=${CSPROF_SCHEMA_DIR:-$(dirname "$STRUCT_DTD")}
"test_${mode//-/_}"
finish
