#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# fmt_fuzz.sh -- build the libFuzzer target fmt_fuzz.c with clang
# (-fsanitize=fuzzer,address,undefined) from the lib/fmt sources and run it
# for FUZZ_SECONDS (default 30) over a seed corpus of real measurement files:
# csrun's profiles of a small threaded program (one file of several records),
# and cut and corrupted copies of them.  Fails on any crash, leak, hang or
# sanitizer report.  Exit 77 (skipped, with the reason) when clang or its
# libFuzzer runtime is missing.
#
#   fmt_fuzz.sh SOURCE_DIR BIN_DIR      (BIN_DIR holds csrun)
#
# Ends with "N passed, N failed".
set -u
src=${1:?usage: fmt_fuzz.sh SOURCE_DIR BIN_DIR}
bin=${2:?usage: fmt_fuzz.sh SOURCE_DIR BIN_DIR}
seconds=${FUZZ_SECONDS:-30}
CLANG=${CLANG:-clang}
work=$(mktemp -d "${TMPDIR:-/tmp}/fmt_fuzz.XXXXXX") || exit 1
trap 'rm -rf "$work"' EXIT
[ -n "${FUZZ_KEEP:-}" ] && trap - EXIT

. "$src/test/harness.sh"
fail() { die "$@"; }

command -v "$CLANG" > /dev/null || skip "$CLANG not installed"
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
    > "$work/probe.c"
"$CLANG" -fsanitize=fuzzer "$work/probe.c" -o "$work/probe" 2> /dev/null ||
    skip "clang cannot link -fsanitize=fuzzer (install libclang-rt-dev for libFuzzer)"

san="-fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined"
flags="-std=c11 -g -O1 -D_GNU_SOURCE -I$src/lib"
objs=()
for f in "$src"/lib/fmt/*.c "$src"/lib/support/{hashmap,search,sysio_sig,vec}.c \
    "$src"/test/unit/fmt/fmt_fuzz.c; do
    o=$work/$(basename "$f").o
    # shellcheck disable=SC2086
    "$CLANG" $flags $san -c "$f" -o "$o" || fail "compiling $f"
    objs+=("$o")
done
"$CLANG" -fsanitize=fuzzer,address,undefined "${objs[@]}" -o "$work/fmt_fuzz" ||
    fail "linking the fuzzer"

# Seed corpus: a real measurement file (a process of 3 threads: several
# records, checkpoints possible), one record alone, and cut copies.
mkdir -p "$work/corpus"
cat > "$work/seed.c" << 'C'
#include <pthread.h>
static volatile double sink;
static void *burn(void *a) { double s = 0; for (long i = 0; i < 30000000L; i++) s += i * 0.5; sink = s; return a; }
int main(void) { pthread_t t[2]; for (int i = 0; i < 2; i++) pthread_create(&t[i], 0, burn, 0);
    burn(0); for (int i = 0; i < 2; i++) pthread_join(t[i], 0); return 0; }
C
cc -O1 -g -pthread -o "$work/seed" "$work/seed.c" || skip "cc cannot compile the seed program"
"$bin/csrun" -q -e CPUTIME@1000 -o "$work/m" "$work/seed" ||
    fail "csrun could not profile the seed program"
n=0
for m in "$work"/m/*.cspm; do
    [ -f "$m" ] || continue
    n=$((n + 1))
    cp "$m" "$work/corpus/whole$n"
    size=$(stat -c %s "$m")
    head -c $((size / 3)) "$m" > "$work/corpus/first_third$n"
    head -c $((size - 5)) "$m" > "$work/corpus/cut_end$n"
done
[ "$n" -gt 0 ] || fail "csrun wrote no measurement file"
printf 'CSPROFM\0' > "$work/corpus/magic_only"

ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 \
    "$work/fmt_fuzz" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
    -max_len=262144 -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" > "$work/fuzz.log" 2>&1
rc=$?
grep -E "^(==[0-9]+==|SUMMARY|ALARM|stat::)|^    #[0-9] " "$work/fuzz.log" | head -40
[ "$rc" -eq 0 ] || fail "fuzzer exit $rc (crash, leak, timeout or sanitizer report above)"
pass "$n measurement file(s) in the seed corpus, fuzzed for $seconds s"
finish
