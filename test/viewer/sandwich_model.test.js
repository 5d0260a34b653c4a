// SPDX-License-Identifier: BSD-3-Clause
// Unit tests of the viewer model's sandwich functions (share/viewer/model.js,
// the "sandwich" block) with node's test runner, on small trees whose
// expected values are computed by hand: recursion counted once (only the
// outermost contexts count for inclusive), exclusive over every context with
// its loops' cost, callers as an inverted tree, callees merged over contexts.
'use strict';
const test = require('node:test');
const assert = require('node:assert');
const path = require('node:path');
const M = require(path.join(__dirname, '..', '..', 'share', 'viewer', 'model.js'));
const K = M.K;
const F = K.FRAME, L = K.LOOP, I = K.INLINE;

// Viewer data (share/schemas/viewer-data.md) from nested lists
// [name, kind, self, {calls, csLine, line}, children...]; one metric.
function data(rootKids) {
  const d = { format: 1, program: 'prog', srcPrefix: 'src-', metrics: [{ name: 'samples', unit: 'samples', rawPerUnit: 1 }],
    modules: ['/bin/prog'], files: ['prog.c'], src: {}, strings: ['prog'], n: 0,
    parentDelta: [], kind: [], name: [], lm: [], file: [], line: [], csFile: [], csLine: [], calls: [], self: [[]], inputs: [], totals: {}, summary: [] };
  const sid = new Map([['prog', 0]]);
  const str = (s) => { if (!sid.has(s)) { sid.set(s, d.strings.length); d.strings.push(s); } return sid.get(s); };
  function add(parent, nm, kind, self, o) {
    const i = d.n++;
    d.parentDelta.push(parent < 0 ? 0 : i - parent);
    d.kind.push(kind); d.name.push(str(nm)); d.lm.push(kind === F ? 0 : -1); d.file.push(0); d.line.push(o.line || 0);
    d.csFile.push(o.csLine ? 0 : -1); d.csLine.push(o.csLine || 0); d.calls.push(o.calls || 0); d.self[0].push(self);
    return i;
  }
  const root = add(-1, 'prog', K.ROOT, 0, {});
  const stack = rootKids.map((c) => [root, c]).reverse();
  while (stack.length) {
    const [p, spec] = stack.pop();
    const i = add(p, spec[0], spec[1], spec[2], spec[3] || {});
    for (let k = spec.length - 1; k >= 4; k--) stack.push([i, spec[k]]);
  }
  return d;
}

// main -> f (10, its loop 6) -> g (5) -> f (20) -> h (7)
// main -> k (1) -> f (3, 2 calls)
// main -> f [inline] (4) (an inlined f: the same procedure)
function recursive() {
  return data([['main', F, 0, { calls: 1 },
    ['f', F, 10, { calls: 1, csLine: 5 }, ['loop at prog.c:12', L, 6, { line: 12 }],
      ['g', F, 5, { calls: 1, csLine: 13 }, ['f', F, 20, { calls: 3, csLine: 20 }, ['h', F, 7, { calls: 1, csLine: 14 }]]]],
    ['k', F, 1, { calls: 1, csLine: 6 }, ['f', F, 3, { calls: 2, csLine: 30 }]],
    ['f', I, 4, { csLine: 7 }]]]);
}

test('sandwich totals: recursion counted once, exclusive over every context', function () {
  const src = M.load(recursive());
  for (const t of [M.buildView(src, []), M.buildView(src, [{ t: 'hide-loops' }])]) {
    const occ = M.sandwichOccurrences(t, 'f');
    assert.strictEqual(occ.length, 3, 'outermost f: under main (frame and inline) and under k');
    const T = M.sandwichTotals(t, 'f');
    // outermost: 10 + 6 + 5 + 20 + 7 (under main), 3 (under k), 4 (inlined)
    assert.strictEqual(T.incl[0], 55);
    // own: 10 + 6 (its loop) + 20 + 3 + 4
    assert.strictEqual(T.self[0], 43);
    assert.strictEqual(T.calls, 6);
    assert.strictEqual(T.contexts, 3);
    assert.strictEqual(T.frames, 4);
  }
});

test('sandwich callers: inverted tree of the outermost contexts', function () {
  const src = M.load(recursive());
  const t = M.buildView(src, [{ t: 'hide-statements' }]);
  const top = M.sandwichCallers(t, 'f');
  assert.strictEqual(top.name, 'f');
  assert.strictEqual(top.incl[0], 55);
  const kids = new Map(top.children.map((c) => [c.name, c]));
  assert.deepStrictEqual([...kids.keys()].sort(), ['k', 'main']);
  // main called f directly (48 as a frame, 4 inlined); k's f came from main
  assert.strictEqual(kids.get('main').incl[0], 52);
  assert.strictEqual(kids.get('main').self[0], 10 + 6 + 4, 'own cost of f through main (its loop too)');
  assert.deepStrictEqual(kids.get('main').children, []);
  assert.strictEqual(kids.get('k').incl[0], 3);
  assert.deepStrictEqual(kids.get('k').children.map((c) => [c.name, c.incl[0]]), [['main', 3]]);
  // (g is not a caller of f's outermost contexts: the f under g is recursion)
  const all = [], stk = [top];
  while (stk.length) { const r = stk.pop(); all.push(r.name); stk.push(...r.children); }
  assert.deepStrictEqual(all.sort(), ['f', 'k', 'main', 'main']);
});

test('sandwich callees: merged over every outermost context', function () {
  const src = M.load(recursive());
  const t = M.sandwichCallees(src, 'f', [{ t: 'hide-statements' }, { t: 'focus-subtree', node: 3 }]);
  const roots = M.children(t, 0).map((c) => [M.nameOf(t, c), t.kind[c], t.incl[0][c]]);
  roots.sort((a, b) => a[1] - b[1]);
  // the frame roots merged (under main and under k), the inlined one apart
  assert.deepStrictEqual(roots, [['f', F, 51], ['f', I, 4]]);
  const f = M.children(t, 0).find((c) => t.kind[c] === F);
  assert.strictEqual(t.self[0][f], 13, 'outermost f\'s own: 10 (main) + 3 (k)');
  const names = (i) => M.children(t, i).map((c) => M.nameOf(t, c)).sort();
  assert.deepStrictEqual(names(f), ['g', 'loop at prog.c:12']);
  M.release(t);
});
