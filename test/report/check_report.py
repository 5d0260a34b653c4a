#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check_report.py -- checks of csprof-report's outputs for test/report/report_test.sh.

Each subcommand reads one output, checks its invariants, prints one number
(a total) or nothing, and exits 1 with a one-line reason when a check fails.

  tree JSON             top-down table: inclusive = exclusive + children's inclusive
                        at every node; prints the total
  rows JSON             bottom-up/flat table: prints the sum of the depth-1 exclusive values
  folded FILE           flamegraph input: every line 'f1;f2;...;fn N' (N an integer > 0,
                        no empty frame); prints the sum of N
  speedscope FILE [SCHEMA]  validates against speedscope's file-format-schema.json when
                        SCHEMA is given and python3-jsonschema is installed, else against the
                        documented schema by hand; events balanced, 'at' non-decreasing;
                        prints endValue
  pprof-top TEXT        'go tool pprof -top' output: prints the 'of N total' figure
  callgrind-annotate TEXT  callgrind_annotate output: prints the PROGRAM TOTALS of the first event
  callgrind-incl TEXT NAME  callgrind_annotate --inclusive=yes: prints NAME's inclusive cost
  flat-incl JSON NAME   flat table: prints NAME's inclusive value
  diff-zero JSON        diff output: every delta is 0
  names FILE NAME...    each NAME occurs in FILE (after JSON decoding for .json files)
