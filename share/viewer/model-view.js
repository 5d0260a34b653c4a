// SPDX-License-Identifier: BSD-3-Clause
// model-view.js -- csprof viewer model, the view tree: buildView (the
// transforms applied, dispatched through model-transforms.js's table),
// focusRange, dropLeaves, identity, finish and sums, the spare arrays of
// released views (release), the idle-time warm-up jobs (warmUp, jitJobs,
// uniqueJobs, sameNameJobs), children, nameOf, depths, hotPath, isPreorder,
// sourceLines and pathOf.
// Uses: K, load from model-data.js; TupleTable, pool, scratch, sliceJobs, tupleSlots from
// model-table.js; transformType (the transform table) from model-transforms.js.
// A part of the model: see model.js for how the parts are loaded.
(typeof module !== 'undefined' && module.exports ? function (part) { module.exports = part; } : function (part) { part(window.csprofParts = window.csprofParts || {}); })(function (M) {
  'use strict';
  const { K, load, TupleTable, pool, scratch, sliceJobs, tupleSlots, transformType } = M;

  function isFrame(k) { return k === K.FRAME || k === K.INLINE; }

  // The tuples buildView's table is first sized for, for a source of @n
  // nodes (it grows when more nodes turn mixed).
  function bvExpect(n) { return Math.max(n >> 3, 64); }

  // buildView's options for source tree @src under transform list @list:
  // each transform's step from the transform table (model-transforms.js),
  // the one dispatch on the type (an unknown type throws, naming it).
  function viewOptions(src, list) {
    const o = {
      focusNode: -1, focusFn: new Set(), hide: new Set(), hideLibs: [],
      rec: false, noLoops: false, noInl: false, noStmt: false,
    };
    for (const x of list) transformType(x.t).step(o, x, src);
    return o;
  }

  // Build a view tree from the source tree under @transforms.  Result:
  // {n, parent, kind, name, lm, file, line, csFile, csLine, calls, self[m],
  //  incl[m], rep (a source node of each view node), map (source -> view,
  //  -1 when dropped), children (CSR: cstart, clist)}.  One forward pass over
  // the source nodes (parents precede children); a view node's children are
  // found by (parent, kind, name, call-site line) in a TupleTable.
  function buildView(src, transforms) {
    const n = src.n, S = src.strings;
    const o = viewOptions(src, transforms || []);
    const focusNode = o.focusNode, focusFn = o.focusFn, hide = o.hide, hideLibs = o.hideLibs;
    const rec = o.rec, noLoops = o.noLoops, noInl = o.noInl, noStmt = o.noStmt;
    const libHidden = new Uint8Array(src.modules.length);
    for (let m = 0; m < src.modules.length; m++)
      for (const l of hideLibs) if (src.modules[m].indexOf(l) >= 0) libHidden[m] = 1;
    const nm = src.metrics.length;
    if (focusNode < 0 && focusFn.size === 0 && hide.size === 0 && !hideLibs.length && !rec && !noLoops && !noInl) {
      if (!noStmt) return identity(src);
      const t = dropLeaves(src, K.STMT);
      if (t) return t;
    }
    if (focusNode > 0 && focusFn.size === 0 && hide.size === 0 && !hideLibs.length && !rec && !noLoops && !noInl) {
      const t = focusRange(src, focusNode, noStmt);
      if (t) return t;
    }
    // per string id: 1 = hidden name, 2 = focused name
    const nameFlag = new Uint8Array(S.length);
    if (hide.size || focusFn.size) {
      for (let s = 0; s < S.length; s++) {
        if (hide.has(S[s])) nameFlag[s] |= 1;
        if (focusFn.has(S[s])) nameFlag[s] |= 2;
      }
    }
    const sParent = src.parent, sKind = src.kind, sName = src.name, sLm = src.lm, sFile = src.file, sLine = src.line;
    const sCsFile = src.csFile, sCsLine = src.csLine, sCalls = src.calls, sSelf = src.self;
    const map = spare(Int32Array, n);
    map.fill(-1);
    // view nodes are at most the source nodes: preallocated columns, count
    // v.n (from the spares of released views: only calls and self are summed
    // into, so only they need zeroing)
    const v = {
      n: 1, parent: spare(Int32Array, n), kind: spare(Uint8Array, n), name: spare(Int32Array, n),
      lm: spare(Int32Array, n), file: spare(Int32Array, n), line: spare(Int32Array, n),
      csFile: spare(Int32Array, n), csLine: spare(Int32Array, n), calls: spare(Float64Array, n).fill(0),
      rep: spare(Int32Array, n), self: [],
    };
    const vParent = v.parent, vKind = v.kind, vName = v.name, vCalls = v.calls;
    const vLm = v.lm, vFile = v.file, vLine = v.line, vCsFile = v.csFile, vRep = v.rep;
    v.parent[0] = -1; v.kind[0] = K.ROOT; v.name[0] = sName[0]; v.lm[0] = -1; v.file[0] = -1; v.csFile[0] = -1;
    v.line[0] = 0; v.csLine[0] = 0; v.rep[0] = 0;
    for (let m = 0; m < nm; m++) { v.self.push(spare(Float64Array, n).fill(0)); v.self[m][0] = sSelf[m][0]; }
    const vSelf = v.self;
    map[0] = 0;
    // Children of a view node are looked up by (parent, kind, name, call-site
    // line) in a TupleTable only once the node is "mixed": fed by more than
    // one source node, or by one whose children are not unique (src.uniq).
    // A node fed by its one creator gets its children without a lookup;
    // when it turns mixed its children so far (kept in a sibling chain) go
    // into the table.
    const uniq = uniqueChildren(src);
    const keys = new TupleTable(bvExpect(n), 'bv.keys');
    let at = scratch('bv.at', Int32Array, bvExpect(n)); // view node of each tuple number
    const mixed = scratch('u0', Uint8Array, n, 0), firstKid = scratch('i0', Int32Array, n, -1), nextKid = scratch('i1', Int32Array, n);
    const sEnd = src.end;
    const vCsLine = v.csLine;
    mixed[0] = 1;
    function remember(p, c) {
      const id = keys.id(p, vKind[c], vName[c], vCsLine[c], true);
      if (id >= at.length) { const a = new Int32Array(2 * at.length); a.set(at); at = a; }
      at[id] = c;
    }
    function mix(p) {
      if (mixed[p]) return;
      mixed[p] = 1;
      for (let c = firstKid[p]; c >= 0; c = nextKid[c]) remember(p, c);
    }
    // nearest frame of each view node (for recursion), by view index
    const frameOf = scratch('i2', Int32Array, n, 0);
    // focus-function: whether a view node is under a focused frame
    const inFocus = scratch('u1', Uint8Array, n, 0);
    inFocus[0] = focusFn.size === 0 && focusNode < 0 ? 1 : 0;
    const anyFocus = focusFn.size > 0 || focusNode >= 0, anyFn = focusFn.size > 0;
    let vn = 1; // v.n during the pass (a local: no property access per node)
    for (let i = 1; i < n; i++) {
      let p = map[sParent[i]];
      if (p < 0) continue; // parent dropped: whole subtree dropped
      const k = sKind[i], nmId = sName[i], frame = k === K.FRAME || k === K.INLINE;
      let merge = false, anySite = false;
      if (i === focusNode) {
        p = 0; // the focused node becomes a child of the root
      } else if (anyFn && frame && (nameFlag[nmId] & 2) && !inFocus[p]) {
        p = 0; // every outermost call of a focused function: one merged root
        anySite = true;
      }
      let into = -1;
      if ((k === K.LOOP && noLoops) || (k === K.INLINE && noInl) || (k === K.STMT && noStmt)) into = p;
      else if (frame && ((nameFlag[nmId] & 1) || (sLm[i] >= 0 && libHidden[sLm[i]]))) into = p;
      else if (rec && frame && frameOf[p] > 0 && vName[frameOf[p]] === nmId) into = frameOf[p]; // collapse recursion: merge into the caller frame of the same name
      if (into >= 0) {
        if (sEnd[i] > i + 1) mix(into); // its children go to @into too
        map[i] = into;
        for (let m = 0; m < nm; m++) vSelf[m][into] += sSelf[m][i];
        continue;
      }
      const cs = anySite ? 0 : sCsLine[i];
      let c = -1;
      if (!mixed[p] && uniq[sParent[i]]) {
        c = vn;
      } else {
        mix(p);
        const id = keys.id(p, k, nmId, cs, false);
        if (id >= 0) c = at[id];
        else c = vn;
      }
      if (c === vn) {
        vn++;
        vParent[c] = p; vKind[c] = k; vName[c] = nmId; vLm[c] = sLm[i];
        vFile[c] = sFile[i]; vLine[c] = sLine[i]; vCsFile[c] = sCsFile[i];
        vCsLine[c] = cs; vRep[c] = i;
        frameOf[c] = frame ? c : frameOf[p];
        inFocus[c] = inFocus[p];
        if (mixed[p]) remember(p, c);
        else { nextKid[c] = firstKid[p]; firstKid[p] = c; }
      } else if (sEnd[i] > i + 1) {
        mix(c); // a second source node feeds @c
      }
      if (p === 0 && anyFocus && (i === focusNode || (anyFn && (nameFlag[nmId] & 2)))) inFocus[c] = 1;
      map[i] = c;
      vCalls[c] += sCalls[i];
      for (let m = 0; m < nm; m++) vSelf[m][c] += sSelf[m][i];
    }
    v.n = vn;
    const owned = [map, v.parent, v.kind, v.name, v.lm, v.file, v.line, v.csFile, v.csLine, v.calls, v.rep].concat(v.self);
    const t = finish(src, v, map, anyFocus ? inFocus : null); // focus: compacted in v's columns
    t.owned = owned.concat(t.sumsOwned);
    t.moved = rec || anyFocus;
    return t;
  }

  // The view of focus-subtree @f alone (with hide-statements when
  // @noStmt): the root and a copy of @f's preorder range [f, end[f])
  // (its children are unique: no merging), statement leaves dropped into
  // their parents.  Returns null where buildView would merge (another root
  // child with @f's kind, name and call-site line, equal siblings in the
  // range, or a statement with children).
  function focusRange(src, f, noStmt) {
    const n = src.n, end = src.end[f], nm = src.metrics.length;
    const sKind = src.kind, sName = src.name, sCsLine = src.csLine, sParent = src.parent, sEnd = src.end;
    const uniq = uniqueChildren(src);
    if (noStmt && sKind[f] === K.STMT) return null;
    for (let j = 1; j < n; j = sEnd[j])
      if (j !== f && sKind[j] === sKind[f] && sName[j] === sName[f] && sCsLine[j] === sCsLine[f]) return null;
    let k = 1;
    for (let i = f; i < end; i++) {
      if (!uniq[i]) return null;
      if (noStmt && sKind[i] === K.STMT) {
        if (sEnd[i] !== i + 1) return null;
      } else {
        k++;
      }
    }
    const map = spare(Int32Array, n);
    map.fill(-1);
    map[0] = 0;
    // a small subtree gets columns of its size (fresh memory costs, see scratch())
    const len = k < n >> 3 ? k : n, owned = [map];
    const v = { n: k, self: [] };
    const take = function (Type) { const a = spare(Type, len); owned.push(a); return a; };
    const cols = ['kind', 'name', 'lm', 'file', 'line', 'csFile', 'csLine', 'calls'];
    const types = [Uint8Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Int32Array, Float64Array];
    const root = [K.ROOT, sName[0], -1, -1, 0, -1, 0, 0];
    for (let c = 0; c < cols.length; c++) { v[cols[c]] = take(types[c]); v[cols[c]][0] = root[c]; }
    v.parent = take(Int32Array);
    v.rep = take(Int32Array);
    v.parent[0] = -1; v.rep[0] = 0;
    for (let m = 0; m < nm; m++) { v.self.push(take(Float64Array).fill(0, 0, k)); }
    // the view node of each source node, then each column gathered in
    // turn (one array pair per loop: no property lookup per element)
    const rep = v.rep, par = v.parent;
    let j = 1;
    for (let i = f; i < end; i++) {
      if (noStmt && sKind[i] === K.STMT) { map[i] = map[sParent[i]]; continue; }
      map[i] = j;
      par[j] = i === f ? 0 : map[sParent[i]];
      rep[j++] = i;
    }
    for (let c = 0; c < cols.length; c++) gatherInto(v[cols[c]], src[cols[c]], rep, 1, k);
    for (let m = 0; m < nm; m++) {
      const a = v.self[m], b = src.self[m];
      for (let i = f; i < end; i++) a[map[i]] += b[i];
    }
    const t = finish(src, v, map, null);
    t.owned = owned.concat(t.sumsOwned);
    return t;
  }

  // Typed arrays of released views (release()), by type and length, for
  // buildView's columns: reusing them saves the first-touch page faults of
  // fresh memory (see scratch()).
  const spares = new Map();
  function spare(Type, n) {
    const l = spares.get(Type.name + n);
    return l && l.length ? l.pop() : new Type(n);
  }
  function giveSpare(a) {
    const key = a.constructor.name + a.length;
    let l = spares.get(key);
    if (!l) spares.set(key, l = []);
    if (l.length < 24) l.push(a);
  }
  // @len elements of a @Type array for a lazily computed column of view @t:
  // from the spares, and released with @t, when buildView made @t.
  function ownedArray(t, Type, len) {
    if (!t.owned) return new Type(len);
    const n = Math.max(len, Type === Int32Array ? 2 * t.src.n : t.src.n);
    const full = spare(Type, n);
    t.owned.push(full);
    return full.subarray(0, len);
  }

  // Hand the columns that buildView allocated for view @t back for reuse by
  // later builds.  @t must not be used afterwards.  Views without
  // transforms (sharing the source's columns) own nothing and are left as
  // they are.
  function release(t) {
    if (!t || !t.owned) return;
    for (const a of t.owned) giveSpare(a);
    t.owned = null;
  }

  // Work for idle time after loading @src: a list of functions, each
  // writing about 1 MB of the scratch arrays and spare columns that the
  // first transform, bottom-up and flat passes take, so that they find their
  // pages mapped (see scratch()).  The caller runs them while the page is
  // idle (requestIdleCallback), one at a time; nothing depends on their
  // running.
  function warmUp(src) {
    const n = src.n, nm = src.metrics.length, jobs = [];
    function touch(a, done) {
      const step = (1 << 20) / a.BYTES_PER_ELEMENT;
      for (let o = 0; o < a.length; o += step) jobs.push(function () { a.fill(0, o, o + step); });
      jobs.push(done);
    }
    const tags = [['i0', Int32Array, n], ['i1', Int32Array, n], ['i2', Int32Array, n], ['i3', Int32Array, n],
      ['i4', Int32Array, n], ['i5', Int32Array, n], ['u0', Uint8Array, n], ['u1', Uint8Array, n],
      ['bv.keys', Int32Array, 5 * tupleSlots(bvExpect(n))], ['bv.at', Int32Array, bvExpect(n)]];
    for (const x of tags) {
      const tag = x[0], len = x[2];
      if (pool.has(tag) && pool.get(tag).length >= len) continue;
      const a = new x[1](len);
      touch(a, function () { if (!pool.has(tag) || pool.get(tag).length < len) pool.set(tag, a); });
    }
    // one view's columns: buildView's and sums'
    const cols = [[Int32Array, n, 10], [Uint8Array, n, 1], [Float64Array, n, 1 + 2 * nm], [Int32Array, n + 1, 1]];
    for (const c of cols) {
      for (let k = 0; k < c[2]; k++) {
        const a = new c[0](c[1]);
        touch(a, function () { giveSpare(a); });
      }
    }
    return jobs;
  }

  // Work for idle time after loading @src, as warmUp(): buildView on a
  // small source of its own (the first @k nodes of @src in preorder: a
  // tree) for each kind of transform, @rounds times.  JavaScript engines
  // compile a function's optimized code only after it has run a while;
  // without this a user's first transform of a large tree runs partly
  // unoptimized (1.5 to 2 times as long at 1 M nodes, measured in
  // Chromium).  The bottom-up and flat walks need no such work: the first
  // view's (bottomUpJobs, flatJobs) run them.  Nothing of @src is changed;
  // each small view is released, so that the next reuses its columns.
  // @also: transforms added to each list, as the caller adds them to every
  // view it builds (the viewer adds hide-statements): code compiled for
  // lists without them is left as soon as a statement is met (measured:
  // a first hide-loops with hide-statements took 349 ms, then 68 ms).
  function jitJobs(src, k, rounds, also) {
    also = also || [];
    const d = src.data, jobs = [];
    k = Math.min(k, src.n);
    if (k < 2) return jobs;
    let mini = null;
    const lists = [[{ t: 'hide-loops' }], [{ t: 'collapse-recursion' }], [{ t: 'hide-inlines' }], []];
    jobs.push(function () {
      const sl = function (a) { return a.slice(0, k); };
      mini = load(Object.assign({}, d, {
        n: k, parentDelta: sl(d.parentDelta), kind: sl(d.kind), name: sl(d.name), lm: sl(d.lm), file: sl(d.file),
        line: sl(d.line), csFile: sl(d.csFile), csLine: sl(d.csLine), calls: sl(d.calls), self: d.self.map(sl),
      }));
      let fr = -1;
      for (let i = 1; i < k && fr < 0; i++) if (mini.kind[i] === K.FRAME) fr = i;
      if (fr < 0) return;
      const name = mini.strings[mini.name[fr]], lm = mini.lm[fr];
      lists.push([{ t: 'focus-function', name: name }], [{ t: 'hide', name: name }], [{ t: 'focus-subtree', node: fr }]);
      if (lm >= 0) lists.push([{ t: 'hide-lib', lib: mini.modules[lm] }]);
    });
    for (let r = 0; r < rounds; r++) {
      for (let x = 0; x < 8; x++) {
        jobs.push(function () { if (x < lists.length) release(buildView(mini, lists[x].concat(also))); });
      }
    }
    return jobs;
  }

  // Per source node, 1 when its children differ pairwise in (kind, name,
  // call-site line), as csprof-prof writes them; computed once per source
  // (in idle time: uniqueJobs()).  A node's children are found through the
  // preorder subtree ends; up to 16 are compared pairwise, more through a
  // TupleTable.
  function uniqueChildren(src) {
    if (src.uniq) return src.uniq;
    const b = src.uniqBuild || uniqueBuild(src);
    src.uniqBuild = null;
    b.step(Infinity);
    src.uniq = b.uniq;
    return src.uniq;
  }

  // The state of one uniqueChildren(@src) pass: step(@count) checks up to
  // @count more nodes and returns true when b.uniq is complete.  Between
  // steps it keeps nothing shared (other passes may run in between).
  function uniqueBuild(src) {
    const n = src.n, end = src.end, kind = src.kind, name = src.name, csLine = src.csLine;
    const uniq = new Uint8Array(n).fill(1);
    let p = 0;
    const b = { uniq: uniq };
    b.step = function (count) {
      const stop = Math.min(n, p + count);
      for (; p < stop; p++) {
        const e = end[p];
        if (e <= p + 2) continue; // at most one child
        let k = 0;
        for (let j = p + 1; j < e && k <= 16; j = end[j]) k++;
        if (k < 2) continue;
        if (k <= 16) {
          pairs: for (let x = end[p + 1]; x < e; x = end[x]) {
            for (let y = p + 1; y < x; y = end[y]) {
              if (kind[x] === kind[y] && name[x] === name[y] && csLine[x] === csLine[y]) { uniq[p] = 0; break pairs; }
            }
          }
        } else {
          k = 0;
          for (let j = p + 1; j < e; j = end[j]) k++; // all of them (the table's size)
          const keys = new TupleTable(k, 'uniq.keys');
          for (let x = p + 1; x < e; x = end[x]) {
            const before = keys.n;
            keys.id(kind[x], name[x], csLine[x], 0, true);
            if (keys.n === before) { uniq[p] = 0; break; }
          }
        }
      }
      return p >= n;
    };
    return b;
  }

  // Work for idle time after loading @src, as bottomUpJobs(): slices of
  // uniqueChildren(src), about @slice nodes each.
  function uniqueJobs(src, slice) {
    return sliceJobs(src.n, slice, function () {
      if (src.uniq) return null;
      return src.uniqBuild || (src.uniqBuild = uniqueBuild(src));
    }, function (b) { src.uniq = b.uniq; src.uniqBuild = null; });
  }

  // The nearest proper ancestor with the same name of each source node (-1:
  // none, and for the root), as an Int32Array: the chain a view's bottom-up
  // rows follow to find a node's same-name ancestors without a walk of the
  // view (bottomUpBuild).  Computed once per source (in idle time:
  // sameNameJobs()) by one preorder pass with the current path and the
  // deepest node of each name on it.
  function sameNameUp(src) {
    if (src.sameUp) return src.sameUp;
    const b = src.sameUpBuild || sameNameBuild(src);
    src.sameUpBuild = null;
    b.step(Infinity);
    src.sameUp = b.up;
    return src.sameUp;
  }

  // The state of one sameNameUp(@src) pass: step(@count) reads up to
  // @count more nodes and returns true when b.up is complete.  Its state is
  // its own (other passes may run between steps).
  function sameNameBuild(src) {
    const n = src.n, parent = src.parent, name = src.name;
    const up = new Int32Array(n).fill(-1), last = new Int32Array(src.strings.length).fill(-1);
    let path = new Int32Array(256), sp = 0, i = 1;
    const b = { up: up };
    b.step = function (count) {
      const stop = Math.min(n, i + count);
      for (; i < stop; i++) {
        const p = parent[i];
        while (sp > 0 && path[sp - 1] !== p) {
          const x = path[--sp];
          last[name[x]] = up[x];
        }
        up[i] = last[name[i]];
        last[name[i]] = i;
        if (sp === path.length) { const a = new Int32Array(2 * sp); a.set(path); path = a; }
        path[sp++] = i;
      }
      return i >= n;
    };
    return b;
  }

  // Work for idle time after loading @src, as uniqueJobs(): slices of
  // sameNameUp(src), about @slice nodes each.
  function sameNameJobs(src, slice) {
    return sliceJobs(src.n, slice, function () {
      if (src.sameUp) return null;
      return src.sameUpBuild || (src.sameUpBuild = sameNameBuild(src));
    }, function (b) { src.sameUp = b.up; src.sameUpBuild = null; });
  }

  // The view without the leaves of kind @kind, their cost moved to their
  // parents: no child can clash with another, so no lookup is needed.
  // Returns null when such a node has children (then buildView merges).
  function dropLeaves(src, kind) {
    const n = src.n, nm = src.metrics.length, sKind = src.kind, sEnd = src.end, sParent = src.parent;
    const map = new Int32Array(n);
    let k = 0;
    for (let i = 0; i < n; i++) {
      if (sKind[i] === kind && i > 0) {
        if (sEnd[i] !== i + 1) return null;
        map[i] = -2;
      } else {
        map[i] = k++;
      }
    }
    const rep = new Int32Array(k), parent = new Int32Array(k);
    for (let i = 0; i < n; i++) {
      const j = map[i];
      if (j === -2) { map[i] = map[sParent[i]]; continue; }
      rep[j] = i;
      parent[j] = i === 0 ? -1 : map[sParent[i]];
    }
    const t = { src: src, n: k, map: map, parent: parent, rep: rep, self: [], incl: [], moved: false, repN: k };
    for (const c of ['kind', 'name', 'lm', 'file', 'line', 'csFile', 'csLine', 'calls']) t[c] = gather(src[c], rep);
    for (let m = 0; m < nm; m++) {
      const a = new Float64Array(k), s = src.self[m];
      for (let i = 0; i < n; i++) a[map[i]] += s[i];
      t.self.push(a);
    }
    return sums(t);
  }

  // @out[j] = @a[@idx[j]] for @from <= j < @to.
  function gatherInto(out, a, idx, from, to) {
    for (let j = from; j < to; j++) out[j] = a[idx[j]];
  }

  // @a[@idx[j]] for each j, in an array of @a's type.
  function gather(a, idx) {
    const out = new a.constructor(idx.length);
    gatherInto(out, a, idx, 0, idx.length);
    return out;
  }

  // The view without transforms: the source arrays themselves.
  function identity(src) {
    const map = new Int32Array(src.n);
    for (let i = 0; i < src.n; i++) map[i] = i;
    const t = {
      src: src, n: src.n, map: map, parent: src.parent, kind: src.kind, name: src.name, lm: src.lm,
      file: src.file, line: src.line, csFile: src.csFile, csLine: src.csLine, calls: src.calls,
      rep: map, self: src.self, incl: [], moved: false, repN: src.n,
    };
    return sums(t);
  }

  // The first @N values of @a as a @Type array (a view of typed @a, not a copy).
  function typed(a, N, Type) {
    return ArrayBuffer.isView(a) ? a.subarray(0, N) : Type.from(a);
  }

  // Typed arrays, focus pruning, inclusive values and children lists.
  function finish(src, v, map, inFocus) {
    let N = v.n !== undefined ? v.n : v.parent.length;
    const nm = v.self.length;
    if (inFocus) {
      // keep the root and the nodes in focus; the root's self is dropped
      const keep = scratch('i3', Int32Array, N, -1);
      let k = 0;
      keep[0] = k++;
      for (let i = 1; i < N; i++) if (inFocus[i]) keep[i] = k++;
      const idx = scratch('i4', Int32Array, k);
      for (let i = 0; i < N; i++) if (keep[i] >= 0) idx[keep[i]] = i;
      // compacted in place: idx[j] >= j, so ascending j reads each kept
      // node before anything overwrites it (fresh arrays cost more than
      // the copy: see scratch())
      for (const f of ['kind', 'name', 'lm', 'file', 'line', 'csFile', 'csLine', 'calls', 'rep']) {
        const a = v[f];
        for (let j = 0; j < k; j++) a[j] = a[idx[j]];
      }
      const par = v.parent;
      par[0] = -1;
      for (let j = 1; j < k; j++) par[j] = keep[par[idx[j]]];
      for (let m = 0; m < nm; m++) {
        const a = v.self[m];
        for (let j = 0; j < k; j++) a[j] = a[idx[j]];
        a[0] = 0;
      }
      for (let i = 0; i < map.length; i++) if (map[i] >= 0) map[i] = keep[map[i]];
      v.n = k;
      N = k;
    }
    const t = {
      src: src, n: N, map: map,
      parent: typed(v.parent, N, Int32Array), kind: typed(v.kind, N, Uint8Array), name: typed(v.name, N, Int32Array),
      lm: typed(v.lm, N, Int32Array), file: typed(v.file, N, Int32Array), line: typed(v.line, N, Int32Array),
      csFile: typed(v.csFile, N, Int32Array), csLine: typed(v.csLine, N, Int32Array),
      calls: typed(v.calls, N, Float64Array), rep: typed(v.rep, N, Int32Array),
      self: v.self.map(function (a) { return typed(a, N, Float64Array); }), incl: [],
      // set by buildView: collapse-recursion or a focus moved subtrees off
      // the views of their source ancestors (see hasNamesake)
      moved: false,
      // nodes [0, repN) are views of their source node rep (baseOnly()
      // appends others)
      repN: N,
    };
    return sums(t);
  }

  // Inclusive values and children lists (CSR) of view @t; their arrays come
  // from the spares (full source length, used in part) and are listed in
  // t.sumsOwned.
  function sums(t) {
    // arrays of the source's length, to be reused by any later view, unless
    // the view is much smaller (then its own length: less fresh memory)
    const N = t.n, nm = t.self.length, n = N < t.src.n >> 3 ? N : Math.max(t.src.n, N), parent = t.parent;
    const own = t.sumsOwned = [];
    // parents precede children in creation order, so a reverse pass sums
    for (let m = 0; m < nm; m++) {
      const full = spare(Float64Array, n);
      own.push(full);
      const inc = full.subarray(0, N);
      inc.set(t.self[m].subarray(0, N));
      for (let i = N - 1; i > 0; i--) inc[parent[i]] += inc[i];
      t.incl.push(inc);
    }
    const cfull = spare(Int32Array, n + 1), lfull = spare(Int32Array, n);
    own.push(cfull, lfull);
    const cnt = cfull.subarray(0, N + 1).fill(0);
    for (let i = 1; i < N; i++) cnt[parent[i] + 1]++;
    for (let i = 0; i < N; i++) cnt[i + 1] += cnt[i];
    const clist = lfull.subarray(0, Math.max(N - 1, 0));
    const fill = scratch('i5', Int32Array, N);
    fill.set(cnt.subarray(0, N));
    for (let i = 1; i < N; i++) clist[fill[t.parent[i]]++] = i;
    t.cstart = cnt;
    t.clist = clist;
    return t;
  }

  // Children of view node @i, sorted by @key(node) descending (ties: name).
  function children(t, i, key) {
    const out = Array.from(t.clist.subarray(t.cstart[i], t.cstart[i + 1]));
    if (key) out.sort(function (a, b) { return key(b) - key(a) || (t.name[a] - t.name[b]); });
    return out;
  }

  function nameOf(t, i) { return t.src.strings[t.name[i]]; }

  // Depth of each view node (root 0).
  function depths(t) {
    const d = new Int32Array(t.n);
    for (let i = 1; i < t.n; i++) d[i] = d[t.parent[i]] + 1;
    return d;
  }

  // The hot path from @i: follow the child with the largest inclusive value
  // of metric @m while it holds at least @frac of its parent's.
  function hotPath(t, i, m, frac) {
    const path = [i];
    const inc = t.incl[m];
    for (;;) {
      let best = -1, bv = -Infinity;
      for (let k = t.cstart[i]; k < t.cstart[i + 1]; k++) {
        const c = t.clist[k];
        if (inc[c] > bv) { bv = inc[c]; best = c; }
      }
      if (best < 0 || bv < frac * inc[i] || bv <= 0) break;
      path.push(best);
      i = best;
    }
    return path;
  }

  // ---------------------------------------------------------------- walks

  // Whether view @t is numbered in preorder (each node's subtree follows
  // it, as in the source; identity, dropLeaves and focusRange keep that
  // order, merging builds need not); computed once per view, with a stack
  // of the current path only.
  function isPreorder(t) {
    if (t.preorder !== undefined) return t.preorder;
    const N = t.n, parent = t.parent;
    let stack = new Int32Array(256), sp = 0, pre = true;
    stack[sp++] = 0;
    for (let i = 1; i < N; i++) {
      const p = parent[i];
      while (sp > 0 && stack[sp - 1] !== p) sp--;
      if (sp === 0) { pre = false; break; }
      if (sp === stack.length) { const a = new Int32Array(2 * sp); a.set(stack); stack = a; }
      stack[sp++] = i;
    }
    t.preorder = pre;
    return pre;
  }

  // Per-line source metrics of file @f in view @t: {line -> {incl, self, calls,
  // loops: [[start,end]]}} for metric @m.  Statements give self and
  // inclusive; call sites on a line add their callee's inclusive and calls.
  function sourceLines(t, f, m) {
    const lines = new Map(), loops = [];
    function at(l) { let r = lines.get(l); if (!r) { r = { incl: 0, self: 0, calls: 0 }; lines.set(l, r); } return r; }
    for (let i = 1; i < t.n; i++) {
      const k = t.kind[i];
      if (k === K.STMT && t.file[i] === f && t.line[i] > 0) {
        const r = at(t.line[i]);
        r.self += t.self[m][i];
        r.incl += t.incl[m][i];
      }
      if (isFrame(k) && t.csFile[i] === f && t.csLine[i] > 0) {
        const r = at(t.csLine[i]);
        r.incl += t.incl[m][i];
        r.calls += t.calls[i];
      }
      if (k === K.LOOP && t.file[i] === f && t.line[i] > 0) {
        let last = t.line[i];
        // extent: the largest statement line in the loop's subtree
        const st = [i];
        while (st.length) {
          const x = st.pop();
          if (t.file[x] === f && t.line[x] > last && t.kind[x] === K.STMT) last = t.line[x];
          for (let c = t.cstart[x]; c < t.cstart[x + 1]; c++) if (!isFrame(t.kind[t.clist[c]])) st.push(t.clist[c]);
        }
        loops.push([t.line[i], last]);
      }
    }
    return { lines: lines, loops: loops };
  }

  // Path of view node @i as names from the root.
  function pathOf(t, i) {
    const p = [];
    for (; i > 0; i = t.parent[i]) p.push(nameOf(t, i));
    return p.reverse();
  }

  Object.assign(M, { isFrame, buildView, release, warmUp, jitJobs, uniqueJobs, sameNameUp, sameNameJobs, sums, children, nameOf, depths, hotPath, isPreorder, sourceLines, pathOf });
});
