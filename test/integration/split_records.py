#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""Split a measurement file into one file per thread (test helper).

A measurement file holds one record per thread (and checkpoints), each a
complete format-v1 file image at an offset that is a multiple of 8
(share/schemas/measurement-format.md, "Records").  Writes the latest record
of each thread to OUTDIR/<name>-<pid>-<thread index>.cspm, so that tests can
look at one thread's profile alone.  Usage: split_records.py FILE OUTDIR
"""
import os
import struct
import sys

MAGIC = b"CSPROFM\0"


def record_at(b, off):
    """(length, pid, thread index, seq) of the record at off, or None."""
    pos = off + 16
    pid = tindex = None
    seq = 0
    while pos + 16 <= len(b):
        kind, _flags, length = struct.unpack_from("<IIQ", b, pos)
        payload = pos + 16
        if payload + length > len(b):
            return None
        if kind == 1:
            pid, _tid, tindex = struct.unpack_from("<III", b, payload)
        elif kind == 7:
            _rflags, seq = struct.unpack_from("<IQ", b, payload)
        elif kind == 6:
            return payload + length - off, pid, tindex, seq
        pos = payload + length
    return None


def main():
    path, outdir = sys.argv[1], sys.argv[2]
    b = open(path, "rb").read()
    latest = {}
    off = 0
    while off < len(b):
        rec = b[off:off + 8] == MAGIC and record_at(b, off)
        if not rec:
            off += 8
            continue
        length, pid, tindex, seq = rec
        if (pid, tindex) not in latest or latest[(pid, tindex)][0] <= seq:
            latest[(pid, tindex)] = (seq, b[off:off + length])
        off += (length + 7) // 8 * 8
    base = os.path.basename(path)[:-len(".cspm")].split("-")[0]
    for (pid, tindex), (_seq, data) in latest.items():
        with open(os.path.join(outdir, "%s-%d-%d.cspm" % (base, pid, tindex)), "wb") as f:
            f.write(data)


if __name__ == "__main__":
    main()
