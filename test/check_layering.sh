#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# The module layering of docs/ARCHITECTURE.md, checked on the code: every
# #include of a csprof module ("m/..." or <m/...>, m a directory of lib/) in
# lib/ and tools/ must be allowed by the table below, must name the module's
# public header when it crosses a module boundary, and must name a file that
# exists; a bare #include "x.h" must name a file in the including file's own
# directory.  The table itself must keep the layering's rules (acyclic,
# lib/support at the bottom, nothing above lib/monitor's internals, the
# analysis side apart from the signal-path modules), so that a failure is not
# "fixed" by widening a row past them.  Each failure names file, line and include.
set -u
cd "$(dirname "$0")/.." || exit 1

# Which modules each module (or tool) may include, besides itself.  Derived
# from the code as it is; a new dependency is a deliberate edit of this table
# and of docs/ARCHITECTURE.md's graph.
#   bottom:             support (headers only, no csprof module below it)
#   measurement side:   fmt, cct, unwind, trampoline; monitor (libcsprof.so) over them
#   analysis side:      structure, trust, profile, report, export, viewer
#   tools:              csrun, csprof-struct, csprof-prof, csprof-report
declare -A may=(
    [support]=""
    [fmt]="support"
    [cct]="support"
    [unwind]="support"
    [trampoline]="support cct unwind"
    [monitor]="support fmt cct unwind trampoline"
    [structure]="support"
    [trust]="support fmt"
    [profile]="support fmt structure trust"
    [report]="support trust"
    [export]="support report"
    [viewer]="support report export"
    [tools/csrun]="support fmt trust"
    [tools/csprof-struct]="support structure"
    [tools/csprof-prof]="support fmt structure profile report export viewer"
    [tools/csprof-report]="support report export trust"
)

# The header(s) other modules may include.  lib/support is a set of
# independent headers, all public except *_internal.h; lib/monitor has none
# (libcsprof.so's interface is its overrides, lib/monitor/libcsprof.map):
# mon_*.h are its own.  Everything else of a module (*_internal.h, arch/,
# structure's cfg.h and loopnest.h, ...) is private to it.
declare -A public=(
    [fmt]="fmt/fmt.h"
    [cct]="cct/cct.h"
    [unwind]="unwind/uw.h"
    [trampoline]="trampoline/tramp.h"
    [monitor]=""
    [structure]="structure/structure.h"
    [trust]="trust/trust.h"
    [profile]="profile/profile.h"
    [report]="report/report.h"
    [export]="export/export.h"
    [viewer]="viewer/viewer.h"
)

# Known exceptions: "FILE INCLUDE  reason" for an include the rules above
# forbid but the code needs for now, e.g.
#   "lib/report/view.c profile/profile_internal.h  (why; the issue that removes it)"
# None today.
exceptions=(
)

analysis="structure trust profile report export viewer"
signal_path="cct unwind trampoline monitor"
fail=0
failed() { echo "FAILED: $*"; fail=$((fail + 1)); }
in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

# --- the table keeps the rules --------------------------------------------
for d in lib/*/; do
    m=$(basename "$d")
    [ -n "${may[$m]+x}" ] || failed "lib/$m has no row in test/check_layering.sh's table"
    [ "$m" = support ] || [ -n "${public[$m]+x}" ] ||
        failed "lib/$m has no entry in test/check_layering.sh's public headers"
done
for m in "${!public[@]}"; do
    for h in ${public[$m]}; do
        [ -f "lib/$h" ] || failed "table: the public header lib/$h of $m does not exist"
    done
done
for d in tools/*/; do
    t=tools/$(basename "$d")
    [ -n "${may[$t]+x}" ] || failed "$t has no row in test/check_layering.sh's table"
done
[ -z "${may[support]}" ] || failed "table: support is the bottom layer and includes no module (has: ${may[support]})"
for m in "${!may[@]}"; do
    for u in ${may[$m]}; do
        [ -d "lib/$u" ] || failed "table: $m lists $u, which is no directory of lib/"
        [ "$u" = monitor ] && failed "table: $m lists monitor; lib/monitor's headers are its own"
        if in_list "$m" "$analysis" || [ "${m#tools/}" != "$m" ]; then
            in_list "$u" "$signal_path" &&
                failed "table: $m (analysis side or tool) lists $u (the signal path's)"
        fi
    done
