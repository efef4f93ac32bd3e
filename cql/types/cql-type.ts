// The CQL type model shared by every layer: the parser produces it, the schema stores it,
// codecs interpret bytes by it, and server/ writes it into result metadata as a protocol [option].

export type NativeTypeName =
  | 'ascii'
  | 'bigint'
  | 'blob'
  | 'boolean'
  | 'counter'
  | 'date'
  | 'decimal'
  | 'double'
  | 'duration'
  | 'float'
  | 'inet'
  | 'int'
  | 'smallint'
  | 'text'
  | 'time'
  | 'timestamp'
  | 'timeuuid'
  | 'tinyint'
  | 'uuid'
  | 'varint';

export type CqlType =
  | { readonly kind: 'native'; readonly name: NativeTypeName }
  | { readonly kind: 'list'; readonly element: CqlType; readonly frozen: boolean }
  | { readonly kind: 'set'; readonly element: CqlType; readonly frozen: boolean }
  | { readonly kind: 'map'; readonly key: CqlType; readonly value: CqlType; readonly frozen: boolean }
  /** Tuples are always frozen. */
  | { readonly kind: 'tuple'; readonly elements: readonly CqlType[] }
  | {
      readonly kind: 'udt';
      readonly keyspace: string;
      readonly name: string;
      readonly fields: readonly { readonly name: string; readonly type: CqlType }[];
      readonly frozen: boolean;
    }
  /** vector<element, dimension> (Cassandra 5.0); sent on the wire as a custom type. */
  | { readonly kind: 'vector'; readonly element: CqlType; readonly dimension: number }
  /** Any other marshal class, by its Java class name. */
  | { readonly kind: 'custom'; readonly className: string };

const natives = new Map<NativeTypeName, CqlType>();
/** Interned native type objects, so `native('int') === native('int')`. */
export function native(name: NativeTypeName): CqlType {
  let t = natives.get(name);
  if (!t) {
    t = { kind: 'native', name };
    natives.set(name, t);
  }
  return t;
}

/** 'varchar' is an alias of 'text' and is reported as text, as Cassandra does. */
export const NATIVE_TYPE_NAMES: readonly NativeTypeName[] = [
  'ascii',
  'bigint',
  'blob',
  'boolean',
  'counter',
  'date',
  'decimal',
  'double',
  'duration',
  'float',
  'inet',
  'int',
  'smallint',
  'text',
  'time',
  'timestamp',
  'timeuuid',
  'tinyint',
  'uuid',
  'varint',
];

/** CQL spelling, as system_schema and DESCRIBE show it (e.g. `frozen<map<text, int>>`). */
export function cqlTypeToString(t: CqlType): string {
  switch (t.kind) {
    case 'native':
      return t.name;
    case 'list':
    case 'set': {
      const s = `${t.kind}<${cqlTypeToString(t.element)}>`;
      return t.frozen ? `frozen<${s}>` : s;
    }
    case 'map': {
      const s = `map<${cqlTypeToString(t.key)}, ${cqlTypeToString(t.value)}>`;
      return t.frozen ? `frozen<${s}>` : s;
    }
    case 'tuple':
      return `frozen<tuple<${t.elements.map(cqlTypeToString).join(', ')}>>`;
    case 'udt':
      return t.frozen ? `frozen<${t.name}>` : t.name;
    case 'vector':
      return `vector<${cqlTypeToString(t.element)}, ${t.dimension}>`;
    case 'custom':
      return `'${t.className}'`;
  }
}

/** True for types whose values are stored as one cell per element (non-frozen collections/UDTs). */
export function isMultiCell(t: CqlType): boolean {
  return (t.kind === 'list' || t.kind === 'set' || t.kind === 'map' || t.kind === 'udt') && !t.frozen;
}

/** Whether `t` is or contains a duration (durations have no order: no slices, no keys, no sets). */
export function referencesDuration(t: CqlType): boolean {
  if (t.kind === 'native') return t.name === 'duration';
  if (t.kind === 'list' || t.kind === 'set' || t.kind === 'vector') return referencesDuration(t.element);
  if (t.kind === 'map') return referencesDuration(t.key) || referencesDuration(t.value);
  if (t.kind === 'tuple') return t.elements.some(referencesDuration);
  if (t.kind === 'udt') return t.fields.some((f) => referencesDuration(f.type));
  return false;
}
