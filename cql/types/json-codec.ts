// Values to JSON text, as SELECT JSON and toJson() print them (AbstractType.toJSONString), and parsed JSON to
// values, as INSERT JSON and fromJson() read them (AbstractType.fromJSONObject).
import { InvalidRequest } from '../errors.js';
import { type CqlType, cqlTypeToString } from './cql-type.js';
import { isJsonNumber, isJsonObject, type JsonValue, parseJson } from './json-text.js';
import { nativeFromString } from './literal-parser.js';
import {
  buildCollection,
  buildTuple,
  buildVector,
  readCollectionElements,
  readMapEntries,
  readTupleFields,
  readVectorElements,
} from './serialized-layout.js';
import { nativeToText } from './value-formatter.js';
import { normalizeValue } from './value-normalizer.js';

function buf(b: Uint8Array): Buffer {
  return Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.length);
}

const NUMERIC = new Set(['int', 'bigint', 'counter', 'smallint', 'tinyint', 'varint', 'decimal', 'float', 'double']);

/** JSON text of a value. */
export function toJsonValue(t: CqlType, v: Uint8Array): string {
  if (v.length === 0 && t.kind === 'native') {
    // An empty value prints as an empty string (Cassandra: `Objects.toString(value, "\"\"")`), a blob as "0x".
    return t.name === 'blob' ? '"0x"' : '""';
  }
  if (v.length === 0) return 'null';
  switch (t.kind) {
    case 'native': {
      if (t.name === 'boolean') return v[0] === 0 ? 'false' : 'true';
      const s = nativeToText(t.name, v, ' ');
      if (NUMERIC.has(t.name)) {
        // JSON has no NaN or infinities.
        return s === 'NaN' || s.endsWith('Infinity') ? 'null' : s;
      }
      return JSON.stringify(s);
    }
    case 'list':
    case 'set':
      return `[${readCollectionElements(buf(v))
        .map((e) => toJsonValue(t.element, e))
        .join(', ')}]`;
    case 'map':
      return `{${readMapEntries(buf(v))
        .map(([k, x]) => {
          const key = toJsonValue(t.key, k);
          return `${key.startsWith('"') ? key : JSON.stringify(key)}: ${toJsonValue(t.value, x)}`;
        })
        .join(', ')}}`;
    case 'tuple': {
      const fields = readTupleFields(buf(v));
      return `[${t.elements.map((et, i) => (fields[i] == null ? 'null' : toJsonValue(et, fields[i]!))).join(', ')}]`;
    }
    case 'udt': {
      const fields = readTupleFields(buf(v));
      return `{${t.fields
        .map((f, i) => {
          const name = f.name === f.name.toLowerCase() ? f.name : `"${f.name}"`;
          return `${JSON.stringify(name)}: ${fields[i] == null ? 'null' : toJsonValue(f.type, fields[i]!)}`;
        })
        .join(', ')}}`;
    }
    case 'vector':
      return `[${readVectorElements(t, buf(v))
        .map((e) => toJsonValue(t.element, e))
        .join(', ')}]`;
    case 'custom':
      return JSON.stringify(`0x${buf(v).toString('hex')}`);
  }
}

// ---- JSON input (INSERT JSON, fromJson) ----

function javaClassOf(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return 'String';
  if (typeof v === 'boolean') return 'Boolean';
  if (Array.isArray(v)) return 'ArrayList';
  if (isJsonNumber(v)) {
    if (/[.eE]/.test(v.number)) return 'Double';
    const n = BigInt(v.number);
    return n === BigInt.asIntN(32, n) ? 'Integer' : n === BigInt.asIntN(64, n) ? 'Long' : 'BigInteger';
  }
  return 'LinkedHashMap';
}

function jsonText(v: JsonValue): string {
  if (v === null) return 'null';
  if (typeof v === 'string') return v;
  if (typeof v === 'boolean') return String(v);
  if (isJsonNumber(v)) return v.number;
  if (Array.isArray(v)) return `[${v.map(jsonText).join(', ')}]`;
  return `{${[...(v as { object: ReadonlyMap<string, JsonValue> }).object].map(([k, x]) => `${k}=${jsonText(x)}`).join(', ')}}`;
}

const EXPECTED: Record<string, string> = {
  int: 'an int value',
  bigint: 'a bigint value',
  counter: 'a bigint value',
  smallint: 'a short value',
  tinyint: 'a byte value',
  varint: 'an integer value',
  decimal: 'a decimal value',
  float: 'a float value',
  double: 'a double value',
  boolean: 'a boolean value',
  ascii: 'an ascii string',
  text: 'a UTF-8 string',
  blob: 'a hex string representing a blob',
  uuid: 'a string representation of a uuid',
  timeuuid: 'a string representation of a timeuuid',
  inet: 'a string representation of an inet value',
  timestamp: 'a long or a datestring representation of a timestamp value',
  date: 'a long or a datestring representation of a date value',
  time: 'a string representation of a time value',
  duration: 'a string representation of a duration value',
};

