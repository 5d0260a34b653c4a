// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the viewer's model (share/viewer/model.js) with node's test
// runner: `node --test test/viewer/model.test.js` (node 18 and later).
// Fixtures are small trees in the data format of share/schemas/viewer-data.md,
// built here from nested lists, so every expected value is computed by hand.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const M = require(path.join(__dirname, '..', '..', 'share', 'viewer', 'model.js'));
const K = M.K;

// Build viewer data from [name, kind, self, {calls, lm, file, line, csLine}, children...]
function data(rootKids, opt) {
  opt = opt || {};
  const d = { format: 1, program: 'prog', srcPrefix: 'src-', metrics: [{ name: 'CPUTIME', unit: 's', rawUnit: 'ns', rawPerUnit: 1 }, { name: 'samples', unit: 'samples', rawPerUnit: 1 }],
    modules: opt.modules || ['/bin/prog', '/lib/libm.so.6'], files: ['prog.c'], src: {}, strings: ['prog'], n: 0,
    parentDelta: [], kind: [], name: [], lm: [], file: [], line: [], csFile: [], csLine: [], calls: [], self: [[], []], inputs: [], totals: {}, summary: [] };
  const sid = new Map([['prog', 0]]);
  function str(s) { if (!sid.has(s)) { sid.set(s, d.strings.length); d.strings.push(s); } return sid.get(s); }
  function add(parent, nm, kind, self, o) {
    const i = d.n++;
    d.parentDelta.push(parent < 0 ? 0 : i - parent);
    d.kind.push(kind); d.name.push(str(nm)); d.lm.push(o.lm === undefined ? (kind === K.FRAME ? 0 : -1) : o.lm);
    d.file.push(o.file === undefined ? 0 : o.file); d.line.push(o.line || 0); d.csFile.push(o.csLine ? 0 : -1);
    d.csLine.push(o.csLine || 0); d.calls.push(o.calls || 0); d.self[0].push(self); d.self[1].push(self / 10);
    return i;
  }
  const root = add(-1, 'prog', K.ROOT, 0, { lm: -1, file: -1 });
  const stack = rootKids.map(function (c) { return [root, c]; }).reverse();
  while (stack.length) {
    const e = stack.pop(), p = e[0], spec = e[1];
    const i = add(p, spec[0], spec[1], spec[2], spec[3] || {});
    for (let k = spec.length - 1; k >= 4; k--) stack.push([i, spec[k]]);
  }
  return d;
}
const F = K.FRAME, L = K.LOOP, S = K.STMT, I = K.INLINE;

// Figure 1: main calls a and b; a calls c twice, b calls c four times;
// c's cost is in a loop at line 32.
function fig1() {
  function c(cs, cost) { return ['c', F, 0, { calls: 1, csLine: cs, line: 30 }, ['loop at prog.c:32', L, 0, { line: 32 }, ['prog.c:32', S, cost, { line: 32 }]]]; }
  return data([['main', F, 0, { calls: 1 },
    ['a', F, 0, { calls: 1, csLine: 59 }, c(49, 100), c(50, 100)],
    ['b', F, 0, { calls: 1, csLine: 60 }, c(39, 50), c(40, 50), c(41, 50), c(42, 50)]]]);
}

function byName(t, name) {
  const out = [];
  for (let i = 0; i < t.n; i++) if (M.nameOf(t, i) === name) out.push(i);
  return out;
}
function sum(t, nodes, m) { return nodes.reduce(function (s, i) { return s + t.incl[m || 0][i]; }, 0); }
function checkProperties(t) {
  for (let m = 0; m < t.incl.length; m++) {
    let self = 0;
    for (let i = 0; i < t.n; i++) {
      self += t.self[m][i];
      let kids = 0;
      for (let k = t.cstart[i]; k < t.cstart[i + 1]; k++) kids += t.incl[m][t.clist[k]];
      assert.ok(Math.abs(t.incl[m][i] - t.self[m][i] - kids) < 1e-9, 'inclusive = exclusive + children at ' + M.nameOf(t, i));
    }
    assert.ok(Math.abs(self - t.incl[m][0]) < 1e-9, 'sum of exclusive = root inclusive');
  }
}

test('load: parents, preorder subtree ends, metrics', function () {
  const src = M.load(fig1());
  assert.strictEqual(src.parent[0], -1);
  assert.strictEqual(src.end[0], src.n);
  for (let i = 1; i < src.n; i++) assert.ok(src.parent[i] < i && src.end[i] <= src.end[src.parent[i]]);
  assert.throws(function () { M.load({ format: 2 }); }, /format/);
});

test('top-down: Figure 1 totals, c under a vs under b, call counts 2:4', function () {
  const t = M.buildView(M.load(fig1()), []);
  checkProperties(t);
  assert.strictEqual(t.incl[0][0], 400);
  const a = byName(t, 'a')[0], b = byName(t, 'b')[0];
  const ca = M.children(t, a), cb = M.children(t, b);
  assert.strictEqual(sum(t, ca), 200);
  assert.strictEqual(sum(t, cb), 200);
  assert.strictEqual(ca.reduce(function (s, i) { return s + t.calls[i]; }, 0), 2);
  assert.strictEqual(cb.reduce(function (s, i) { return s + t.calls[i]; }, 0), 4);
  // sorted children: largest first
  const kids = M.children(t, byName(t, 'main')[0], function (i) { return t.incl[0][i]; });
  assert.deepStrictEqual(kids.map(function (i) { return t.incl[0][i]; }), [200, 200]);
});

