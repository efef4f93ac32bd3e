// Java marshal class names (org.apache.cassandra.db.marshal.*), as Cassandra writes them for custom types in
// protocol metadata (e.g. vectors) and in old schema tables, and how drivers send them back.
import { InvalidRequest } from '../errors.js';
import { type CqlType, type NativeTypeName, native } from './cql-type.js';

const PACKAGE = 'org.apache.cassandra.db.marshal.';

const CLASS_BY_NATIVE: Record<NativeTypeName, string> = {
  ascii: 'AsciiType',
  bigint: 'LongType',
  blob: 'BytesType',
  boolean: 'BooleanType',
  counter: 'CounterColumnType',
  date: 'SimpleDateType',
  decimal: 'DecimalType',
  double: 'DoubleType',
  duration: 'DurationType',
  float: 'FloatType',
  inet: 'InetAddressType',
  int: 'Int32Type',
  smallint: 'ShortType',
  text: 'UTF8Type',
  time: 'TimeType',
  timestamp: 'TimestampType',
  timeuuid: 'TimeUUIDType',
  tinyint: 'ByteType',
  uuid: 'UUIDType',
  varint: 'IntegerType',
};

const NATIVE_BY_CLASS = new Map<string, NativeTypeName>(
  Object.entries(CLASS_BY_NATIVE).map(([n, c]) => [c, n as NativeTypeName]),
);

function hex(s: string): string {
  return Buffer.from(s, 'utf8').toString('hex');
}

/**
 * Class name of a type (AbstractType.toString). `ignoreFreezing` is how Cassandra prints parameters of frozen
 * types: no FrozenType wrappers inside something already frozen.
 */
export function marshalClassName(t: CqlType, reversed = false, ignoreFreezing = false): string {
  const name = className(t, ignoreFreezing);
  return reversed ? `${PACKAGE}ReversedType(${name})` : name;
}

function className(t: CqlType, ignoreFreezing: boolean): string {
  switch (t.kind) {
    case 'native':
      return PACKAGE + CLASS_BY_NATIVE[t.name];
    case 'list':
    case 'set':
    case 'map': {
      const inner = ignoreFreezing || t.frozen;
      const params =
        t.kind === 'map' ? `${className(t.key, inner)},${className(t.value, inner)}` : className(t.element, inner);
      const cls = `${PACKAGE}${t.kind === 'list' ? 'ListType' : t.kind === 'set' ? 'SetType' : 'MapType'}(${params})`;
      return t.frozen && !ignoreFreezing ? `${PACKAGE}FrozenType(${cls})` : cls;
    }
    case 'tuple': {
      // Tuples are always frozen: wrapped unless freezing is being ignored.
      const cls = `${PACKAGE}TupleType(${t.elements.map((e) => className(e, true)).join(',')})`;
      return ignoreFreezing ? cls : `${PACKAGE}FrozenType(${cls})`;
    }
    case 'udt': {
      const inner = ignoreFreezing || t.frozen;
      const fields = t.fields.map((f) => `${hex(f.name)}:${className(f.type, inner)}`);
      const cls = `${PACKAGE}UserType(${[t.keyspace, hex(t.name), ...fields].join(',')})`;
      return t.frozen && !ignoreFreezing ? `${PACKAGE}FrozenType(${cls})` : cls;
    }
    case 'vector':
      // VectorType freezes its element and writes " , " before the dimension (as Cassandra's TypeParser).
      return `${PACKAGE}VectorType(${className(freezeTop(t.element), ignoreFreezing)} , ${t.dimension})`;
    case 'custom':
      return t.className;
  }
}

