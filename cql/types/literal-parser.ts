// CQL literals to serialized values, following Cassandra's Constants/Lists/Sets/Maps/Tuples/UserTypes/Vectors:
// first the assignability test (a string literal is never an int), then the receiver type's fromString, with the
// same error messages.
import { InvalidRequest } from '../errors.js';
import { type CqlType, cqlTypeToString } from './cql-type.js';
import { decimalToBytes, parseDecimal } from './decimal-text.js';
import { durationToBytes, parseDuration } from './duration.js';
import { inetFromText } from './inet-text.js';
import { type Literal, literalText } from './literal.js';
import { buildCollection, buildTuple, buildVector } from './serialized-layout.js';
import { parseDateText, parseTimestampText, parseTimeText } from './temporal.js';
import { uuidFromText, uuidVersion } from './uuid-text.js';
import { compareValues } from './value-comparator.js';
import { validateValue } from './value-validator.js';
import { bigintToTwosComplement } from './varint-bytes.js';

export type Assignability = 'exact' | 'weak' | 'no';

const CONSTANT_NAMES: Record<string, string> = {
  string: 'STRING',
  integer: 'INTEGER',
  float: 'FLOAT',
  boolean: 'BOOLEAN',
  uuid: 'UUID',
  hex: 'HEX',
  duration: 'DURATION',
};

/** Which native types each constant kind may be assigned to (Constants.Literal.testAssignment). */
const WEAK_TARGETS: Record<string, readonly string[]> = {
  string: ['ascii', 'text', 'inet', 'date', 'time', 'timestamp'],
  integer: [
    'bigint',
    'counter',
    'date',
    'decimal',
    'double',
    'duration',
    'float',
    'int',
    'smallint',
    'time',
    'timestamp',
    'tinyint',
    'varint',
  ],
  uuid: ['uuid', 'timeuuid'],
  float: ['decimal', 'double', 'float'],
  boolean: ['boolean'],
  hex: ['blob'],
  duration: ['duration'],
};

function preferredType(l: Literal & { text: string }): string | undefined {
  switch (l.kind) {
    case 'string':
      return /^[\x00-\x7f]*$/.test(l.text) ? 'ascii' : 'text';
    case 'integer': {
      const v = BigInt(l.text);
      if (v === BigInt.asIntN(32, v)) return 'int';
      return v === BigInt.asIntN(64, v) ? 'bigint' : 'varint';
    }
    case 'uuid':
      return /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-1/.test(l.text) ? 'timeuuid' : 'uuid';
    case 'float':
      return 'double';
    case 'boolean':
      return 'boolean';
    case 'hex':
      return 'tinyint';
    case 'duration':
      return 'duration';
  }
  return undefined;
}

/** Cassandra's testAssignment of a literal to a receiver type. */
export function testAssignment(t: CqlType, l: Literal): Assignability {
  switch (l.kind) {
    case 'null':
      return t.kind === 'native' && t.name === 'counter' ? 'no' : 'weak';
    case 'list':
      if (t.kind === 'list') return allAssignable(t.element, l.elements);
      if (t.kind === 'vector') return allAssignable(t.element, l.elements);
      return 'no';
    case 'set':
      if (t.kind === 'set') return allAssignable(t.element, l.elements);
      return t.kind === 'map' && l.elements.length === 0 ? 'weak' : 'no';
    case 'map':
      if (t.kind === 'map') {
        for (const [k, v] of l.entries) {
          if (testAssignment(t.key, k) === 'no' || testAssignment(t.value, v) === 'no') return 'no';
        }
        return 'weak';
      }
      return t.kind === 'set' && l.entries.length === 0 ? 'weak' : 'no';
    case 'tuple': {
      const types = tupleTypes(t);
      if (!types || l.elements.length > types.length) return 'no';
      for (let i = 0; i < l.elements.length; i++) if (testAssignment(types[i]!, l.elements[i]!) === 'no') return 'no';
      return 'weak';
    }
    case 'udt':
      if (t.kind !== 'udt') return 'no';
      for (const f of l.fields) {
        const field = t.fields.find((x) => x.name === f.name);
        if (field && testAssignment(field.type, f.value) === 'no') return 'no';
      }
      return 'weak';
    default: {
      if (t.kind === 'custom') return 'weak';
      if (t.kind !== 'native') return 'no';
      if (preferredType(l) === t.name) return 'exact';
      return WEAK_TARGETS[l.kind]!.includes(t.name) ? 'weak' : 'no';
    }
  }
}