test('hot path follows the heaviest child', function () {
  const d = data([['main', F, 0, {}, ['x', F, 10, {}], ['y', F, 0, {}, ['z', F, 90, {}]]]]);
  const t = M.buildView(M.load(d), []);
  assert.deepStrictEqual(M.hotPath(t, 0, 0, 0.5).map(function (i) { return M.nameOf(t, i); }), ['prog', 'main', 'y', 'z']);
});

test('hide-loops and hide-statements merge into the enclosing frame', function () {
  const t = M.buildView(M.load(fig1()), [{ t: 'hide-loops' }, { t: 'hide-statements' }]);
  checkProperties(t);
  assert.strictEqual(byName(t, 'loop at prog.c:32').length, 0);
  assert.strictEqual(byName(t, 'prog.c:32').length, 0);
  assert.strictEqual(t.self[0][byName(t, 'c')[0]], 100);
  assert.strictEqual(t.incl[0][0], 400);
});

test('hide-statements alone (leaves dropped) equals the general merge', function () {
  const src = M.load(fig1());
  const fast = M.buildView(src, [{ t: 'hide-statements' }]);
  const slow = M.buildView(src, [{ t: 'hide-statements' }, { t: 'hide', name: 'no such function' }]);
  checkProperties(fast);
  assert.strictEqual(fast.n, slow.n);
  const key = (t) => Array.from({ length: t.n }, (_, i) => M.pathOf(t, i).join('/') + '=' + t.incl[0][i] + '/' + t.self[0][i] + '/' + t.calls[i]).sort();
  assert.deepStrictEqual(key(fast), key(slow));
  for (let i = 0; i < src.n; i++) assert.ok(fast.map[i] >= 0 && fast.map[i] < fast.n);
});

test('hide (merge into callers): c disappears, its cost is a\'s and b\'s own', function () {
  const src = M.load(fig1());
  const t = M.buildView(src, [{ t: 'hide', name: 'c' }, { t: 'hide-loops' }, { t: 'hide-statements' }]);
  checkProperties(t);
  assert.strictEqual(byName(t, 'c').length, 0);
  assert.strictEqual(t.self[0][byName(t, 'a')[0]], 200);
  assert.strictEqual(t.self[0][byName(t, 'b')[0]], 200);
  // every source node maps somewhere (nothing is dropped by a merge)
  for (let i = 0; i < src.n; i++) assert.ok(t.map[i] >= 0);
});

test('hide-lib merges frames of matching modules into their callers', function () {
  const d = data([['main', F, 1, {}, ['sin', F, 5, { lm: 1 }, ['__sin_fma', F, 7, { lm: 1 }]], ['work', F, 3, {}]]]);
  const t = M.buildView(M.load(d), [{ t: 'hide-lib', lib: 'libm' }]);
  checkProperties(t);
  assert.strictEqual(byName(t, 'sin').length + byName(t, '__sin_fma').length, 0);
  assert.strictEqual(t.self[0][byName(t, 'main')[0]], 13);
});

test('focus-function: one merged subtree per function, outermost occurrences only', function () {
  const d = data([['main', F, 0, {}, ['f', F, 2, {}, ['f', F, 3, {}]], ['g', F, 0, {}, ['f', F, 4, {}]], ['h', F, 9, {}]]]);
  const t = M.buildView(M.load(d), [{ t: 'focus-function', name: 'f' }]);
  checkProperties(t);
  const roots = M.children(t, 0);
  assert.deepStrictEqual(roots.map(function (i) { return M.nameOf(t, i); }), ['f']);
  assert.strictEqual(t.incl[0][0], 9, 'h is outside the focus; f counted once (2+3+4)');
});

test('focus-subtree keeps one node and its descendants', function () {
  const src = M.load(fig1());
  const b = byName(M.buildView(src, []), 'b')[0];
  const t0 = M.buildView(src, []);
  const t = M.buildView(src, [{ t: 'focus-subtree', node: t0.rep[b] }]);
  checkProperties(t);
  assert.strictEqual(t.incl[0][0], 200);
  assert.strictEqual(byName(t, 'a').length, 0);
  assert.strictEqual(t.map[t0.rep[byName(t0, 'a')[0]]], -1);
});

test('collapse-recursion merges a frame into a caller frame of the same name', function () {
  const d = data([['main', F, 0, {}, ['f', F, 1, {}, ['f', F, 2, {}, ['f', F, 3, {}, ['g', F, 4, {}]]]]]]);
  const t = M.buildView(M.load(d), [{ t: 'collapse-recursion' }]);
  checkProperties(t);
  const f = byName(t, 'f');
  assert.strictEqual(f.length, 1);
  assert.strictEqual(t.self[0][f[0]], 6);
  assert.strictEqual(t.parent[byName(t, 'g')[0]], f[0]);
});

test('hide-inlines merges inlined frames into their caller', function () {
  const d = data([['main', F, 0, {}, ['inl', I, 5, {}], ['k', F, 1, {}]]]);
  const t = M.buildView(M.load(d), [{ t: 'hide-inlines' }]);
  assert.strictEqual(byName(t, 'inl').length, 0);
  assert.strictEqual(t.self[0][byName(t, 'main')[0]], 5);
});