/** Splits "Name(a,b(c,d))" into its name and top-level parameters. */
function splitClass(s: string): { name: string; params: string[] } {
  const open = s.indexOf('(');
  if (open < 0) return { name: s.trim(), params: [] };
  if (!s.trimEnd().endsWith(')')) throw new InvalidRequest(`Invalid marshal class '${s}'`);
  const name = s.slice(0, open).trim();
  const body = s.slice(open + 1, s.trimEnd().length - 1);
  const params: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body[i];
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (c === ',' && depth === 0) {
      params.push(body.slice(start, i).trim());
      start = i + 1;
    }
  }
  if (body.trim() !== '') params.push(body.slice(start).trim());
  return { name, params };
}

function freezeTop(t: CqlType): CqlType {
  return t.kind === 'list' || t.kind === 'set' || t.kind === 'map' || t.kind === 'udt' ? { ...t, frozen: true } : t;
}

/** Parses a marshal class name; `reversed` reports a ReversedType wrapper (a DESC clustering column). */
export function parseMarshalClassWithOrder(s: string): { type: CqlType; reversed: boolean } {
  const { name, params } = splitClass(s);
  const short = name.startsWith(PACKAGE) ? name.slice(PACKAGE.length) : name;
  if (short === 'ReversedType' && params.length === 1) return { type: parseMarshalClass(params[0]!), reversed: true };
  return { type: parseMarshalClass(s), reversed: false };
}

/** Parses a marshal class name into a CqlType (ReversedType is unwrapped; unknown classes become 'custom'). */
export function parseMarshalClass(s: string): CqlType {
  const { name, params } = splitClass(s);
  const short = name.startsWith(PACKAGE) ? name.slice(PACKAGE.length) : name;
  const nat = NATIVE_BY_CLASS.get(short);
  if (nat && params.length === 0) return native(nat);
  switch (short) {
    case 'ReversedType':
    case 'FrozenType': {
      if (params.length !== 1) break;
      const inner = parseMarshalClass(params[0]!);
      return short === 'FrozenType' ? freezeDeep(inner) : inner;
    }
    case 'ListType':
    case 'SetType':
      if (params.length !== 1) break;
      return {
        kind: short === 'ListType' ? 'list' : 'set',
        element: freezeTop(parseMarshalClass(params[0]!)),
        frozen: false,
      };
    case 'MapType':
      if (params.length !== 2) break;
      return {
        kind: 'map',
        key: freezeTop(parseMarshalClass(params[0]!)),
        value: freezeTop(parseMarshalClass(params[1]!)),
        frozen: false,
      };
    case 'TupleType':
      return { kind: 'tuple', elements: params.map((p) => freezeDeep(parseMarshalClass(p))) };
    case 'UserType': {
      if (params.length < 2) break;
      const fields = params.slice(2).map((p) => {
        const colon = p.indexOf(':');
        return {
          name: Buffer.from(p.slice(0, colon), 'hex').toString('utf8'),
          type: freezeTop(parseMarshalClass(p.slice(colon + 1))),
        };
      });
      return {
        kind: 'udt',
        keyspace: params[0]!,
        name: Buffer.from(params[1]!, 'hex').toString('utf8'),
        fields,
        frozen: false,
      };
    }
    case 'VectorType': {
      if (params.length !== 2) break;
      return { kind: 'vector', element: freezeDeep(parseMarshalClass(params[0]!)), dimension: Number(params[1]) };
    }
  }
  return { kind: 'custom', className: s };
}

function freezeDeep(t: CqlType): CqlType {
  switch (t.kind) {
    case 'list':
    case 'set':
      return { ...t, element: freezeDeep(t.element), frozen: true };
    case 'map':
      return { ...t, key: freezeDeep(t.key), value: freezeDeep(t.value), frozen: true };
    case 'udt':
      return { ...t, fields: t.fields.map((f) => ({ name: f.name, type: freezeDeep(f.type) })), frozen: true };
    case 'tuple':
      return { kind: 'tuple', elements: t.elements.map(freezeDeep) };
    case 'vector':
      return { ...t, element: freezeDeep(t.element) };
    default:
      return t;
  }
}
