// A term as CQL text, the way Cassandra's Term.Raw.getText() prints it: error messages about an operation
// quote its operands (`Invalid operation (l = l + [1, 2]) for frozen collection column l`).

import type { BinaryOp, RawType, Term } from './ast.js';

export function termText(t: Term): string {
  switch (t.kind) {
    case 'literal':
      return t.type === 'string' ? `'${t.text}'` : t.text;
    case 'null':
      return 'NULL';
    case 'marker':
      return t.name === undefined ? '?' : `:${t.name}`;
    case 'list':
      return `[${t.elements.map(termText).join(', ')}]`;
    case 'set':
      return `{${t.elements.map(termText).join(', ')}}`;
    case 'map':
      return `{${t.entries.map(([k, v]) => `${termText(k)}: ${termText(v)}`).join(', ')}}`;
    case 'udt':
      return `{${t.fields.map((f) => `${f.name}: ${termText(f.value)}`).join(', ')}}`;
    case 'tuple':
      return `(${t.elements.map(termText).join(', ')})`;
    case 'function':
      return `${t.keyspace ? `${t.keyspace}.` : ''}${t.name}(${t.args.map(termText).join(', ')})`;
    case 'typeHint':
      return `(${rawTypeText(t.type)})${termText(t.term)}`;
    case 'cast':
      return `CAST(${termText(t.term)} AS ${t.type})`;
    case 'binary':
      return `${termText(t.left)} ${t.op satisfies BinaryOp} ${termText(t.right)}`;
    case 'negate':
      return `-${termText(t.term)}`;
  }
}

export function rawTypeText(t: RawType): string {
  switch (t.kind) {
    case 'native':
      return t.name;
    case 'custom':
      return `'${t.className}'`;
    case 'list':
    case 'set': {
      const inner = `${t.kind}<${rawTypeText(t.element)}>`;
      return t.frozen ? `frozen<${inner}>` : inner;
    }
    case 'map': {
      const inner = `map<${rawTypeText(t.key)}, ${rawTypeText(t.value)}>`;
      return t.frozen ? `frozen<${inner}>` : inner;
    }
    case 'tuple':
      return `tuple<${t.elements.map(rawTypeText).join(', ')}>`;
    case 'vector':
      return `vector<${rawTypeText(t.element)}, ${t.dimension}>`;
    case 'userType': {
      const name = `${t.keyspace ? `${t.keyspace}.` : ''}${t.name}`;
      return t.frozen ? `frozen<${name}>` : name;
    }
  }
}