test('bottom-up: recursion counted once, callers split the cost, per call site', function () {
  // hpcviewer's example shape: g recursive under f; g's inclusive must not double count
  const d = data([['main', F, 0, {}, ['f', F, 1, { csLine: 3 }, ['g', F, 2, { csLine: 5 }, ['g', F, 3, { csLine: 7 }]]], ['g', F, 4, { csLine: 9 }]]]);
  const t = M.buildView(M.load(d), []);
  const roots = M.bottomUpRoots(t);
  const g = roots.find(function (r) { return r.name === 'g'; });
  assert.strictEqual(g.incl[0], 9, 'outermost g: 2+3 under f, 4 under main');
  assert.strictEqual(g.self[0], 9);
  const callers = M.bottomUpCallers(t, g);
  // callers of the outermost instances only: the recursive g (3) is inside
  // the g that f called, whose row carries its exclusive cost too
  const byCaller = {};
  for (const c of callers) byCaller[c.name + ':' + c.csLine] = [c.incl[0], c.self[0]];
  assert.deepStrictEqual(byCaller, { 'f:5': [5, 5], 'main:9': [4, 4] });
  // Figure 1: c's callers a and b, one row per call site
  const t1 = M.buildView(M.load(fig1()), []);
  const c = M.bottomUpRoots(t1).find(function (r) { return r.name === 'c'; });
  assert.strictEqual(c.incl[0], 400);
  assert.strictEqual(c.self[0], 400, 'a procedure\'s exclusive cost includes its loops and statements');
  const cs = M.bottomUpCallers(t1, c);
  assert.strictEqual(cs.length, 6);
  assert.strictEqual(cs.filter(function (x) { return x.name === 'a'; }).reduce(function (s, x) { return s + x.calls; }, 0), 2);
  assert.strictEqual(cs.filter(function (x) { return x.name === 'b'; }).reduce(function (s, x) { return s + x.calls; }, 0), 4);
});

test('flat: module -> file -> procedure -> loop -> statement, no double counting', function () {
  const d = data([['main', F, 0, {}, ['f', F, 1, {}, ['f', F, 2, {}, ['loop at prog.c:4', L, 0, { line: 4 }, ['prog.c:5', S, 3, { line: 5 }]]]]]]);
  const t = M.buildView(M.load(d), []);
  const root = M.flat(t);
  assert.strictEqual(root.incl[0], 6);
  const mod = root.children[0];
  assert.strictEqual(mod.name, '/bin/prog');
  assert.strictEqual(mod.incl[0], 6, 'a module counts its outermost frames');
  const file = mod.children[0];
  const f = file.children.find(function (r) { return r.name === 'f'; });
  assert.strictEqual(f.incl[0], 6, 'recursive f counted once');
  assert.strictEqual(f.self[0], 6, 'f own + its loop\'s statements');
  const loop = f.children[0];
  assert.strictEqual(loop.kind, K.LOOP);
  assert.strictEqual(loop.incl[0], 3);
  assert.strictEqual(loop.children[0].name, 'prog.c:5');
});

test('flat: cost in no row (an outermost frame hidden, a loop left at the top) is the program\'s outside', function () {
  const d = data([['__libc_start_main', F, 2, { lm: 1 }, ['main', F, 1, {}, ['loop at prog.c:4', L, 0, { line: 4 }, ['prog.c:5', S, 3, { line: 5 }]]]]],
    { modules: ['/bin/prog', '/lib/libc.so.6'] });
  const src = M.load(d);
  const plain = M.flat(M.buildView(src, []));
  assert.deepStrictEqual(plain.outside, [0, 0], 'nothing outside without transforms');
  assert.strictEqual(plain.self[0], 6, 'program self = total');
  // libc's outermost frame merged into its caller, the root
  const hl = M.flat(M.buildView(src, [{ t: 'hide-lib', lib: 'libc.so' }]));
  assert.strictEqual(hl.outside[0], 2);
  assert.ok(Math.abs(hl.outside[1] - 0.2) < 1e-12);
  assert.strictEqual(hl.self[0], 6, 'program self = its modules\' + outside');
  assert.strictEqual(hl.children.length, 1, 'only /bin/prog is left');
  assert.strictEqual(hl.children[0].self[0], 4);
  // every frame hidden: the loop is left under the root, with no row
  const none = M.flat(M.buildView(src, [{ t: 'hide-lib', lib: 'libc.so' }, { t: 'hide', name: 'main' }]));
  assert.strictEqual(none.outside[0], 6, 'the root\'s own 3 and the loop\'s statement 3');
  assert.strictEqual(none.children.length, 0);
  assert.strictEqual(none.self[0], none.incl[0]);
});

test('diff: a tree matches itself; changed costs show up', function () {
  const a = M.buildView(M.load(fig1()), []);
  const m = M.matchTrees(a, a);
  for (let i = 0; i < a.n; i++) assert.strictEqual(m[i], i);
  const d2 = fig1();
  d2.strings.push('new');
  d2.self[0][d2.self[0].length - 1] += 25;
  const b = M.buildView(M.load(d2), []);
  const mb = M.matchTrees(b, a);
  assert.strictEqual(b.incl[0][0] - a.incl[0][mb[0]], 25);
  assert.strictEqual(M.matchMetric(b, a, 1), 1);
});