done
# acyclic: repeatedly remove modules whose row lists only removed modules
left=" ${!may[*]} "
while :; do
    progress=0
    for m in $left; do
        ok=1
        for u in ${may[$m]}; do in_list "$u" "$left" && ok=0; done
        if [ $ok -eq 1 ]; then left=${left/ $m / }; progress=1; fi
    done
    [ $progress -eq 1 ] || break
done
left=$(tr ' ' '\n' <<< "$left" | sort | xargs)
[ -z "$left" ] || failed "table: these rows are in a cycle or list a row that is: $left"

# --- the code keeps the table ---------------------------------------------
nincl=0
declare -A used=()
while IFS= read -r hit; do
    file=${hit%%:*}
    rest=${hit#*:}
    line=${rest%%:*}
    text=${rest#*:}
    [[ $text =~ ^[[:space:]]*#[[:space:]]*include[[:space:]]*([\"<])([^\">]*) ]] || continue
    quote=${BASH_REMATCH[1]}
    inc=${BASH_REMATCH[2]}
    case "$file" in
    lib/*) self=${file#lib/}; self=${self%%/*} ;;
    tools/*) self=${file#tools/}; self=tools/${self%%/*} ;;
    esac
    close='"'
    [ "$quote" = '<' ] && close='>'
    where="$file:$line: #include $quote$inc$close"
    if [ "$quote" = '"' ] && [[ $inc != */* ]]; then
        nincl=$((nincl + 1))
        [ -f "${file%/*}/$inc" ] ||
            failed "$where: no $inc beside $file (a header of another module is included as \"module/$inc\")"
        continue
    fi
    mod=${inc%%/*}
    [[ $inc == */* ]] && [ -d "lib/$mod" ] || continue # a system or library header
    nincl=$((nincl + 1))
    for e in "${exceptions[@]}"; do
        read -r ef ei _ <<< "$e"
        [ "$ef" = "$file" ] && [ "$ei" = "$inc" ] && used["$ef $ei"]=1 && continue 2
    done
    if [ ! -f "lib/$inc" ]; then
        failed "$where: lib/$inc does not exist"
    elif [ "$mod" = "$self" ]; then
        : # a module's own headers
    elif ! in_list "$mod" "${may[$self]-}"; then
        failed "$where: ${self} may not include $mod (its table row: ${may[$self]:-nothing})"
    elif [ "$mod" = support ]; then
        [[ $inc == *_internal.h ]] && failed "$where: $inc is private to support"
    elif ! in_list "$inc" "${public[$mod]-}"; then
        failed "$where: $inc is private to $mod (public: ${public[$mod]:-none})"
    fi
done < <(find lib tools -type f \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.S' \) -print0 |
    sort -z | xargs -0 grep -nE '^[[:space:]]*#[[:space:]]*include[[:space:]]*["<]' /dev/null |
    sed 's|^\./||')
for e in "${exceptions[@]}"; do
    read -r ef ei _ <<< "$e"
    [ -n "${used["$ef $ei"]+x}" ] || failed "exception \"$ef $ei\" matches no include: remove it from the table"
done
# --- struct tramp_thread's fields are the trampoline's ---------------------
# lib/monitor embeds struct tramp_thread in its thread block but goes through
# tramp.h's functions (the sampler's protocol, the overrides' calls): no
# field access (td->tramp.x, tt->x) outside lib/trampoline.
while IFS= read -r hit; do
    failed "${hit%%:*}:$(cut -d: -f2 <<< "$hit"): reads or writes a field of struct tramp_thread (private to lib/trampoline; use tramp.h's functions)"
done < <(grep -rnE '(->|\.)tramp\.[A-Za-z_]|\btt->' lib/monitor tools 2>/dev/null)
# --- the process state and the output file have one owner each -------------
# mon_process.h's MON_PROCESS_OWNER (write access to mon_proc) only in process.c;
# mon_output.h (the measurement file's state, mon_out) only in its writer, write.c
# and record_sig.c: everyone else reads mon_proc through its const view and
# reaches the file through mon_write.h's functions.
while IFS= read -r hit; do
    case ${hit%%:*} in
    lib/monitor/process.c | lib/monitor/process_sig.c) ;;
    *) failed "${hit%%:*}:$(cut -d: -f2 <<< "$hit"): defines MON_PROCESS_OWNER (only process.c writes the process state)" ;;
    esac
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*define[[:space:]]+MON_PROCESS_OWNER' lib tools 2>/dev/null)
while IFS= read -r hit; do
    case ${hit%%:*} in
    lib/monitor/write.c | lib/monitor/record_sig.c) ;;
    *) failed "${hit%%:*}:$(cut -d: -f2 <<< "$hit"): includes mon_output.h (private to the writer, write.c and record_sig.c)" ;;
    esac
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"monitor/mon_output\.h"' lib tools 2>/dev/null)

