// SPDX-License-Identifier: BSD-3-Clause
// model-diff.js -- csprof viewer model, the differential view: procedure
// base names (procBase), the Wilson interval and z of a difference (wilson,
// diffInterval, diffZ), matching a view with a base view (matchTrees,
// matchMetric), the base-only contexts (baseOnly) and base values (baseValues).
// Uses: K from model-data.js; TupleTable, scratch from model-table.js; isFrame, sums from model-view.js.
// A part of the model: see model.js for how the parts are loaded.
(typeof module !== 'undefined' && module.exports ? function (part) { module.exports = part; } : function (part) { part(window.csprofParts = window.csprofParts || {}); })(function (M) {
  'use strict';
  const { K, TupleTable, scratch, isFrame, sums } = M;

  // ------------------------------------------------------------------- diff

  // Procedure name @s without the suffixes compilers give clones of one
  // source procedure (".constprop.N", ".isra.N", ".part.N", ".cold",
  // ".lto_priv.N", ".localalias", ".clone.N", ".llvm.N", ".specialized.N",
  // " [clone .constprop.0]"), as lib/report's rpt_proc_base_len(); a name
  // that is nothing but such a suffix is kept whole.
  const CLONE_SUFFIX = /(?:\.(?:constprop|isra|part|cold|lto_priv|localalias|clone|llvm|specialized)(?:\.\d+)*| \[clone \.[^\]]*\])$/;
  function procBase(s) {
    for (;;) {
      const m = CLONE_SUFFIX.exec(s);
      if (!m || m.index === 0) return s;
      s = s.slice(0, m.index);
    }
  }

  // Significance of a change of share, as csprof-report --diff computes it
  // (lib/report diff.c): each run's samples in a row, x of n, are a binomial
  // proportion; the change x2/n2 - x1/n1 gets Newcombe's hybrid score
  // interval (Newcombe 1998, method 10) at normal quantile @z.  Returns
  // [lo, hi] (fractions), or null when n1 or n2 is not positive.
  function wilson(x, n, z) {
    const p = x / n, z2 = z * z, den = 1 + z2 / n;
    const mid = (p + z2 / (2 * n)) / den, half = z * Math.sqrt(p * (1 - p) / n + z2 / (4 * n * n)) / den;
    return [Math.max(0, mid - half), Math.min(1, mid + half)];
  }
  function diffInterval(x1, n1, x2, n2, z) {
    if (!(n1 > 0) || !(n2 > 0)) return null;
    x1 = Math.min(Math.max(x1, 0), n1); x2 = Math.min(Math.max(x2, 0), n2);
    const p1 = x1 / n1, p2 = x2 / n2, w1 = wilson(x1, n1, z), w2 = wilson(x2, n2, z), d = p2 - p1;
    return [d - Math.hypot(p2 - w2[0], w1[1] - p1), d + Math.hypot(w2[1] - p2, p1 - w1[0])];
  }
  // The normal quantile of @m two-sided intervals at 95 % for all together
  // (Bonferroni): Phi^-1(1 - 0.05 / (2 m)), m = 0 as 1; by bisection on
  // the upper tail, erfc by Numerical Recipes' erfcc (error < 1.2e-7).
  function erfc(x) {
    const t = 1 / (1 + x / 2);
    return t * Math.exp(-x * x - 1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (-0.18628806 +
      t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (-0.82215223 + t * 0.17087277)))))))));
  }
  function diffZ(m) {
    const tail = 0.05 / (2 * Math.max(m, 1));
    let lo = 0, hi = 40;
    for (let i = 0; i < 200 && hi - lo > 1e-12; i++) {
      const mid = (lo + hi) / 2;
      if (erfc(mid / Math.SQRT2) / 2 > tail) lo = mid; else hi = mid;
    }
    return (lo + hi) / 2;
  }

  // Match view tree @b (base) onto @t (current) by program structure, as
  // csprof-report --diff does (lib/report rpt_tree_union): an inlined frame
  // matches a procedure frame (one build inlined what the other did not),
  // procedure names are compared without clone suffixes (procBase), and
  // under matched parents children match by (kind, name, call-site line):
  // first as they are, then with inlined frames as procedure frames and
  // names without clone suffixes; of one kind and name, the children of a
  // parent pair left unmatched on both sides are then paired in call-site
  // line order when both sides have as many.  Returns Int32Array: for each
  // node of @t, its match in @b or -1; a node of @b is matched at most
  // once (of equal children of @b, the first).  Names are compared once,
  // through ids of their strings; the keys through a TupleTable of
  // (parent, kind, name id, call-site line); nodes one depth at a time.
  function matchTrees(t, b) {
    const m = new Int32Array(t.n).fill(-1);
    const TS = t.src.strings, BS = b.src.strings, ids = new Map();
    function idOf(s) { let x = ids.get(s); if (x === undefined) { x = ids.size; ids.set(s, x); } return x; }
    // per string of each table: the id of the string, and of its procBase
    function nameIds(S) {
      const ex = new Int32Array(S.length), pb = new Int32Array(S.length);
      for (let s = 0; s < S.length; s++) {
        ex[s] = idOf(S[s]);
        const c = procBase(S[s]);
        pb[s] = c === S[s] ? ex[s] : idOf(c);
      }
      return [ex, pb];
    }
    const bn = nameIds(BS), tn = TS === BS ? bn : nameIds(TS);
    // kind and name as they are, and as matched (MERGED + kind: inlined
    // frames as procedure frames, names without clone suffixes)
    const MERGED = 16;
    const tKind = new Uint8Array(t.n), tName = new Int32Array(t.n), bKind = new Uint8Array(b.n), bName = new Int32Array(b.n);
    for (let i = 1; i < t.n; i++) { const k = t.kind[i]; tKind[i] = MERGED + (k === K.INLINE ? K.FRAME : k); tName[i] = (isFrame(k) ? tn[1] : tn[0])[t.name[i]]; }
    for (let j = 1; j < b.n; j++) { const k = b.kind[j]; bKind[j] = MERGED + (k === K.INLINE ? K.FRAME : k); bName[j] = (isFrame(k) ? bn[1] : bn[0])[b.name[j]]; }
    const keys = new TupleTable(2 * b.n, 'match.keys'), at = scratch('i1', Int32Array, 2 * b.n, -1);
    for (let j = 1; j < b.n; j++) {
      let id = keys.id(b.parent[j], b.kind[j], bn[0][b.name[j]], b.csLine[j], true);
      if (at[id] < 0) at[id] = j;
      id = keys.id(b.parent[j], bKind[j], bName[j], b.csLine[j], true);
      if (at[id] < 0) at[id] = j;
    }
    const claimed = new Uint8Array(b.n);
    // @t's nodes by depth (view nodes are created parents first)
    const depth = new Int32Array(t.n);
    let maxDepth = 0;
    for (let i = 1; i < t.n; i++) { depth[i] = depth[t.parent[i]] + 1; if (depth[i] > maxDepth) maxDepth = depth[i]; }
    const start = new Int32Array(maxDepth + 2), order = new Int32Array(Math.max(t.n - 1, 0));
    for (let i = 1; i < t.n; i++) start[depth[i] + 1]++;
    for (let d = 1; d <= maxDepth + 1; d++) start[d] += start[d - 1];
    const fill = start.slice();
    for (let i = 1; i < t.n; i++) order[fill[depth[i]]++] = i;
    m[0] = 0;
    const byLine = function (tree) { return function (x, y) { return tree.csLine[x] - tree.csLine[y] || x - y; }; };
    for (let d = 1; d <= maxDepth; d++) {
      const lo = start[d] - start[1], hi = start[d + 1] - start[1];
      for (let pass = 0; pass < 2; pass++) {
        for (let q = lo; q < hi; q++) {
          const i = order[q], p = m[t.parent[i]];
          if (p < 0 || m[i] >= 0) continue;
          const id = pass === 0 ? keys.id(p, t.kind[i], tn[0][t.name[i]], t.csLine[i], false) : keys.id(p, tKind[i], tName[i], t.csLine[i], false);
          if (id >= 0 && !claimed[at[id]]) { m[i] = at[id]; claimed[at[id]] = 1; }
        }
      }
      // the rest, by (parent's match, kind, name): paired when both sides have as many
      let groups = null;
      for (let q = lo; q < hi; q++) {
        const i = order[q], p = m[t.parent[i]];
        if (p < 0 || m[i] >= 0) continue;
        if (!groups) groups = new Map();
        const key = p + ':' + tKind[i] + ':' + tName[i];
        const g = groups.get(key);
        if (g) g.push(i); else groups.set(key, [i]);
      }
      if (!groups) continue;
      for (const cur of groups.values()) {
        const i0 = cur[0], p = m[t.parent[i0]], base = [];
        for (let c = b.cstart[p]; c < b.cstart[p + 1]; c++) {
          const j = b.clist[c];
          if (!claimed[j] && bKind[j] === tKind[i0] && bName[j] === tName[i0]) base.push(j);
        }
        if (base.length !== cur.length) continue;
        cur.sort(byLine(t));
        base.sort(byLine(b));
        for (let k = 0; k < cur.length; k++) { m[cur[k]] = base[k]; claimed[base[k]] = 1; }
      }
    }
    return m;
  }

  // Metric index of @b matching metric @m of @t by name, or -1.
  function matchMetric(t, b, m) {
    const name = t.src.metrics[m].name;
    for (let k = 0; k < b.src.metrics.length; k++) if (b.src.metrics[k].name === name) return k;
    return -1;
  }

  // ------------------------------------------------ differential: base only

  // View tree @t extended with the calling contexts of base view tree @b
  // that @match (matchTrees(t, b)) leaves unmatched: each is appended under
  // its parent's counterpart with no value of its own (exclusive 0 in every
  // metric), so every view shows it with current value 0 and a negative
  // change.  Names, modules and files are added to an overlay of t's source
  // tables.  Returns {t: the extended tree (t itself when nothing is base
  // only), match: Int32Array for the extended tree, nodes: number of
  // base-only nodes, total: [base inclusive of the base-only subtrees per
  // base metric]}.
  function baseOnly(t, b, match) {
    const nb = b.n, nmB = b.incl.length;
    const back = new Int32Array(nb).fill(-1);
    for (let i = 0; i < t.n; i++) if (match[i] >= 0) back[match[i]] = i;
    let extra = 0;
    const total = new Float64Array(nmB);
    for (let j = 1; j < nb; j++) if (back[j] < 0) {
      extra++;
      if (back[b.parent[j]] >= 0) for (let m = 0; m < nmB; m++) total[m] += b.incl[m][j];
    }
    if (extra === 0) return { t: t, match: match, nodes: 0, total: Array.from(total) };
    const N = t.n + extra, nm = t.self.length, S0 = t.src;
    const src = Object.create(S0);
    src.strings = S0.strings.slice(); src.modules = S0.modules.slice(); src.files = S0.files.slice();
    const sid = new Map(), lid = new Map(), fid = new Map();
    function idOf(map, list, s) {
      if (s === undefined) return -1;
      if (!map.size) list.forEach(function (x, k) { if (!map.has(x)) map.set(x, k); });
      let k = map.get(s);
      if (k === undefined) { k = list.length; list.push(s); map.set(s, k); }
      return k;
    }
    const v = { src: src, n: N, map: t.map, incl: [], self: [], moved: t.moved, repN: t.repN };
    for (const c of ['parent', 'kind', 'name', 'lm', 'file', 'line', 'csFile', 'csLine', 'calls', 'rep']) {
      v[c] = new t[c].constructor(N);
      v[c].set(t[c].subarray(0, t.n));
    }
    for (let m = 0; m < nm; m++) { const a = new Float64Array(N); a.set(t.self[m].subarray(0, t.n)); v.self.push(a); }
    const m2 = new Int32Array(N).fill(-1);
    m2.set(match.subarray(0, t.n));
    let k = t.n;
    for (let j = 1; j < nb; j++) {
      if (back[j] >= 0) continue;
      back[j] = k;
      const p = back[b.parent[j]];
      v.parent[k] = p; v.kind[k] = b.kind[j];
      v.name[k] = idOf(sid, src.strings, b.src.strings[b.name[j]]);
      v.lm[k] = b.lm[j] >= 0 ? idOf(lid, src.modules, b.src.modules[b.lm[j]]) : -1;
      v.file[k] = b.file[j] >= 0 ? idOf(fid, src.files, b.src.files[b.file[j]]) : -1;
      v.csFile[k] = b.csFile[j] >= 0 ? idOf(fid, src.files, b.src.files[b.csFile[j]]) : -1;
      v.line[k] = b.line[j]; v.csLine[k] = b.csLine[j]; v.calls[k] = 0;
      v.rep[k] = v.rep[p]; // selecting a base-only node selects its nearest current ancestor
      m2[k] = j;
      k++;
    }
    return { t: sums(v), match: m2, nodes: extra, total: Array.from(total) };
  }

  // View tree @t (extended by baseOnly()) with the base's values instead of
  // its own: each node's exclusive value is that of its match in base view
  // tree @b (0 when none), per metric of @t matched by name.  Bottom-up and
  // flat rows of this tree, built by the same functions, are the base values
  // of the current rows with the same keys.
  function baseValues(t, b, match) {
    // (the rows built for @t are not this tree's)
    const v = Object.assign({}, t, { self: [], incl: [], buRows: undefined, buBuild: undefined, buDone: undefined, flatRoot: undefined, flatBuild: undefined, flatDone: undefined });
    for (let m = 0; m < t.self.length; m++) {
      const bm = matchMetric(t, b, m), a = new Float64Array(t.n);
      if (bm >= 0) for (let i = 0; i < t.n; i++) if (match[i] >= 0) a[i] = b.self[bm][match[i]];
      v.self.push(a);
    }
    return sums(v);
  }

  Object.assign(M, { procBase, diffInterval, diffZ, matchTrees, matchMetric, baseOnly, baseValues });
});
