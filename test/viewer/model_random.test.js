// SPDX-License-Identifier: BSD-3-Clause
// The viewer model's fast paths (share/viewer/model.js: typed-array hash
// tables and linear passes) against a straightforward reference: the
// Map-and-object implementation they replaced, kept in model_ref.js.  Random
// trees with recursion, inlined frames, loops, statements, call sites and
// two load modules, under random transform lists (focus, hide, hide-lib,
// collapse recursion...).  Run with `node --test`.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const M = require(path.join(__dirname, '..', '..', 'share', 'viewer', 'model.js'));
const R = require(path.join(__dirname, 'model_ref.js'));
const K = M.K;

// Deterministic pseudo-random numbers (xorshift32), so a failure repeats.
function rng(seed) {
  let x = seed | 0 || 1;
  return function (n) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; return (x >>> 0) % n; };
}

// Random viewer data (share/schemas/viewer-data.md) of about @size nodes:
// names from a pool of 6 procedures (recursion is frequent), statements as
// leaves, loops and inlined frames inside frames.
function randomData(seed, size) {
  const r = rng(seed);
  const d = { format: 1, program: 'prog', metrics: [{ name: 'CPUTIME', unit: 's', rawPerUnit: 1 }, { name: 'samples', unit: 'samples', rawPerUnit: 1 }],
    modules: ['/bin/prog', '/lib/libm.so.6'], files: ['a.c', 'b.c'], strings: ['prog'], n: 0,
    parentDelta: [], kind: [], name: [], lm: [], file: [], line: [], csFile: [], csLine: [], calls: [], self: [[], []] };
  const procs = ['f', 'g', 'h', 'main', 'lib1', 'lib2'];
  const sid = new Map([['prog', 0]]);
  function str(s) { if (!sid.has(s)) { sid.set(s, d.strings.length); d.strings.push(s); } return sid.get(s); }
  // the tree is grown at random places, then written in preorder (the
  // data format's order: a node's subtree follows it)
  const tmp = [{ parent: -1, kind: K.ROOT, nm: 'prog', o: { lm: -1, file: -1, line: 0, cs: 0, calls: 0 }, kids: [] }];
  function add(parent, kind, nm, o) {
    tmp.push({ parent: parent, kind: kind, nm: nm, o: o, kids: [] });
    tmp[parent].kids.push(tmp.length - 1);
    return tmp.length - 1;
  }
  const open = [0];
  while (tmp.length < size) {
    const p = open[r(open.length)];
    const x = r(10);
    let kind = x < 4 ? K.FRAME : x < 5 ? K.INLINE : x < 7 ? K.LOOP : K.STMT;
    if (p === 0) kind = K.FRAME;
    const pi = r(procs.length), nm = procs[pi], lm = nm.startsWith('lib') ? 1 : 0, file = r(2), line = 1 + r(8);
    let i;
    // a procedure's file is fixed by its name, and a loop's name by its
    // file and line, but in odd trees (the flat view's rows then take other
    // paths): there procedures of one name are in either file; in every
    // fourth tree also some frames and inlined frames have no load module (a
    // frame's row is then [unknown module], an inlined frame's module its
    // enclosing frame's), and some loops' names differ for the same file and
    // line
    const odd = seed % 4 === 1, oddFile = seed % 2 === 1;
    if (kind === K.FRAME || kind === K.INLINE) i = add(p, kind, nm, { lm: odd && r(4) === 0 ? -1 : lm, file: oddFile ? file : pi % 2, line: line, cs: r(3) ? line : 0, calls: r(3) });
    else if (kind === K.LOOP) i = add(p, kind, 'loop at ' + d.files[file] + ':' + line + (odd && r(3) === 0 ? ' (2)' : ''), { lm: -1, file: file, line: line, cs: 0, calls: 0 });
    else i = add(p, kind, d.files[file] + ':' + line, { lm: -1, file: file, line: line, cs: 0, calls: 0 });
    if (kind !== K.STMT) open.push(i);
  }
  const stack = [[0, -1]];
  while (stack.length) {
    const [x, parent] = stack.pop();
    const e = tmp[x], o = e.o, i = d.n++;
    d.parentDelta.push(parent < 0 ? 0 : i - parent);
    d.kind.push(e.kind); d.name.push(str(e.nm)); d.lm.push(o.lm); d.file.push(o.file); d.line.push(o.line);
    d.csFile.push(o.cs ? o.file : -1); d.csLine.push(o.cs); d.calls.push(o.calls);
    const sv = e.kind === K.STMT || r(3) === 0 ? r(100) : 0;
    d.self[0].push(sv); d.self[1].push(sv ? 1 + r(3) : 0);
    for (let k = e.kids.length - 1; k >= 0; k--) stack.push([e.kids[k], i]);
  }
  return d;
}

