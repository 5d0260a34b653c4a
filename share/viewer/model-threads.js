// SPDX-License-Identifier: BSD-3-Clause
// model-threads.js -- csprof viewer model, per-thread values: stats of a
// list, the threads.js index (threadIndex) and one procedure's values per
// thread (threadValuesOf).
// Uses no other part.
// A part of the model: see model.js for how the parts are loaded.
(typeof module !== 'undefined' && module.exports ? function (part) { module.exports = part; } : function (part) { part(window.csprofParts = window.csprofParts || {}); })(function (M) {
  'use strict';

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

  Object.assign(M, { stats, threadIndex, threadValuesOf });
});
