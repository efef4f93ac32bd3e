// What a collection may hold (Cassandra's CQL3Type.Raw.RawCollection): no non-frozen collection or UDT inside a
// non-frozen collection, no counters, no durations in sets or as map keys. Checked wherever a type is built:
// CREATE/ALTER statements (parser/ast.ts resolveType) and type strings (type-parser.ts).

import { InvalidRequest } from '../errors.js';
import { type CqlType, cqlTypeToString } from './cql-type.js';

export function checkCollectionElement(
  outer: Extract<CqlType, { kind: 'list' | 'set' | 'map' }>,
  inner: CqlType,
  role: 'element' | 'key' | 'value',
): void {
  const text = () => cqlTypeToString(outer);
  if (!outer.frozen && (inner.kind === 'list' || inner.kind === 'set' || inner.kind === 'map') && !inner.frozen)
    throw new InvalidRequest(`Non-frozen collections are not allowed inside collections: ${text()}`);
  if (!outer.frozen && inner.kind === 'udt' && !inner.frozen)
    throw new InvalidRequest(`Non-frozen UDTs are not allowed inside collections: ${text()}`);
  if (inner.kind === 'native' && inner.name === 'counter')
    throw new InvalidRequest(`Counters are not allowed inside collections: ${text()}`);
  if (inner.kind === 'native' && inner.name === 'duration') {
    if (outer.kind === 'set') throw new InvalidRequest(`Durations are not allowed inside sets: ${text()}`);
    if (role === 'key') throw new InvalidRequest(`Durations are not allowed as map keys: ${text()}`);
  }
}
