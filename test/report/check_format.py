#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""check_format.py -- checks of csprof-report's text tables for people (format_test.sh).

  values TEXT JSON UNIT   every row's inclusive and exclusive cells, read back from the units
                          for people ("200.00 ms", "2.0 GiB", "5.3 k"), equal the JSON's raw
                          values (rows in the same order) to the cell's last digit, and carry
                          UNIT's suffixes; prints the number of rows
  aligned TEXT            in each value column, the decimal points of all cells (and the units
                          digit of whole ones) are in one text column
  calls TEXT JSON         the calls cell of each row is the JSON's calls ("521†" exactly where
                          calls_per_call_site); incl/call is '-' where the rule says (calls
                          shared, fewer than 10 samples or fewer than 2 per call), else
                          inclusive / calls; prints "rows blank-rows dagger-rows"
  distinct TEXT JSON      rows of different nodes (name and call site) show different names
  fits WIDTH TEXT         no line is wider than WIDTH columns; prints the widest
"""
import json
import re
import sys

SCALE = {"ns": 1e-9, "\u00b5s": 1e-6, "ms": 1e-3, "s": 1.0,
         "B": 1, "KiB": 1024, "MiB": 1024 ** 2, "GiB": 1024 ** 3, "TiB": 1024 ** 4,
         "": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}
UNITS = {"s": ("ns", "\u00b5s", "ms", "s"), "bytes": ("B", "KiB", "MiB", "GiB", "TiB"),
         "samples": ("", "k", "M", "G", "T")}
# inclusive, %, exclusive, %, calls, incl/call: the text table's fixed columns
CELLS = {"incl": (0, 10), "excl": (18, 28), "calls": (36, 44), "percall": (45, 55)}


def rows(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    head = next(i for i, l in enumerate(lines) if l.lstrip().startswith("inclusive"))
    out = []
    for l in lines[head + 1:]:
        if not re.match(r"^ *[-0-9]", l):
            break
        out.append(l)
    return out


def nodes(path):
    return json.load(open(path))["nodes"]


def parse(cell, unit):
    """(value, half of the last digit) of a cell for people."""
    m = re.fullmatch(r" *(-?[0-9]+)(\.([0-9]+))? *(\S*) *", cell)
    if m is None:
        raise ValueError("not a value for people: %r" % cell)
    sfx = m.group(4)
    if sfx not in UNITS[unit] and not (sfx == "" and m.group(1).lstrip("-") == "0"):
        raise ValueError("unit %r not one of %s: %r" % (sfx, UNITS[unit], cell))
    dec = len(m.group(3) or "")
    v = float(m.group(1) + (m.group(2) or ""))
    return v * SCALE[sfx], 0.5 * 10 ** -dec * SCALE[sfx] * (1 + 1e-9)


def cmd_values(text, js, unit):
    rs, ns = rows(text), nodes(js)
    assert len(rs) == len(ns) and rs, (len(rs), len(ns))
    for r, n in zip(rs, ns):
        for key, col in (("inclusive", "incl"), ("exclusive", "excl")):
            a, b = CELLS[col]
            v, tol = parse(r[a:b], unit)
            assert abs(v - n[key]) <= tol + 1e-12 * abs(n[key]), (r, key, n[key], v, tol)
    print(len(rs))


def cmd_aligned(text):
    rs = rows(text)
    for col in ("incl", "excl"):
        a, b = CELLS[col]
        spots = set()
        for r in rs:
            c = r[a:b]
            m = re.search(r"[0-9](\.[0-9])?", c)
            if m is None:
                continue
            dot = c.find(".")
            if dot < 0:  # a whole value: its units digit
                dot = re.search(r"[0-9](?![0-9])", c).end()
            spots.add(dot)
        assert len(spots) == 1, (col, spots, rs)
    print("aligned")


def cmd_calls(text, js):
    rs, ns = rows(text), nodes(js)
    assert len(rs) == len(ns) and rs, (len(rs), len(ns))
    samples = {}
    blank = dagger = 0
    for r, n in zip(rs, ns):
        a, b = CELLS["calls"]
        cell = r[a:b].strip()
        pa, pb = CELLS["percall"]
        per = r[pa:pb].strip()
        shared = n.get("calls_per_call_site", False)
        if n["calls"] == 0:
            assert cell == "-" and per == "-", (r, n)
            continue
        want = "%d%s" % (n["calls"], "\u2020" if shared else "")
        assert cell == want, (r, want)
        dagger += shared
        k = n["values"][2][0]  # samples (I) of this golden database's CPUTIME
        if shared or k < 10 or k < 2 * n["calls"]:
            assert per == "-", (r, n, k)
            blank += 1
        else:
            v, tol = parse(per, "s")
            assert abs(v - n["inclusive"] / n["calls"]) <= tol, (r, n)
    print(len(rs), blank, dagger)


def cmd_distinct(text, js):
    rs, ns = rows(text), nodes(js)
    assert len(rs) == len(ns) and rs, (len(rs), len(ns))
    seen = {}
    for r, n in zip(rs, ns):
        key = (n["name"], n.get("callsite", {}).get("line", 0))
        shown = r[57:].strip()
        assert seen.get(shown, key) == key, ("two nodes look the same", shown, key, seen[shown])
        seen[shown] = key
    print(len(seen))


def cmd_fits(width, text):
    w = max(len(l) for l in open(text, encoding="utf-8").read().split("\n"))
    assert w <= int(width), (w, width)
    print(w)


if __name__ == "__main__":
    try:
        globals()["cmd_" + sys.argv[1]](*sys.argv[2:])
    except (AssertionError, ValueError) as e:
        print("check_format %s: %s" % (sys.argv[1], e))
        sys.exit(1)