test('diff: matched by structure: inlined = out of line, clone suffixes dropped, moved calls paired', function () {
  // base: work inlines hot (line 12), calls cold.constprop.0 (13) and helper twice (14, 16);
  // current: hot out of line, cold, helper from 15 and 17, and new from 18
  const base = M.buildView(M.load(data([['work', F, 0, {}, ['hot', I, 60, { csLine: 12 }],
    ['cold.constprop.0', F, 30, { csLine: 13 }], ['helper', F, 5, { csLine: 14 }], ['helper', F, 5, { csLine: 16 }]]])), []);
  const cur = M.buildView(M.load(data([['work', F, 0, {}, ['hot', F, 70, { csLine: 12 }], ['cold', F, 20, { csLine: 13 }],
    ['helper', F, 6, { csLine: 17 }], ['helper', F, 4, { csLine: 15 }], ['new', F, 1, { csLine: 18 }]]])), []);
  const m = M.matchTrees(cur, base);
  const at = function (t, name, line) { return byName(t, name).filter(function (i) { return !line || t.csLine[i] === line; })[0]; };
  assert.strictEqual(m[at(cur, 'hot')], at(base, 'hot'), 'hot: out of line matches inlined');
  assert.strictEqual(m[at(cur, 'cold')], at(base, 'cold.constprop.0'), 'cold matches its clone');
  assert.strictEqual(m[at(cur, 'helper', 15)], at(base, 'helper', 14), 'helper 15 <- 14 (line order)');
  assert.strictEqual(m[at(cur, 'helper', 17)], at(base, 'helper', 16), 'helper 17 <- 16');
  assert.strictEqual(m[at(cur, 'new')], -1, 'new: current only');
  assert.strictEqual(M.baseOnly(cur, base, m).nodes, 0, 'no base-only context');
  // and the other way round: the current inlines hot, the base does not
  const r = M.matchTrees(base, cur);
  assert.strictEqual(r[at(base, 'hot')], at(cur, 'hot'), 'hot: inlined matches out of line');
  assert.strictEqual(r[at(base, 'cold.constprop.0')], at(cur, 'cold'), 'the clone matches cold');
  assert.strictEqual(M.procBase('f.isra.0.cold'), 'f');
  assert.strictEqual(M.procBase('g(int) [clone .constprop.0]'), 'g(int)');
  assert.strictEqual(M.procBase('.cold'), '.cold');
  assert.strictEqual(M.procBase('liblzma.so.5.4.1+0x16b00'), 'liblzma.so.5.4.1+0x16b00');
});

test('diff: the interval of a change of share is Newcombe\'s (the paper\'s examples), z Bonferroni\'s', function () {
  // Newcombe 1998, Statistics in Medicine 17:873, Table II, method 10 (95 %)
  const cases = [[48, 80, 56, 70, 0.0524, 0.3339], [3, 10, 9, 10, 0.1705, 0.8090], [0, 29, 5, 56, -0.0381, 0.1926], [0, 20, 0, 10, -0.1611, 0.2775]];
  for (const [x1, n1, x2, n2, lo, hi] of cases) {
    const iv = M.diffInterval(x1, n1, x2, n2, 1.959964);
    assert.ok(Math.abs(iv[0] - lo) < 6e-5 && Math.abs(iv[1] - hi) < 6e-5, x1 + '/' + n1 + ' -> ' + x2 + '/' + n2 + ': ' + iv);
  }
  assert.strictEqual(M.diffInterval(1, 0, 1, 10, 2), null, 'no samples in a run: no interval');
  // Phi^-1(1 - 0.05 / (2 m)): 1.959964 (m = 1), 2.575829 (5), 3.662260 (200)
  for (const [m, z] of [[0, 1.959964], [1, 1.959964], [5, 2.575829], [200, 3.662260]]) assert.ok(Math.abs(M.diffZ(m) - z) < 1e-5, m + ': ' + M.diffZ(m));
});

