# SPDX-License-Identifier: BSD-3-Clause
# lib.sh -- helpers for the end-to-end tests (sourced by each test script).
# The environment gives CSPROF_BIN (tools), CSPROF_EXAMPLES (built examples),
# CSPROF_SCHEMAS (share/schemas).  Each test works in a fresh temporary
# directory, counts its checks with test/harness.sh, and ends with "N passed, N failed".
set -u
. "$(dirname "${BASH_SOURCE[0]}")/../harness.sh" # check, pass, bad, skip, finish
work=$(mktemp -d /tmp/csprof-test.XXXXXX)
trap 'rm -rf "$work"' EXIT
cd "$work" || exit 1
PATH=$CSPROF_BIN:$PATH

# xp DB XPATH: evaluate an XPath expression on DB/experiment.xml, print the result.
xp() { xmllint --huge --xpath "$2" "$1/experiment.xml" 2>/dev/null; }

# validate DB: the database conforms to the experiment DTD.
validate() { xmllint --huge --noout --dtdvalid "$CSPROF_SCHEMAS/experiment.dtd" "$1/experiment.xml"; }

# proc_ids DB NAME: indices of every procedure named NAME (space separated).
proc_ids() { xp "$1" "//Procedure[@n='$2']/@i" | sed 's/ i="\([0-9]*\)"/\1 /g'; }

# metric_id DB EVENT inclusive|exclusive
metric_id() { xp "$1" "string(//Metric[@event='$2'][@t='$3'][not(@stat)][not(@formula)]/@i)"; }

# or_ids ATTR IDS...: XPath predicate matching any of the ids.
or_ids() { local a=$1 out="" id; shift; for id in "$@"; do out="$out${out:+ or }@$a='$id'"; done; echo "${out:-false()}"; }

# incl_under DB EVENT CALLEE CALLER: inclusive EVENT of the outermost CALLEE frames
# whose nearest enclosing procedure frame is CALLER.
incl_under() {
    local db=$1 ev=$2 callee caller m
    callee=$(or_ids n $(proc_ids "$db" "$3")); caller=$(or_ids n $(proc_ids "$db" "$4"))
    m=$(metric_id "$db" "$ev" inclusive)
    xp "$db" "sum(//PF[$callee][not(ancestor::PF[$callee])][ancestor::PF[1][$caller]]/M[@n='$m']/@v)"
}

# incl_of DB EVENT PROC: inclusive EVENT of the outermost frames of PROC.
incl_of() {
    local db=$1 p m
    p=$(or_ids n $(proc_ids "$db" "$3")); m=$(metric_id "$db" "$2" inclusive)
    xp "$db" "sum(//PF[$p][not(ancestor::PF[$p])]/M[@n='$m']/@v)"
}

# incl_within DB EVENT PROC ANCESTOR: inclusive EVENT of the outermost frames of PROC that
# have a frame of ANCESTOR anywhere above them.
incl_within() {
    local db=$1 p a m
    p=$(or_ids n $(proc_ids "$db" "$3")); a=$(or_ids n $(proc_ids "$db" "$4"))
    m=$(metric_id "$db" "$2" inclusive)
    xp "$db" "sum(//PF[$p][not(ancestor::PF[$p])][ancestor::PF[$a]]/M[@n='$m']/@v)"
}

# ledger DB EVENT PART: a part of EVENT's ledger in DB's trust report (raw unit: ns for
# time events), e.g. ledger db CPUTIME dropped (docs/trust.md).
ledger() { xp "$1" "string(//Trust/Ledger[@event='$2']/@$3)"; }

# between X LO HI: LO <= X <= HI, as floating point.
between() { awk -v x="$1" -v lo="$2" -v hi="$3" 'BEGIN { exit !(x >= lo && x <= hi) }'; }
