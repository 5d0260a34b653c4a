#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""loop_share.py -- how much of a procedure lies inside a loop.

  loop_share.py struct STRUCTURE.xml PROC   share of PROC's code bytes inside a loop scope
  loop_share.py db EXPERIMENT.xml PROC      share of PROC's exclusive samples inside a loop

STRUCTURE.xml comes from csprof-struct, EXPERIMENT.xml from csprof-prof
(DB/experiment.xml).  PROC is the procedure's name (n=) or linkage name.
Benchmark helper: runs outside ctest (see README.md here).
"""
import sys
import xml.etree.ElementTree as ET


def ranges(v):
    out = []
    for part in (v or "").split():
        lo, _, hi = part.partition("-")
        out.append((int(lo, 16), int(hi, 16) if hi else int(lo, 16) + 1))
    return out


def size(rs):
    total, cur = 0, None
    for lo, hi in sorted(rs):
        if cur and lo <= cur[1]:
            cur[1] = max(cur[1], hi)
        else:
            if cur:
                total += cur[1] - cur[0]
            cur = [lo, hi]
    return total + (cur[1] - cur[0] if cur else 0)


def struct_share(path, name):
    for p in ET.parse(path).getroot().iter("P"):
        if name not in (p.get("n"), p.get("ln")):
            continue
        total = size(ranges(p.get("v")))
        loops = list(p.iter("L"))
        inside = size([r for l in loops for r in ranges(l.get("v"))])
        print(f"{path}: {name}: {total} bytes, {len(loops)} loops, "
              f"{100 * inside / max(total, 1):.1f}% of the bytes inside a loop")


def db_share(path, name):
    root = ET.parse(path).getroot()
    procs = {p.get("i"): p.get("n") for p in root.iter("Procedure")}
    excl_id = [m.get("i") for m in root.iter("Metric") if m.get("n") == "samples (E)"][0]

    def excl(node):
        return sum(float(m.get("v")) for m in node.findall("M") if m.get("n") == excl_id)

    total = inside = 0.0

    def walk(node):  # the outermost loops of one frame (exclusive counts include inner scopes)
        nonlocal inside
        for c in node:
            if c.tag in ("PF", "M"):
                continue
            if c.tag == "L":
                inside += excl(c)
            else:
                walk(c)

    for pf in root.iter("PF"):
        if procs.get(pf.get("n")) == name:
            total += excl(pf)
            walk(pf)
    print(f"{path}: {name}: {total:.0f} exclusive samples, "
          f"{100 * inside / max(total, 1):.1f}% inside a loop")


if __name__ == "__main__":
    if len(sys.argv) != 4 or sys.argv[1] not in ("struct", "db"):
        sys.exit(__doc__)
    (struct_share if sys.argv[1] == "struct" else db_share)(sys.argv[2], sys.argv[3])
