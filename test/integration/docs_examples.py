#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""The examples of the user's guide and manuals, run (docs_examples.sh).

    docs_examples.py RUN_DIR MARKDOWN [PREFIX]

Runs, in RUN_DIR and in order, every command of MARKDOWN's code blocks that
is written as "$ COMMAND" (with PREFIX, only those whose command starts with
it), through sh, standard output and error together, and checks that it
exits 0 and prints what the block shows:
  - a line of the block that starts with a number or a percentage is a table
    row: its name (what follows the numbers) must be the name of a row
    printed (rows of [kernel] are left out: kernel time is sampled only where
    the kernel allows it);
  - any other line must be printed, the same once numbers, quantities with
    their unit (1.42 s and 723.22 ms alike), run ids, addresses, paths and
    spacing are set aside;
  - "..." stands for lines left out;
  - XML lines (a structure file's scopes) must also come in the order shown;
  - a line the tools wrapped at the terminal width (more indented than the
    line it continues, both indented, neither a table row nor XML; a
    "csprof:" prefix set aside) is joined to it first, on both sides, so where
    the numbers of a run make a line wrap does not matter.
A block written as a plain list of commands (no "$ ") whose first command
starts with P is run line by line with PREFIX "-P" (its "# ..." comments
dropped), checking exit statuses only.
Prints one line per command; exits 1 when one fails.
"""
import os
import re
import subprocess
import sys

QTY = r"[-+]?\d+(?:[.,]\d+)*(?:\s*(?:ns|µs|us|ms|s|B|KiB|MiB|GiB|TiB|k|M|G))?"


def norm(line):
    s = line.strip()
    s = re.sub(r"\b[0-9a-f]{16}\b", "<id>", s)
    s = re.sub(r"0x[0-9a-f]+", "<hex>", s)
    s = re.sub(r"(?:/[\w.+-]+)+/", "<dir>/", s)
    s = re.sub(QTY + r"%?", "<q>", s)
    s = s.replace("†", "")
    return re.sub(r"\s+", " ", s)


def row_name(line):
    """The name part of a table row, or None when @line is not a row."""
    s = line.strip()
    if not re.match(r"^[-+]?\d|^-\s", s):
        return None
    # leading cells: quantities, percentages, "-" (a blank cell), daggers
    m = re.match(r"^(?:(?:" + QTY + r"%?†?|-)\s+)+", s)
    return norm(s[m.end():]) if m else None


def indent(line):
    s = line[len("csprof:"):] if line.startswith("csprof:") else line
    return len(s) - len(s.lstrip(" "))


def tabular(line):
    """A table row: two leading cells (quantities, percentages, "-")."""
    cell = r"(?:" + QTY + r"%?†?|-)"
    return re.match(r"^\s*" + cell + r"\s+" + cell + r"\s", line) is not None


def logical(lines):
    """@lines with each wrapped continuation joined to the line it continues."""
    out, head = [], None
    for l in lines:
        text = l.strip()
        cont = (head is not None and text and text != "..." and not text.startswith("<") and
                not tabular(l) and not tabular(head) and not head.strip().startswith("<") and
                indent(head) > 0 and indent(l) > indent(head))
        if cont:
            out[-1] += " " + (l[len("csprof:"):] if l.startswith("csprof:") else l).strip()
        else:
            out.append(l)
            head = l
    return out


def blocks(text):
    out, cur, fenced = [], None, False
    for line in text.split("\n"):
        if re.match(r"^\s*```", line):
            if fenced:
                out.append(cur)
            else:
                cur = []
            fenced = not fenced
        elif fenced:
            cur.append(line)
    return out


def main():
    run_dir, md = sys.argv[1], sys.argv[2]
    prefix = sys.argv[3] if len(sys.argv) > 3 else ""
    failed = ran = 0
    for b in blocks(open(md, encoding="utf-8").read()):
        if prefix.startswith("-"):
            if any(re.match(r"^\s*\$ ", l) for l in b):
                continue
            cmds = [(re.sub(r"\s+#.*$", "", l).strip(), []) for l in b if l.strip()]
            if not cmds or not cmds[0][0].startswith(prefix[1:]):
                continue
        else:
            cmds, cur = [], None
            ind = 0  # the block's own indentation (a block in a list item), set aside
            for l in b:
                m = re.match(r"^(\s*)\$ (.*)$", l)
                if m:
                    ind = len(m.group(1))
                    cur = (m.group(2), [])
                    cmds.append(cur)
                elif cur is not None:
                    cur[1].append(l[ind:] if l[:ind].strip() == "" else l)
            cmds = [c for c in cmds if c[0].startswith(prefix)]
        for cmd, shown in cmds:
            shown = logical(shown)
            ran += 1
            r = subprocess.run(["sh", "-c", cmd], cwd=run_dir, capture_output=True, text=True)
            out = logical(r.stdout.split("\n")) + logical(r.stderr.split("\n"))
            rows = {row_name(l) for l in out} - {None}
            lines = {norm(l) for l in out}
            missing = []
            for l in shown:
                if not l.strip() or l.strip() == "...":
                    continue
                name = row_name(l)
                if name is not None:
                    if "[kernel]" not in name and name not in rows:
                        missing.append(l.strip())
                elif norm(l) not in lines:
                    missing.append(l.strip())
            # XML (a structure file's scopes) comes out in one order: the lines shown keep it
            xml_out = iter([norm(l) for l in out if l.strip().startswith("<")])
            xml_shown = [norm(l) for l in shown if l.strip().startswith("<")]
            if not missing and not all(x in xml_out for x in xml_shown):
                missing.append("the XML lines in the order shown")
            if r.returncode != 0 or missing:
                failed += 1
                print("FAILED: %s: $ %s: exit %d%s" % (md, cmd, r.returncode,
                      "; not printed: " + " | ".join(missing[:5]) if missing else ""))
                print("  printed: " + " | ".join(l for l in out[:12] if l.strip()))
            else:
                print("ok: %s: $ %s (%d lines shown, all printed)" % (md, cmd, len([l for l in shown if l.strip()])))
    if ran == 0:
        print("FAILED: %s: no command found%s" % (md, " starting with " + prefix if prefix else ""))
        failed += 1
    return 1 if failed else 0


sys.exit(main())
