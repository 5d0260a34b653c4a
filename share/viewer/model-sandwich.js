// SPDX-License-Identifier: BSD-3-Clause
// model-sandwich.js -- csprof viewer model, the sandwich of one procedure:
// sandwichOccurrences, sandwichFrameSelf, sandwichTotals, sandwichCallers,
// sandwichCallees.
// Uses: K from model-data.js; buildView, isFrame from model-view.js.
// A part of the model: see model.js for how the parts are loaded.
(typeof module !== 'undefined' && module.exports ? function (part) { module.exports = part; } : function (part) { part(window.csprofParts = window.csprofParts || {}); })(function (M) {
  'use strict';
  const { K, buildView, isFrame } = M;

  // ---------------------------------------------------------------- sandwich
  //
  // The sandwich of one procedure (speedscope's "sandwich" view): its
  // callers as an inverted tree (the procedure, then who called it, then who
  // called them) and its callees as a top-down tree merged over all its
  // contexts.  Recursion counts once: the procedure's inclusive value is the
  // sum over its outermost contexts (no frame of the same name above them),
  // as csprof-report's flat view and --focus count it; its exclusive value
  // is its own cost (with its loops' and statements') over all its contexts.
  // A procedure is known by its name (a frame or an inlined frame).  View
  // trees number parents before children (sums() relies on it too).

  // Per string id of @t's source: 1 where the string is @name.
  function sandwichNameFlags(t, name) {
    const S = t.src.strings, f = new Uint8Array(S.length);
    for (let s = 0; s < S.length; s++) if (S[s] === name) f[s] = 1;
    return f;
  }

  // The outermost frames (procedure or inlined) named @name in view @t, in
  // index order.
  function sandwichOccurrences(t, name) {
    const f = sandwichNameFlags(t, name), kind = t.kind, nmId = t.name, parent = t.parent, out = [];
    for (let i = 1; i < t.n; i++) {
      if (!isFrame(kind[i]) || !f[nmId[i]]) continue;
      let p = parent[i];
      while (p > 0 && !(isFrame(kind[p]) && f[nmId[p]])) p = parent[p];
      if (p <= 0) out.push(i);
    }
    return out;
  }

  // Own cost of each frame of view @t: its exclusive value plus that of the
  // loops and statements below it up to the next frame, per metric
  // ([m][node]; 0 at nodes that are not frames; cost above every frame stays
  // at the root).
  function sandwichFrameSelf(t) {
    const N = t.n, nm = t.self.length, parent = t.parent, kind = t.kind;
    const frameOf = new Int32Array(N), out = [];
    for (let i = 1; i < N; i++) frameOf[i] = isFrame(kind[i]) ? i : frameOf[parent[i]];
    for (let m = 0; m < nm; m++) {
      const a = new Float64Array(N), s = t.self[m];
      for (let i = 0; i < N; i++) a[frameOf[i]] += s[i];
      out.push(a);
    }
    return out;
  }

  // Totals of procedure @name in view @t: {incl[m] (outermost contexts),
  // self[m] (own cost, every context), calls (every context), contexts
  // (the outermost ones), frames (every frame of that name)}.
  function sandwichTotals(t, name, fself) {
    const nm = t.incl.length, f = sandwichNameFlags(t, name), occ = sandwichOccurrences(t, name);
    fself = fself || sandwichFrameSelf(t);
    const r = { incl: new Array(nm).fill(0), self: new Array(nm).fill(0), calls: 0, contexts: occ.length, frames: 0 };
    for (const o of occ) for (let m = 0; m < nm; m++) r.incl[m] += t.incl[m][o];
    for (let i = 1; i < t.n; i++) {
      if (!isFrame(t.kind[i]) || !f[t.name[i]]) continue;
      r.frames++;
      r.calls += t.calls[i];
      for (let m = 0; m < nm; m++) r.self[m] += fself[m][i];
    }
    return r;
  }

  // The callers of @name in view @t as an inverted tree: a row {name, kind,
  // node (a view node of @t it stands for), key, incl[m], self[m], calls,
  // children} for the procedure, its children the frames that called its
  // outermost contexts, theirs the frames that called those, and so on to
  // the root (loops and statements on the way are skipped).  Each outermost
  // context adds its inclusive value, its own cost (self) and its calls to
  // every row of its path, so that each row holds the part of the
  // procedure's cost that came through that chain of callers; the top row
  // holds the procedure's inclusive total (sandwichTotals' incl).  Rows are
  // keyed by kind and name below their parent.
  function sandwichCallers(t, name, fself) {
    const nm = t.incl.length, S = t.src.strings, occ = sandwichOccurrences(t, name);
    fself = fself || sandwichFrameSelf(t);
    const row = function (node, key) {
      return { name: node > 0 ? S[t.name[node]] : name, kind: node > 0 ? t.kind[node] : K.FRAME, node: node, key: key, incl: new Array(nm).fill(0), self: new Array(nm).fill(0), calls: 0, children: [] };
    };
    const top = row(occ.length ? occ[0] : 0, '');
    top.name = name;
    const byKey = new Map();
    for (const o of occ) {
      let r = top;
      for (let p = o; ; ) {
        for (let m = 0; m < nm; m++) { r.incl[m] += t.incl[m][o]; r.self[m] += fself[m][o]; }
        r.calls += t.calls[o];
        do p = t.parent[p]; while (p > 0 && !isFrame(t.kind[p]));
        if (p <= 0) break;
        const key = r.key + '/' + t.kind[p] + ':' + t.name[p];
        let c = byKey.get(key);
        if (!c) { c = row(p, key); byKey.set(key, c); r.children.push(c); }
        r = c;
      }
    }
    return top;
  }

  // The callees of @name: the view of source @src under @transforms with
  // every focus replaced by focus-function @name (its outermost contexts
  // merged into one root per kind, as csprof-report --focus '^NAME$' with
  // its roots merged).  The caller releases it (release()).
  function sandwichCallees(src, name, transforms) {
    const list = (transforms || []).filter(function (x) { return x.t !== 'focus-subtree' && x.t !== 'focus-function'; });
    return buildView(src, list.concat([{ t: 'focus-function', name: name }]));
  }

  Object.assign(M, { sandwichOccurrences, sandwichFrameSelf, sandwichTotals, sandwichCallers, sandwichCallees });
});
