// A constant AST term in the literal shape the type layer parses (its own file: functions and
// statements use it without the bound-term layer, which would make an import cycle).

import type { Term } from '../parser/ast.js';
import type { Literal } from '../types/literal.js';

/** Converts a constant AST term to the literal shape the type layer parses, or undefined if not constant. */
export function toLiteral(t: Term): Literal | undefined {
  switch (t.kind) {
    case 'literal':
      return { kind: t.type, text: t.text };
    case 'null':
      return { kind: 'null', text: 'null' };
    case 'list':
    case 'set':
    case 'tuple': {
      const elements: Literal[] = [];
      for (const e of t.elements) {
        const l = toLiteral(e);
        if (!l) return undefined;
        elements.push(l);
      }
      return { kind: t.kind, elements };
    }
    case 'map': {
      const entries: [Literal, Literal][] = [];
      for (const [k, v] of t.entries) {
        const kl = toLiteral(k);
        const vl = toLiteral(v);
        if (!kl || !vl) return undefined;
        entries.push([kl, vl]);
      }
      return { kind: 'map', entries };
    }
    case 'udt': {
      const fields: { name: string; value: Literal }[] = [];
      for (const f of t.fields) {
        const l = toLiteral(f.value);
        if (!l) return undefined;
        fields.push({ name: f.name, value: l });
      }
      return { kind: 'udt', fields };
    }
    case 'negate': {
      const inner = toLiteral(t.term);
      if (inner && (inner.kind === 'integer' || inner.kind === 'float')) {
        return { kind: inner.kind, text: inner.text.startsWith('-') ? inner.text.slice(1) : `-${inner.text}` };
      }
      return undefined;
    }
    case 'typeHint':
      return toLiteral(t.term);
    default:
      return undefined;
  }
}
