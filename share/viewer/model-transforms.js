// SPDX-License-Identifier: BSD-3-Clause
// model-transforms.js -- csprof viewer model, the transforms as data: ONE
// table (TRANSFORM_TYPES), an entry per transform type, owning its URL form
// (the parameter's text and its validation), its chip label and its step in
// buildView (model-view.js viewOptions dispatches through it; an unknown
// type throws).  TRANSFORMS, the list of type names, is the table's keys.
// Uses no other part.
// A part of the model: see model.js for how the parts are loaded.
(typeof module !== 'undefined' && module.exports ? function (part) { module.exports = part; } : function (part) { part(window.csprofParts = window.csprofParts || {}); })(function (M) {
  'use strict';

  // ------------------------------------------------------------- transforms

  // Transform list: [{t:'focus-subtree', node:i} | {t:'focus-function', name:s}
  // | {t:'hide', name:s} | {t:'hide-lib', lib:s} | {t:'collapse-recursion'}
  // | {t:'hide-loops'} | {t:'hide-inlines'} | {t:'hide-statements'}].
  //
  // An entry of TRANSFORM_TYPES:
  //   param   the transform's parameter key (node, name, lib), or null: none;
  //   toText(value), fromText(text)  the parameter as URL text and back
  //           (fromText throws a message when the text is no valid value);
  //   toggle  the id of index.html's button that adds and removes it (a
  //           parameterless type), or undefined;
  //   step(o, x, src)  records transform @x in buildView's options @o
  //           (viewOptions, model-view.js) for source tree @src.
  // URL form (the #t= of the page, kept since the first viewer: old links
  // decode as before): the transforms joined by "~", each TYPE or
  // TYPE:PARAM with PARAM URI-encoded ("~" as %7E); a parameter that is the
  // empty string is left out (hide, hide-lib and focus-function decode a
  // missing parameter as "").
  function nameText(s) { return s; }
  const TRANSFORM_TYPES = {
    'focus-subtree': {
      param: 'node', toText: String,
      fromText: function (s) {
        if (!/^[0-9]+$/.test(s || '')) throw 'node ' + JSON.stringify(s === undefined ? '' : s) + ' is not a node number';
        return Number(s) | 0;
      },
      step: function (o, x, src) { if (x.node >= 0 && x.node < src.n) o.focusNode = x.node; },
    },
    'focus-function': { param: 'name', toText: nameText, fromText: nameText, step: function (o, x) { o.focusFn.add(x.name); } },
    'hide': { param: 'name', toText: nameText, fromText: nameText, step: function (o, x) { o.hide.add(x.name); } },
    'hide-lib': { param: 'lib', toText: nameText, fromText: nameText, step: function (o, x) { if (x.lib) o.hideLibs.push(x.lib); } },
    'collapse-recursion': { param: null, toggle: 't-rec', step: function (o) { o.rec = true; } },
    'hide-loops': { param: null, step: function (o) { o.noLoops = true; } },
    'hide-inlines': { param: null, toggle: 't-inl', step: function (o) { o.noInl = true; } },
    'hide-statements': { param: null, step: function (o) { o.noStmt = true; } },
  };
  Object.freeze(TRANSFORM_TYPES);
  const TRANSFORMS = Object.keys(TRANSFORM_TYPES);

  // The table entry of transform type @t; throws naming @t when there is none.
  function transformType(t) {
    const e = Object.prototype.hasOwnProperty.call(TRANSFORM_TYPES, t) ? TRANSFORM_TYPES[t] : undefined;
    if (!e) throw new Error('transform ' + JSON.stringify(String(t)) + ' is unknown (known: ' + TRANSFORMS.join(', ') + ')');
    return e;
  }

  // The URL form of transform list @list (throws on an unknown type).
  function encodeTransforms(list) {
    return list.map(function (x) {
      const e = transformType(x.t);
      const v = e.param ? x[e.param] : undefined;
      const arg = v === undefined ? '' : e.toText(v);
      return arg === '' ? x.t : x.t + ':' + encodeURIComponent(arg).replace(/~/g, '%7E');
    }).join('~');
  }

  // The transform list of URL form @s.  A part that does not decode (an
  // unknown type, a bad parameter, a bad %-escape, a parameter for a type
  // that takes none) throws an Error naming it; when @errors (an array) is
  // given, its message is pushed there instead and the part is left out.
  function decodeTransforms(s, errors) {
    if (!s) return [];
    const out = [];
    for (const part of s.split('~')) {
      try {
        const c = part.indexOf(':');
        const t = c < 0 ? part : part.slice(0, c);
        const e = transformType(t);
        let arg;
        if (c >= 0) {
          try { arg = decodeURIComponent(part.slice(c + 1)); } catch (err) { throw new Error('transform ' + JSON.stringify(part) + ': bad %-escape'); }
        }
        const x = { t: t };
        if (e.param) {
          try { x[e.param] = e.fromText(arg === undefined ? '' : arg); } catch (msg) { throw new Error('transform ' + JSON.stringify(part) + ': ' + msg); }
        } else if (arg !== undefined) {
          throw new Error('transform ' + JSON.stringify(part) + ': ' + t + ' takes no parameter');
        }
        out.push(x);
      } catch (err) {
        if (!errors) throw err;
        errors.push(err.message);
      }
    }
    return out;
  }

  // The text of transform @x's chip: its type, and its parameter (a node
  // as @nodeName(node)) cut to 40 characters.
  function transformLabel(x, nodeName) {
    const e = transformType(x.t);
    const v = e.param ? x[e.param] : undefined;
    const arg = v === undefined ? '' : e.param === 'node' ? nodeName(v) : String(v);
    return x.t + (arg ? ': ' + (arg.length > 40 ? arg.slice(0, 40) + '…' : arg) : '');
  }

  Object.assign(M, { TRANSFORMS, TRANSFORM_TYPES, transformType, encodeTransforms, decodeTransforms, transformLabel });
});