function randomTransforms(r, src) {
  const all = [
    function () { return { t: 'focus-subtree', node: 1 + r(src.n - 1) }; },
    function () { return { t: 'focus-function', name: ['f', 'g', 'h'][r(3)] }; },
    function () { return { t: 'hide', name: ['f', 'g', 'lib1'][r(3)] }; },
    function () { return { t: 'hide-lib', lib: 'libm' }; },
    function () { return { t: 'collapse-recursion' }; },
    function () { return { t: 'hide-loops' }; },
    function () { return { t: 'hide-inlines' }; },
    function () { return { t: 'hide-statements' }; },
  ];
  const out = [];
  const k = r(4);
  for (let j = 0; j < k; j++) out.push(all[r(all.length)]());
  return out;
}

const COLS = ['parent', 'kind', 'name', 'lm', 'file', 'line', 'csFile', 'csLine', 'calls', 'rep', 'map', 'cstart', 'clist'];
function sameView(a, b, what) {
  assert.strictEqual(a.n, b.n, what + ': node count');
  for (const c of COLS) assert.deepStrictEqual(Array.from(a[c]).slice(0, c === 'map' ? undefined : c === 'cstart' ? a.n + 1 : c === 'clist' ? a.n - 1 : a.n), Array.from(b[c]).slice(0, c === 'map' ? undefined : c === 'cstart' ? b.n + 1 : c === 'clist' ? b.n - 1 : b.n), what + ': ' + c);
  for (let m = 0; m < a.self.length; m++) {
    assert.deepStrictEqual(Array.from(a.self[m]).slice(0, a.n), Array.from(b.self[m]).slice(0, b.n), what + ': self');
    assert.deepStrictEqual(Array.from(a.incl[m]), Array.from(b.incl[m]), what + ': incl');
  }
}

// Rows of a bottom-up or flat result as plain values, for deepStrictEqual:
// the fields of the reference's rows.  The model's rows have more (node:
// the first view node; calls of a bottom-up root; cself: the exclusive
// cost of each carried node), checked by checkExtras.
const REF_FIELDS = ['calls', 'carry', 'csLine', 'entries', 'file', 'incl', 'key', 'kind', 'line', 'lm', 'name', 'nameId', 'outer', 'outside', 'self', 'weight'];
function plainGroup(g) {
  const o = {};
  for (const k of Object.keys(g).sort()) {
    const x = g[k];
    if (REF_FIELDS.indexOf(k) < 0) continue;
    o[k] = x && typeof x === 'object' && typeof x.length === 'number' ? Array.from(x) : x;
  }
  return o;
}
// A reference bottom-up root as plain values.
function refRoot(t, g) {
  return plainGroup(g);
}
// The model's extra fields of bottom-up row @g against the reference's row
// @rg: node is the first entry; cself the exclusive cost of the procedure
// inside each carried instance.
function checkExtras(g, rg, what) {
  assert.strictEqual(g.node, g.entries[0], what + ': node');
  assert.deepStrictEqual(Array.from(g.cself), Array.from(rg.cself), what + ': cself');
}
function plainFlat(root, ref) {
  const out = [];
  const st = [[root, 0]];
  while (st.length) {
    const [r, d] = st.pop();
    const o = plainGroup(r);
    // the model keeps the first node of a row; the reference all of them
    o.node = ref ? (r.nodes.length ? r.nodes[0] : 0) : r.node;
    o.depth = d;
    o.nkids = r.children.length;
    if (r.mr) o.mr = r.mr.key;
    if (r.fr) o.fr = r.fr.key;
    out.push(o);
    for (let k = r.children.length - 1; k >= 0; k--) st.push([r.children[k], d + 1]);
  }
  return out;
}

