// SPDX-License-Identifier: BSD-3-Clause
// model-formula.js -- csprof viewer model, derived metrics: compileFormula,
// evalFormula, derivedMetric, derivedValue and their URL form (decodeDerived,
// encodeDerived).
// Uses no other part.
// A part of the model: see model.js for how the parts are loaded.
(typeof module !== 'undefined' && module.exports ? function (part) { module.exports = part; } : function (part) { part(window.csprofParts = window.csprofParts || {}); })(function (M) {
  'use strict';

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

  Object.assign(M, { compileFormula, evalFormula, derivedMetric, derivedValue, decodeDerived, encodeDerived });
});
