#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""analyze.py -- the counting and table-making half of bench/run.sh.

A tool-side helper (never runs inside a profiled process).  run.sh runs the
programs and calls this script to read each profiler's own output:

  analyze.py csprof  EXPERIMENT_XML      csprof-prof database
  analyze.py gperf   PROGRAM PROFILE...  gperftools CPU profiles
  analyze.py perf    < perf-script-text  `perf script -F comm,pid,tid,period,ip,sym`
  analyze.py summarize RESULTS_TSV PROGRAMS TOOLS UNAVAILABLE_TSV

The first three print one line "SAMPLES MAIN_PCT ROOT_PCT" where
  SAMPLES   samples in the profile,
  MAIN_PCT  percent of those whose call stack holds a frame named `main`,
  ROOT_PCT  percent whose stack reaches a root: holds `main`,
            `__libc_start_call_main` (glibc's caller of main: the same test
            for a stripped program such as Debian's xz, whose main has no
            symbol in any tool) or `start_thread` (glibc's root of every
            pthread: worker threads never pass through main).
A value that cannot be computed is printed as "nan".  `summarize` turns the
per-run TSV written by run.sh into markdown tables on stdout.

Errors: one line on stderr naming the file and the problem, exit status 1.
"""

import math
import re
import statistics
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET

MAIN = "main"
ROOTS = {"main", "__libc_start_call_main", "start_thread"}


def die(msg):
    print(f"analyze.py: {msg}", file=sys.stderr)
    sys.exit(1)


def pct(part, whole):
    return 100.0 * part / whole if whole > 0 else math.nan


def emit(samples, in_main, in_root):
    print(f"{samples} {pct(in_main, samples):.2f} {pct(in_root, samples):.2f}")


# ---------------------------------------------------------------- csprof


def csprof(path):
    """Walk the merged CCT; a subtree under the first frame (PF or inlined A)
    named main / a root name counts its inclusive samples once."""
    try:
        root = ET.parse(path).getroot()
    except (OSError, ET.ParseError) as e:
        die(f"{path}: cannot read the experiment database: {e}")
    summary = root.find("Summary")
    if summary is None:
        die(f"{path}: no Summary element")
    total = int(summary.get("samples", "0"))
    procs = {p.get("i"): p.get("n", "") for p in root.iter("Procedure")}
    metric = None
    for m in root.iter("Metric"):
        if m.get("event") == "samples" and m.get("t") == "inclusive":
            metric = m.get("i")
    if metric is None:
        die(f"{path}: no inclusive samples metric in the MetricTable")

    def inclusive(node):
        for m in node.findall("M"):
            if m.get("n") == metric:
                return float(m.get("v"))
        return 0.0

    def walk(node, names):
        hit = 0.0
        for child in node:
            if child.tag in ("PF", "A") and procs.get(child.get("n")) in names:
                hit += inclusive(child)
            elif child.tag != "M":
                hit += walk(child, names)
        return hit

    data = root.find(".//SecCallPathProfileData")
    if data is None:
        die(f"{path}: no SecCallPathProfileData element")
    emit(total, walk(data, {MAIN}), walk(data, ROOTS))


# ---------------------------------------------------------------- gperftools


def gperf_raw_samples(path):
    """Sum of the sample counts of a gperftools CPU profile (legacy binary
    format: native words; header 0, 3, 0, period_us, 0; then records
    count, depth, pc[depth]; the trailer record is 0, 1, 0)."""
    with open(path, "rb") as f:
        data = f.read()
    w = struct.Struct("<Q")
    if len(data) < 5 * 8 or w.unpack_from(data, 0)[0] != 0 or w.unpack_from(data, 8)[0] != 3:
        raise ValueError("not a 64-bit gperftools CPU profile")
    off, total = 5 * 8, 0
    while off + 16 <= len(data):
        count, depth = w.unpack_from(data, off)[0], w.unpack_from(data, off + 8)[0]
        if count == 0 and depth == 1:
            return total
        total += count
        off += 16 + 8 * depth
    raise ValueError("truncated profile (no trailer record)")


def gperf(program, profiles):
    total = 0
    for p in profiles:
        try:
            total += gperf_raw_samples(p)
        except (OSError, ValueError) as e:
            die(f"{p}: {e}")
    # Stacks from pprof's symbolization: one "f1;f2;...;leaf COUNT" a line,
    # names may carry an "<address>" suffix.
    seen = in_main = in_root = 0
    for p in profiles:
        try:
            out = subprocess.run(
                ["google-pprof", "--collapsed", program, p],
                capture_output=True, text=True, check=True, timeout=300,
            ).stdout
        except (OSError, subprocess.SubprocessError) as e:
            print(f"{total} nan nan")
            print(f"analyze.py: {p}: google-pprof failed: {e}", file=sys.stderr)
            return
        for line in out.splitlines():
            stack, _, count = line.rpartition(" ")
            if not stack or not count.isdigit():
                continue
            names = {re.sub(r"<[0-9a-fA-Fx]+>$", "", f) for f in stack.split(";")}
            n = int(count)
            seen += n
            in_main += n if MAIN in names else 0
            in_root += n if names & ROOTS else 0
    print(f"{total} {pct(in_main, seen):.2f} {pct(in_root, seen):.2f}")


# ---------------------------------------------------------------- perf

PERF_HEADER = re.compile(r"^(\S.*?)\s+(\d+)/(\d+)\s+(\d+)\s*:?\s*$")


def perf():
    """Samples from `perf script`: a header line, then one tab-indented
    "addr symbol" line per frame, then a blank line.  Samples of the
    /usr/bin/time wrapper (comm "time") are left out."""
    samples = in_main = in_root = 0
    names, comm = set(), None

    def flush():
        nonlocal samples, in_main, in_root
        if comm is not None and comm != "time":
            samples += 1
            in_main += MAIN in names
            in_root += bool(names & ROOTS)

    for line in sys.stdin:
        line = line.rstrip("\n")
        if not line.strip():
            continue
        if not line[0].isspace():
            m = PERF_HEADER.match(line)
            if not m:
                continue
            flush()
            comm, names = m.group(1).strip(), set()
        else:
            parts = line.split(None, 1)
            if len(parts) == 2:
                names.add(re.sub(r" \(inlined\)$", "", parts[1]).split("+0x")[0])
    flush()
    emit(samples, in_main, in_root)


# ---------------------------------------------------------------- summarize

LABELS = {
    "base": "unprofiled",
    "csrun": "csrun CPUTIME@1000",
    "gperf": "gperftools 1000 Hz",
    "perf": "perf -F 1000 dwarf",
}


def fnum(x, fmt):
    return "n/a" if x is None or math.isnan(x) else format(x, fmt)


def med(xs):
    xs = [x for x in xs if not math.isnan(x)]
    return statistics.median(xs) if xs else math.nan


def size(b):
    if math.isnan(b):
        return "n/a"
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= scale:
            return f"{b / scale:.1f} {unit}"
    return f"{b:.0f} B"


def summarize(results, programs, tools, unavailable):
    runs = {}
    with open(results) as f:
        for line in f:
            if line.startswith("#") or not line.strip():
                continue
            prog, tool, rep, rc, wall, cpu, samples, nbytes, mainp, rootp, note = (
                line.rstrip("\n").split("\t") + [""] * 11
            )[:11]
            runs.setdefault((prog, tool), []).append(
                dict(rep=rep, ok=rc == "0", rc=rc, wall=float(wall), cpu=float(cpu),
                     samples=float(samples), bytes=float(nbytes),
                     main=float(mainp), root=float(rootp), note=note)
            )
    missing = {}
    with open(unavailable) as f:
        for line in f:
            tool, _, why = line.rstrip("\n").partition("\t")
            if tool:
                missing[tool] = why

    print("| program | tool | overhead × median (min–max) | CPU × | wall s | CPU s | samples "
          "| samples / CPU-s | data written | main % | root % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for prog in programs.split(","):
        base = {r["rep"]: r for r in runs.get((prog, "base"), []) if r["ok"]}
        for tool in tools.split(","):
            label = LABELS.get(tool, tool)
            if tool in missing:
                print(f"| {prog} | {label} | n/a ({missing[tool]}) | | | | | | | | |")
                continue
            rs = runs.get((prog, tool), [])
            ok = [r for r in rs if r["ok"]]
            if not ok:
                why = "; ".join(sorted({r["note"] or f"exit {r['rc']}" for r in rs})) or "not run"
                print(f"| {prog} | {label} | n/a ({why}) | | | | | | | | |")
                continue
            failed = len(rs) - len(ok)
            flag = f" [{failed}/{len(rs)} runs failed]" if failed else ""
            wall = med([r["wall"] for r in ok])
            cpu = med([r["cpu"] for r in ok])
            if tool == "base":
                print(f"| {prog} | {label}{flag} | 1 (reference) | 1 | {wall:.2f} | {fnum(cpu, '.2f')} "
                      "| – | – | – | – | – |")
                continue
            ratios = [r["wall"] / base[r["rep"]]["wall"] for r in ok if r["rep"] in base]
            ovh = (f"{statistics.median(ratios):.2f} ({min(ratios):.2f}–{max(ratios):.2f})"
                   if ratios else "n/a (no baseline)")
            cpus = [r["cpu"] / base[r["rep"]]["cpu"] for r in ok
                    if r["rep"] in base and base[r["rep"]]["cpu"] > 0]
            rate = med([r["samples"] / r["cpu"] if r["cpu"] > 0 else math.nan for r in ok])
            notes = sorted({r["note"] for r in ok if r["note"]})
            extra = f" ({'; '.join(notes)})" if notes else ""
            print(f"| {prog} | {label}{flag} | {ovh} | {fnum(med(cpus), '.2f')} | {wall:.2f} | {fnum(cpu, '.2f')} "
                  f"| {fnum(med([r['samples'] for r in ok]), '.0f')} | {fnum(rate, '.0f')} "
                  f"| {size(med([r['bytes'] for r in ok]))} | {fnum(med([r['main'] for r in ok]), '.1f')} "
                  f"| {fnum(med([r['root'] for r in ok]), '.1f')}{extra} |")


def main(argv):
    if len(argv) >= 2 and argv[1] == "csprof" and len(argv) == 3:
        csprof(argv[2])
    elif len(argv) >= 4 and argv[1] == "gperf":
        gperf(argv[2], argv[3:])
    elif len(argv) == 2 and argv[1] == "perf":
        perf()
    elif len(argv) == 6 and argv[1] == "summarize":
        summarize(*argv[2:])
    else:
        die("usage: analyze.py csprof XML | gperf PROGRAM PROFILE... | perf < SCRIPT"
            " | summarize RESULTS PROGRAMS TOOLS UNAVAILABLE")


if __name__ == "__main__":
    main(sys.argv)