const SEEDS = 60;
function eachCase(fn) {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const d = randomData(seed, 20 + seed * 7);
    const src = M.load(d), rsrc = R.load(randomData(seed, 20 + seed * 7));
    const r = rng(seed * 7919);
    // every third seed, the idle-time work has run (scratch and spare
    // arrays of this size exist, buildView has run on a prefix of the
    // tree: M.jitJobs); on others, half of the unique-children slices
    // (the first build finishes them)
    if (seed % 3 === 0) {
      for (const job of M.warmUp(src).concat(M.jitJobs(src, 1 + seed % 40, 2, seed % 2 ? [{ t: 'hide-statements' }] : undefined))) job();
    } else {
      const u = M.uniqueJobs(src, 1 + seed % 9);
      for (let k = 0; k < u.length >> 1; k++) u[k]();
    }
    for (let rep = 0; rep < 6; rep++) {
      const ts = rep === 0 ? [] : randomTransforms(r, src);
      fn(src, rsrc, ts, 'seed ' + seed + ' transforms ' + M.encodeTransforms(ts));
    }
  }
}

// Per node of @src, 1 when its children differ pairwise in (kind, name,
// call-site line): the definition, by comparing every pair.
function uniqueByPairs(src) {
  const kids = Array.from({ length: src.n }, function () { return []; });
  for (let i = 1; i < src.n; i++) kids[src.parent[i]].push(i);
  return kids.map(function (k) {
    for (let x = 0; x < k.length; x++) {
      for (let y = 0; y < x; y++) {
        const a = k[x], b = k[y];
        if (src.kind[a] === src.kind[b] && src.name[a] === src.name[b] && src.csLine[a] === src.csLine[b]) return 0;
      }
    }
    return 1;
  });
}

// Viewer data of one procedure with @width callees at distinct call-site
// lines; with @dup, one more callee repeating the one at @dup (the same
// name and line), else none repeated.
function wideData(width, dup) {
  const d = { format: 1, program: 'prog', metrics: [{ name: 'CPUTIME', unit: 's', rawPerUnit: 1 }], modules: ['/bin/prog'], files: ['a.c'],
    strings: ['prog', 'main'], n: 0, parentDelta: [], kind: [], name: [], lm: [], file: [], line: [], csFile: [], csLine: [], calls: [], self: [[]] };
  function add(parent, kind, name, cs) {
    const i = d.n++;
    d.parentDelta.push(parent < 0 ? 0 : i - parent); d.kind.push(kind); d.name.push(name); d.lm.push(parent < 0 ? -1 : 0);
    d.file.push(0); d.line.push(1); d.csFile.push(0); d.csLine.push(cs); d.calls.push(1); d.self[0].push(1);
  }
  add(-1, K.ROOT, 0, 0);
  add(0, K.FRAME, 1, 0);
  for (let c = 0; c < width; c++) { d.strings.push('c' + c); add(1, K.FRAME, d.strings.length - 1, 10 + c); }
  if (dup !== undefined) add(1, K.FRAME, 2 + dup, 10 + dup);
  return d;
}

