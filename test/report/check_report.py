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
                        documented schema by hand; one "sampled" profile (speedscope opens
                        it on the profile, not a timeline): stacks of frames in range, one
                        positive integer weight per stack, startValue 0, endValue = the sum of
                        the weights; prints endValue
  pprof-default FILE    a gzipped profile.proto, decoded here: prints its default_sample_type
                        (the string it indexes; fails when unset or not a sample type's)
  callgrind-annotate TEXT  callgrind_annotate output: prints the PROGRAM TOTALS of the first event
  callgrind-incl TEXT NAME  callgrind_annotate --inclusive=yes: prints NAME's inclusive cost
  flat-incl JSON NAME   flat table: prints NAME's inclusive value
  paths TREE FORMAT FILE   the calling-context paths of an export, rebuilt from FILE
                        (FORMAT folded: its lines split on ';'; speedscope: each stack of
                        the sampled profile, outermost frame first, with its weight; pprof-traces: 'go tool pprof -traces'
                        output), each with its exclusive value, equal path by path to those
                        of TREE (top-down JSON of the same metric and transforms,
                        --threshold 0) in the export's raw unit; prints the number of paths
  callgrind-tree TREE SELF INCL [FLAT]  callgrind_annotate --tree=calling output without
                        (SELF) and with (INCL) --inclusive=yes, against TREE (as for paths):
                        PROGRAM TOTALS; each function's self cost; each caller -> callee
                        edge's cost (the callee frames' inclusive cost, 0 for a call into a
                        function already on the path) and call count; each function's
                        inclusive cost = the tree's cost of the paths through it, counted
                        once (and FLAT's inclusive, a flat view by procedure); prints the
                        number of edges
  callgrind-edge TEXT CALLER CALLEE  callgrind_annotate --tree=calling: prints the cost
                        of the calls from CALLER to CALLEE
  diff-zero JSON        diff output: every delta is 0
  diff-stats JSON       diff output: every row's norm, interval and significance recomputed
                        from its values and sample counts (Newcombe's hybrid score interval,
                        checked first on the paper's own examples; z from the number of rows
                        with samples, Bonferroni at 95 %); with every row shown, that number
                        too; prints the names of the significant procedures
  names FILE NAME...    each NAME occurs in FILE (after JSON decoding for .json files)
"""
import json
import math
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
        if p.get("type") != "sampled":
            fail("speedscope: profile type %r (this exporter writes sampled)" % p.get("type"))
        for k in ("name",):
            typ(p.get(k), str, "profile " + k)
        if p.get("unit") not in UNITS:
            fail("speedscope: unit %r" % p.get("unit"))
        for k in ("startValue", "endValue"):
            typ(p.get(k), (int, float), "profile " + k)
        typ(p.get("samples"), list, "samples")
        typ(p.get("weights"), list, "weights")
        for st in p["samples"]:
            typ(st, list, "sample")
            for f in st:
                typ(f, (int, float), "sample frame")
        for w in p["weights"]:
            typ(w, (int, float), "weight")


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
    if len(d["profiles"]) != 1 or d.get("activeProfileIndex", 0) != 0:
        fail("speedscope: %d profiles, active %r (one metric: one profile)"
             % (len(d["profiles"]), d.get("activeProfileIndex")))
    p = d["profiles"][0]
    if len(p["samples"]) != len(p["weights"]):
        fail("speedscope: %d stacks, %d weights" % (len(p["samples"]), len(p["weights"])))
    if not p["samples"]:
        fail("speedscope: no samples")
    for st in p["samples"]:
        if not st or any(not isinstance(f, int) or not 0 <= f < nframes for f in st):
            fail("speedscope: stack %r: empty or a frame out of range" % st)
    for w in p["weights"]:
        if not isinstance(w, int) or w <= 0:
            fail("speedscope: weight %r (integers in the raw unit, only stacks with a cost)" % w)
    if p["startValue"] != 0 or p["endValue"] != sum(p["weights"]):
        fail("speedscope: startValue %r, endValue %r, weights sum to %r"
             % (p["startValue"], p["endValue"], sum(p["weights"])))
    sys.stderr.write("speedscope: %s\n" % ("validated against the npm package's schema"
                                             if validated else "checked against the documented schema"))
    print(d["profiles"][0]["endValue"])


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


def wilson(x, n, z):
    """Wilson's score interval of x / n."""
    p = x / n
    den = 1 + z * z / n
    mid = (p + z * z / (2 * n)) / den
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / den
    return max(0.0, mid - half), min(1.0, mid + half)


def newcombe(x1, n1, x2, n2, z):
    """Newcombe (1998) method 10: interval of x2/n2 - x1/n1."""
    p1, p2 = x1 / n1, x2 / n2
    l1, u1 = wilson(x1, n1, z)
    l2, u2 = wilson(x2, n2, z)
    d = p2 - p1
    return d - math.hypot(p2 - l2, u1 - p1), d + math.hypot(u2 - p2, p1 - l1)


def cmd_diff_stats(path):
    from statistics import NormalDist
    # Newcombe 1998, Statistics in Medicine 17:873, Table II, method 10 (95 %)
    for x1, n1, x2, n2, want in ((48, 80, 56, 70, (0.0524, 0.3339)), (3, 10, 9, 10, (0.1705, 0.8090)),
                                 (0, 29, 5, 56, (-0.0381, 0.1926)), (0, 20, 0, 10, (-0.1611, 0.2775))):
        got = newcombe(x1, n1, x2, n2, 1.959964)
        if abs(got[0] - want[0]) > 6e-5 or abs(got[1] - want[1]) > 6e-5:
            fail("the reference interval of %d/%d -> %d/%d is %r, not the paper's %r"
                 % (x1, n1, x2, n2, got, want))
    d = load(path)
    key = d["measure"]
    sig = d["significance"]
    nb, nc = d["base_samples"], d["current_samples"]
    if not (nb > 0 and nc > 0):
        fail("%s: no sample totals (%r, %r)" % (path, nb, nc))
    complete = d["nodes_not_shown"] == 0 and not d["significant_only"]
    significant = []
    for section in ("procedures", "contexts"):
        m = sig["tests"][section]
        z = NormalDist().inv_cdf(1 - 0.05 / (2 * max(m, 1)))
        if abs(z - sig["z"][section]) > 1e-5:
            fail("%s: %s: z %r for %d tests, not %r" % (path, section, sig["z"][section], m, z))
        rows = d[section]
        if complete and m != sum(1 for r in rows if r["samples"]["base"] > 0 or r["samples"]["current"] > 0):
            fail("%s: %s: %d tests, but %d rows with samples" % (path, section, m, len(rows)))
        for r in rows:
            b, c = r["base"][key], r["current"][key]
            norm = 100 * (c / d["current_total"] - b / d["base_total"])
            if abs(norm - r["delta_normalized_percent"]) > 2e-6:
                fail("%s: %s: norm %r, not %r" % (path, r["name"], r["delta_normalized_percent"], norm))
            x1, x2 = r["samples"]["base"], r["samples"]["current"]
            lo, hi = newcombe(min(max(x1, 0), nb), nb, min(max(x2, 0), nc), nc, z)
            got = r["interval"]
            if got is None or abs(got[0] - 100 * lo) > 2e-6 or abs(got[1] - 100 * hi) > 2e-6:
                fail("%s: %s %s: interval %r, not [%.6f, %.6f]" % (path, section, r["name"], got, 100 * lo, 100 * hi))
            if r["significant"] != (lo > 0 or hi < 0):
                fail("%s: %s: significant %r with interval [%g, %g]" % (path, r["name"], r["significant"], lo, hi))
            if section == "procedures" and r["significant"]:
                significant.append(r["name"])
    print(" ".join(significant))


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


# Raw units per unit of a JSON view's metric: csprof-prof stores time in s (ms, us)
# with raw unit ns (lib/report/db_read.c, unit_factor); counts are their own raw unit.
RAW_PER_UNIT = {"s": 1e9, "ms": 1e6, "us": 1e3}


def show_path(path):
    return ascii(";".join(path))[1:-1]


class Tree:
    """A top-down view (csprof-report --format json --threshold 0): each node's path of
    names from the outermost frame and its exclusive value in the metric's raw unit.
    The root's own cost is the path of one frame named after the program, as the
    exports write it."""

    def __init__(self, path):
        d = load(path)
        if d.get("view") != "top-down":
            fail("%s: view %r, not top-down" % (path, d.get("view")))
        if d["nodes_not_shown"] != 0:
            fail("%s: %d nodes not shown (use --threshold 0)" % (path, d["nodes_not_shown"]))
        self.scale = RAW_PER_UNIT.get(d["metric"]["unit"], 1)
        self.event = d["metric"]["event"]
        prog = d.get("program")
        root = {"id": 0, "parent": None, "kind": "root", "exclusive": d["root"]["exclusive"],
                "name": prog.rsplit("/", 1)[-1] if prog else "[program]"}
        self.nodes = {0: root}
        for n in d["nodes"]:
            self.nodes[n["id"]] = n
        self.kids = {}
        for n in d["nodes"]:
            if n["parent"] not in self.nodes:
                fail("%s: node %d: parent %r not listed" % (path, n["id"], n["parent"]))
            self.kids.setdefault(n["parent"], []).append(n["id"])
        self._path = {0: ()}

    def raw(self, i):
        """Exclusive value of node i in raw units (a float: the JSON's 10 digits)."""
        return self.nodes[i]["exclusive"] * self.scale

    def tol(self, i):
        """How far node i's raw value may be from the integer an export writes: half a
        unit of the JSON's 10th significant digit (%.10g); and 0.5 more where the
        value is no whole number of raw units (the exports round each node; events
        and sample counts are whole)."""
        x = abs(self.nodes[i]["exclusive"])
        err = (0.5 * 10 ** (math.floor(math.log10(x)) - 9) * self.scale if x else 0) + 1e-6
        r = self.raw(i)
        return err if abs(r - round(r)) <= err else 0.5 + err

    def path(self, i):
        if i not in self._path:
            n = self.nodes[i]
            self._path[i] = self.path(n["parent"]) + (n["name"],)
        return self._path[i]

    def paths(self):
        """{path: [raw exclusive, tolerance]}: the sums over the nodes with that path."""
        want = {}
        for i in self.nodes:
            r = self.raw(i)
            if r != 0:
                e = want.setdefault(self.path(i) if i else (self.nodes[0]["name"],), [0.0, 0.0])
                e[0] += r
                e[1] += self.tol(i)
        return want


def compare_paths(what, want, got):
    """want {path: [value, tolerance]}, got {path: value}: equal path by path."""
    bad = []
    for p in sorted(set(want) | set(got)):
        w, tol = want.get(p, (0.0, 1e-6))
        g = got.get(p, 0)
        if abs(w - g) > tol:
            bad.append("%s: tree %.10g, %s %.10g" % (show_path(p), w, what, g))
    if bad:
        fail("%d of %d paths differ between the tree and %s; %s"
             % (len(bad), len(set(want) | set(got)), what, "; ".join(bad[:6])))
    if not want:
        fail("the tree has no path with a value")
    print(len(want))


def folded_paths(path):
    got = {}
    with open(path, "rb") as f:
        for i, raw in enumerate(f, 1):
            m = FOLDED.match(raw.decode("utf-8").rstrip("\n"))
            if not m:
                fail("%s:%d: not 'stack count'" % (path, i))
            p = tuple(fr.replace("\\x3b", ";") for fr in m.group(1).split(";"))
            got[p] = got.get(p, 0) + int(m.group(2))
    return got


def speedscope_paths(path):
    """Each stack of the sampled profile (outermost frame first) with its weight."""
    d = load(path)
    frames = [fr["name"] for fr in d["shared"]["frames"]]
    if len(d["profiles"]) != 1:
        fail("%s: %d profiles (one metric: one profile)" % (path, len(d["profiles"])))
    p = d["profiles"][0]
    if p.get("type") != "sampled" or len(p["samples"]) != len(p["weights"]):
        fail("%s: not a sampled profile with one weight per stack" % path)
    got = {}
    for st, w in zip(p["samples"], p["weights"]):
        if any(not 0 <= f < len(frames) for f in st):
            fail("%s: stack %r: frame out of range" % (path, st))
        k = tuple(frames[f] for f in st)
        got[k] = got.get(k, 0) + w
    return got


def proto_fields(buf):
    """A protobuf message's fields as (number, value): wire types 0 (an int) and 2 (bytes)."""
    i, out = 0, []

    def varint():
        nonlocal i
        v, sh = 0, 0
        while True:
            if i >= len(buf):
                fail("profile.proto: truncated varint")
            b = buf[i]
            i += 1
            v |= (b & 0x7F) << sh
            sh += 7
            if b < 0x80:
                return v
    while i < len(buf):
        key = varint()
        if key & 7 == 0:
            out.append((key >> 3, varint()))
        elif key & 7 == 2:
            n = varint()
            if i + n > len(buf):
                fail("profile.proto: field %d runs past the end" % (key >> 3))
            out.append((key >> 3, buf[i:i + n]))
            i += n
        else:
            fail("profile.proto: wire type %d (the exporter writes 0 and 2)" % (key & 7))
    return out


def cmd_pprof_default(path):
    """profile.proto: sample_type = 1 (ValueType: type = 1), string_table = 6,
    default_sample_type = 14."""
    import gzip
    with gzip.open(path, "rb") as f:
        fields = proto_fields(f.read())
    strings = [v.decode("utf-8") for k, v in fields if k == 6]
    types = [dict(proto_fields(v)).get(1, 0) for k, v in fields if k == 1]
    dflt = [v for k, v in fields if k == 14]
    if not dflt or dflt[-1] == 0:
        fail("%s: no default_sample_type (pprof would show the last sample type)" % path)
    if not 0 < dflt[-1] < len(strings) or dflt[-1] not in types:
        fail("%s: default_sample_type %d is no sample type's name" % (path, dflt[-1]))
    print(strings[dflt[-1]])


PPROF_SEP = re.compile(r"^-+\+-+$")
PPROF_FIRST = re.compile(r"^ *([0-9.]+)(ns)?   (.*)$")


def pprof_trace_paths(path, event):
    """'go tool pprof -traces [-unit=ns]': blocks of 'VALUE   leaf' and then one caller
    per line, indented 13 columns ('%10s   %s'), between lines of dashes."""
    lines = open(path, encoding="utf-8").read().split("\n")
    if "Type: " + event not in lines:
        fail("%s: no 'Type: %s' line (pprof -sample_index)" % (path, event))
    got, cur, seen = {}, None, False

    def flush():
        if cur is not None:
            p = tuple(reversed(cur[1]))
            got[p] = got.get(p, 0) + cur[0]
    for i, line in enumerate(lines, 1):
        if PPROF_SEP.match(line):
            seen = True
            flush()
            cur = None
        elif not seen or line == "":
            continue
        elif cur is None:
            m = PPROF_FIRST.match(line)
            if not m:
                fail("%s:%d: not 'VALUE   frame': %r" % (path, i, line))
            cur = (float(m.group(1)), [m.group(3)])
        elif line.startswith(" " * 13):
            cur[1].append(line[13:])
        else:
            fail("%s:%d: not a frame line: %r" % (path, i, line))
    flush()
    return got


def cmd_paths(tree, fmt, path):
    t = Tree(tree)
    readers = {"folded": folded_paths, "speedscope": speedscope_paths,
               "pprof-traces": lambda p: pprof_trace_paths(p, t.event)}
    if fmt not in readers:
        fail("paths: format %r, not one of %s" % (fmt, ", ".join(readers)))
    compare_paths(fmt, t.paths(), readers[fmt](path))


CG_FN = re.compile(r"^ *([0-9,]+|\.)(?: +\( *[0-9.]+%\))? +\*  (.*)$")
# (a callee with no object file, as a procedure at a module+0xOFFSET, has no "[OBJECT]")
CG_CALL = re.compile(r"^ *([0-9,]+|\.)(?: +\( *[0-9.]+%\))? +>   (.*) \(([0-9]+)x\)(?: \[[^\]]*\])?$")


def cg_calling(path):
    """callgrind_annotate --tree=calling: {'file:fn': cost}, {('file:fn', 'file:callee'):
    (cost, calls)}."""
    fns, calls, cur, on = {}, {}, None, False
    lines = open(path, encoding="utf-8").read().split("\n")
    for i, line in enumerate(lines, 1):
        if line.endswith("file:function"):
            on = True
            continue
        if not on or line.startswith("----") and cur is None:
            continue
        if line.startswith("--") or line.startswith("The following files"):
            break
        if line == "":
            continue
        m = CG_FN.match(line)
        if m:
            cur = m.group(2)
            fns[cur] = 0 if m.group(1) == "." else int(m.group(1).replace(",", ""))
            continue
        m = CG_CALL.match(line)
        if m and cur is not None:
            c = 0 if m.group(1) == "." else int(m.group(1).replace(",", ""))
            k = (cur, m.group(2))
            old = calls.get(k, (0, 0))
            calls[k] = (old[0] + c, old[1] + int(m.group(3)))
            continue
        fail("%s:%d: not a function or call line: %r" % (path, i, line))
    if not fns:
        fail("%s: no functions (callgrind_annotate --tree=calling)" % path)
    return fns, calls


def cmd_callgrind_tree(tree, self_txt, incl_txt, flat=None):
    """The tree projected onto functions as lib/export/export_callgrind.c documents it:
    every node but the root is a function (statements are not listed in a top-down
    JSON view); a node's caller is its parent unless the parent is the root."""
    t = Tree(tree)
    nodes = t.nodes
    incl = {}

    def raw_incl(i):  # sum of the raw self values below (the export rounds per node)
        if i not in incl:
            v, tol = t.raw(i), t.tol(i)
            for k in t.kids.get(i, []):
                kv, kt = raw_incl(k)
                v, tol = v + kv, tol + kt
            incl[i] = (v, tol)
        return incl[i]

    def acc(dct, key, v, tol):
        e = dct.setdefault(key, [0.0, 0.0])
        e[0] += v
        e[1] += tol

    files = {}  # function name -> the files its nodes have ("???" unknown, the root's)
    selfs, edges, ecalls, outer = {}, {}, {}, {}
    root_level, called = set(), set()
    for i, n in nodes.items():
        files.setdefault(n["name"], set()).add(n.get("file", "???") if i else "???")
        acc(selfs, n["name"], t.raw(i), t.tol(i))
        if i == 0:
            continue
        above = t.path(n["parent"])
        if n["name"] not in above:
            acc(outer, n["name"], *raw_incl(i))
        if n["parent"] == 0:
            root_level.add(n["name"])
            continue
        caller = nodes[n["parent"]]["name"]
        called.add(n["name"])
        if n["name"] in above:  # a call into a function already on the path: cost 0
            acc(edges, (caller, n["name"]), 0, 1e-6)
        else:
            acc(edges, (caller, n["name"]), *raw_incl(i))
        line = n.get("callsite", {}).get("line", 0)
        k = (caller, n["name"], line)
        ecalls[k] = ecalls.get(k, 0) + n.get("calls", 0)
    want_calls = {}
    for (caller, callee, _), c in ecalls.items():
        # calls=%.0f of the summed counts, 1 where none was sampled
        want_calls[(caller, callee)] = want_calls.get((caller, callee), 0) + (round(c) if c >= 1 else 1)

    key_of = {}  # callgrind_annotate's 'file:fn' -> function name

    def name_of(key, path):
        if key in key_of:
            return key_of[key]
        for name, fs in files.items():
            if any(key == f + ":" + name for f in fs):
                key_of[key] = name
                return name
        fail("%s: function %s is no frame of the tree" % (path, ascii(key)))

    bad = []

    def check(what, want, got):
        for k in sorted(set(want) | set(got), key=repr):
            w, tol = want.get(k, (0.0, 1e-6))
            g = got.get(k, 0)
            if abs(w - g) > tol:
                bad.append("%s %s: tree %.10g, callgrind %.10g" % (what, ascii(k), w, g))

    fns, calls = cg_calling(self_txt)
    check("self of", selfs, {name_of(k, self_txt): v for k, v in fns.items()})
    got_edges = {(name_of(a, self_txt), name_of(b, self_txt)): v for (a, b), v in calls.items()}
    check("call", edges, {k: v[0] for k, v in got_edges.items()})
    for k in sorted(set(want_calls) | set(got_edges), key=repr):
        if want_calls.get(k, 0) != got_edges.get(k, (0, 0))[1]:
            bad.append("calls of %s: tree %d, callgrind %d"
                       % (ascii(k), want_calls.get(k, 0), got_edges.get(k, (0, 0))[1]))
    tot = [ln.split()[0].replace(",", "") for ln in open(self_txt, encoding="utf-8")
           if "PROGRAM TOTALS" in ln] or ["missing"]
    want_tot = sum(v for v, _ in selfs.values())
    if tot[0] == "missing" or abs(float(tot[0]) - want_tot) > sum(tl for _, tl in selfs.values()):
        bad.append("PROGRAM TOTALS: tree %.10g, callgrind %s" % (want_tot, tot[0]))
    fns_i, _ = cg_calling(incl_txt)
    got_incl = {name_of(k, incl_txt): v for k, v in fns_i.items()}
    # a function both called and at the root (--focus): callgrind_annotate counts only
    # the calls into it
    mixed = root_level & called
    check("inclusive of", {k: v for k, v in outer.items() if k not in mixed},
          {k: v for k, v in got_incl.items() if k not in mixed and k != nodes[0]["name"]})
    if flat is not None:
        # (a procedure's frame row holds its inlined instances too: where a name has both a
        # frame and an inline row -- __libc_read inlined into itself -- the frame row's is
        # the function's inclusive cost)
        rows = {}
        for kind in ("inline", "frame"):
            rows.update({n["name"]: n["inclusive"] * t.scale for n in load(flat)["nodes"]
                         if n["kind"] == kind})
        for name, v in rows.items():
            tol = 5e-10 * abs(v) + outer.get(name, (0, 1e-6))[1]
            if name not in mixed and abs(got_incl.get(name, 0) - v) > tol:
                bad.append("inclusive of %s: flat view %.10g, callgrind %.10g"
                           % (ascii(name), v, got_incl.get(name, 0)))
    if bad:
        fail("callgrind differs from the tree: %d differences; %s"
             % (len(bad), "; ".join(bad[:6])))
    if not any(v for v, _ in selfs.values()):
        fail("%s: the tree has no cost" % tree)
    print(len(edges))


def cmd_callgrind_edge(path, caller, callee):
    _, calls = cg_calling(path)
    for (a, b), (cost, _) in calls.items():
        if a.endswith(":" + caller) and b.endswith(":" + callee):
            print(cost)
            return
    fail("%s: no call from %s to %s" % (path, caller, callee))


def main():
    cmds = {"tree": cmd_tree, "rows": cmd_rows, "folded": cmd_folded, "speedscope": cmd_speedscope,
            "callgrind-annotate": cmd_callgrind_annotate,
            "callgrind-incl": cmd_callgrind_incl, "flat-incl": cmd_flat_incl,
            "diff-zero": cmd_diff_zero, "diff-stats": cmd_diff_stats, "names": cmd_names,
            "thread-stats": cmd_thread_stats, "same-rows": cmd_same_rows,
            "paths": cmd_paths, "callgrind-tree": cmd_callgrind_tree,
            "callgrind-edge": cmd_callgrind_edge, "pprof-default": cmd_pprof_default}
    if len(sys.argv) < 3 or sys.argv[1] not in cmds:
        fail("usage: check_report.py %s ARGS" % "|".join(cmds))
    cmds[sys.argv[1]](*sys.argv[2:])


if __name__ == "__main__":
    main()
