# SPDX-License-Identifier: BSD-3-Clause
# thread_stats.sh -- sourced by reliability scripts after lib.sh.
# rel_threads DIR [EVENT]: one line per thread profile found in DIR's
# measurement files, whatever their layout (one file per thread or per
# process): "INDEX CPU_NS RECORDED EVENT_SAMPLES BLOCKED", read from
# csprof-prof --dump (EVENT defaults to REL_EVENT's name; BLOCKED is the
# thread.sampling_blocked counter, "?" when absent).  A file that does not
# parse contributes nothing.
rel_threads() {
    local f ev=${2:-${REL_EVENT%@*}}
    for f in "$1"/*.cspm; do
        [ -e "$f" ] && csprof-prof --dump "$f" 2> /dev/null
    done | awk -v ev="event.$ev.samples" '
        function flush() { if (idx != "") print idx, cpu, rec + 0, s + 0, b == "" ? "?" : b }
        $1 == "header" {
            flush(); idx = ""; cpu = 0; rec = 0; s = 0; b = ""
            for (i = 2; i <= NF; i++) {
                split($i, kv, "=")
                if (kv[1] == "thread_index") idx = kv[2]
                if (kv[1] == "cpu_ns") cpu = kv[2]
            }
        }
        $1 == "stat" { split($3, v, "=") }
        $1 == "stat" && $2 == "name=\"samples.recorded\"" { rec = v[2] }
        $1 == "stat" && $2 == "name=\"" ev "\"" { s = v[2] }
        $1 == "stat" && $2 == "name=\"thread.sampling_blocked\"" { b = v[2] }
        END { flush() }'
}
