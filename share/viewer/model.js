// SPDX-License-Identifier: BSD-3-Clause
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

  // Node kinds: the viewer data's codes (share/schemas/viewer-data.md, "kind"; viewer.c's
  // data_kind); GROUP is the viewer's own flat-view row.
  const K = { ROOT: 0, FRAME: 1, INLINE: 2, LOOP: 3, STMT: 4, TRUNC: 5, GROUP: 6 };
  const KIND_NAMES = ['root', 'frame', 'inline', 'loop', 'statement', 'truncated', 'group'];

  // Inflate the packed node columns of @d (data.js "packed": gzip+base64 of
  // little-endian int32/float64 arrays) into d's column keys.  Returns a
  // promise of @d; data without "packed" is returned as is.
  function unpack(d) {
    if (!d || !d.packed) return Promise.resolve(d);
    const p = d.packed;
    if (p.encoding !== 'gzip+base64') return Promise.reject(new Error('packed encoding ' + p.encoding + ' is unknown'));
    let u;
    if (typeof Uint8Array.fromBase64 === 'function') {
      u = Uint8Array.fromBase64(p.data); // native decoder (Chromium 140, Firefox 133 and later)
    } else {
      const bin = atob(p.data);
      u = new Uint8Array(bin.length);
      for (let i = 0; i < bin.length; i++) u[i] = bin.charCodeAt(i);
    }
    // inflate straight into one buffer of the known size
    const ds = new DecompressionStream('gzip');
    const w = ds.writable.getWriter();
    w.write(u);
    w.close();
    const reader = ds.readable.getReader();
    const whole = new Uint8Array(p.bytes);
    let got = 0;
    // one promise for the whole read: a promise returned from each chunk's
    // handler would nest one level per chunk (seconds for 40 MB)
    const all = new Promise(function (resolve, reject) {
      function step(r) {
        if (r.done) { resolve(whole.buffer); return; }
        if (got + r.value.length > whole.length) {
          reader.cancel().catch(function () {});
          reject(new Error('packed columns: more than ' + p.bytes + ' bytes'));
          return;
        }
        whole.set(r.value, got);
        got += r.value.length;
        reader.read().then(step, reject);
      }
      reader.read().then(step, reject);
    });
    return all.then(function (buf) {
      if (got !== p.bytes) throw new Error('packed columns: ' + got + ' bytes, expected ' + p.bytes);
      let off = 0;
      d.self = [];
      for (const c of p.columns) {
        const size = c[1] === 'f64' ? 8 : 4;
        const b = off % size === 0 ? buf : buf.slice(off, off + size * d.n), o = b === buf ? off : 0;
        const a = size === 8 ? new Float64Array(b, o, d.n) : new Int32Array(b, o, d.n);
        off += size * d.n;
        if (c[0] === 'self') d.self[c[2]] = a; else d[c[0]] = a;
      }
      delete d.packed;
      return d;
    });
  }

  // @a itself when it is a @Type array, else a copy as one.
  function asTyped(a, Type) {
    return a instanceof Type ? a : Type.from(a);
  }

  // The data object (window.CSPROF_DB) as typed arrays.
  function load(d) {
    if (!d || d.format !== 1) throw new Error('viewer data format ' + (d && d.format) + ' is not 1: run csprof-prof --refresh-viewer DB');
    const n = d.n;
    const parent = new Int32Array(n);
    const pd = d.parentDelta;
    parent[0] = -1;
    for (let i = 1; i < n; i++) parent[i] = i - pd[i];
    const nm = d.metrics.length;
    // unpacked columns are typed already: used as they are, not copied
    const self = [];
    for (let m = 0; m < nm; m++) self.push(asTyped(d.self[m], Float64Array));
    const src = {
      data: d,
      n: n,
      parent: parent,
      kind: Uint8Array.from(d.kind),
      name: asTyped(d.name, Int32Array),
      lm: asTyped(d.lm, Int32Array),
      file: asTyped(d.file, Int32Array),
      line: asTyped(d.line, Int32Array),
      csFile: asTyped(d.csFile, Int32Array),
      csLine: asTyped(d.csLine, Int32Array),
      calls: asTyped(d.calls, Float64Array),
      self: self,
      strings: d.strings,
      metrics: d.metrics,
      modules: d.modules,
      files: d.files,
      // set later (declared here: one object shape for every source)
      end: null, uniq: null, uniqBuild: null, sameUp: null, sameUpBuild: null, buRowsHint: undefined, flatRowsHint: undefined, siteCallees: null,
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

  // ------------------------------------------------------------- transforms

  // Transform list: [{t:'focus-subtree', node:i} | {t:'focus-function', name:s}
  // | {t:'hide', name:s} | {t:'hide-lib', lib:s} | {t:'collapse-recursion'}
  // | {t:'hide-loops'} | {t:'hide-inlines'} | {t:'hide-statements'}].
  const TRANSFORMS = ['focus-subtree', 'focus-function', 'hide', 'hide-lib', 'collapse-recursion', 'hide-loops', 'hide-inlines', 'hide-statements'];

  function encodeTransforms(list) {
    return list.map(function (x) {
      const arg = x.node !== undefined ? String(x.node) : x.name !== undefined ? x.name : x.lib !== undefined ? x.lib : '';
      return arg === '' ? x.t : x.t + ':' + encodeURIComponent(arg).replace(/~/g, '%7E');
    }).join('~');
  }

  function decodeTransforms(s) {
    if (!s) return [];
    const out = [];
    for (const part of s.split('~')) {
      const c = part.indexOf(':');
      const t = c < 0 ? part : part.slice(0, c);
      const arg = c < 0 ? undefined : decodeURIComponent(part.slice(c + 1));
      if (TRANSFORMS.indexOf(t) < 0) continue;
      if (t === 'focus-subtree') out.push({ t: t, node: Number(arg) | 0 });
      else if (t === 'focus-function' || t === 'hide') out.push({ t: t, name: arg || '' });
      else if (t === 'hide-lib') out.push({ t: t, lib: arg || '' });
      else out.push({ t: t });
    }
    return out;
  }

  function isFrame(k) { return k === K.FRAME || k === K.INLINE; }

  // The tuples buildView's table is first sized for, for a source of @n
  // nodes (it grows when more nodes turn mixed).
  function bvExpect(n) { return Math.max(n >> 3, 64); }

  // Build a view tree from the source tree under @transforms.  Result:
  // {n, parent, kind, name, lm, file, line, csFile, csLine, calls, self[m],
  //  incl[m], rep (a source node of each view node), map (source -> view,
  //  -1 when dropped), children (CSR: cstart, clist)}.  One forward pass over
  // the source nodes (parents precede children); a view node's children are
  // found by (parent, kind, name, call-site line) in a TupleTable.
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

  // @a[@o], ..., @a[@o + @nm - 1] as a plain array: a row's values.  (A
  // typed array per row costs a backing store each: with 100 000 rows the
  // garbage collector took longer than the walk that summed them.)
  function part(a, o, nm) {
    const out = new Array(nm);
    for (let m = 0; m < nm; m++) out[m] = a[o + m];
    return out;
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

  // ---------------------------------------------------------------- bottom-up

  // Initial capacity of a row table that last held @hint rows (undefined:
  // none yet): a power of two above it, at least 1024.
  function rowCap(hint) {
    let cap = 1024;
    while (hint !== undefined && cap <= hint) cap *= 2;
    return cap;
  }

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
    // (inherited), the row it counts in (-1: none), the module of its
    // nearest frame (-1: none)
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
          const l = lm[i] >= 0 ? lm[i] : d > 0 ? dLm[d - 1] : -1;
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
          dLm[d] = lm[i];
        } else {
          dLm[d] = d > 0 ? dLm[d - 1] : -1;
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
          // exclusive cost of a statement or loop also counts for the
          // loops around it and for its procedure
          for (let a = d - 1; a > 0; a--) {
            const q = dOwn[a];
            if (q >= 0) for (let m = 0; m < nm; m++) rSelf[q * nm + m] += tSelf[m][i];
            const ka = kind[dNode[a]];
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

  // ----------------------------------------------------------------- stats

  // min, mean, max, standard deviation and coefficient of variation of @xs.
  function stats(xs) {
    const n = xs.length;
    if (n === 0) return { n: 0, min: 0, mean: 0, max: 0, sd: 0, cv: 0, sum: 0 };
    let min = Infinity, max = -Infinity, sum = 0;
    for (const x of xs) { if (x < min) min = x; if (x > max) max = x; sum += x; }
    const mean = sum / n;
    let ss = 0;
    for (const x of xs) ss += (x - mean) * (x - mean);
    const sd = Math.sqrt(ss / n);
    return { n: n, min: min, mean: mean, max: max, sd: sd, cv: mean !== 0 ? sd / mean : 0, sum: sum };
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


  // ------------------------------------------------------- derived metrics

  // Compile a derived-metric formula (csprof-prof -M grammar, lib/support/
  // formula.h, with csprof-report's options: any white space separates
  // tokens, huge numbers accepted):
  //   expr := term (('+'|'-') term)*     term := unary (('*'|'/') unary)*
  //   unary := '-' unary | primary
  //   primary := NUMBER | '(' expr ')' | FUNC '(' expr [',' expr] ')' | NAME | '{' chars '}'
  // A NAME is resolved by @resolve(name) to a column >= 0 (or -1: unknown).
  // Hand-written recursive descent into postfix code (no eval: the page's
  // Content-Security-Policy forbids it, and names are untrusted).  Returns
  // {code: [[op, arg]], depth} or throws Error('position P: reason').
  function compileFormula(text, resolve) {
    text = String(text);
    let p = 0, depth = 0, sp = 0, maxSp = 0;
    const code = [];
    function fail(msg, at) { throw new Error('position ' + ((at === undefined ? p : at) + 1) + ': ' + msg); }
    function emit(op, arg, pushes) { code.push([op, arg]); sp += pushes; if (sp > maxSp) maxSp = sp; }
    function blanks() { while (p < text.length && /[ \t\n\v\f\r]/.test(text[p])) p++; }
    function isDigit(c) { return c >= '0' && c <= '9'; }
    function number() {
      if (text[p] === '.' && !isDigit(text[p + 1] || '')) fail('bad number');
      const rest = text.slice(p);
      // strtod: hexadecimal (0x1.8p3) or decimal (1.5e-3)
      let m = /^0[xX]([0-9a-fA-F]*)(?:\.([0-9a-fA-F]*))?(?:[pP]([+-]?\d+))?/.exec(rest);
      if (m && (m[1] || m[2])) {
        let v = m[1] ? parseInt(m[1], 16) : 0;
        const fr = m[2] || '';
        for (let k = 0; k < fr.length; k++) v += parseInt(fr[k], 16) / Math.pow(16, k + 1);
        if (m[3]) v *= Math.pow(2, Number(m[3]));
        if (!Number.isFinite(v)) fail('number out of range');
        p += m[0].length;
        emit('k', v, 1);
        return;
      }
      m = /^(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?/.exec(rest);
      if (!Number.isFinite(Number(m[0]))) fail('number out of range'); // 1e999, as csprof-prof and csprof-report
      p += m[0].length;
      emit('k', Number(m[0]), 1);
    }
    function ref(name, at) {
      const col = resolve(name);
      if (!(col >= 0)) fail('unknown metric ' + JSON.stringify(name.length > 80 ? name.slice(0, 80) + '…' : name), at);
      emit('r', col, 1);
    }
    const FUNCS = { min: 2, max: 2, sqrt: 1, log: 1 };
    function primary() {
      blanks();
      const start = p, c = text[p];
      if (c === '(') {
        p++; expr(); blanks();
        if (text[p] !== ')') fail("')' expected");
        p++;
        return;
      }
      if (c !== undefined && (isDigit(c) || c === '.')) return number();
      if (c === '{') {
        const close = text.indexOf('}', p);
        if (close < 0) fail("'}' expected");
        p = close + 1;
        return ref(text.slice(start + 1, close), start);
      }
      if (c === undefined) fail('unexpected end');
      if (!/[A-Za-z_]/.test(c)) fail('unexpected character');
      while (p < text.length && /[A-Za-z0-9_.:]/.test(text[p])) p++;
      const name = text.slice(start, p);
      blanks();
      if (text[p] !== '(') return ref(name, start);
      if (!Object.prototype.hasOwnProperty.call(FUNCS, name)) fail('unknown function ' + name, start);
      p++;
      expr(); blanks();
      if (FUNCS[name] === 2) {
        if (text[p] !== ',') fail("',' expected");
        p++;
        expr(); blanks();
      }
      if (text[p] !== ')') fail("')' expected");
      p++;
      emit(name, 0, 1 - FUNCS[name]);
    }
    function unary() {
      blanks();
      if (text[p] === '-') {
        p++;
        if (++depth > 64) fail('nested too deeply');
        unary();
        depth--;
        emit('neg', 0, 0);
        return;
      }
      primary();
    }
    function term() {
      unary();
      for (;;) {
        blanks();
        const op = text[p];
        if (op !== '*' && op !== '/') return;
        p++;
        unary();
        emit(op, 0, -1);
      }
    }
    function expr() {
      if (++depth > 64) fail('nested too deeply');
      term();
      for (;;) {
        blanks();
        const op = text[p];
        if (op !== '+' && op !== '-') break;
        p++;
        term();
        emit(op, 0, -1);
      }
      depth--;
    }
    expr();
    blanks();
    if (p < text.length) fail('unexpected text after the formula');
    return { code: code, depth: Math.max(maxSp, 1) };
  }

  // Value of compiled formula @f with column values from @value(col), by
  // the rule of csprof-prof and csprof-report (lib/support/formula.h): the
  // whole value is undefined, shown as 0, as soon as one operation has no
  // real result (x/0, sqrt of a negative number, log of a non-positive one),
  // an operand is not finite or a result overflows.
  function evalFormula(f, value) {
    const st = [];
    for (const o of f.code) {
      const op = o[0];
      if (op === 'k') { st.push(o[1]); continue; }
      if (op === 'r') { const x = value(o[1]); if (!Number.isFinite(x)) return 0; st.push(x); continue; }
      if (op === 'neg') { st[st.length - 1] = -st[st.length - 1]; continue; }
      if (op === 'sqrt') { const x = st[st.length - 1]; if (x < 0) return 0; st[st.length - 1] = Math.sqrt(x); continue; }
      if (op === 'log') { const x = st[st.length - 1]; if (x <= 0) return 0; st[st.length - 1] = Math.log(x); continue; }
      const b = st.pop(), a0 = st[st.length - 1];
      let a;
      if (op === '+') a = a0 + b;
      else if (op === '-') a = a0 - b;
      else if (op === '*') a = a0 * b;
      else if (op === '/') { if (b === 0) return 0; a = a0 / b; }
      else if (op === 'min') a = a0 < b ? a0 : b;
      else a = a0 > b ? a0 : b;
      if (!Number.isFinite(a)) return 0; // overflow
      st[st.length - 1] = a;
    }
    return st.length === 1 ? st[0] + 0 : 0; // + 0: -0 shows as 0
  }

  // A derived metric over the value columns of @src (model of load()):
  // NAME is a metric's event name ("CPUTIME", "samples"; any case) or
  // "calls".  Returns {name, formula, f} or throws Error naming the formula.
  function derivedMetric(src, name, formula) {
    const nm = src.metrics.length;
    let f;
    try {
      f = compileFormula(formula, function (s) {
        const l = s.toLowerCase();
        if (l === 'calls') return nm;
        for (let m = 0; m < nm; m++) if (String(src.metrics[m].name).toLowerCase() === l) return m;
        return -1;
      });
    } catch (e) {
      throw new Error('formula ' + JSON.stringify(formula) + ': ' + e.message);
    }
    return { name: name, formula: formula, f: f };
  }

  // Value of derived metric @d for one row: the formula over the row's
  // inclusive values (@inclusive) or exclusive ones (raw, per metric, as in
  // the data), in each metric's display unit, and the row's calls.  A ratio
  // is not additive, so every row (merged, bottom-up, flat) evaluates it on
  // its own sums, as csprof-report does.
  function derivedValue(src, d, incl, self, calls, inclusive) {
    const nm = src.metrics.length, vals = inclusive ? incl : self;
    return evalFormula(d.f, function (col) {
      if (col === nm) return calls || 0;
      return vals[col] / (src.metrics[col].rawPerUnit || 1);
    });
  }

  // Decode the URL's derived columns "NAME=FORMULA~..." (URI-encoded parts).
  function decodeDerived(s) {
    if (!s) return [];
    return s.split('~').map(function (part) {
      const x = decodeURIComponent(part), eq = x.indexOf('=');
      return eq > 0 ? { name: x.slice(0, eq), formula: x.slice(eq + 1) } : null;
    }).filter(Boolean);
  }
  function encodeDerived(list) {
    return list.map(function (x) { return encodeURIComponent(x.name + '=' + x.formula).replace(/~/g, '%7E'); }).join('~');
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

  // ----------------------------------------------- per-thread values (all)

  // Index the unpacked threads.js data @d (share/schemas/viewer-data.md):
  // {threads, procs, n, proc, thread, self[column]} -> {threads, byName:
  // Map(name -> [entry])}.
  function threadIndex(d) {
    const byName = new Map();
    for (let k = 0; k < d.n; k++) {
      const name = d.procs[d.proc[k]];
      let l = byName.get(name);
      if (!l) { l = []; byName.set(name, l); }
      l.push(k);
    }
    return { data: d, threads: d.threads, byName: byName };
  }

  // Inclusive value of metric @m of the procedures named @name in each
  // thread (index @ti.threads order; 0 where a thread has none), or null
  // when no thread has a value for it.  Procedures of the same name in
  // different modules are added together.
  function threadValuesOf(ti, name, m) {
    const l = ti.byName.get(name);
    if (!l || !ti.data.self[m]) return null;
    const out = new Array(ti.threads.length).fill(0);
    for (const k of l) out[ti.data.thread[k]] += ti.data.self[m][k];
    return out;
  }

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

  const api = {
    K: K, KIND_NAMES: KIND_NAMES, TRANSFORMS: TRANSFORMS, load: load, unpack: unpack, buildView: buildView, release: release, warmUp: warmUp, bottomUpJobs: bottomUpJobs, flatJobs: flatJobs, uniqueJobs: uniqueJobs, sameNameJobs: sameNameJobs, jitJobs: jitJobs,
    encodeTransforms: encodeTransforms, decodeTransforms: decodeTransforms, children: children,
    nameOf: nameOf, depths: depths, hotPath: hotPath, bottomUpRoots: bottomUpRoots,
    bottomUpCallers: bottomUpCallers, bottomUpEntries: bottomUpEntries, flat: flat, matchTrees: matchTrees, matchMetric: matchMetric,
    stats: stats, sourceLines: sourceLines, pathOf: pathOf, isFrame: isFrame,
    compileFormula: compileFormula, evalFormula: evalFormula, derivedMetric: derivedMetric,
    derivedValue: derivedValue, decodeDerived: decodeDerived, encodeDerived: encodeDerived, baseOnly: baseOnly, baseValues: baseValues, procBase: procBase, diffInterval: diffInterval, diffZ: diffZ,
    threadIndex: threadIndex, threadValuesOf: threadValuesOf,
    sandwichOccurrences: sandwichOccurrences, sandwichFrameSelf: sandwichFrameSelf, sandwichTotals: sandwichTotals, sandwichCallers: sandwichCallers, sandwichCallees: sandwichCallees,
  };
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.csprofModel = api;
})(typeof window !== 'undefined' ? window : this);