function allAssignable(t: CqlType, ls: readonly Literal[]): Assignability {
  for (const l of ls) if (testAssignment(t, l) === 'no') return 'no';
  return 'weak';
}

function tupleTypes(t: CqlType): readonly CqlType[] | undefined {
  if (t.kind === 'tuple') return t.elements;
  // UserType extends TupleType in Cassandra: a tuple literal fills a UDT's fields in order.
  if (t.kind === 'udt') return t.fields.map((f) => f.type);
  return undefined;
}

function fail(message: string): never {
  throw new InvalidRequest(message);
}

function fixedInt(bytes: number, v: bigint): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  let u = BigInt.asUintN(bytes * 8, v);
  for (let i = bytes - 1; i >= 0; i--) {
    out[i] = Number(u & 0xffn);
    u >>= 8n;
  }
  return out;
}

/** Java's Integer.parseInt-style parse (optional sign, decimal digits) within [min, max]. */
function parseJavaInteger(text: string, bits: number): bigint | undefined {
  if (!/^[+-]?\d+$/.test(text)) return undefined;
  const v = BigInt(text);
  return v === BigInt.asIntN(bits, v) ? v : undefined;
}

function parseJavaFloating(text: string): number | undefined {
  const s = text.trim();
  if (/^[+-]?NaN$/.test(s)) return Number.NaN;
  if (/^[+-]?Infinity$/.test(s)) return s.startsWith('-') ? -Infinity : Infinity;
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?[fFdD]?$/.test(s)) return undefined;
  return Number(s.replace(/[fFdD]$/, ''));
}

/** AbstractType.fromString of a native type, with Cassandra's MarshalException messages. */
export function nativeFromString(name: string, text: string): Buffer {
  const empty = Buffer.alloc(0);
  switch (name) {
    case 'ascii':
      if (!/^[\x00-\x7f]*$/.test(text))
        fail(
          `Invalid ASCII character in string literal: java.nio.charset.UnmappableCharacterException: Input length = 1`,
        );
      return Buffer.from(text, 'latin1');
    case 'text':
      return Buffer.from(text, 'utf8');
    case 'int':
    case 'bigint':
    case 'counter':
    case 'smallint':
    case 'tinyint': {
      if (text === '') return empty;
      const spec = {
        int: [32, 'int'],
        bigint: [64, 'long'],
        counter: [64, 'long'],
        smallint: [16, 'short'],
        tinyint: [8, 'byte'],
      }[name] as [number, string];
      const v = parseJavaInteger(text, spec[0]);
      if (v === undefined) fail(`Unable to make ${spec[1]} from '${text}'`);
      return fixedInt(spec[0] / 8, v);
    }
    case 'varint': {
      if (text === '') return empty;
      if (!/^[+-]?\d+$/.test(text)) fail(`unable to make int from '${text}'`);
      return bigintToTwosComplement(BigInt(text));
    }
    case 'decimal': {
      if (text === '') return empty;
      const d = parseDecimal(text);
      if (!d) fail(`unable to make BigDecimal from '${text}'`);
      return decimalToBytes(d);
    }
    case 'float':
    case 'double': {
      if (text === '') return empty;
      const v = parseJavaFloating(text);
      if (v === undefined) fail(`Unable to make ${name} from '${text}'`);
      const out = Buffer.allocUnsafe(name === 'float' ? 4 : 8);
      if (name === 'float') out.writeFloatBE(v);
      else out.writeDoubleBE(v);
      return out;
    }
    case 'boolean': {
      if (text === '') return empty;
      const lower = text.toLowerCase();
      if (lower === 'true') return Buffer.from([1]);
      if (lower === 'false') return Buffer.from([0]);
      return fail(`Unable to make boolean from '${text}'`);
    }
    case 'blob':
      if (!/^([0-9a-fA-F]{2})*$/.test(text)) fail(`cannot parse '${text}' as hex bytes`);
      return Buffer.from(text, 'hex');
    case 'uuid':
    case 'timeuuid': {
      if (text === '') return empty;
      const u = uuidFromText(text);
      if (!u) fail(name === 'uuid' ? `Unable to make UUID from '${text}'` : `Unknown timeuuid representation: ${text}`);
      if (name === 'timeuuid' && uuidVersion(u) !== 1) fail('TimeUUID supports only version 1 UUIDs');
      return u;
    }
    case 'inet': {
      if (text === '') return empty;
      const a = inetFromText(text);
      if (!a) fail(`Unable to make inet address from '${text}'`);
      return a;
    }
    case 'timestamp': {
      if (text === '') return empty;
      const ms = parseTimestampText(text);
      if (ms === undefined) {
        if (/^-?\d+$/.test(text)) fail(`Unable to make long (for date) from: '${text}'`);
        fail(`Unable to coerce '${text}' to a formatted date (long)`);
      }
      return fixedInt(8, ms);
    }
    case 'date': {
      if (text === '') return empty;
      const d = parseDateText(text);
      if (typeof d === 'string') fail(d);
      return fixedInt(4, BigInt(d));
    }
    case 'time': {
      if (text === '') return empty;
      const t = parseTimeText(text);
      if (typeof t === 'string') fail(t);
      return fixedInt(8, t);
    }
    case 'duration':
      return durationToBytes(parseDuration(text));
  }
  return fail(`Unsupported type ${name}`);
}

