// SPDX-License-Identifier: BSD-3-Clause
// model_ref.js -- the passes of the viewer model that were rewritten on
// typed-array hash tables, as they were before (the reference of
// model_random.test.js; not shipped).  Original header:
// model.js -- csprof viewer model: no DOM.  Loads the data written by
// csprof-prof (share/schemas/viewer-data.md), applies the report's transforms
// (focus subtree, focus function, hide = merge into callers, hide library,
// collapse recursion, hide loops/inlined frames), and builds the bottom-up
// (callers), flat (static) and differential views.  Every pass is an
// iterative loop over arrays (no recursion: deep call paths must not
// overflow the JS stack).  Plain ES2020, CommonJS-compatible, so that
// `node --test` can load it.
(function (root) {
  'use strict';

  // Node kinds: the viewer data's codes (share/schemas/viewer-data.md, "kind").
  const K = { ROOT: 0, FRAME: 1, INLINE: 2, LOOP: 3, STMT: 4, TRUNC: 5, GROUP: 6 };
  const KIND_NAMES = ['root', 'frame', 'inline', 'loop', 'statement', 'truncated', 'group'];

  // The data object (window.CSPROF_DB) as typed arrays.
  function load(d) {
    if (!d || d.format !== 1) throw new Error('viewer data format ' + (d && d.format) + ' is not 1: run csprof-prof --refresh-viewer DB');
    const n = d.n;
    const parent = new Int32Array(n);
    const pd = d.parentDelta;
    parent[0] = -1;
    for (let i = 1; i < n; i++) parent[i] = i - pd[i];
    const nm = d.metrics.length;
    const self = [];
    for (let m = 0; m < nm; m++) {
      const src = d.self[m];
      const a = new Float64Array(n);
      for (let i = 0; i < n; i++) a[i] = src[i];
      self.push(a);
    }
    const src = {
      data: d,
      n: n,
      parent: parent,
      kind: Uint8Array.from(d.kind),
      name: Int32Array.from(d.name),
      lm: Int32Array.from(d.lm),
      file: Int32Array.from(d.file),
      line: Int32Array.from(d.line),
      csFile: Int32Array.from(d.csFile),
      csLine: Int32Array.from(d.csLine),
      calls: Float64Array.from(d.calls),
      self: self,
      strings: d.strings,
      metrics: d.metrics,
      modules: d.modules,
      files: d.files,
    };
    // subtree end (exclusive) of each node in preorder
    const end = new Int32Array(n);
    for (let i = n - 1; i >= 0; i--) {
      if (end[i] === 0) end[i] = i + 1;
      const p = parent[i];
      if (p >= 0 && end[i] > end[p]) end[p] = end[i];
    }
    src.end = end;
    return src;
  }

  // ------------------------------------------------------------- transforms

  // Transform list: [{t:'focus-subtree', node:i} | {t:'focus-function', name:s}
  // | {t:'hide', name:s} | {t:'hide-lib', lib:s} | {t:'collapse-recursion'}
  // | {t:'hide-loops'} | {t:'hide-inlines'} | {t:'hide-statements'}].
  const TRANSFORMS = ['focus-subtree', 'focus-function', 'hide', 'hide-lib', 'collapse-recursion', 'hide-loops', 'hide-inlines', 'hide-statements'];

  function isFrame(k) { return k === K.FRAME || k === K.INLINE; }

  // Build a view tree from the source tree under @transforms.  Result:
  // {n, parent, kind, name, lm, file, line, csFile, csLine, calls, self[m],
  //  incl[m], rep (a source node of each view node), map (source -> view,
  //  -1 when dropped), children (CSR: cstart, clist)}.
  function buildView(src, transforms) {
    transforms = transforms || [];
    const n = src.n, S = src.strings;
    let focusNode = -1;
    const focusFn = new Set(), hide = new Set(), hideLibs = [];
    let rec = false, noLoops = false, noInl = false, noStmt = false;
    for (const x of transforms) {
      if (x.t === 'focus-subtree' && x.node >= 0 && x.node < n) focusNode = x.node;
      else if (x.t === 'focus-function') focusFn.add(x.name);
      else if (x.t === 'hide') hide.add(x.name);
      else if (x.t === 'hide-lib' && x.lib) hideLibs.push(x.lib);
      else if (x.t === 'collapse-recursion') rec = true;
      else if (x.t === 'hide-loops') noLoops = true;
      else if (x.t === 'hide-inlines') noInl = true;
      else if (x.t === 'hide-statements') noStmt = true;
    }
    const libHidden = new Uint8Array(src.modules.length);
    for (let m = 0; m < src.modules.length; m++)
      for (const l of hideLibs) if (src.modules[m].indexOf(l) >= 0) libHidden[m] = 1;
    const nm = src.metrics.length;
    if (focusNode < 0 && focusFn.size === 0 && hide.size === 0 && !hideLibs.length && !rec && !noLoops && !noInl) {
      if (!noStmt) return identity(src);
      const t = dropLeaves(src, K.STMT);
      if (t) return t;
    }
    const map = new Int32Array(n).fill(-1);
    // view nodes are at most the source nodes: preallocated columns, count v.n
    const v = {
      n: 1, parent: new Int32Array(n), kind: new Uint8Array(n), name: new Int32Array(n),
      lm: new Int32Array(n), file: new Int32Array(n), line: new Int32Array(n),
      csFile: new Int32Array(n), csLine: new Int32Array(n), calls: new Float64Array(n),
      rep: new Int32Array(n), self: [],
    };
    v.parent[0] = -1; v.kind[0] = K.ROOT; v.name[0] = src.name[0]; v.lm[0] = -1; v.file[0] = -1; v.csFile[0] = -1;
    for (let m = 0; m < nm; m++) { v.self.push(new Float64Array(n)); v.self[m][0] = src.self[m][0]; }
    map[0] = 0;
    const keys = new Map(), keys2 = new Map();
    // nearest frame of each view node (for recursion), by view index
    const frameOf = new Int32Array(n);
    // focus-function: whether a view node is under a focused frame
    const inFocus = new Uint8Array(n);
    inFocus[0] = focusFn.size === 0 && focusNode < 0 ? 1 : 0;
    const anyFocus = focusFn.size > 0 || focusNode >= 0;
    function child(p, i, anySite) {
      const k = src.kind[i], nmId = src.name[i], cs = anySite ? 0 : src.csLine[i];
      // fast numeric key (parent, name); the full key only on a clash
      const nkey = p * 1048576 + (nmId & 1048575);
      let c = keys.get(nkey), key = null;
      if (c !== undefined && (v.kind[c] !== k || v.name[c] !== nmId || v.csLine[c] !== cs)) {
        key = p + ':' + k + ':' + nmId + ':' + cs;
        c = keys2.get(key);
      }
      if (c === undefined) {
        c = v.n++;
        if (key === null && !keys.has(nkey)) keys.set(nkey, c);
        else keys2.set(key || p + ':' + k + ':' + nmId + ':' + cs, c);
        v.parent[c] = p; v.kind[c] = k; v.name[c] = nmId; v.lm[c] = src.lm[i];
        v.file[c] = src.file[i]; v.line[c] = src.line[i]; v.csFile[c] = src.csFile[i];
        v.csLine[c] = cs; v.rep[c] = i;
        frameOf[c] = isFrame(k) ? c : frameOf[p];
        inFocus[c] = inFocus[p];
      }
      return c;
    }
    for (let i = 1; i < n; i++) {
      const sp = src.parent[i];
      let p = map[sp];
      if (p < 0) continue; // parent dropped: whole subtree dropped
      const k = src.kind[i];
      const name = S[src.name[i]];
      let merge = false, anySite = false;
      if (focusNode >= 0 && i === focusNode) {
        p = 0; // the focused node becomes a child of the root
      } else if (focusFn.size > 0 && isFrame(k) && focusFn.has(name) && !inFocus[p]) {
        p = 0; // every outermost call of a focused function: one merged root
        anySite = true;
      }
      if ((k === K.LOOP && noLoops) || (k === K.INLINE && noInl) || (k === K.STMT && noStmt)) merge = true;
      else if (isFrame(k) && (hide.has(name) || (src.lm[i] >= 0 && libHidden[src.lm[i]]))) merge = true;
      else if (rec && isFrame(k) && frameOf[p] > 0 && v.name[frameOf[p]] === src.name[i]) {
        // collapse recursion: merge into the caller frame of the same name
        map[i] = frameOf[p];
        addSelf(frameOf[p], i);
        continue;
      }
      if (merge) {
        map[i] = p;
        addSelf(p, i);
        continue;
      }
      const c = child(p, i, anySite);
      if (p === 0 && anyFocus && (i === focusNode || (focusFn.size > 0 && focusFn.has(name)))) inFocus[c] = 1;
      map[i] = c;
      v.calls[c] += src.calls[i];
      addSelf(c, i);
    }
    function addSelf(c, i) {
      for (let m = 0; m < nm; m++) v.self[m][c] += src.self[m][i];
    }
    return finish(src, v, map, anyFocus ? inFocus : null);
  }

  // The view without the leaves of kind @kind, their cost moved to their
  // parents: no child can clash with another, so no lookup is needed.
  // Returns null when such a node has children (then buildView merges).
  function dropLeaves(src, kind) {
    const n = src.n, nm = src.metrics.length;
    const map = new Int32Array(n);
    let k = 0;
    for (let i = 0; i < n; i++) {
      if (src.kind[i] === kind && i > 0) {
        if (src.end[i] !== i + 1) return null;
        map[i] = -2;
      } else {
        map[i] = k++;
      }
    }
    const rep = new Int32Array(k), parent = new Int32Array(k);
    const cols = ['kind', 'name', 'lm', 'file', 'line', 'csFile', 'csLine', 'calls'];
    const v = {};
    for (const c of cols) v[c] = new src[c].constructor(k);
    const self = [];
    for (let m = 0; m < nm; m++) self.push(new Float64Array(k));
    for (let i = 0; i < n; i++) {
      let j = map[i];
      if (j === -2) {
        j = map[i] = map[src.parent[i]];
        for (let m = 0; m < nm; m++) self[m][j] += src.self[m][i];
        continue;
      }
      rep[j] = i;
      parent[j] = i === 0 ? -1 : map[src.parent[i]];
      for (const c of cols) v[c][j] = src[c][i];
      for (let m = 0; m < nm; m++) self[m][j] += src.self[m][i];
    }
    const t = { src: src, n: k, map: map, parent: parent, rep: rep, self: self, incl: [] };
    for (const c of cols) t[c] = v[c];
    return sums(t);
  }

  // The view without transforms: the source arrays themselves.
  function identity(src) {
    const map = new Int32Array(src.n);
    for (let i = 0; i < src.n; i++) map[i] = i;
    const t = {
      src: src, n: src.n, map: map, parent: src.parent, kind: src.kind, name: src.name, lm: src.lm,
      file: src.file, line: src.line, csFile: src.csFile, csLine: src.csLine, calls: src.calls,
      rep: map, self: src.self, incl: [],
    };
    return sums(t);
  }

  // The first @N values of @a as a @Type array (a copy).
  function typed(a, N, Type) {
    return ArrayBuffer.isView(a) ? a.slice(0, N) : Type.from(a);
  }

  // Typed arrays, focus pruning, inclusive values and children lists.
  function finish(src, v, map, inFocus) {
    let N = v.n !== undefined ? v.n : v.parent.length;
    const nm = v.self.length;
    if (inFocus) {
      // keep the root and the nodes in focus; the root's self is dropped
      const keep = new Int32Array(N).fill(-1);
      let k = 0;
      keep[0] = k++;
      for (let i = 1; i < N; i++) if (inFocus[i]) keep[i] = k++;
      const w = { parent: [], kind: [], name: [], lm: [], file: [], line: [], csFile: [], csLine: [], calls: [], rep: [], self: [] };
      for (let m = 0; m < nm; m++) w.self.push([]);
      for (let i = 0; i < N; i++) {
        if (keep[i] < 0) continue;
        w.parent.push(i === 0 ? -1 : keep[v.parent[i]]);
        for (const f of ['kind', 'name', 'lm', 'file', 'line', 'csFile', 'csLine', 'calls', 'rep']) w[f].push(v[f][i]);
        for (let m = 0; m < nm; m++) w.self[m].push(i === 0 ? 0 : v.self[m][i]);
      }
      for (let i = 0; i < map.length; i++) if (map[i] >= 0) map[i] = keep[map[i]];
      v = w;
      N = v.parent.length;
      v.n = N;
    }
    const t = {
      src: src, n: N, map: map,
      parent: typed(v.parent, N, Int32Array), kind: typed(v.kind, N, Uint8Array), name: typed(v.name, N, Int32Array),
      lm: typed(v.lm, N, Int32Array), file: typed(v.file, N, Int32Array), line: typed(v.line, N, Int32Array),
      csFile: typed(v.csFile, N, Int32Array), csLine: typed(v.csLine, N, Int32Array),
      calls: typed(v.calls, N, Float64Array), rep: typed(v.rep, N, Int32Array),
      self: v.self.map(function (a) { return typed(a, N, Float64Array); }), incl: [],
    };
    return sums(t);
  }

  function sums(t) {
    const N = t.n, nm = t.self.length;
    // parents precede children in creation order, so a reverse pass sums
    for (let m = 0; m < nm; m++) {
      const inc = Float64Array.from(t.self[m]);
      for (let i = N - 1; i > 0; i--) inc[t.parent[i]] += inc[i];
      t.incl.push(inc);
    }
    const cnt = new Int32Array(N + 1);
    for (let i = 1; i < N; i++) cnt[t.parent[i] + 1]++;
    for (let i = 0; i < N; i++) cnt[i + 1] += cnt[i];
    const clist = new Int32Array(Math.max(N - 1, 0));
    const fill = cnt.slice(0, N);
    for (let i = 1; i < N; i++) clist[fill[t.parent[i]]++] = i;
    t.cstart = cnt;
    t.clist = clist;
    return t;
  }

  // ---------------------------------------------------------------- bottom-up

  // The bottom-up definition (lib/report/view.c, "bottom-up"): a row per
  // procedure name over its frames and inlined frames (kind INLINE only when
  // every instance is inlined; truncation markers their own rows; loops and
  // statements no rows).  Row: {name, kind, nameId, entries: its outermost
  // instances (no enclosing frame of its name), in index order, outer and
  // weight (all 1), carry (the entries), cself: the procedure's exclusive
  // cost inside each entry (its own and its nested recursive instances'),
  // calls: of all instances, incl: of the entries, self: of all instances}.
  // frameSelf: the exclusive cost of each frame including its loops and
  // statements; other nodes: their own.
  function isOwner(k) { return k === K.FRAME || k === K.INLINE || k === K.TRUNC; }
  function frameSelf(t) {
    if (t.fself) return t.fself;
    const nm = t.self.length, out = [];
    for (let m = 0; m < nm; m++) out.push(Float64Array.from(t.self[m]));
    const owner = new Int32Array(t.n);
    for (let i = 1; i < t.n; i++) {
      const p = t.parent[i];
      owner[i] = isOwner(t.kind[i]) ? i : (isOwner(t.kind[p]) || p === 0 ? p : owner[p]);
      if (!isOwner(t.kind[i]) && owner[i] > 0) for (let m = 0; m < nm; m++) out[m][owner[i]] += t.self[m][i];
    }
    t.fself = out;
    return out;
  }

  function bottomUpRoots(t) {
    const nm = t.incl.length, fs = frameSelf(t);
    const groups = new Map();
    // per name: instances of it open on the DFS path, and the outermost one's row and entry
    const onPath = new Int32Array(t.src.strings.length), top = new Map();
    const stack = [0], state = [0];
    const rows = [];
    while (stack.length) {
      const i = stack[stack.length - 1];
      if (state[state.length - 1] === 0) {
        state[state.length - 1] = 1;
        const k = t.kind[i];
        if (isOwner(k)) {
          const key = t.name[i] + ':' + (k === K.INLINE ? K.FRAME : k);
          let g = groups.get(key);
          if (!g) {
            g = { name: t.src.strings[t.name[i]], kind: k, nameId: t.name[i], entries: [], cs: [], calls: 0, incl: new Float64Array(nm), self: new Float64Array(nm) };
            groups.set(key, g);
            rows.push(g);
          }
          if (k === K.FRAME) g.kind = K.FRAME;
          g.calls += t.calls[i];
          for (let m = 0; m < nm; m++) g.self[m] += fs[m][i];
          if (onPath[t.name[i]] === 0) {
            g.entries.push(i);
            g.cs.push(new Float64Array(nm));
            for (let m = 0; m < nm; m++) g.incl[m] += t.incl[m][i];
            top.set(t.name[i], g.cs[g.cs.length - 1]);
          }
          const acc = top.get(t.name[i]);
          for (let m = 0; m < nm; m++) acc[m] += fs[m][i];
        }
        if (k !== K.ROOT && k !== K.STMT) onPath[t.name[i]]++;
        for (let k2 = t.cstart[i + 1] - 1; k2 >= t.cstart[i]; k2--) { stack.push(t.clist[k2]); state.push(0); }
      } else {
        stack.pop(); state.pop();
        const k = t.kind[i];
        if (k !== K.ROOT && k !== K.STMT) onPath[t.name[i]]--;
      }
    }
    // entries in index order; rows in the order of their first entries
    for (const g of rows) {
      const ord = g.entries.map(function (e, k) { return k; }).sort(function (a, b) { return g.entries[a] - g.entries[b]; });
      g.entries = ord.map(function (k) { return g.entries[k]; });
      g.cself = [];
      for (const k of ord) for (let m = 0; m < nm; m++) g.cself.push(g.cs[k][m]);
      delete g.cs;
      g.outer = g.entries.map(function () { return 1; });
      g.carry = g.entries.slice();
      g.weight = g.outer;
    }
    rows.sort(function (a, b) { return a.entries[0] - b.entries[0]; });
    return rows;
  }

  // Callers of a bottom-up row: entries moved one frame (or loop) up,
  // grouped by (name, kind, call-site line of the entry), each with the part
  // of the row's cost that came through it; calls only in direct callers.
  function bottomUpCallers(t, row) {
    const nm = t.incl.length;
    const groups = new Map(), out = [];
    for (let e = 0; e < row.entries.length; e++) {
      const i = row.entries[e], c = row.carry[e];
      let p = t.parent[i];
      while (p > 0 && t.kind[p] === K.STMT) p = t.parent[p];
      if (p <= 0) continue;
      const key = t.kind[p] + ':' + t.name[p] + ':' + t.csLine[i];
      let g = groups.get(key);
      if (!g) {
        g = { name: t.src.strings[t.name[p]], kind: t.kind[p], nameId: t.name[p], csLine: t.csLine[i], level: (row.level || 0) + 1, entries: [], carry: [], weight: [], cself: [], incl: new Float64Array(nm), self: new Float64Array(nm), calls: 0 };
        groups.set(key, g);
        out.push(g);
      }
      g.entries.push(p);
      g.carry.push(c);
      g.weight.push(row.weight[e]);
      if (!row.level) g.calls += t.calls[i];
      for (let m = 0; m < nm; m++) {
        if (row.weight[e]) g.incl[m] += t.incl[m][c];
        g.self[m] += row.cself[e * nm + m];
        g.cself.push(row.cself[e * nm + m]);
      }
    }
    return out;
  }

  // ----------------------------------------------------------------- flat

  // Static view: module -> file -> procedure -> loop -> statement.  Each
  // row: {name, kind, key, children: [], incl[m], self[m], calls, nodes: []};
  // inclusive counts a view node only if no ancestor has the same static key.
  function flat(t) {
    const nm = t.incl.length, S = t.src.strings;
    const rootRow = mkRow('[program]', K.ROOT, '');
    rootRow.outside = new Float64Array(nm); // exclusive cost of nodes in no row
    const byKey = new Map();
    function mkRow(name, kind, key) {
      return { name: name, kind: kind, key: key, children: [], incl: new Float64Array(nm), self: new Float64Array(nm), calls: 0, nodes: [], file: -1, line: 0 };
    }
    function get(parentRow, key, name, kind) {
      let r = byKey.get(key);
      if (!r) {
        r = mkRow(name, kind, key);
        byKey.set(key, r);
        parentRow.children.push(r);
      }
      return r;
    }
    // static key of each view node (frames/loops/stmts), computed top-down
    const rowOf = new Array(t.n);
    const own = new Array(t.n);
    const procRows = new Map();
    const active = new Map();
    const procOf = new Int32Array(t.n).fill(-1);
    const lmOf = new Int32Array(t.n).fill(-1); // the module each frame counts in
    const stack = [0], state = [0];
    while (stack.length) {
      const i = stack[stack.length - 1];
      if (state[state.length - 1] === 0) {
        state[state.length - 1] = 1;
        const k = t.kind[i];
        let r = null, groupsOf = null;
        if (k === K.FRAME || k === K.INLINE) {
          // a frame's own load module ([unknown module] without one, never
          // its caller's); an inlined frame's, its enclosing frame's
          const pf = i > 0 ? procOf[t.parent[i]] : -1;
          const lm = k === K.INLINE && pf >= 0 ? lmOf[pf] : t.lm[i];
          lmOf[i] = lm;
          const modName = lm >= 0 ? t.src.modules[lm] : '[unknown module]';
          const fileName = t.file[i] >= 0 ? t.src.files[t.file[i]] : '[unknown file]';
          let cached = procRows.get(t.name[i]);
          if (cached && (cached.lm !== lm || cached.file !== t.file[i])) cached = null;
          if (cached) {
            r = cached;
          } else {
            const mr = get(rootRow, 'M' + lm, modName, K.GROUP);
            const fr = get(mr, 'M' + lm + 'F' + t.file[i], fileName, K.GROUP);
            fr.file = t.file[i];
            r = get(fr, 'M' + lm + 'F' + t.file[i] + 'P' + t.name[i], S[t.name[i]], K.FRAME);
            r.file = t.file[i]; r.line = t.line[i]; r.lm = lm; r.mr = mr; r.fr = fr;
            procRows.set(t.name[i], r);
          }
          groupsOf = [r.mr, r.fr];
          procOf[i] = i;
        } else if (i > 0) {
          procOf[i] = procOf[t.parent[i]];
          if ((k === K.LOOP || k === K.STMT) && rowOf[t.parent[i]]) {
            const pr = rowOf[t.parent[i]];
            // a loop without a line (stripped code) is known by its name (its address range)
            const at = k === K.LOOP && t.line[i] <= 0 ? '@' + t.name[i] : t.file[i] + ':' + t.line[i];
            r = get(pr, pr.key + (k === K.LOOP ? 'L' : 'S') + at, S[t.name[i]], k);
            r.file = t.file[i]; r.line = t.line[i];
          }
        }
        if (k === K.ROOT) r = null;
        rowOf[i] = r || (i > 0 ? rowOf[t.parent[i]] : null);
        if (groupsOf) {
          // a module or file counts the outermost frames it contains
          for (const gr of groupsOf) {
            if (!active.get(gr)) for (let m = 0; m < nm; m++) gr.incl[m] += t.incl[m][i];
            active.set(gr, (active.get(gr) || 0) + 1);
          }
        }
        if (r) {
          own[i] = groupsOf ? [r].concat(groupsOf) : [r];
          const outer = !active.get(r);
          active.set(r, (active.get(r) || 0) + 1);
          r.nodes.push(i);
          r.calls += t.calls[i];
          for (let m = 0; m < nm; m++) {
            r.self[m] += t.self[m][i];
            if (outer) r.incl[m] += t.incl[m][i];
          }
        } else if (rowOf[i]) {
          for (let m = 0; m < nm; m++) rowOf[i].self[m] += t.self[m][i];
        } else {
          for (let m = 0; m < nm; m++) rootRow.outside[m] += t.self[m][i];
        }
        if (!isFrame(k) && k !== K.ROOT) {
          // exclusive cost of a statement also counts for its nearest
          // loop, and that of both for their procedure (docs/views.md,
          // "Flat": not for the loops around that one)
          let inLoop = k === K.LOOP;
          for (let p = t.parent[i]; p > 0; p = t.parent[p]) {
            const kp = t.kind[p];
            if (own[p] && !(kp === K.LOOP && inLoop)) for (let m = 0; m < nm; m++) own[p][0].self[m] += t.self[m][i];
            if (kp === K.LOOP) inLoop = true;
            if (isFrame(kp)) break;
          }
        }
        for (let k2 = t.cstart[i + 1] - 1; k2 >= t.cstart[i]; k2--) { stack.push(t.clist[k2]); state.push(0); }
      } else {
        stack.pop(); state.pop();
        if (own[i]) for (const r of own[i]) active.set(r, active.get(r) - 1);
      }
    }
    // modules and files: self and calls are the sums of their procedures';
    // the program's self also has the cost outside any row
    for (let m = 0; m < nm; m++) rootRow.self[m] = rootRow.outside[m];
    const post = [];
    const st = [rootRow];
    while (st.length) { const r = st.pop(); post.push(r); for (const c of r.children) st.push(c); }
    for (let k = post.length - 1; k >= 0; k--) {
      const r = post[k];
      if (r.kind === K.GROUP || r.kind === K.ROOT) {
        for (const c of r.children) {
          for (let m = 0; m < nm; m++) r.self[m] += c.self[m];
          r.calls += c.calls;
        }
      }
    }
    // the program's inclusive is the tree's
    for (let m = 0; m < nm; m++) { rootRow.incl[m] = t.incl[m][0]; }
    return rootRow;
  }

  // ------------------------------------------------------------------- diff

  // Match view tree @b (base) onto @t (current) by path of (kind, name
  // string, call-site line).  Returns Int32Array: for each node of @t, its
  // match in @b or -1; and baseOnly: total base inclusive with no match.
  // (the matching of csprof-report --diff: exact keys, then inlined frames
  // as procedure frames and names without clone suffixes, then the rest of
  // one kind and name paired in call-site line order when both sides have as
  // many; model.js matchTrees; written plainly, one depth at a time)
  function procBase(s) {
    const re = /(?:\.(?:constprop|isra|part|cold|lto_priv|localalias|clone|llvm|specialized)(?:\.\d+)*| \[clone \.[^\]]*\])$/;
    for (let m = re.exec(s); m && m.index > 0; m = re.exec(s)) s = s.slice(0, m.index);
    return s;
  }
  function matchTrees(t, b) {
    const m = new Int32Array(t.n).fill(-1);
    const strict = function (v, i) { return v.kind[i] + '\u0000' + v.src.strings[v.name[i]] + '\u0000' + v.csLine[i]; };
    const kindName = function (v, i) {
      const k = v.kind[i], s = v.src.strings[v.name[i]];
      return (k === K.INLINE ? K.FRAME : k) + '\u0000' + (k === K.FRAME || k === K.INLINE ? procBase(s) : s);
    };
    const bkids = new Map();
    for (let j = 1; j < b.n; j++) {
      if (!bkids.has(b.parent[j])) bkids.set(b.parent[j], []);
      bkids.get(b.parent[j]).push(j);
    }
    const claimed = new Set();
    const depth = [0];
    let maxDepth = 0;
    for (let i = 1; i < t.n; i++) { depth[i] = depth[t.parent[i]] + 1; maxDepth = Math.max(maxDepth, depth[i]); }
    m[0] = 0;
    for (let d = 1; d <= maxDepth; d++) {
      const level = [];
      for (let i = 1; i < t.n; i++) if (depth[i] === d && m[t.parent[i]] >= 0) level.push(i);
      const keyOf = [function (v, i) { return strict(v, i); }, function (v, i) { return kindName(v, i) + '\u0000' + v.csLine[i]; }];
      for (const key of keyOf) {
        for (const i of level) {
          if (m[i] >= 0) continue;
          const want = key(t, i);
          const j = (bkids.get(m[t.parent[i]]) || []).find(function (x) { return key(b, x) === want; });
          if (j !== undefined && !claimed.has(j)) { m[i] = j; claimed.add(j); }
        }
      }
      const groups = new Map();
      for (const i of level) {
        if (m[i] >= 0) continue;
        const g = m[t.parent[i]] + '\u0000' + kindName(t, i);
        if (!groups.has(g)) groups.set(g, []);
        groups.get(g).push(i);
      }
      for (const cur of groups.values()) {
        const p = m[t.parent[cur[0]]], want = kindName(t, cur[0]);
        const base = (bkids.get(p) || []).filter(function (j) { return !claimed.has(j) && kindName(b, j) === want; });
        if (base.length !== cur.length) continue;
        cur.sort(function (x, y) { return t.csLine[x] - t.csLine[y] || x - y; });
        base.sort(function (x, y) { return b.csLine[x] - b.csLine[y] || x - y; });
        cur.forEach(function (i, k) { m[i] = base[k]; claimed.add(base[k]); });
      }
    }
    return m;
  }

  // ----------------------------------------------------------------- stats

  // only what model_random.test.js compares; the functions that were not
  // rewritten are model.js's own
  const api = {
    K: K, TRANSFORMS: TRANSFORMS, load: load, buildView: buildView, bottomUpRoots: bottomUpRoots,
    bottomUpCallers: bottomUpCallers, frameSelf: frameSelf, flat: flat, matchTrees: matchTrees, isFrame: isFrame,
  };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.csprofModel = api;
})(typeof window !== 'undefined' ? window : this);
