#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The conformance corpus (test/conformance/cases.json), csprof-report's side.

Each case names a hand-built database (an experiment.xml of the source tree),
a view and the viewer's transforms; this runner maps the transforms onto
csprof-report's options (transform_args below: the one place they are
mapped), runs csprof-report --format json, turns its rows into the corpus's
normal form (cases.json's "rows" field) and
compares them with the case's hand-derived "expect".  The viewer's side is
conformance_viewer.js, on the same cases.

  conformance_report.py CSPROF_REPORT SRC GENERATED OUT

SRC is the source tree, GENERATED the directory of the databases made at
test time (threads_db.sh), OUT a scratch directory.
"""
import json
import os
import shutil
import subprocess
import sys


def ere(name):
    """@name as a POSIX extended regular expression matching it alone."""
    return "^" + "".join("\\" + c if c in ".[]()*+?{}|^$\\" else c for c in name) + "$"


# viewer transform -> csprof-report options (None: the report has no such transform)
def transform_args(x):
    t = x["t"]
    if t == "focus-function":
        return ["--focus", ere(x["name"])]
    if t == "hide":
        return ["--hide", ere(x["name"])]
    if t == "hide-lib":
        return ["--hide-lib", x["lib"]]
    if t == "collapse-recursion":
        return ["--collapse-recursion"]
    if t == "hide-loops":
        return []  # with "--loops hide" below
    if t == "hide-inlines":
        return ["--inlines", "merge"]
    if t == "hide-statements":
        return []  # the report never shows statement nodes: their cost is their loop's or frame's
    return None  # focus-subtree (a node index): the viewer's only


def skip_reason(case):
    """Why csprof-report cannot run @case, or None."""
    if case.get("only") == "viewer":
        return case["reason"]
    for x in case.get("transforms", []):
        if transform_args(x) is None:
            return "transform %s: viewer only" % x["t"]
    return None


def label(n, at=True):
    """A node's name in the normal form: frames and inlined frames with the
    line of their call site (@LINE) when known and @at."""
    k = n["kind"]
    cs = n.get("callsite", {}).get("line", 0) if at else 0
    at_line = "@%d" % cs if cs else ""
    if k == "inline":
        return "[inline] " + n["name"] + at_line
    if k == "frame":
        return n["name"] + at_line
    return n["name"]


def run(report, args):
    r = subprocess.run([report] + args, capture_output=True, text=True)
    if r.returncode != 0:
        raise RuntimeError("%s %s: exit %d: %s" % (report, " ".join(args), r.returncode, r.stderr))
    return json.loads(r.stdout)


def rows_of(case, j):
    view = case["view"]
    rows = {}
    if view == "diff":
        byid = {}
        for n in j["contexts"]:
            byid[n["id"]] = n
            p = byid.get(n["parent"])
            cs = n.get("current_callsite_line", n.get("callsite_line")) if p else None
            n["path"] = (p["path"] + " > " if p else "") + n["name"] + ("@%d" % cs if cs else "")
            rows[n["path"]] = [n["base"]["inclusive"], n["current"]["inclusive"]] + (n["interval"] or [])
        return rows
    if view == "threads":  # per procedure: its value in each thread (index order), the statistics
        for c in j["contexts"][1:]:
            if c["name"] in rows:
                raise RuntimeError("%s: procedure %s in more than one context" % (case["name"], c["name"]))
            t = c["threads"]
            vals = [0] * len(j["threads"])
            for v in t["values"]:
                vals[v["index"]] = v["inclusive"]
            rows[c["name"]] = vals
            rows[c["name"] + " statistics"] = [t["n"], t["sum"], t["mean"], t["min"], t["max"], t["stddev"], t["cv"]]
        return rows
    byid = {}
    if view == "top-down" and not case.get("derived"):
        rows["(root)"] = [j["root"]["inclusive"], j["root"]["exclusive"], 0]
    for n in j["nodes"]:
        byid[n["id"]] = n
        p = byid.get(n["parent"])
        if view == "top-down":
            n["path"] = (p["path"] + " > " + label(n) if p else label(n, False))
            rows[n["path"]] = n["derived"] if case.get("derived") else [n["inclusive"], n["exclusive"], n.get("calls", 0)]
        elif view == "bottom-up":
            if n["depth"] == 1:
                rows[label(n, False)] = [n["inclusive"], n["exclusive"], n.get("calls", 0)]
            elif n["depth"] == 2:  # direct callers, summed over their call-site lines
                k = label(p, False) + " < " + label(n, False)
                r = rows.setdefault(k, [0, 0])
                r[0] += n["inclusive"]
                r[1] += n["exclusive"]
        elif view == "flat":
            rows[label(n, False)] = [n["inclusive"], n["exclusive"]]
    return rows


def same(a, b):
    return abs(a - b) <= 1e-6 * max(1.0, abs(a), abs(b))


def compare(name, got, want):
    bad = []
    for k in sorted(set(got) | set(want)):
        if k not in got or k not in want:
            bad.append("%s: row %r: report %s, expected %s" % (name, k, got.get(k, "(none)"), want.get(k, "(none)")))
        elif len(got[k]) != len(want[k]) or not all(same(x, y) for x, y in zip(got[k], want[k])):
            bad.append("%s: row %r: report %s, expected %s" % (name, k, got[k], want[k]))
    return bad


def main():
    report, src, gen, out = sys.argv[1:5]
    corpus = json.load(open(os.path.join(src, "test", "conformance", "cases.json")))
    shutil.rmtree(out, ignore_errors=True)
    os.makedirs(out)
    dbs = {}
    for name, xml in corpus["databases"].items():
        d = os.path.join(out, name)
        if xml.startswith("generated:"):  # made by csprof-prof at test time (threads_db.sh)
            shutil.copytree(os.path.join(gen, xml[len("generated:"):]), d)
        else:
            os.makedirs(d)
            shutil.copy(os.path.join(src, xml), os.path.join(d, "experiment.xml"))
        dbs[name] = d
    ran, skipped, failed, known = 0, {}, [], []
    for case in corpus["cases"]:
        why = skip_reason(case)
        if why is not None:
            skipped[why] = skipped.get(why, 0) + 1
            continue
        args = ["--format", "json", "--keep-roots", "--threshold", "0", "--limit", "0", "--depth", "1000"]
        hide_loops = False
        for x in case.get("transforms", []):
            args += transform_args(x)
            hide_loops = hide_loops or x["t"] == "hide-loops"
        if case.get("metric") or case.get("derived"):
            args += ["--metric", case.get("derived") or case["metric"]]
        if case["view"] == "threads":
            args += ["--view", "threads", "--focus", "|".join(ere(p) for p in case["procedures"]), dbs[case["db"]]]
        elif case["view"] == "diff":
            args += ["--diff", dbs[case["base"]], dbs[case["db"]]]
        else:
            args += ["--loops", "hide" if hide_loops else "keep", "--view", case["view"]]
            if case["view"] == "flat":  # from the tree; a "stored" case: the stored static view
                args += ["--by", case["by"]] + ([] if case.get("stored") else ["--recompute"])
            args.append(dbs[case["db"]])
        bad = compare(case["name"], rows_of(case, run(report, args)), case["expect"])
        ran += 1
        diff = case.get("known_diff")
        if diff and diff.get("side") == "report":
            print("known difference %s: %s" % (case["name"], diff["reason"]))
            if not bad:
                failed.append("%s: marked known_diff on the report's side but the report now agrees: remove the mark" % case["name"])
            known.append(case["name"])
            continue
        failed += bad
    for f in failed:
        print("MISMATCH " + f)
    print("conformance_report: %d case(s) run, %d known difference(s) (%s)" % (ran, len(known), ", ".join(known) or "none"))
    for why, n in sorted(skipped.items()):
        print("  skipped %d: %s" % (n, why))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