/**
 * Serialized value of `literal` for a receiver of type `t` named `receiver` (the column name as Cassandra prints
 * it in messages); null for a NULL literal.
 */
export function literalToBytes(t: CqlType, literal: Literal, receiver: string): Buffer | null {
  const typeName = () => cqlTypeToString(t);
  switch (literal.kind) {
    case 'null':
      if (t.kind === 'native' && t.name === 'counter') fail('Invalid null value for counter increment/decrement');
      return null;
    case 'list':
      if (t.kind === 'vector') return vectorLiteral(t, literal.elements, receiver);
      if (t.kind !== 'list') fail(`Invalid list literal for ${receiver} of type ${typeName()}`);
      checkElements('list', receiver, t.element, literal.elements);
      return collection(
        literal.elements.map((e) => element(t.element, e, `value(${receiver})`)),
        undefined,
      );
    case 'set':
      if (t.kind === 'map' && literal.elements.length === 0) return buildCollection(0, []);
      if (t.kind !== 'set') fail(`Invalid set literal for ${receiver} of type ${typeName()}`);
      checkElements('set', receiver, t.element, literal.elements);
      return collection(
        literal.elements.map((e) => element(t.element, e, `value(${receiver})`)),
        t.element,
      );
    case 'map': {
      if (t.kind === 'set' && literal.entries.length === 0) return buildCollection(0, []);
      if (t.kind !== 'map') fail(`Invalid map literal for ${receiver} of type ${typeName()}`);
      for (const [k, v] of literal.entries) {
        if (testAssignment(t.key, k) === 'no')
          fail(`Invalid map literal for ${receiver}: key ${literalText(k)} is not of type ${cqlTypeToString(t.key)}`);
        if (testAssignment(t.value, v) === 'no')
          fail(
            `Invalid map literal for ${receiver}: value ${literalText(v)} is not of type ${cqlTypeToString(t.value)}`,
          );
      }
      const entries = literal.entries.map(
        ([k, v]) => [element(t.key, k, `key(${receiver})`), element(t.value, v, `value(${receiver})`)] as const,
      );
      // Sorted by key, the last of equal keys winning.
      const sorted = entries
        .map((e, i) => ({ e, i }))
        .sort((a, b) => compareValues(t.key, a.e[0], b.e[0]) || a.i - b.i);
      const parts: Buffer[] = [];
      let count = 0;
      for (let i = 0; i < sorted.length; i++) {
        const next = sorted[i + 1];
        if (next && compareValues(t.key, sorted[i]!.e[0], next.e[0]) === 0) continue;
        parts.push(sorted[i]!.e[0], sorted[i]!.e[1]);
        count++;
      }
      return buildCollection(count, parts);
    }
    case 'tuple': {
      const types = tupleTypes(t);
      if (!types) fail(`Invalid tuple type literal for ${receiver} of type ${typeName()}`);
      const fields: (Buffer | null)[] = [];
      literal.elements.forEach((e, i) => {
        if (i >= types.length)
          fail(
            `Invalid tuple literal for ${receiver}: too many elements. Type ${typeName()} expects ${types.length} but got ${literal.elements.length}`,
          );
        if (testAssignment(types[i]!, e) === 'no')
          fail(`Invalid tuple literal for ${receiver}: component ${i} is not of type ${cqlTypeToString(types[i]!)}`);
        fields.push(literalToBytes(types[i]!, e, `${receiver}[${i}]`));
      });
      return buildTuple(fields);
    }
    case 'udt': {
      if (t.kind !== 'udt') fail(`Invalid user type literal for ${receiver} of type ${typeName()}`);
      for (const f of literal.fields) {
        if (!t.fields.some((x) => x.name === f.name))
          fail(`Unknown field '${f.name}' in value of user defined type ${t.name}`);
      }
      const fields = t.fields.map((field) => {
        const given = literal.fields.find((f) => f.name === field.name);
        if (!given) return null;
        if (testAssignment(field.type, given.value) === 'no')
          fail(
            `Invalid user type literal for ${receiver}: field ${field.name} is not of type ${cqlTypeToString(field.type)}`,
          );
        return literalToBytes(field.type, given.value, `${receiver}.${field.name}`);
      });
      return buildTuple(fields);
    }
    default: {
      if (testAssignment(t, literal) === 'no')
        fail(
          `Invalid ${CONSTANT_NAMES[literal.kind]} constant (${literal.text}) for "${receiver}" of type ${typeName()}`,
        );
      if (literal.kind === 'hex') {
        // Cassandra takes hex as raw bytes for any type it is assignable to (blob, custom, and tinyint by a quirk
        // of its preferred type); check them so no malformed value is stored.
        const bytes = nativeFromString('blob', literal.text.slice(2));
        validateValue(t, bytes);
        return bytes;
      }
      if (t.kind !== 'native')
        fail(
          `Invalid ${CONSTANT_NAMES[literal.kind]} constant (${literal.text}) for "${receiver}" of type ${typeName()}`,
        );
      return nativeFromString(t.name, literal.text);
    }
  }
}