test('transforms round-trip through the URL grammar, hostile names included', function () {
  const list = [{ t: 'focus-subtree', node: 12 }, { t: 'hide', name: 'a~b:c</script>"\n' }, { t: 'hide-lib', lib: 'libc.so' }, { t: 'collapse-recursion' }, { t: 'hide-loops' }];
  const s = M.encodeTransforms(list);
  assert.ok(!/[<>"\n]/.test(s));
  assert.deepStrictEqual(M.decodeTransforms(s), list);
});

// The transform table (model-transforms.js): every entry's URL form, the
// old links, the errors, and buildView's dispatch of every entry's step.
test('transform table: the eight types, each round-trips its URL form with typical and hostile parameters', function () {
  assert.deepStrictEqual(M.TRANSFORMS, ['focus-subtree', 'focus-function', 'hide', 'hide-lib', 'collapse-recursion', 'hide-loops', 'hide-inlines', 'hide-statements']);
  assert.deepStrictEqual(Object.keys(M.TRANSFORM_TYPES), M.TRANSFORMS);
  const names = ['main', 'a~b', 'x,y', '100%', '%7E', 'ns::f(int):g', 'f<int>(char const*) [clone .constprop.0]', 'ünïcødé 函数 😀', ' ', '</script>"\n', '~:%,~', 'a&t=hide#x'];
  const all = [];
  for (const t of M.TRANSFORMS) {
    const e = M.TRANSFORM_TYPES[t];
    const values = e.param === null ? [undefined] : e.param === 'node' ? [0, 1, 12, 123456] : names;
    for (const v of values) {
      const x = { t: t };
      if (e.param) x[e.param] = v;
      const s = M.encodeTransforms([x]);
      assert.ok(s === t || s.startsWith(t + ':'), t + ': ' + s);
      assert.ok(!/[~<>"\n#&]/.test(s), 'one URL-safe part: ' + s);
      assert.deepStrictEqual(M.decodeTransforms(s), [x], t + ' ' + JSON.stringify(v) + ' -> ' + s);
      all.push(x);
    }
  }
  assert.deepStrictEqual(M.decodeTransforms(M.encodeTransforms(all)), all, 'the whole list in one URL');
});

test('transform table: old URLs (the first viewer\'s encodeTransforms output) decode as before', function () {
  const old = [
    ['focus-subtree:12~hide:a%7Eb%3Ac%3C%2Fscript%3E%22%0A~hide-lib:libc.so~collapse-recursion~hide-loops',
      [{ t: 'focus-subtree', node: 12 }, { t: 'hide', name: 'a~b:c</script>"\n' }, { t: 'hide-lib', lib: 'libc.so' }, { t: 'collapse-recursion' }, { t: 'hide-loops' }]],
    ['focus-function:ns%3A%3Af%3Cint%3E(char%20const*)%20%5Bclone%20.constprop.0%5D~hide-inlines~hide-statements',
      [{ t: 'focus-function', name: 'ns::f<int>(char const*) [clone .constprop.0]' }, { t: 'hide-inlines' }, { t: 'hide-statements' }]],
    ['hide:100%25%20%2C%7E%3A%20%C3%BC%20%E5%87%BD%E6%95%B0%20%F0%9F%98%80~hide-lib:%2Fusr%2Flib%2Fx86_64-linux-gnu%2Flibm.so.6',
      [{ t: 'hide', name: '100% ,~: ü 函数 😀' }, { t: 'hide-lib', lib: '/usr/lib/x86_64-linux-gnu/libm.so.6' }]],
    ['hide', [{ t: 'hide', name: '' }]],
    ['focus-subtree:0~hide:main', [{ t: 'focus-subtree', node: 0 }, { t: 'hide', name: 'main' }]],
    ['', []],
  ];
  for (const [s, list] of old) {
    assert.deepStrictEqual(M.decodeTransforms(s), list, s);
    assert.strictEqual(M.encodeTransforms(list), s, 'encoded as before: ' + s);
  }
});

test('transform table: an unknown type or a bad parameter is reported, naming it', function () {
  assert.throws(function () { M.decodeTransforms('bogus~hide-inlines'); }, /transform "bogus" is unknown/);
  const errors = [];
  assert.deepStrictEqual(M.decodeTransforms('bogus~hide-inlines~focus-subtree:abc~hide:%E0%A4%A~hide-loops:x~', errors), [{ t: 'hide-inlines' }]);
  assert.strictEqual(errors.length, 5, errors.join('\n'));
  assert.match(errors[0], /"bogus" is unknown/);
  assert.match(errors[1], /focus-subtree:abc.*"abc" is not a node number/);
  assert.match(errors[2], /hide:%E0%A4%A.*%-escape/);
  assert.match(errors[3], /hide-loops:x.*takes no parameter/);
  assert.match(errors[4], /"" is unknown/);
  assert.throws(function () { M.decodeTransforms('focus-subtree:-1'); }, /"-1" is not a node number/);
  assert.throws(function () { M.decodeTransforms('toString'); }, /"toString" is unknown/);
  assert.throws(function () { M.encodeTransforms([{ t: 'nope' }]); }, /"nope" is unknown/);
  assert.throws(function () { M.buildView(M.load(fig1()), [{ t: 'nope' }]); }, /"nope" is unknown/);
  assert.throws(function () { M.transformLabel({ t: 'nope' }, String); }, /"nope" is unknown/);
});

test('transform table: chip labels', function () {
  assert.strictEqual(M.transformLabel({ t: 'focus-subtree', node: 3 }, function (i) { return 'node' + i; }), 'focus-subtree: node3');
  assert.strictEqual(M.transformLabel({ t: 'hide', name: 'x'.repeat(45) }, String), 'hide: ' + 'x'.repeat(40) + '…');
  assert.strictEqual(M.transformLabel({ t: 'hide-lib', lib: 'libm' }, String), 'hide-lib: libm');
  assert.strictEqual(M.transformLabel({ t: 'collapse-recursion' }, String), 'collapse-recursion');
  for (const t of M.TRANSFORMS) if (M.TRANSFORM_TYPES[t].toggle) assert.strictEqual(M.TRANSFORM_TYPES[t].param, null, t + ': a toggle takes no parameter');
});

test('transform table: buildView applies every type\'s step (alone and on the merging path)', function () {
  // main [lm 0] -> a -> a (recursion) -> statement; a -> loop -> statement;
  // main -> m [libm]; main -> i (inlined)
  const d = data([['main', F, 0, { calls: 1 },
    ['a', F, 0, { calls: 1, csLine: 10 }, ['a', F, 5, { calls: 1, csLine: 11 }, ['prog.c:5', S, 7, { line: 5 }]],
      ['loop at prog.c:20', L, 0, { line: 20 }, ['prog.c:21', S, 3, { line: 21 }]]],
    ['m', F, 11, { calls: 1, csLine: 12, lm: 1 }],
    ['i', I, 13, { csLine: 30, lm: 0 }]]]);
  const src = M.load(d);
  const count = function (t, pred) { let c = 0; for (let i = 1; i < t.n; i++) if (pred(i)) c++; return c; };
  const srcM = d.name.indexOf(d.strings.indexOf('m'));
  const kids = function (t) { return M.children(t, 0).map(function (i) { return M.nameOf(t, i); }).join(','); };
  const main = function (t) { return byName(t, 'main')[0]; };
  const checks = {
    'focus-subtree': [{ t: 'focus-subtree', node: srcM }, function (t) { return kids(t) === 'm' && t.incl[0][0] === 11; }],
    'focus-function': [{ t: 'focus-function', name: 'a' }, function (t) { return kids(t) === 'a' && t.incl[0][0] === 15; }],
    'hide': [{ t: 'hide', name: 'm' }, function (t) { return byName(t, 'm').length === 0 && t.self[0][main(t)] === 11; }],
    'hide-lib': [{ t: 'hide-lib', lib: 'libm' }, function (t) { return byName(t, 'm').length === 0 && t.self[0][main(t)] === 11; }],
    'collapse-recursion': [{ t: 'collapse-recursion' }, function (t) { return byName(t, 'a').length === 1; }],
    'hide-loops': [{ t: 'hide-loops' }, function (t) { return count(t, function (i) { return t.kind[i] === L; }) === 0 && byName(t, 'prog.c:21').length === 1; }],
    'hide-inlines': [{ t: 'hide-inlines' }, function (t) { return byName(t, 'i').length === 0 && t.self[0][main(t)] === 13; }],
    'hide-statements': [{ t: 'hide-statements' }, function (t) { return count(t, function (i) { return t.kind[i] === S; }) === 0 && t.self[0][byName(t, 'a')[1]] === 12; }],
  };
  assert.deepStrictEqual(Object.keys(checks), M.TRANSFORMS, 'a check for every type of the table');
  const none = M.buildView(src, []);
  for (const t of M.TRANSFORMS) {
    const [x, holds] = checks[t];
    assert.ok(!holds(none), t + ': not so without the transform');
    for (const list of [[x], [x, { t: 'hide', name: 'no such function' }], M.decodeTransforms(M.encodeTransforms([x]))]) {
      const v = M.buildView(src, list);
      checkProperties(v);
      assert.ok(holds(v), t + ' applied by buildView (' + M.encodeTransforms(list) + ')');
      assert.strictEqual(v.incl[0][0], t.startsWith('focus') ? v.incl[0][0] : 39, 'nothing lost');
    }
  }
});

test('stats: min, mean, max, coefficient of variation', function () {
  const s = M.stats([2, 4, 4, 4, 5, 5, 7, 9]);
  assert.strictEqual(s.min, 2);
  assert.strictEqual(s.max, 9);
  assert.strictEqual(s.mean, 5);
  assert.strictEqual(s.sd, 2);
  assert.strictEqual(s.cv, 0.4);
  assert.strictEqual(M.stats([]).n, 0);
});

test('source lines: statement costs, call-site lines with calls, loop brackets', function () {
  const t = M.buildView(M.load(fig1()), []);
  const sl = M.sourceLines(t, 0, 0);
  assert.strictEqual(sl.lines.get(32).self, 400);
  assert.strictEqual(sl.lines.get(49).incl, 100);
  assert.strictEqual(sl.lines.get(49).calls, 1);
  assert.strictEqual(sl.lines.get(60).incl, 200);
  assert.ok(sl.loops.length > 0 && sl.loops.every(function (l) { return l[0] === 32 && l[1] === 32; }));
});

// ------------------------------------------------------- derived metrics

// Evaluate @text with CPUTIME = @cpu (display unit), samples = @smp, calls = @calls.
function ev(text, cpu, smp, calls) {
  const src = M.load(fig1());
  const d = M.derivedMetric(src, 'x', text);
  return M.derivedValue(src, d, [cpu, smp], [0, 0], calls, true);
}

test('derived formulas: the -M grammar, evaluated as csprof-prof and csprof-report do', function () {
  assert.strictEqual(ev('CPUTIME + samples * 2', 3, 5, 0), 13);
  assert.strictEqual(ev('(CPUTIME + samples) * 2', 3, 5, 0), 16);
  assert.strictEqual(ev('CPUTIME - samples - 1', 10, 3, 0), 6, 'left associative');
  assert.strictEqual(ev('24 / CPUTIME / 2', 3, 0, 0), 4);
  assert.strictEqual(ev('--CPUTIME', 3, 0, 0), 3, 'unary minus nests');
  assert.strictEqual(ev('-CPUTIME*2', 3, 0, 0), -6);
  assert.strictEqual(ev('cputime/Calls', 3, 0, 4), 0.75, 'names ignore case; calls');
  assert.strictEqual(ev('{CPUTIME} + {samples}', 1, 2, 0), 3, 'braced names');
  assert.strictEqual(ev('min(CPUTIME, samples) + max(CPUTIME,samples)', 1, 2, 0), 3);
  assert.strictEqual(ev('sqrt(CPUTIME) + log(samples)', 16, 1, 0), 4);
  assert.strictEqual(ev('1.5e2 + .5 + 0x10', 0, 0, 0), 166.5, 'strtod numbers: exponent, leading dot, hexadecimal');
  assert.strictEqual(ev(' CPUTIME\n/\tsamples ', 6, 3, 0), 2, 'any white space separates');
  // an operation without a real result makes the whole value undefined: 0
  assert.strictEqual(ev('CPUTIME / calls + 1', 5, 0, 0), 0, 'x/0: the whole value is 0');
  assert.strictEqual(ev('sqrt(0 - CPUTIME) + 2', 4, 0, 0), 0);
  assert.strictEqual(ev('log(0) + 3', 0, 0, 0), 0);
  assert.strictEqual(ev('1e308 * 1e308 + 1', 0, 0, 0), 0, 'overflow: 0');
  assert.ok(Object.is(ev('0 - CPUTIME * 0', 5, 0, 0), 0), '-0 shows as 0');
  let deep = 'CPUTIME';
  for (let k = 0; k < 40; k++) deep = '0+1*(' + deep + ')';
  assert.strictEqual(ev(deep, 7, 0, 0), 7, 'a formula 80 operands deep is evaluated, not answered 0');
  // the row's exclusive values when asked for
  const src = M.load(fig1());
  const d = M.derivedMetric(src, 'r', 'samples / CPUTIME');
  assert.strictEqual(M.derivedValue(src, d, [10, 1], [4, 2], 0, false), 0.5);
  // raw values are converted to the metric's display unit
  src.metrics[0].rawPerUnit = 1e9;
  assert.strictEqual(M.derivedValue(src, d, [2e9, 6], [0, 0], 0, true), 3);
});

test('derived formulas: errors name the position, no code runs', function () {
  const src = M.load(fig1());
  const bad = [['CPUTIME +', /position 10: unexpected end/], ['CPUTIME $ 2', /position 9: unexpected text/],
    ['nosuch + 1', /position 1: unknown metric "nosuch"/], ['foo(1)', /unknown function foo/],
    ['min(1)', /',' expected/], ['(1', /'\)' expected/], ['{CPUTIME', /'}' expected/], ['. + 1', /bad number/],
    ['constructor', /unknown metric/], ['__proto__(1)', /unknown function/], ['alert(1)', /unknown function/],
    ['-'.repeat(70) + '1', /nested too deeply/], ['CPUTIME * 1e999', /number out of range/]];
  for (const [text, re] of bad) assert.throws(function () { M.derivedMetric(src, 'x', text); }, re, text);
  // names from the URL round-trip, hostile ones included
  const list = [{ name: 'a~b', formula: 'CPUTIME/{samples}' }, { name: '</script>', formula: '1=2' }];
  const s = M.encodeDerived(list);
  assert.ok(!/[<>~]/.test(s.replace(/~/g, '').replace(/%7E/g, '')) && s.split('~').length === 2);
  assert.deepStrictEqual(M.decodeDerived(s), list);
});

test('derived column on merged rows: the formula of the sums, not the sum of the formulas', function () {
  const src = M.load(fig1());
  const d = M.derivedMetric(src, 'percall', 'CPUTIME / calls');
  const t = M.buildView(src, [{ t: 'focus-function', name: 'c' }]);
  const c = byName(t, 'c')[0];
  // c: 6 calls, 400 of CPUTIME in all: 400 / 6, not the sum of 100/1 + ... = 400
  const v = M.derivedValue(src, d, [t.incl[0][c], t.incl[1][c]], [t.self[0][c], t.self[1][c]], t.calls[c], true);
  assert.strictEqual(v, 400 / 6);
});

// ------------------------------------------- differential: base-only nodes

test('diff: contexts only in the base are appended with value 0 and the base value', function () {
  const cur = M.buildView(M.load(fig1()), []);
  // base: fig1 plus d under a (cost 70, with a loop) and e under main (cost 30)
  const bd = data([['main', F, 0, { calls: 1 },
    ['a', F, 0, { calls: 1, csLine: 59 }, ['c', F, 0, { calls: 1, csLine: 49, line: 30 }, ['loop at prog.c:32', L, 0, { line: 32 }, ['prog.c:32', S, 100, { line: 32 }]]],
      ['d', F, 0, { calls: 3, csLine: 51, lm: 1 }, ['loop at prog.c:70', L, 70, { line: 70 }]]],
    ['e', F, 30, { calls: 1, csLine: 61 }]]], { modules: ['/bin/prog', '/lib/libd.so'] });
  const base = M.buildView(M.load(bd), []);
  const match = M.matchTrees(cur, base);
  const r = M.baseOnly(cur, base, match);
  assert.strictEqual(r.nodes, 3, 'd, its loop and e');
  assert.deepStrictEqual(r.total, [100, 10], 'base-only total: d 70 + e 30');
  const t = r.t;
  assert.strictEqual(t.n, cur.n + 3);
  checkProperties(t);
  const dn = byName(t, 'd'), en = byName(t, 'e');
  assert.strictEqual(dn.length, 1);
  assert.strictEqual(M.nameOf(t, t.parent[dn[0]]), 'a');
  assert.strictEqual(M.nameOf(t, t.parent[en[0]]), 'main');
  assert.strictEqual(t.incl[0][dn[0]], 0, 'current value 0');
  assert.strictEqual(t.src.modules[t.lm[dn[0]]], '/lib/libd.so', 'module carried over');
  assert.strictEqual(base.incl[0][r.match[dn[0]]], 70, 'matched to its base node');
  assert.strictEqual(t.incl[0][0], cur.incl[0][0], 'current totals unchanged');
  // the base's values on the extended tree: its bottom-up and flat rows show d
  const bv = M.baseValues(t, base, r.match);
  assert.strictEqual(bv.incl[0][0], base.incl[0][0], 'every base context is in the extended tree');
  const bu = M.bottomUpRoots(bv).find(function (g) { return g.name === 'd'; });
  assert.strictEqual(bu.incl[0], 70);
  assert.ok(M.bottomUpRoots(t).some(function (g) { return g.name === 'd' && g.incl[0] === 0; }), 'current bottom-up lists d at 0');
  const fl = M.flat(bv);
  assert.ok(fl.children.some(function (m) { return m.name === '/lib/libd.so' && m.incl[0] === 70; }), 'flat: d\'s module with the base value');
  // a tree against itself: nothing is base only
  assert.strictEqual(M.baseOnly(cur, cur, M.matchTrees(cur, cur)).nodes, 0);
});

test('diff: a base-only recursive call counts once in the bottom-up inclusive', function () {
  // the appended node has no source node of its own (rep: its parent's),
  // so its same-name ancestors are found up its parents
  const cur = M.buildView(M.load(data([['main', F, 0, { calls: 1 }, ['f', F, 10, { calls: 1, csLine: 3 }]]])), []);
  const base = M.buildView(M.load(data([['main', F, 0, { calls: 1 }, ['f', F, 10, { calls: 1, csLine: 3 }, ['f', F, 5, { calls: 1, csLine: 7 }]]]])), []);
  const r = M.baseOnly(cur, base, M.matchTrees(cur, base));
  assert.strictEqual(r.nodes, 1, 'the inner f');
  const bv = M.baseValues(r.t, base, r.match);
  const f = M.bottomUpRoots(bv).find(function (g) { return g.name === 'f'; });
  assert.deepStrictEqual([f.incl[0], f.self[0]], [15, 15], 'inclusive of the outer f only, exclusive of both');
});

test('flat: loops without lines (stripped code) are rows of their own, by their address ranges', function () {
  // csprof-report names a loop without a line by its address range (lines
  // 0, no file): two sibling loops of f and one nested must stay three rows
  const d = data([['main', F, 0, {}, ['f', F, 1, {},
    ['loop at prog+0x1150..0x1165', L, 0, { file: -1 }, ['?:0', S, 5, { file: -1 }]],
    ['loop at prog+0x1170..0x119e', L, 0, { file: -1 }, ['?:0', S, 2, { file: -1 }],
      ['loop at prog+0x1178..0x1193', L, 0, { file: -1 }, ['?:0', S, 3, { file: -1 }]]]]]]);
  const f = M.flat(M.buildView(M.load(d), [])).children[0].children[0].children.find(function (r) { return r.name === 'f'; });
  assert.deepStrictEqual(f.children.map(function (r) { return r.name; }), ['loop at prog+0x1150..0x1165', 'loop at prog+0x1170..0x119e']);
  assert.deepStrictEqual(f.children.map(function (r) { return r.incl[0]; }), [5, 5]);
  assert.deepStrictEqual(f.children.map(function (r) { return r.self[0]; }), [5, 2], 'a loop\'s self is its own statements\', not its nested loop\'s (docs/views.md, "Flat")');
  const inner = f.children[1].children.find(function (r) { return r.kind === K.LOOP; });
  assert.ok(inner, 'the nested loop is a row under the outer one');
  assert.strictEqual(inner.name, 'loop at prog+0x1178..0x1193');
  assert.strictEqual(inner.incl[0], 3);
});

test('flat: a loop under a recursive call whose name differs for the same file and line counts once', function () {
  // f's loop at prog.c:3 appears again, under a recursive f, by another
  // name: the same flat row (f, prog.c:3), so only the outer one counts in
  // its inclusive value (the rows' fast path finds same-row ancestors by
  // name: this source has no fixed loop names, and takes the other path)
  const d = data([['main', F, 0, { calls: 1 },
    ['f', F, 0, { calls: 1, csLine: 2, line: 1 },
      ['loop at prog.c:3', L, 10, { line: 3 },
        ['g', F, 0, { calls: 1, csLine: 4, line: 9 },
          ['f', F, 0, { calls: 1, csLine: 10, line: 1 },
            ['loop at prog.c:3 (again)', L, 5, { line: 3 }]]]]]]]);
  for (const ts of [[], [{ t: 'hide', name: 'g' }]]) {
    const t = M.buildView(M.load(d), ts);
    const fr = M.flat(t).children[0].children[0].children.find(function (r) { return r.name === 'f'; });
    assert.strictEqual(fr.children.length, 1, 'one row for the loop at prog.c:3 of f');
    assert.deepStrictEqual([fr.children[0].incl[0], fr.children[0].self[0]], [15, 15], 'inclusive of the outer loop only, exclusive of both');
    assert.strictEqual(fr.incl[0], 15, 'f: the outer call only');
  }
});
