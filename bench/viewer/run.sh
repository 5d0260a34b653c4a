#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
#
# run.sh -- the viewer at scale (issue 9): a database of about NODES
# calling-context nodes (default 1 000 000), csprof-prof's time and peak
# memory to write it, and the viewer's time to ready and per interaction in
# headless Chromium.  Not a test (numbers depend on the machine and its load).
#
#   bench/viewer/run.sh [BUILD_DIR] [NODES] [REPS]      defaults: build 1000000 3
#
# gen_db writes 4 thread profiles with the lib/fmt writer: call paths of
# depth 10 to 60 with a skewed fan-out through the real procedures of four
# load modules (csprof-prof's own binary, libc with libc6-dbg's DWARF,
# libstdc++, libxml2), so csprof-prof maps every address through real
# structure (loops, inlined code, lines).  csprof-struct writes the
# structure files first (timed apart); csprof-prof -S then merges (GNU time
# -v: wall, CPU, peak RSS).  measure.js opens DB/index.html over file:// in
# headless Chromium and times the interactions (see its header).  Until
# csprof-prof writes a viewer, a placeholder page loading a data file of
# the same node count is timed (ready only); once it does, the placeholder
# on the viewer's own data file is timed too, as the baseline of the same
# run (the viewer's ready time / the placeholder's is the load-independent
# figure).  BENCH_KEEP=DIR keeps the
# files in DIR.  Needs nm, /usr/bin/time, node and chromium.
set -u
build=${1:-build}
nodes=${2:-1000000}
reps=${3:-3}
here=$(cd "$(dirname "$0")" && pwd)
prof=$build/bin/csprof-prof
gen=$build/bin/gen_db
struct=$build/bin/csprof-struct
for t in "$prof" "$gen" "$struct"; do
    [ -x "$t" ] || { echo "run.sh: $t missing: build first (cmake --build $build)" >&2; exit 1; }
done
[ -x /usr/bin/time ] || { echo "run.sh: /usr/bin/time (GNU time) is not installed" >&2; exit 1; }
command -v node > /dev/null || { echo "run.sh: node is not installed (scripts/setup.sh)" >&2; exit 1; }
if [ -n "${BENCH_KEEP:-}" ]; then
    tmp=$BENCH_KEEP
    rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
else
    tmp=$(mktemp -d) || exit 1
    trap 'rm -rf "$tmp"' EXIT
fi
libdir=/lib/x86_64-linux-gnu
mods=("$(readlink -f "$prof")" "$libdir/libc.so.6" "$libdir/libstdc++.so.6" "$libdir/libxml2.so.2")
specs=() sopts=()
for m in "${mods[@]}"; do
    [ -f "$m" ] || { echo "run.sh: $m not found" >&2; exit 1; }
    b=$(basename "$m")
    nm -S --defined-only "$m" > "$tmp/$b.syms" 2> /dev/null
    [ -s "$tmp/$b.syms" ] || nm -D -S --defined-only "$m" > "$tmp/$b.syms"
    specs+=("$m=$tmp/$b.syms")
    sopts+=(-S "$tmp/$b.struct")
done

echo "# csprof viewer at scale: $(date -u '+%Y-%m-%d %H:%M UTC'), $(nproc) cores, load: $(cut -d' ' -f1-3 /proc/loadavg)"
echo "reproduce: bench/viewer/run.sh $build $nodes $reps"
echo
t0=$(date +%s.%N)
for m in "${mods[@]}"; do
    "$struct" "$m" > "$tmp/$(basename "$m").struct" 2>> "$tmp/struct.err" || { echo "run.sh: csprof-struct $m failed" >&2; exit 1; }
done
t1=$(date +%s.%N)
awk -v a="$t0" -v b="$t1" 'BEGIN { printf "csprof-struct of the 4 modules: %.1f s\n", b - a }'

# csprof-prof makes about 1.27 calling-context nodes (frames, inlined frames,
# loops, statements: the nodes of csprof-report and of the viewer) of one
# measurement node here.
mkdir "$tmp/m"
"$gen" "$tmp/m" $((nodes * 100 / 127)) 4 "${specs[@]}" 2> "$tmp/gen.err" || { cat "$tmp/gen.err" >&2; exit 1; }
echo "measurement files: $(ls "$tmp/m" | wc -l), $(du -sh "$tmp/m" | cut -f1), $(awk '{ n += $3 } END { print n }' "$tmp/gen.err") nodes in all"
/usr/bin/time -v "$prof" -q "${sopts[@]}" -o "$tmp/db" "$tmp/m" > /dev/null 2> "$tmp/time.txt" ||
    { cat "$tmp/time.txt" >&2; exit 1; }
awk -F': ' '/Elapsed \(wall/ { w = $2 } /User time/ { u = $2 } /System time/ { s = $2 }
    /Maximum resident/ { r = $2 }
    END { printf "csprof-prof: %s wall, %.1f s CPU, peak RSS %.0f MB\n", w, u + s, r / 1024 }' "$tmp/time.txt"
dbnodes=$(($(grep -o '<PF \|<A \|<L \|<S ' "$tmp/db/experiment.xml" | wc -l) + 1))
echo "database: $dbnodes calling-context nodes (the root and experiment.xml's PF, A, L, S elements); $(du -sh "$tmp/db" | cut -f1) on disk"
[ -d "$tmp/db/viewer" ] && echo "viewer data: $(du -ch "$tmp/db/viewer"/*.js | tail -1 | cut -f1) in DB/viewer/*.js"
echo
if [ -f "$tmp/db/index.html" ]; then
    node "$here/measure.js" "$tmp/db" "$reps"
    echo
    echo "Baseline in the same run: placeholder.html on the same DB/viewer/data.js (load the"
    echo "data, one inclusive pass, 40 rows): the floor of any viewer of this data file."
    mkdir -p "$tmp/ph/viewer"
    cp "$here/placeholder.html" "$tmp/ph/"
    cp "$here/../../share/viewer/model-data.js" "$tmp/ph/viewer/"
    ln -s "$tmp/db/viewer/data.js" "$tmp/ph/viewer/data.js"
    node "$here/measure.js" "$tmp/ph" "$reps" --placeholder
else
    echo "(csprof-prof wrote no DB/index.html: timing the placeholder page with a data file of $dbnodes nodes)"
    mkdir -p "$tmp/ph/viewer"
    cp "$here/placeholder.html" "$tmp/ph/"
    cp "$here/../../share/viewer/model-data.js" "$tmp/ph/viewer/"
    python3 "$here/placeholder_data.py" "$dbnodes" > "$tmp/ph/viewer/data.js" || exit 1
    node "$here/measure.js" "$tmp/ph" "$reps" --placeholder
fi