test('uniqueJobs: the unique-children flags built in slices, with views built between them, as their definition', function () {
  const cases = [];
  for (let seed = 1; seed <= SEEDS; seed++) cases.push(randomData(seed, 20 + seed * 7));
  // more than 16 children (a hash table, not pairs), repeated or not
  for (const w of [3, 16, 17, 40]) { cases.push(wideData(w)); cases.push(wideData(w, 0)); cases.push(wideData(w, w - 1)); }
  cases.forEach(function (d, x) {
    const src = M.load(d), want = uniqueByPairs(src);
    const jobs = M.uniqueJobs(src, 1 + (x % 6));
    const half = jobs.length >> 1;
    for (let k = 0; k < half; k++) jobs[k]();
    M.release(M.buildView(M.load(wideData(20, 3)), [{ t: 'hide-loops' }])); // another source's flags between the slices
    for (let k = half; k < jobs.length; k++) jobs[k]();
    assert.ok(src.uniq, 'case ' + x + ': the jobs left the flags');
    assert.deepStrictEqual(Array.from(src.uniq), want, 'case ' + x);
  });
  // where a child repeats, its parent is flagged
  assert.strictEqual(uniqueByPairs(M.load(wideData(40, 5)))[1], 0);
  assert.strictEqual(uniqueByPairs(M.load(wideData(40)))[1], 1);
});

test('load: same columns as the reference', function () {
  for (let seed = 1; seed <= 10; seed++) {
    const a = M.load(randomData(seed, 200)), b = R.load(randomData(seed, 200));
    for (const c of ['parent', 'kind', 'name', 'lm', 'file', 'line', 'csFile', 'csLine', 'calls', 'end'])
      assert.deepStrictEqual(Array.from(a[c]), Array.from(b[c]), c);
    assert.deepStrictEqual(a.self.map(function (x) { return Array.from(x); }), b.self.map(function (x) { return Array.from(x); }));
  }
});

test('buildView: same view as the reference under random transforms', function () {
  // each view is released after the comparison, so that later builds run on
  // its recycled columns (M.release)
  eachCase(function (src, rsrc, ts, what) {
    const t = M.buildView(src, ts);
    sameView(t, R.buildView(rsrc, ts), what);
    M.release(t);
    sameView(M.buildView(src, ts), R.buildView(rsrc, ts), what + ' (recycled columns)');
  });
});

test('bottomUpRoots and bottomUpCallers: same rows as the reference', function () {
  eachCase(function (src, rsrc, ts, what) {
    const t = M.buildView(src, ts), rt = R.buildView(rsrc, ts);
    const a = M.bottomUpRoots(t), b = R.bottomUpRoots(rt);
    // without their entries first (as a first visit shows them)
    assert.deepStrictEqual(a.map(plainGroup), b.map(function (g) { const o = refRoot(rt, g); for (const k of ['carry', 'entries', 'outer', 'weight']) delete o[k]; return o; }), what + ': roots');
    assert.deepStrictEqual(a.map(function (g) { return g.node; }), b.map(function (g) { return g.entries[0]; }), what + ': first nodes');
    for (let k = 0; k < a.length; k++) {
      const ca = M.bottomUpCallers(t, a[k]), cb = R.bottomUpCallers(rt, b[k]);
      assert.deepStrictEqual(plainGroup(a[k]), refRoot(rt, b[k]), what + ': entries of ' + a[k].name);
      checkExtras(a[k], b[k], what + ': ' + a[k].name);
      assert.deepStrictEqual(ca.map(plainGroup), cb.map(plainGroup), what + ': callers of ' + a[k].name);
      // one more level up
      for (let j = 0; j < ca.length; j++) {
        checkExtras(ca[j], cb[j], what + ': caller ' + ca[j].name);
        assert.deepStrictEqual(M.bottomUpCallers(t, ca[j]).map(plainGroup), R.bottomUpCallers(rt, cb[j]).map(plainGroup), what + ': callers of callers');
      }
    }
    M.release(t);
  });
});

test('flat: same static tree as the reference', function () {
  eachCase(function (src, rsrc, ts, what) {
    const t = M.buildView(src, ts);
    assert.deepStrictEqual(plainFlat(M.flat(t)), plainFlat(R.flat(R.buildView(rsrc, ts)), true), what);
    M.release(t);
  });
});

