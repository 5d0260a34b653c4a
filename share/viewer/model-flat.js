// SPDX-License-Identifier: BSD-3-Clause
// model-flat.js -- csprof viewer model, the flat (static: module, file,
// procedure, loop, line) view: flat, flatJobs.
// Uses: K from model-data.js; TupleTable, part, rowCap, sliceJobs from model-table.js; isPreorder from model-view.js.
// A part of the model: see model.js for how the parts are loaded.
(typeof module !== 'undefined' && module.exports ? function (part) { module.exports = part; } : function (part) { part(window.csprofParts = window.csprofParts || {}); })(function (M) {
  'use strict';
  const { K, TupleTable, part, rowCap, sliceJobs, isPreorder } = M;

  // ----------------------------------------------------------------- flat

  // Static view: module -> file -> procedure -> loop -> statement.  Each
  // row: {name, kind, key, children: [], incl[m], self[m], calls, node (the
  // first view node it counts, in depth-first order; 0 for the program,
  // modules and files), file, line}, procedure rows also {lm, mr (module
  // row), fr (file row)}; inclusive counts a view node only if no ancestor
  // has the same static key.  The program row (the root) also has
  // outside[m]: the exclusive cost of nodes in no row (the root's own, and
  // loops or statements with no frame above them once frames are hidden),
  // as csprof-report's "cost outside any shown frame"; its self is that
  // plus its modules', so it equals the tree's total.  One depth-first walk with state per depth of
  // the current path only (no per-node memory): a preorder view
  // (isPreorder) is read in index order, the path being the depth arrays;
  // others are walked through their children lists (cstart, clist) with a
  // stack of pending entries (i: enter i, ~i: leave it).  Rows are
  // numbers found in a TupleTable (module: (0, lm), file: (1, lm, file),
  // procedure: (2, lm, file, name), loop/statement: (3 or 4, parent row,
  // file, line), loop without a line: (5, parent row, name)) and get their
  // objects at the end; an active-occurrence
  // counter per row gives the outermost-occurrence rule.
  function flat(t) {
    const b = t.flatBuild || flatBuild(t);
    t.flatBuild = null;
    t.flatDone = true;
    b.step(Infinity);
    return b.root;
  }

  // Work for idle time on view @t, as bottomUpJobs(): slices of flat(t),
  // about @slice depth-first events each; the last leaves its result in
  // t.flatRoot.
  function flatJobs(t, slice) {
    return sliceJobs(2 * t.n, slice, function () {
      if (t.flatRoot || t.flatDone || t.owned === null) return null; // done, or @t released
      return t.flatBuild || (t.flatBuild = flatBuild(t));
    }, function (b) { t.flatRoot = b.root; t.flatBuild = null; });
  }

  // The state of one flat(@t) build: step(@count) walks up to @count more
  // depth-first events and returns true when the tree (in .root) is done.
  function flatBuild(t) {
    const nm = t.incl.length, S = t.src.strings;
    const kind = t.kind, name = t.name, file = t.file, line = t.line, lm = t.lm;
    const tSelf = t.self, tIncl = t.incl, calls = t.calls;
    // per row (row 0 is the program): parent row, kind, name, key, file,
    // line, module (procedures), module row and file row (procedures),
    // first node; sums; active occurrences on the current path
    const rName = ['[program]'], rKey = [''];
    // (sized for as many rows as the last build of this source had, as in
    // bottomUpBuild)
    let cap = rowCap(t.src.flatRowsHint), R = 1;
    let rParent = new Int32Array(cap), rKind = new Uint8Array(cap), rFile = new Int32Array(cap), rLine = new Int32Array(cap);
    let rLm = new Int32Array(cap), rMr = new Int32Array(cap), rFr = new Int32Array(cap), rFirst = new Int32Array(cap);
    let rSelf = new Float64Array(cap * nm), rIncl = new Float64Array(cap * nm), rCalls = new Float64Array(cap), active = new Int32Array(cap);
    rParent[0] = -1; rKind[0] = K.ROOT; rFile[0] = -1; rMr[0] = -1; rFr[0] = -1; rFirst[0] = -1;
    // row numbers are the table's tuple numbers + 1
    const table = new TupleTable(cap);
    function newRow(parentRow, k, nameStr, key) {
      if (R === cap) {
        const g = function (x, len) { const y = new x.constructor(len); y.set(x); return y; };
        cap *= 2;
        rParent = g(rParent, cap); rKind = g(rKind, cap); rFile = g(rFile, cap); rLine = g(rLine, cap);
        rLm = g(rLm, cap); rMr = g(rMr, cap); rFr = g(rFr, cap); rFirst = g(rFirst, cap);
        rSelf = g(rSelf, cap * nm); rIncl = g(rIncl, cap * nm); rCalls = g(rCalls, cap); active = g(active, cap);
      }
      const r = R++;
      rParent[r] = parentRow; rKind[r] = k; rName.push(nameStr); rKey.push(key);
      rFile[r] = -1; rLine[r] = 0; rLm[r] = -1; rMr[r] = -1; rFr[r] = -1; rFirst[r] = -1;
    }
    const procByName = new Int32Array(S.length).fill(-1); // last procedure row of each name
    // per depth of the current path: the node, the row of its scope
    // (inherited), the row it counts in (-1: none), the module its nearest
    // frame counts in (-1: [unknown module]; NO_FRAME: no frame above)
    const NO_FRAME = -2;
    let dcap = 64, dNode = new Int32Array(dcap), dScope = new Int32Array(dcap), dOwn = new Int32Array(dcap), dLm = new Int32Array(dcap);
    let d = -1;
    // the walk: next node of a preorder view; else a stack of pending entries
    const N = t.n, parent = t.parent, cstart = t.cstart, clist = t.clist, pre = isPreorder(t);
    let next = 0, stack = null, sp = 0;
    if (!pre) { stack = new Int32Array(256); stack[sp++] = 0; }
    const b = { root: null };
    b.step = function (count) {
      if (b.root) return true;
      for (let c = 0; c < count; c++) {
        let x;
        if (pre) {
          if (d >= 0 && (next >= N || dNode[d] !== parent[next])) x = ~dNode[d];
          else if (next < N) x = next++;
          else break;
        } else {
          if (sp === 0) break;
          x = stack[--sp];
          if (x >= 0) {
            const ka = cstart[x], kb = cstart[x + 1];
            if (sp + 1 + kb - ka > stack.length) {
              let len = 2 * stack.length;
              while (len < sp + 1 + kb - ka) len *= 2;
              const y = new Int32Array(len);
              y.set(stack.subarray(0, sp));
              stack = y;
            }
            stack[sp++] = ~x;
            for (let k = kb - 1; k >= ka; k--) stack[sp++] = clist[k];
          }
        }
        if (x < 0) {
          const r = dOwn[d--];
          if (r < 0) continue;
          active[r]--;
          if (kind[~x] === K.FRAME || kind[~x] === K.INLINE) { active[rMr[r]]--; active[rFr[r]]--; }
          continue;
        }
        const i = x, k = kind[i];
        if (++d === dcap) {
          dcap *= 2;
          const g = function (a) { const y = new Int32Array(dcap); y.set(a); return y; };
          dNode = g(dNode); dScope = g(dScope); dOwn = g(dOwn); dLm = g(dLm);
        }
        dNode[d] = i;
        let r = -1;
        const frame = k === K.FRAME || k === K.INLINE;
        if (frame) {
          // its module (docs/views.md, "Flat", rule 3): a frame's own load
          // module, [unknown module] (-1) when it has none, never its
          // caller's (a [kernel] or JIT frame is not the program's code); an
          // inlined frame's, that of the frame it is inlined in (its own
          // where no frame encloses it), as csprof-report's
          const l = k === K.INLINE && d > 0 && dLm[d - 1] !== NO_FRAME ? dLm[d - 1] : lm[i];
          const f = file[i];
          r = procByName[name[i]];
          if (r < 0 || rLm[r] !== l || rFile[r] !== f) {
            const mr = table.id(0, l, 0, 0, true) + 1;
            if (mr === R) newRow(0, K.GROUP, l >= 0 ? t.src.modules[l] : '[unknown module]', 'M' + l);
            const fr = table.id(1, l, f, 0, true) + 1;
            if (fr === R) newRow(mr, K.GROUP, f >= 0 ? t.src.files[f] : '[unknown file]', 'M' + l + 'F' + f);
            rFile[fr] = f;
            r = table.id(2, l, f, name[i], true) + 1;
            if (r === R) newRow(fr, K.FRAME, S[name[i]], 'M' + l + 'F' + f + 'P' + name[i]);
            rFile[r] = f; rLine[r] = line[i]; rLm[r] = l; rMr[r] = mr; rFr[r] = fr;
            procByName[name[i]] = r;
          }
          dLm[d] = l;
        } else {
          dLm[d] = d > 0 ? dLm[d - 1] : NO_FRAME;
          const pr = d > 0 ? dScope[d - 1] : -1;
          if ((k === K.LOOP || k === K.STMT) && pr >= 0) {
            // a loop without a line (stripped code) is known by its name,
            // its address range: distinct loops of a procedure stay apart
            const byName = k === K.LOOP && line[i] <= 0;
            const q = byName ? 5 : k === K.LOOP ? 3 : 4;
            r = byName ? table.id(q, pr, name[i], 0, true) + 1 : table.id(q, pr, file[i], line[i], true) + 1;
            if (r === R) newRow(pr, k, S[name[i]], rKey[pr] + (k === K.LOOP ? 'L' : 'S') + (byName ? '@' + name[i] : file[i] + ':' + line[i]));
            rFile[r] = file[i]; rLine[r] = line[i];
          }
        }
        dScope[d] = r >= 0 ? r : d > 0 ? dScope[d - 1] : -1;
        dOwn[d] = r;
        if (frame) {
          // a module or file counts the outermost frames it contains
          const mr = rMr[r], fr = rFr[r];
          if (!active[mr]) for (let m = 0; m < nm; m++) rIncl[mr * nm + m] += tIncl[m][i];
          active[mr]++;
          if (!active[fr]) for (let m = 0; m < nm; m++) rIncl[fr * nm + m] += tIncl[m][i];
          active[fr]++;
        }
        if (r >= 0) {
          const outer = !active[r];
          active[r]++;
          if (rFirst[r] < 0) rFirst[r] = i;
          rCalls[r] += calls[i];
          for (let m = 0; m < nm; m++) {
            rSelf[r * nm + m] += tSelf[m][i];
            if (outer) rIncl[r * nm + m] += tIncl[m][i];
          }
        } else {
          // (no enclosing row: the root's own cost, or a loop left at the
          // top once every frame above it is hidden: the program's own)
          const q = dScope[d] >= 0 ? dScope[d] : 0;
          for (let m = 0; m < nm; m++) rSelf[q * nm + m] += tSelf[m][i];
        }
        if (!frame && k !== K.ROOT) {
          // exclusive cost of a statement also counts for its nearest
          // loop, and that of both for their procedure (docs/views.md,
          // "Flat": a loop's exclusive is its own statements', not its
          // nested loops', so each cost is in one loop row)
          let inLoop = k === K.LOOP;
          for (let a = d - 1; a > 0; a--) {
            const q = dOwn[a], ka = kind[dNode[a]];
            if (q >= 0 && !(ka === K.LOOP && inLoop)) for (let m = 0; m < nm; m++) rSelf[q * nm + m] += tSelf[m][i];
            if (ka === K.LOOP) inLoop = true;
            if (ka === K.FRAME || ka === K.INLINE) break;
          }
        }
      }
      if (d >= 0) return false;
      // row objects, children in creation order
      const rows = new Array(R);
      for (let r = 0; r < R; r++) {
        const o = { name: rName[r], kind: rKind[r], key: rKey[r], children: [], incl: part(rIncl, r * nm, nm), self: part(rSelf, r * nm, nm), calls: rCalls[r], node: rFirst[r] >= 0 ? rFirst[r] : 0, file: rFile[r], line: rLine[r] };
        if (rKind[r] === K.FRAME && rMr[r] >= 0) { o.lm = rLm[r]; o.mr = rows[rMr[r]]; o.fr = rows[rFr[r]]; }
        rows[r] = o;
        if (r > 0) rows[rParent[r]].children.push(o);
      }
      // the cost outside any row (above), before the program's self sums
      // its modules'
      rows[0].outside = part(rSelf, 0, nm);
      // modules and files: self and calls are the sums of their procedures'
      for (let r = R - 1; r >= 0; r--) {
        const o = rows[r];
        if (o.kind === K.GROUP || o.kind === K.ROOT) {
          for (const c of o.children) {
            for (let m = 0; m < nm; m++) o.self[m] += c.self[m];
            o.calls += c.calls;
          }
        }
      }
      // the program's inclusive is the tree's
      for (let m = 0; m < nm; m++) rows[0].incl[m] = tIncl[m][0];
      b.root = rows[0];
      t.src.flatRowsHint = R;
      return true;
    };
    return b;
  }

  Object.assign(M, { flat, flatJobs });
});