function jsonNative(name: string, v: JsonValue): Buffer {
  const wrong = (): never => {
    throw new InvalidRequest(`Expected ${EXPECTED[name]}, but got a ${javaClassOf(v)}: ${jsonText(v)}`);
  };
  switch (name) {
    case 'int':
    case 'bigint':
    case 'counter':
    case 'smallint':
    case 'tinyint':
    case 'varint': {
      if (typeof v === 'string') return nativeFromString(name, v);
      if (!isJsonNumber(v) || /[.eE]/.test(v.number)) return wrong();
      // Jackson reads integers as Integer, Long or BigInteger; int and bigint refuse the wider classes outright.
      const cls = javaClassOf(v);
      if (name === 'int' && cls !== 'Integer') return wrong();
      if ((name === 'bigint' || name === 'counter') && cls === 'BigInteger') return wrong();
      return nativeFromString(name, v.number);
    }
    case 'decimal':
    case 'float':
    case 'double':
      if (typeof v === 'string') return nativeFromString(name, v);
      if (!isJsonNumber(v)) return wrong();
      return nativeFromString(name, v.number);
    case 'boolean':
      if (typeof v === 'boolean') return Buffer.from([v ? 1 : 0]);
      if (typeof v === 'string') return nativeFromString(name, v);
      return wrong();
    case 'timestamp':
    case 'date':
    case 'time':
      if (isJsonNumber(v) && !/[.eE]/.test(v.number)) return nativeFromString(name, v.number);
      if (typeof v !== 'string') return wrong();
      return nativeFromString(name, v);
    case 'blob':
      if (typeof v !== 'string') return wrong();
      if (!v.startsWith('0x'))
        throw new InvalidRequest(
          `Value '${v}' is not a valid blob representation: String representation of blob is missing 0x prefix: ${v}`,
        );
      return nativeFromString('blob', v.slice(2));
    default:
      if (typeof v !== 'string') return wrong();
      return nativeFromString(name, v);
  }
}

/** Serialized value of a parsed JSON value for type t (null for JSON null), as Cassandra's fromJSONObject. */
export function jsonToBytes(t: CqlType, v: JsonValue): Buffer | null {
  if (v === null) return null;
  switch (t.kind) {
    case 'native':
      return jsonNative(t.name, v);
    case 'list':
    case 'set':
    case 'vector': {
      if (!Array.isArray(v)) throw new InvalidRequest(`Expected a list, but got a ${javaClassOf(v)}: ${jsonText(v)}`);
      const els = v.map((e) => {
        const b = jsonToBytes(t.element, e);
        if (b === null) throw new InvalidRequest('Invalid null element in list');
        return b;
      });
      if (t.kind === 'vector') {
        if (els.length !== t.dimension)
          throw new InvalidRequest(`Expected ${t.dimension} elements for ${cqlTypeToString(t)}, but got ${els.length}`);
        return buildVector(t, els);
      }
      return normalizeValue(t, buildCollection(els.length, els));
    }
    case 'map': {
      if (!isJsonObject(v)) throw new InvalidRequest(`Expected a map, but got a ${javaClassOf(v)}: ${jsonText(v)}`);
      const parts: Buffer[] = [];
      for (const [k, x] of v.object) {
        // Keys are strings in JSON; non-string key types read the key as JSON text ("1" -> 1).
        let key: JsonValue = k;
        if (!(t.key.kind === 'native' && STRINGISH.has(t.key.name))) {
          try {
            key = parseJson(k);
          } catch {
            key = k;
          }
        }
        const kb = jsonToBytes(t.key, key);
        const vb = jsonToBytes(t.value, x);
        if (kb === null || vb === null) throw new InvalidRequest('Invalid null value in map');
        parts.push(kb, vb);
      }
      return normalizeValue(t, buildCollection(v.object.size, parts));
    }
    case 'tuple': {
      if (!Array.isArray(v))
        throw new InvalidRequest(
          `Expected a list representation of a tuple, but got a ${javaClassOf(v)}: ${jsonText(v)}`,
        );
      if (v.length > t.elements.length)
        throw new InvalidRequest(`Tuple contains extra items (expected ${t.elements.length}): ${jsonText(v)}`);
      return buildTuple(v.map((e, i) => jsonToBytes(t.elements[i]!, e)));
    }
    case 'udt': {
      if (!isJsonObject(v)) throw new InvalidRequest(`Expected a map, but got a ${javaClassOf(v)}: ${jsonText(v)}`);
      const given = new Map<string, JsonValue>();
      for (const [k, x] of v.object) {
        const name = k.startsWith('"') && k.endsWith('"') ? k.slice(1, -1) : k.toLowerCase();
        if (!t.fields.some((f) => f.name === name))
          throw new InvalidRequest(`Unknown field '${name}' in value of user defined type ${t.name}`);
        given.set(name, x);
      }
      return buildTuple(t.fields.map((f) => (given.has(f.name) ? jsonToBytes(f.type, given.get(f.name)!) : null)));
    }
    case 'custom':
      if (typeof v === 'string' && v.startsWith('0x')) return nativeFromString('blob', v.slice(2));
      throw new InvalidRequest(`Unsupported custom type ${t.className} in JSON`);
  }
}

const STRINGISH = new Set([
  'ascii',
  'text',
  'inet',
  'uuid',
  'timeuuid',
  'date',
  'time',
  'timestamp',
  'blob',
  'duration',
]);