test('matchTrees: same matches as the reference', function () {
  for (let seed = 1; seed <= SEEDS; seed++) {
    const a = M.load(randomData(seed, 150)), b = M.load(randomData(seed + 1000, 150));
    const ra = R.load(randomData(seed, 150)), rb = R.load(randomData(seed + 1000, 150));
    for (const ts of [[], [{ t: 'hide-statements' }], [{ t: 'collapse-recursion' }]]) {
      assert.deepStrictEqual(Array.from(M.matchTrees(M.buildView(a, ts), M.buildView(b, ts))), Array.from(R.matchTrees(R.buildView(ra, ts), R.buildView(rb, ts))), 'seed ' + seed);
      assert.deepStrictEqual(Array.from(M.matchTrees(M.buildView(a, ts), M.buildView(a, ts))), Array.from(R.matchTrees(R.buildView(ra, ts), R.buildView(ra, ts))), 'self seed ' + seed);
    }
  }
});

test('buildView: focus-subtree alone or with hide-statements (the preorder-range fast path) on every node, as the reference', function () {
  for (let seed = 1; seed <= 12; seed++) {
    const src = M.load(randomData(seed, 30 + seed * 9)), rsrc = R.load(randomData(seed, 30 + seed * 9));
    for (let f = 1; f < 2 * src.n; f++) {
      const ts = [{ t: 'focus-subtree', node: f % src.n || 1 }].concat(f < src.n ? [] : [{ t: 'hide-statements' }]);
      const t = M.buildView(src, ts);
      sameView(t, R.buildView(rsrc, ts), 'seed ' + seed + ' ' + M.encodeTransforms(ts));
      M.release(t);
    }
  }
});

test('bottomUpJobs: the rows built in idle-time slices, with views built between them, as the reference', function () {
  eachCase(function (src, rsrc, ts, what) {
    const t = M.buildView(src, ts), rt = R.buildView(rsrc, ts);
    const jobs = M.bottomUpJobs(t, 1 + (t.n % 7));
    const half = jobs.length >> 1;
    for (let k = 0; k < half; k++) jobs[k]();
    // another view's passes between the slices use the scratch arrays
    const other = M.buildView(src, [{ t: 'collapse-recursion' }]);
    M.bottomUpRoots(other);
    const b = R.bottomUpRoots(rt);
    if (t.n % 2) {
      for (let k = half; k < jobs.length; k++) jobs[k]();
      assert.ok(t.buRows, what + ': the jobs left the rows');
      assert.deepStrictEqual(t.buRows.map(function (g) { M.bottomUpEntries(t, g); return plainGroup(g); }), b.map(function (g) { return refRoot(rt, g); }), what + ': rows of the jobs');
    } else {
      // a visit before the jobs end finishes them at once
      assert.deepStrictEqual(M.bottomUpRoots(t).map(function (g) { M.bottomUpEntries(t, g); return plainGroup(g); }), b.map(function (g) { return refRoot(rt, g); }), what + ': rows finished early');
    }
    M.release(other);
    M.release(t);
  });
});

test('flatJobs: the flat tree built in idle-time slices, with views built between them, as the reference', function () {
  eachCase(function (src, rsrc, ts, what) {
    const t = M.buildView(src, ts);
    const jobs = M.flatJobs(t, 1 + (t.n % 5));
    const half = jobs.length >> 1;
    for (let k = 0; k < half; k++) jobs[k]();
    const other = M.buildView(src, [{ t: 'hide-loops' }]);
    M.flat(other);
    const b = plainFlat(R.flat(R.buildView(rsrc, ts)), true);
    if (t.n % 2) {
      for (let k = half; k < jobs.length; k++) jobs[k]();
      assert.ok(t.flatRoot, what + ': the jobs left the tree');
      assert.deepStrictEqual(plainFlat(t.flatRoot), b, what + ': tree of the jobs');
    } else {
      assert.deepStrictEqual(plainFlat(M.flat(t)), b, what + ': tree finished early');
    }
    M.release(other);
    M.release(t);
  });
});
