#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# struct_fuzz.sh -- build the libFuzzer target struct_fuzz.c with clang
# (-fsanitize=fuzzer,address,undefined) from the lib/structure sources and
# run it for FUZZ_SECONDS (default 20) over a seed corpus of small ELF
# files compiled here (with DWARF, stripped, truncated).  Fails on any
# crash, leak, hang or sanitizer report.  Exit 77 (skipped, with the
# reason) when clang, its libFuzzer runtime or pkg-config is missing.
#
#   struct_fuzz.sh SOURCE_DIR
#
# Ends with "N passed, N failed".
set -u
src=${1:?usage: struct_fuzz.sh SOURCE_DIR}
seconds=${FUZZ_SECONDS:-20}
CLANG=${CLANG:-clang}
CLANGXX=${CLANGXX:-clang++}
work=$(mktemp -d "${TMPDIR:-/tmp}/struct_fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
[ -n "${FUZZ_KEEP:-}" ] && trap - EXIT

. "$(dirname "$0")/../harness.sh"

command -v "$CLANG" >/dev/null && command -v "$CLANGXX" >/dev/null || skip "$CLANG/$CLANGXX not installed"
command -v pkg-config >/dev/null || skip "pkg-config not installed"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
    >"$work/probe.c"
"$CLANG" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2>/dev/null ||
    skip "clang cannot link -fsanitize=fuzzer (install libclang-rt-dev for libFuzzer)"

san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
flags="-g -O1 -D_GNU_SOURCE -DCSPROF_VERSION=\"fuzz\" -I$src/lib $(pkg-config --cflags libdw libelf libxml-2.0 capstone)"
objs=()
for f in "$src"/lib/structure/*.c "$src"/lib/structure/arch/x86_64/*.c "$src"/lib/support/*.c \
    "$src"/test/structure/struct_fuzz.c; do
    case "$f" in */lib/support/pmu.c) continue ;; esac # libpfm4: csrun and the monitor only
    o=$work/$(basename "$f").o
    # shellcheck disable=SC2086
    "$CLANG" -std=c11 $flags $san -c "$f" -o "$o" || die "compiling $f"
    objs+=("$o")
done
# shellcheck disable=SC2086
"$CLANGXX" -g -O1 $san -c "$src/lib/structure/demangle.cc" -I"$src/lib" -o "$work/demangle.o" || exit 1
# shellcheck disable=SC2086
"$CLANGXX" -fsanitize=fuzzer,address,undefined "${objs[@]}" "$work/demangle.o" \
    $(pkg-config --libs libdw libelf libxml-2.0 capstone) -lpthread -o "$work/struct_fuzz" ||
    die "linking the fuzzer"

# Seed corpus: small ELF files of the kinds the tool meets.
mkdir -p "$work/corpus"
printf 'int g(int n){int s=0;for(int i=0;i<n;i++){switch(i&3){case 0:s+=i;break;case 1:s^=i;break;case 2:s-=1;break;default:s*=3;}}return s;}\nint main(int c,char**v){(void)v;return g(c*9);}\n' >"$work/seed.c"
cc -g -O2 -o "$work/corpus/seed_O2" "$work/seed.c" || skip "cc cannot compile the seed program"
cc -g -O0 -o "$work/corpus/seed_O0" "$work/seed.c"
strip -o "$work/corpus/seed_stripped" "$work/corpus/seed_O2"
head -c 3000 "$work/corpus/seed_O2" >"$work/corpus/seed_truncated"
printf '\177ELF' >"$work/corpus/magic_only"

ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    "$work/struct_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=65536 -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?
grep -E "^(==[0-9]+==|SUMMARY|ALARM|stat::)|^    #[0-9] " "$work/fuzz.log" | head -40
[ "$rc" -eq 0 ] || die "fuzzer exit $rc (crash, leak, timeout or sanitizer report above)"
pass "fuzzer: no crash, leak, timeout or sanitizer report in ${seconds} s"
finish