function checkElements(kind: string, receiver: string, t: CqlType, ls: readonly Literal[]): void {
  for (const l of ls) {
    if (testAssignment(t, l) === 'no')
      fail(`Invalid ${kind} literal for ${receiver}: value ${literalText(l)} is not of type ${cqlTypeToString(t)}`);
  }
}

function element(t: CqlType, l: Literal, name: string): Buffer {
  const v = literalToBytes(t, l, name);
  if (v === null) fail('null is not supported inside collections');
  return v;
}

function collection(elements: Buffer[], setOf: CqlType | undefined): Buffer {
  if (setOf) {
    elements.sort((a, b) => compareValues(setOf, a, b));
    elements = elements.filter((e, i) => i === 0 || compareValues(setOf, elements[i - 1]!, e) !== 0);
  }
  return buildCollection(elements.length, elements);
}

function vectorLiteral(t: CqlType & { kind: 'vector' }, ls: readonly Literal[], receiver: string): Buffer {
  if (ls.length !== t.dimension)
    fail(
      `Invalid vector literal for ${receiver} of type ${cqlTypeToString(t)}; expected ${t.dimension} elements, but given ${ls.length}`,
    );
  checkElements('vector', receiver, t.element, ls);
  const els = ls.map((l) => {
    const v = literalToBytes(t.element, l, `value(${receiver})`);
    if (v === null) fail('null is not supported inside vectors');
    return v;
  });
  return buildVector(t, els);
}
