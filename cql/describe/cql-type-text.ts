// CQL3Type.toString: a column or field type as DESCRIBE writes it. Same as cqlTypeToString except
// that user type names are quoted when needed (maybeQuote), as Cassandra does.

import type { CqlType } from '../types/cql-type.js';
import { maybeQuote } from './cql-identifiers.js';

export function typeAsCql(t: CqlType): string {
  switch (t.kind) {
    case 'native':
      return t.name;
    case 'list':
    case 'set': {
      const s = `${t.kind}<${typeAsCql(t.element)}>`;
      return t.frozen ? `frozen<${s}>` : s;
    }
    case 'map': {
      const s = `map<${typeAsCql(t.key)}, ${typeAsCql(t.value)}>`;
      return t.frozen ? `frozen<${s}>` : s;
    }
    case 'tuple':
      return `frozen<tuple<${t.elements.map(typeAsCql).join(', ')}>>`;
    case 'udt':
      return t.frozen ? `frozen<${maybeQuote(t.name)}>` : maybeQuote(t.name);
    case 'vector':
      return `vector<${typeAsCql(t.element)}, ${t.dimension}>`;
    case 'custom':
      return `'${t.className}'`;
  }
}
