// SPDX-License-Identifier: BSD-3-Clause
// model-table.js -- csprof viewer model, shared machinery of the passes: the
// scratch typed-array pool (scratch, pool), the TupleTable hash of integer
// 4-tuples, idle-time slicing of resumable passes (sliceJobs), row tables'
// capacity (rowCap) and row values (part).
// Uses no other part.
// A part of the model: see model.js for how the parts are loaded.
(typeof module !== 'undefined' && module.exports ? function (part) { module.exports = part; } : function (part) { part(window.csprofParts = window.csprofParts || {}); })(function (M) {
  'use strict';

  // ------------------------------------------------------------ hash table

  // Scratch typed arrays, kept between calls.  The first write to a page of
  // a new large typed array costs a page fault: on a small VM that is about
  // 4 ms per MB (60 times a warm write), more than the passes themselves,
  // so the temporaries of the passes below reuse these.  scratch(@tag,
  // @Type, @len, @fill) returns @len elements of the @Type array kept under
  // @tag (grown when short), filled with @fill unless it is undefined.  The
  // arrays never escape; tags i0-i5 (Int32Array) and u0-u1 (Uint8Array) are
  // shared by functions that do not run inside each other's use of them,
  // so one pass warms them for the next.
  const pool = new Map();
  function scratch(tag, Type, len, fill) {
    let a = pool.get(tag);
    if (!a || a.length < len) {
      a = new Type(Math.max(len, 64));
      pool.set(tag, a);
      if (fill !== undefined && fill !== 0) a.fill(fill);
      return a.subarray(0, len);
    }
    const v = a.subarray(0, len);
    if (fill !== undefined) v.fill(fill);
    return v;
  }

  // Open-addressing hash table of integer 4-tuples (a, b, c, d), each
  // 32-bit, numbered densely 0, 1, ... in insertion order; linear probing in
  // one Int32Array of power-of-two many slots of 5 ints (number + 1, a, b,
  // c, d: one cache line per probe), grown at half load.  Used instead of JS
  // Maps keyed by strings or by doubles (no per-key allocation).
  // @tag: a scratch() tag for the initial table (the caller does not keep
  // the table past its own return), or undefined.
  function TupleTable(expect, tag) {
    const cap = tupleSlots(expect);
    this.tab = tag ? scratch(tag, Int32Array, 5 * cap, 0) : new Int32Array(5 * cap);
    this.mask = cap - 1;
    this.n = 0;
  }
  // Slots of a TupleTable made for @expect tuples: a power of two, at
  // least twice @expect.
  function tupleSlots(expect) {
    let cap = 64;
    while (cap < 2 * expect) cap *= 2;
    return cap;
  }
  function tupleHash(a, b, c, d) {
    let h = Math.imul(a ^ 0x2545f491, 0x9e3779b1);
    h = Math.imul(h ^ (h >>> 15) ^ b, 0x85ebca77);
    h = Math.imul(h ^ (h >>> 13) ^ c, 0xc2b2ae3d);
    h = Math.imul(h ^ (h >>> 16) ^ d, 0x27d4eb2f);
    return h ^ (h >>> 15);
  }
  // Number of tuple (a, b, c, d); a new number when @add and it is absent,
  // else -1 when absent.
  TupleTable.prototype.id = function (a, b, c, d, add) {
    const tab = this.tab, mask = this.mask;
    let s = tupleHash(a, b, c, d) & mask;
    for (;;) {
      const o = 5 * s, k = tab[o];
      if (k === 0) break;
      if (tab[o + 1] === a && tab[o + 2] === b && tab[o + 3] === c && tab[o + 4] === d) return k - 1;
      s = (s + 1) & mask;
    }
    if (!add) return -1;
    const k = this.n++, o = 5 * s;
    tab[o] = k + 1; tab[o + 1] = a; tab[o + 2] = b; tab[o + 3] = c; tab[o + 4] = d;
    if (2 * this.n > mask) this.grow();
    return k;
  };
  TupleTable.prototype.grow = function () {
    const cap = 2 * (this.mask + 1), mask = cap - 1, old = this.tab, tab = new Int32Array(5 * cap);
    for (let o = 0; o < old.length; o += 5) {
      if (old[o] === 0) continue;
      let s = tupleHash(old[o + 1], old[o + 2], old[o + 3], old[o + 4]) & mask;
      while (tab[5 * s] !== 0) s = (s + 1) & mask;
      tab.set(old.subarray(o, o + 5), 5 * s);
    }
    this.tab = tab;
    this.mask = mask;
  };

  // @a[@o], ..., @a[@o + @nm - 1] as a plain array: a row's values.  (A
  // typed array per row costs a backing store each: with 100 000 rows the
  // garbage collector took longer than the walk that summed them.)
  function part(a, o, nm) {
    const out = new Array(nm);
    for (let m = 0; m < nm; m++) out[m] = a[o + m];
    return out;
  }

  // Initial capacity of a row table that last held @hint rows (undefined:
  // none yet): a power of two above it, at least 1024.
  function rowCap(hint) {
    let cap = 1024;
    while (hint !== undefined && cap <= hint) cap *= 2;
    return cap;
  }

  // Idle-time slices of a resumable pass (bottomUpBuild, flatBuild,
  // uniqueBuild): about @total / @slice functions, each stepping it by
  // @slice.  @pending() returns the pass's state (made on its first call),
  // or null when the result exists or is no longer wanted; @done(state)
  // keeps the result.
  function sliceJobs(total, slice, pending, done) {
    const jobs = [];
    for (let e = 0; e < total; e += slice) {
      jobs.push(function () {
        const b = pending();
        if (b && b.step(slice)) done(b);
      });
    }
    return jobs;
  }

  Object.assign(M, { pool, scratch, TupleTable, tupleSlots, part, rowCap, sliceJobs });
});
