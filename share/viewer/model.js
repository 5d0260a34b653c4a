// SPDX-License-Identifier: BSD-3-Clause
// model.js -- csprof viewer model: no DOM.  Loads the data written by
// csprof-prof (share/schemas/viewer-data.md), applies the report's transforms
// (focus subtree, focus function, hide = merge into callers, hide library,
// collapse recursion, hide loops/inlined frames), and builds the bottom-up
// (callers), flat (static) and differential views.  Every pass is an
// iterative loop over arrays (no recursion: deep call paths must not
// overflow the JS stack).  Plain ES2020, CommonJS-compatible, so that
// `node --test` can load it.
//
// This file is the entry: the model is split by concern into plain scripts
// (no modules, no build step), in load order (each uses only earlier ones):
//   model-data.js        node kinds K, unpack, load (the source tree)
//   model-table.js       scratch pool, TupleTable, sliceJobs, rowCap, part
//   model-transforms.js  the transform table: URL form, validation, labels,
//                        each type's step in buildView
//   model-view.js        buildView, focusRange, release, sums, children,
//                        hotPath, depths, pathOf, sourceLines, warm-up jobs
//   model-bottomup.js    the bottom-up (callers) view
//   model-flat.js        the flat (static) view
//   model-diff.js        procBase, Wilson interval, matchTrees, baseOnly
//   model-formula.js     derived metrics (compileFormula, evalFormula)
//   model-threads.js     stats, threadIndex, threadValuesOf
//   model-sandwich.js    the sandwich of one procedure
// Each part is `(node ? export : run on window.csprofParts)(function (M)
// {...})` (its first line): in node its module.exports is the function of
// M, which this file calls in PARTS order on one fresh object; in a page
// (index.html loads the parts with <script> tags before this file) it runs
// at once on window.csprofParts.  A part takes what it uses from M at its
// start (const {...} = M: parts earlier in PARTS only) and adds what it owns
// with Object.assign(M, {...}).  This file then picks the public API from
// M: the same object in node (module.exports) and in the page
// (window.csprofModel), and an error naming the missing function when a
// part was not loaded.  A new part: a file here, its name in PARTS, a
// <script> line in index.html and a line in lib/viewer/CMakeLists.txt.
(function (root) {
  'use strict';

  const PARTS = ['data', 'table', 'transforms', 'view', 'bottomup', 'flat', 'diff', 'formula', 'threads', 'sandwich'];
  let M;
  if (typeof module !== 'undefined' && module.exports) {
    M = {};
    for (const p of PARTS) require('./model-' + p + '.js')(M);
  } else {
    M = root.csprofParts || {};
  }

  const NAMES = [
    'K', 'KIND_NAMES', 'TRANSFORMS', 'TRANSFORM_TYPES', 'load', 'unpack', 'buildView', 'release', 'warmUp', 'bottomUpJobs', 'flatJobs', 'uniqueJobs', 'sameNameJobs', 'jitJobs',
    'encodeTransforms', 'decodeTransforms', 'transformLabel', 'children',
    'nameOf', 'depths', 'hotPath', 'bottomUpRoots',
    'bottomUpCallers', 'bottomUpEntries', 'flat', 'matchTrees', 'matchMetric',
    'stats', 'sourceLines', 'pathOf', 'isFrame',
    'compileFormula', 'evalFormula', 'derivedMetric',
    'derivedValue', 'decodeDerived', 'encodeDerived', 'baseOnly', 'baseValues', 'procBase', 'diffInterval', 'diffZ',
    'threadIndex', 'threadValuesOf',
    'sandwichOccurrences', 'sandwichFrameSelf', 'sandwichTotals', 'sandwichCallers', 'sandwichCallees',
  ];
  const api = {};
  for (const k of NAMES) {
    if (M[k] === undefined) throw new Error('viewer model: ' + k + ' is missing (a viewer/model-*.js script was not loaded)');
    api[k] = M[k];
  }
  if (typeof module !== 'undefined' && module.exports) module.exports = api;
  else root.csprofModel = api;
})(typeof window !== 'undefined' ? window : this);