"""
import json
import re
import sys


def fail(msg):
    print("check_report: " + msg)
    sys.exit(1)


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def close(a, b):
    return abs(a - b) <= 1e-7 * max(1.0, abs(a), abs(b))


def cmd_tree(path):
    d = load(path)
    kids = {}
    for n in d["nodes"]:
        kids.setdefault(n["parent"], []).append(n)
    for n in d["nodes"]:
        s = n["exclusive"] + sum(k["inclusive"] for k in kids.get(n["id"], []))
        if not close(n["inclusive"], s):
            fail("%s: node %d (%s): inclusive %r != exclusive + children %r"
                 % (path, n["id"], n["name"], n["inclusive"], s))
    top = d["root"]["exclusive"] + sum(k["inclusive"] for k in kids.get(0, []))
    if d["nodes_not_shown"] == 0 and not close(top, d["total"]):
        fail("%s: root children sum to %r, total %r" % (path, top, d["total"]))
    print(repr(d["total"]))


def cmd_rows(path):
    d = load(path)
    print(repr(d["root"]["exclusive"] + sum(n["exclusive"] for n in d["nodes"] if n["depth"] == 1)))


FOLDED = re.compile(r"^(.+) ([0-9]+)$")


def cmd_folded(path):
    total = 0
    with open(path, "rb") as f:
        for i, raw in enumerate(f, 1):
            line = raw.decode("utf-8")  # must be UTF-8
            m = FOLDED.match(line.rstrip("\n"))
            if not m:
                fail("%s:%d: not 'stack count': %r" % (path, i, line))
            if any(fr == "" for fr in m.group(1).split(";")):
                fail("%s:%d: empty frame" % (path, i))
            if int(m.group(2)) <= 0:
                fail("%s:%d: count %s" % (path, i, m.group(2)))
            total += int(m.group(2))
    print(total)


UNITS = {"none", "nanoseconds", "microseconds", "milliseconds", "seconds", "bytes"}


def speedscope_by_hand(d):
    """The documented schema (speedscope's FileFormat.File), checked field by field."""
    def typ(v, t, what):
        ok = isinstance(v, t) and not (t in (int, float, (int, float)) and isinstance(v, bool))
        if not ok:
            fail("speedscope: %s has type %s" % (what, type(v).__name__))
    typ(d, dict, "file")
    if d.get("$schema") != "https://www.speedscope.app/file-format-schema.json":
        fail("speedscope: $schema is %r" % d.get("$schema"))
    typ(d.get("shared"), dict, "shared")
    typ(d["shared"].get("frames"), list, "shared.frames")
    for i, fr in enumerate(d["shared"]["frames"]):
        typ(fr, dict, "frame %d" % i)
        typ(fr.get("name"), str, "frame %d name" % i)
        for k in ("line", "col"):
            if k in fr:
                typ(fr[k], (int, float), "frame %d %s" % (i, k))
        if "file" in fr:
            typ(fr["file"], str, "frame %d file" % i)
    for k in ("name", "exporter"):
        if k in d:
            typ(d[k], str, k)
    if "activeProfileIndex" in d:
        typ(d["activeProfileIndex"], (int, float), "activeProfileIndex")
    typ(d.get("profiles"), list, "profiles")
    for p in d["profiles"]:
        typ(p, dict, "profile")
        if p.get("type") != "evented":
            fail("speedscope: profile type %r (this exporter writes evented)" % p.get("type"))
        for k in ("name",):
            typ(p.get(k), str, "profile " + k)
        if p.get("unit") not in UNITS:
            fail("speedscope: unit %r" % p.get("unit"))
        for k in ("startValue", "endValue"):
            typ(p.get(k), (int, float), "profile " + k)
        typ(p.get("events"), list, "events")
        for e in p["events"]:
            typ(e, dict, "event")
            if e.get("type") not in ("O", "C"):
                fail("speedscope: event type %r" % e.get("type"))
            typ(e.get("frame"), (int, float), "event frame")
            typ(e.get("at"), (int, float), "event at")


def cmd_speedscope(path, schema=None):
    d = load(path)
    validated = False
    if schema:
        try:
            import jsonschema
        except ImportError:
            jsonschema = None
        if jsonschema is not None:
            with open(schema, encoding="utf-8") as f:
                s = json.load(f)
            # the schema's root is a $ref to FileFormat.File
            try:
                jsonschema.validate(d, s)
            except jsonschema.ValidationError as e:
                fail("speedscope: schema: %s" % e.message)
            validated = True
    speedscope_by_hand(d)
    nframes = len(d["shared"]["frames"])
    for p in d["profiles"]:
        stack, last = [], p["startValue"]
        for e in p["events"]:
            if not 0 <= e["frame"] < nframes:
                fail("speedscope: frame %r out of range" % e["frame"])
            if e["at"] < last:
                fail("speedscope: 'at' decreases (%r after %r)" % (e["at"], last))
            last = e["at"]
            if e["type"] == "O":
                stack.append(e["frame"])
            elif not stack or stack.pop() != e["frame"]:
                fail("speedscope: close of frame %r does not match the open one" % e["frame"])
        if stack:
            fail("speedscope: %d frames left open" % len(stack))
        if last > p["endValue"]:
            fail("speedscope: events end at %r after endValue %r" % (last, p["endValue"]))
    sys.stderr.write("speedscope: %s\n" % ("validated against the npm package's schema"
                                             if validated else "checked against the documented schema"))
    print(d["profiles"][0]["endValue"])


def cmd_pprof_top(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    m = re.search(r"of ([0-9.]+)[a-z]* total", text)
    if not m:
        fail("%s: no 'of N total' line" % path)
    print(m.group(1))


def cmd_callgrind_annotate(path):
    for line in open(path, encoding="utf-8", errors="replace"):
        if "PROGRAM TOTALS" in line:
            print(line.split()[0].replace(",", ""))
            return
    fail("%s: no PROGRAM TOTALS" % path)


def cmd_callgrind_incl(path, name):
    for line in open(path, encoding="utf-8", errors="replace"):
        parts = line.rstrip("\n").split()
        if len(parts) >= 2 and line.rstrip("\n").endswith(":" + name) and parts[0][0].isdigit():
            print(parts[0].replace(",", ""))
            return
    fail("%s: no function %s" % (path, name))


def cmd_flat_incl(path, name):
    for n in load(path)["nodes"]:
        if n["name"] == name:
            print(repr(n["inclusive"]))
            return
    fail("%s: no row %s" % (path, name))


def cmd_diff_zero(path):
    d = load(path)
    rows = d["procedures"] + d["contexts"]
    if not rows:
        fail("%s: no rows" % path)
    for r in rows:
        if r["delta"] != 0 or r["delta_exclusive"] != 0 or r["delta_normalized_percent"] != 0:
            fail("%s: %s changed by %r" % (path, r["name"], r["delta"]))
        if r["base"] != r["current"]:
            fail("%s: %s differs" % (path, r["name"]))


def cmd_names(path, *names):
    if path.endswith(".json"):
        text = json.dumps(load(path), ensure_ascii=False)
        names = [json.dumps(n, ensure_ascii=False)[1:-1] for n in names]
    else:
        text = open(path, encoding="utf-8", errors="strict").read()
    for n in names:
        if n not in text:
            fail("%s: name %r missing" % (path, n))


def cmd_thread_stats(path):
    """threads view JSON: the statistics written equal those recomputed from
    the per-thread values, and the database's stored stats columns."""
    d = load(path)
    n = 0
    for c in d["contexts"]:
        for over in ("threads", "processes"):
            s = c[over]
            v = [x["inclusive"] for x in s["values"]]
            if len(v) != s["n"]:
                fail("%s: %s of %s: %d values for n=%d" % (path, over, c["path"], len(v), s["n"]))
            mean = sum(v) / len(v)
            sd = (max(0.0, sum(x * x for x in v) / len(v) - mean * mean)) ** 0.5
            want = {"sum": sum(v), "mean": mean, "min": min(v), "max": max(v), "stddev": sd,
                    "cv": sd / mean if mean else 0}
            for k, w in want.items():
                if abs(s[k] - w) > 1e-6 * max(abs(w), 1e-9) + 1e-12:
                    fail("%s: %s %s of %s: %r, recomputed %r" % (path, over, k, c["path"], s[k], w))
                if k in s["stored"] and abs(s["stored"][k] - s[k]) > 1e-6 * max(abs(s[k]), 1e-9) + 1e-9:
                    fail("%s: %s %s of %s: %r, stored %r" % (path, over, k, c["path"], s[k], s["stored"][k]))
                n += k in s["stored"]
    if n == 0:
        fail("%s: the database stores no statistics to compare" % path)


def cmd_same_rows(a, b):
    """Two flat views have the same rows (by kind and name) and values."""
    def rows(path):
        return {(n["kind"], n["name"]): (n["inclusive"], n["exclusive"], n["calls"])
                for n in load(path)["nodes"]}
    ra, rb = rows(a), rows(b)
    if set(ra) != set(rb):
        fail("rows differ: only in %s: %s; only in %s: %s" % (a, sorted(set(ra) - set(rb)), b, sorted(set(rb) - set(ra))))
    for k in ra:
        for x, y in zip(ra[k], rb[k]):
            if not close(x, y):
                fail("%s: %r in %s, %r in %s" % (k, ra[k], a, rb[k], b))


def main():
    cmds = {"tree": cmd_tree, "rows": cmd_rows, "folded": cmd_folded, "speedscope": cmd_speedscope,
            "pprof-top": cmd_pprof_top, "callgrind-annotate": cmd_callgrind_annotate,
            "callgrind-incl": cmd_callgrind_incl, "flat-incl": cmd_flat_incl,
            "diff-zero": cmd_diff_zero, "names": cmd_names,
            "thread-stats": cmd_thread_stats, "same-rows": cmd_same_rows}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        fail("usage: check_report.py %s ARGS" % "|".join(cmds))
    cmds[sys.argv[1]](*sys.argv[2:])


if __name__ == "__main__":
    main()