while IFS= read -r hit; do
    case ${hit%%:*} in
    lib/monitor/signals.c | lib/monitor/faults.c) ;;
    *) failed "${hit%%:*}:$(cut -d: -f2 <<< "$hit"): includes mon_fault.h (the program's dispositions: signals.c's record, faults.c's handlers)" ;;
    esac
done < <(grep -rnE '^[[:space:]]*#[[:space:]]*include[[:space:]]*"monitor/mon_fault\.h"' lib tools 2>/dev/null)
# --- each sample source's per-thread state is its own ----------------------
# struct mon_source_thread (mon_source.h), one per event in the thread block,
# holds each source's state side by side: the POSIX timer's (struct
# mon_timer_thread, mon_source_timer.h) is touched only in source_timer*.c,
# the perf sources' (struct mon_perf_thread, mon_source_perf.h) only in
# source_perf*.c and source_task_clock_sig.c.  Everyone else (source.c's
# dispatch, the sampler, the record writer) goes through mon_source.h's table
# or the functions those headers declare: no field of a slot (td->src[ev].x),
# no field of either state (x.timer.y, x->perf.y), and neither type named.
source_state() { # what, the regex of its use, the files that may use it
    local what=$1 re=$2 allowed=$3 hit
    while IFS= read -r hit; do
        in_list "${hit%%:*}" "$allowed" ||
            failed "${hit%%:*}:$(cut -d: -f2 <<< "$hit"): touches $what (private to its source's files; use mon_source.h's table or the source's functions)"
    done < <(grep -rnE "$re" lib/monitor tools 2>/dev/null)
}
timer_files="lib/monitor/source_timer.c lib/monitor/source_timer_sig.c"
perf_files="lib/monitor/source_perf.c lib/monitor/source_perf_sig.c lib/monitor/source_task_clock_sig.c"
source_state "the POSIX timer's per-thread state" '\bmon_timer_thread\b|(->|\.)timer\.[A-Za-z_]' \
    "$timer_files lib/monitor/mon_source_timer.h lib/monitor/mon_source.h"
source_state "the perf sources' per-thread state" '\bmon_perf_thread\b|(->|\.)perf\.[A-Za-z_]' \
    "$perf_files lib/monitor/mon_source_perf.h lib/monitor/mon_source.h"
source_state "a field of a source's per-thread slot" '\bsrc\[[^]]*\][[:space:]]*(\.|->)' \
    "$timer_files $perf_files"

# The include path follows the link graph: lib/ is on a target's include path only through a
# library it links (csp_library_includes) or the library sources it compiles itself
# (csp_lib_sources_includes), never for a whole directory by include_directories (test/ puts
# its own shared headers, test/csp_test.h, on its tests' path that way: not lib/).
while IFS= read -r hit; do
    failed "${hit%%:*}:$(cut -d: -f2 <<< "$hit"): lib/ on the include path of every target below; use target_include_directories (CMakeLists.txt: csp_library_includes)"
done < <(grep -rnE '^[[:space:]]*include_directories[[:space:]]*\([^)]*lib' --include=CMakeLists.txt --include='*.cmake' \
    CMakeLists.txt lib tools test examples bench 2>/dev/null)

echo "$nincl includes of csprof headers in lib/ and tools/ checked"
echo "$([ $fail -eq 0 ] && echo 1 || echo 0) passed, $fail failed"
[ $fail -eq 0 ]
