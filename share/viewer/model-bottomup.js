// SPDX-License-Identifier: BSD-3-Clause
// model-bottomup.js -- csprof viewer model, the bottom-up (callers) view:
// bottomUpRoots, bottomUpJobs, bottomUpEntries, bottomUpCallers.
// Uses: K from model-data.js; TupleTable, part, rowCap, sliceJobs from model-table.js; sameNameUp from model-view.js.
// A part of the model: see model.js for how the parts are loaded.
(typeof module !== 'undefined' && module.exports ? function (part) { module.exports = part; } : function (part) { part(window.csprofParts = window.csprofParts || {}); })(function (M) {
  'use strict';
  const { K, TupleTable, part, rowCap, sliceJobs, sameNameUp } = M;

  // ---------------------------------------------------------------- bottom-up

  // The bottom-up view's one definition, the same as csprof-report's
  // (lib/report/view.c, "bottom-up"; docs/views.md; compared by
  // test/viewer/bottom_up_conformance.js):
  //  - a row per procedure name: its frames and inlined frames are instances
  //    of one procedure (kind INLINE only when every instance is inlined);
  //    loops and statements are no rows, their cost is their procedure's;
  //  - exclusive: the self cost of every node whose nearest enclosing frame
  //    or inlined frame is an instance, over all contexts;
  //  - an instance is outermost when no enclosing frame has its name;
  //    inclusive: that of the outermost instances (recursion counted once),
  //    so that exclusive <= inclusive in every row;
  //  - callers: the frames (and loops) above each outermost instance, keyed
  //    by the call-site line, with the instance's inclusive cost and the
  //    exclusive cost of the procedure inside it (its own and that of the
  //    recursive instances it encloses);
  //  - calls: a procedure row has the calls of all its instances, a direct
  //    caller row those of the outermost instances it called, rows further
  //    up none.
  //
  // A bottom-up row: {name, kind, nameId, node (its first view node in
  // index order), calls, incl[m], self[m]} and, once bottomUpEntries() has
  // run (bottomUpCallers() runs it), {entries: Int32Array of the outermost
  // instances, in index order, outer and weight (all 1), carry: the
  // instances again (cost source), cself: the exclusive cost of the
  // procedure inside each, nm per entry}.  Rows come in the order of their
  // first view nodes.
  //
  // Bottom-up root rows of view @t: one pass over the view nodes in index
  // order (parents precede children; the columns are read in order, no
  // walk, no per-node memory).  A node is outermost when none of its
  // ancestors has its name: those ancestors are views of its source node's
  // same-name ancestors (sameNameUp: a chain, empty or one link long but in
  // recursion), so the pass follows that chain through t.map.  Finishes
  // the idle-time build that bottomUpJobs() began, if any.
  function bottomUpRoots(t) {
    const b = t.buBuild || bottomUpBuild(t);
    t.buBuild = null;
    t.buDone = true;
    b.step(Infinity);
    return b.rows;
  }

  // Work for idle time on view @t: functions to call in turn, each about
  // @slice view nodes of bottomUpRoots(t); the last leaves the rows in
  // t.buRows (null until then).  A call of bottomUpRoots(t) meanwhile
  // finishes the work at once.
  function bottomUpJobs(t, slice) {
    return sliceJobs(t.n, slice, function () {
      if (t.buRows || t.buDone || t.owned === null) return null; // done, or @t released
      return t.buBuild || (t.buBuild = bottomUpBuild(t));
    }, function (b) { t.buRows = b.rows; t.buBuild = null; });
  }

  // Whether view node @x is an ancestor of view node @c in view @t (parents
  // have smaller indexes than their children: the walk up stops below @x).
  function isAncestor(t, x, c) {
    const parent = t.parent;
    let y = parent[c];
    while (y > x) y = parent[y];
    return y === x;
  }

  // Whether view node @c of view @t has an ancestor of its name (other than
  // the root and statements): the views of the same-name ancestors of its
  // source node (@up: sameNameUp(t.src)).  Every ancestor of @c is the view
  // of an ancestor of its source node (t.rep[c]), the same-name ones of a
  // same-name one.  Without collapse-recursion or a focus, each of those
  // views is an ancestor of @c; with them (t.moved), a subtree can have
  // moved off them, so each is checked.
  function hasNamesake(t, up, c) {
    const map = t.map, kind = t.kind, name = t.name, id = name[c];
    if (c >= t.repN) {
      // a base-only node (baseOnly): its ancestors, one by one
      for (let y = t.parent[c]; y > 0; y = t.parent[y]) if (name[y] === id && kind[y] !== K.STMT) return true;
      return false;
    }
    for (let a = up[t.rep[c]]; a >= 0; a = up[a]) {
      const x = map[a];
      if (x <= 0 || x >= c || name[x] !== id || kind[x] === K.STMT) continue;
      if (!t.moved || isAncestor(t, x, c)) return true;
    }
    return false;
  }

  // The state of one bottom-up build of @t: step(@count) reads up to
  // @count more view nodes and returns true when the rows (in .rows) are
  // done.  Its state is its own (other passes may run between steps).
  function bottomUpBuild(t) {
    const N = t.n, nm = t.incl.length, S = t.src.strings, kind = t.kind, name = t.name, parent = t.parent;
    const tSelf = t.self, tIncl = t.incl, calls = t.calls, rep = t.rep, repN = t.repN;
    // group of (name, kind): number of a row, -1 before its first node
    const groupOf = new Int32Array(S.length * 8).fill(-1);
    // per row: its first node; sums (nm per row) in arrays grown by doubling
    // (sized for as many rows as the last build of this source had: growing
    // by doubling cost 6-11 ms at a million nodes)
    let gcap = rowCap(t.src.buRowsHint), G = 0, gNode = new Int32Array(gcap), gIncl = new Float64Array(gcap * nm), gSelf = new Float64Array(gcap * nm), gCalls = new Float64Array(gcap);
    let c = 1, up = null;
    const b = { rows: null };
    b.step = function (count) {
      if (b.rows) return true;
      if (!up) up = sameNameUp(t.src);
      // the state in locals for the loop (a variable of the enclosing
      // function costs a load from its context at each use)
      const ups = up, stop = Math.min(N, c + count);
      let x = c, nG = G, cap = gcap, gN = gNode, gI = gIncl, gS = gSelf, gC = gCalls;
      for (; x < stop; x++) {
        const k = kind[x] === K.INLINE ? K.FRAME : kind[x]; // one row for both kinds
        // the exclusive cost of a loop or statement is also its frame's:
        // the nearest frame above it (loops and statements between)
        let f = x;
        while (f > 0 && kind[f] !== K.FRAME && kind[f] !== K.INLINE && kind[f] !== K.TRUNC) f = parent[f];
        if (f > 0 && f !== x) {
          const gf = groupOf[name[f] * 8 + (kind[f] === K.INLINE ? K.FRAME : kind[f])]; // made when f was read (f < x)
          for (let m = 0; m < nm; m++) gS[gf * nm + m] += tSelf[m][x];
        }
        if (k === K.STMT || k === K.LOOP) continue; // part of their procedure
        const key = name[x] * 8 + k;
        let g = groupOf[key];
        if (g < 0) {
          if (nG === cap) {
            const grow = function (y, len) { const z = new y.constructor(len); z.set(y); return z; };
            cap *= 2;
            gN = grow(gN, cap); gI = grow(gI, cap * nm); gS = grow(gS, cap * nm); gC = grow(gC, cap);
          }
          g = groupOf[key] = nG++;
          gN[g] = x;
        }
        if (kind[x] === K.FRAME && kind[gN[g]] === K.INLINE) gN[g] = -1 - gN[g]; // not inlined only (negative: decoded below)
        gC[g] += calls[x];
        for (let m = 0; m < nm; m++) gS[g * nm + m] += tSelf[m][x];
        // (most nodes have no same-name ancestor in the source: no call)
        if ((x < repN && ups[rep[x]] < 0) || !hasNamesake(t, ups, x)) for (let m = 0; m < nm; m++) gI[g * nm + m] += tIncl[m][x];
      }
      c = x; G = nG; gcap = cap; gNode = gN; gIncl = gI; gSelf = gS; gCalls = gC;
      if (c < N) return false;
      const rows = [];
      for (let g = 0; g < G; g++) {
        const i = gNode[g] < 0 ? -1 - gNode[g] : gNode[g], rk = gNode[g] < 0 ? K.FRAME : kind[i];
        rows.push({ name: S[name[i]], kind: rk, nameId: name[i], node: i, calls: gCalls[g], incl: part(gIncl, g * nm, nm), self: part(gSelf, g * nm, nm) });
      }
      b.rows = rows;
      t.src.buRowsHint = G;
      return true;
    };
    return b;
  }

  // Exclusive cost of view node @c in each metric, into @out at @at: its
  // own, and for a frame also that of the loops and statements below it up
  // to the next frames, added in index order (as a pass over all nodes
  // would add them).  @stack: a scratch list.
  function frameSelfOf(t, c, out, at, stack) {
    const nm = t.self.length, kind = t.kind, cstart = t.cstart, clist = t.clist;
    for (let m = 0; m < nm; m++) out[at + m] = t.self[m][c];
    if (kind[c] !== K.FRAME && kind[c] !== K.INLINE && kind[c] !== K.TRUNC) return;
    const owned = [];
    stack.length = 0;
    stack.push(c);
    while (stack.length) {
      const x = stack.pop();
      for (let k = cstart[x]; k < cstart[x + 1]; k++) {
        const y = clist[k], ky = kind[y];
        if (ky === K.FRAME || ky === K.INLINE || ky === K.TRUNC) continue;
        owned.push(y);
        stack.push(y);
      }
    }
    if (!owned.length) return;
    owned.sort(function (a, b) { return a - b; });
    for (const y of owned) for (let m = 0; m < nm; m++) out[at + m] += t.self[m][y];
  }

  // The outermost instances of bottom-up root @row of view @t (see
  // bottomUpRoots): sets row.entries (index order), row.outer and
  // row.weight (all 1), row.carry (the entries) and row.cself (the
  // procedure's exclusive cost inside each: its own and that of the
  // recursive instances it encloses).  Once per row.
  function bottomUpEntries(t, row) {
    if (row.entries) return;
    const N = t.n, name = t.name, kind = t.kind, parent = t.parent, id = row.nameId, nm = t.self.length;
    const isInst = function (i) { return name[i] === id && (kind[i] === K.FRAME || kind[i] === K.INLINE || (kind[i] === row.kind && kind[i] !== K.STMT)); };
    const list = [], top = [];
    for (let i = 1; i < N; i++) {
      if (!isInst(i)) continue;
      list.push(i);
      // its outermost enclosing instance (itself when none): same-name
      // ancestors, statements aside, as in bottomUpRoots
      let o = i;
      for (let p = parent[i]; p > 0; p = parent[p]) if (name[p] === id && kind[p] !== K.STMT) o = p;
      top.push(o);
    }
    const outerList = [], slot = new Map();
    for (let e = 0; e < list.length; e++) if (top[e] === list[e]) { slot.set(list[e], outerList.length); outerList.push(list[e]); }
    const entries = Int32Array.from(outerList), cself = new Float64Array(entries.length * nm), one = new Float64Array(nm);
    const stack = [];
    for (let e = 0; e < list.length; e++) {
      const at = slot.get(top[e]);
      if (at === undefined) continue; // (an outermost instance is always an instance)
      frameSelfOf(t, list[e], one, 0, stack);
      for (let m = 0; m < nm; m++) cself[at * nm + m] += one[m];
    }
    const outer = new Uint8Array(entries.length).fill(1);
    row.entries = entries;
    row.outer = outer;
    row.carry = entries;
    row.weight = outer;
    row.cself = cself;
  }

  // Callers of a bottom-up row: entries moved one frame (or loop) up,
  // grouped by (name, kind, call-site line of the entry), each with the part
  // of the row's cost that came through it.
  function bottomUpCallers(t, row) {
    if (!row.entries) bottomUpEntries(t, row);
    const nm = t.incl.length;
    const keys = new TupleTable(64), out = [];
    for (let e = 0; e < row.entries.length; e++) {
      const i = row.entries[e], c = row.carry[e];
      let p = t.parent[i];
      while (p > 0 && t.kind[p] === K.STMT) p = t.parent[p];
      if (p <= 0) continue;
      const id = keys.id(t.kind[p], t.name[p], t.csLine[i], 0, true);
      let g = out[id];
      if (!g) {
        g = { name: t.src.strings[t.name[p]], kind: t.kind[p], nameId: t.name[p], csLine: t.csLine[i], node: p, level: (row.level || 0) + 1, entries: [], carry: [], weight: [], cself: [], incl: new Float64Array(nm), self: new Float64Array(nm), calls: 0 };
        out.push(g);
      }
      g.entries.push(p);
      g.carry.push(c);
      g.weight.push(row.weight[e]);
      if (!row.level) g.calls += t.calls[i]; // a direct caller: the calls it made
      for (let m = 0; m < nm; m++) {
        if (row.weight[e]) g.incl[m] += t.incl[m][c];
        const s = row.cself[e * nm + m];
        g.self[m] += s;
        g.cself.push(s);
      }
    }
    return out;
  }

  Object.assign(M, { bottomUpRoots, bottomUpJobs, bottomUpEntries, bottomUpCallers });
});
