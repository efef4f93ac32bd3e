// Order-preserving, prefix-free, invertible byte encoding of key values: memcmp on encodings orders values exactly
// as compareValues does, so the storage tree compares clustering keys with memcmp only.
//
// A component is a header byte then a body: 0x3F for the empty value (sorts first, as in Cassandra), 0x40 then the
// body otherwise. A DESC component is the bitwise inverse of its ASC encoding. Because every encoding is
// prefix-free, a composite key is the plain concatenation of its components, and a key prefix sorts before every
// longer key that extends it. Bodies (all prefix-free):
// - int, bigint, smallint, tinyint, timestamp, time: big-endian with the sign bit flipped; date: as is (unsigned)
// - float, double: IEEE bits, sign bit flipped for positives, all bits flipped for negatives (NaN canonical)
// - boolean: 0x00 / 0x01
// - text, ascii, blob, inet (and duration, custom): bytes with 0x00 escaped as 00 FF, ended by 00 00
// - uuid: Cassandra's UUIDType swizzle (version first, v1 timestamp reordered); timeuuid: reordered timestamp, then
//   the low 8 bytes with each sign bit flipped (TimeUUIDType compares them as signed bytes)
// - varint: 0x01 negative | 0x02 non-negative, 4-byte length (inverted for negatives), minimal two's complement
// - decimal: 0x01 negative | 0x02 zero | 0x03 positive, then (inverted for negatives) the 8-byte exponent E and the
//   digits of 0.d1d2... x 10^E in base-100 bytes 1..100, ended by 0x00; trailing zeros dropped (1.0 == 1.00)
// - list, set, map: each element (key, value) with its own header, ended by 0x20
// - tuple, udt: each field as 0x3E (null) or a header and body, trailing nulls dropped (Cassandra equates them
//   with missing fields), ended by 0x20
// - vector: the elements, each with a header
// Decoding returns canonical bytes: equal-comparing forms (non-minimal varints, decimal scale, NaN payloads,
// booleans other than 0/1, trailing null tuple fields) come back in one canonical form.
import { InvalidRequest } from '../errors.js';
import { type CqlType, cqlTypeToString } from './cql-type.js';
import { decimalFromBytes, decimalToBytes, normalizeDecimal } from './decimal-text.js';
import { buildCollection, buildTuple, buildVector, fixedValueLength } from './serialized-layout.js';
import { minimalStart } from './varint-bytes.js';
import { readUnsignedVIntNumber } from './vint.js';

const EMPTY = 0x3f;
const PRESENT = 0x40;
const NULL_FIELD = 0x3e;
const END = 0x20;
/** Appended to a prefix: sorts after every key that extends the prefix. */
const AFTER = 0xff;

// Shared growable output; encoding is synchronous, so one buffer serves every call.
let out = Buffer.allocUnsafe(256);
let pos = 0;

function ensure(n: number): void {
  if (pos + n <= out.length) return;
  const bigger = Buffer.allocUnsafe(Math.max(out.length * 2, pos + n));
  out.copy(bigger, 0, 0, pos);
  out = bigger;
}

function put(b: number): void {
  ensure(1);
  out[pos++] = b;
}

function readInt(b: Uint8Array, o: number): number {
  return (b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
}

function putEscaped(v: Uint8Array): void {
  ensure(v.length * 2 + 2);
  for (let i = 0; i < v.length; i++) {
    const b = v[i]!;
    out[pos++] = b;
    if (b === 0) out[pos++] = 0xff;
  }
  out[pos++] = 0;
  out[pos++] = 0;
}

function putSignedFixed(v: Uint8Array): void {
  ensure(v.length);
  out[pos++] = v[0]! ^ 0x80;
  for (let i = 1; i < v.length; i++) out[pos++] = v[i]!;
}

function putFloating(v: Uint8Array): void {
  ensure(v.length);
  const n = v.length;
  let nan: boolean;
  if (n === 4) {
    nan = (v[0]! & 0x7f) === 0x7f && (v[1]! & 0x80) !== 0 && ((v[1]! & 0x7f) | v[2]! | v[3]!) !== 0;
  } else {
    let mant = v[1]! & 0x0f;
    for (let i = 2; i < 8; i++) mant |= v[i]!;
    nan = (v[0]! & 0x7f) === 0x7f && (v[1]! & 0xf0) === 0xf0 && mant !== 0;
  }
  if (nan) {
    // Canonical NaN (7fc00000 / 7ff8000000000000) with the sign bit flipped.
    out[pos++] = 0xff;
    out[pos++] = n === 4 ? 0xc0 : 0xf8;
    for (let i = 2; i < n; i++) out[pos++] = 0;
    return;
  }
  if (v[0]! & 0x80) {
    for (let i = 0; i < n; i++) out[pos++] = ~v[i]! & 0xff;
  } else {
    out[pos++] = v[0]! | 0x80;
    for (let i = 1; i < n; i++) out[pos++] = v[i]!;
  }
}

const V1_ORDER = [6, 7, 4, 5, 0, 1, 2, 3];

function putUuid(v: Uint8Array, time: boolean): void {
  ensure(16);
  const version = v[6]! >> 4;
  if (time || version === 1) {
    for (const i of V1_ORDER) out[pos++] = v[i]!;
  } else {
    const h = readInt(v, 0) >>> 0;
    const l = readInt(v, 4) >>> 0;
    const sh = (((h >>> 4) & 0x0fffffff) | (version << 28)) >>> 0;
    const sl = ((((l >>> 4) | (h << 28)) & 0xfffff000) | (l & 0xfff)) >>> 0;
    out.writeUInt32BE(sh, pos);
    out.writeUInt32BE(sl, pos + 4);
    pos += 8;
  }
  for (let i = 8; i < 16; i++) out[pos++] = time ? v[i]! ^ 0x80 : v[i]!;
}

function putVarint(v: Uint8Array): void {
  const neg = (v[0]! & 0x80) !== 0;
  const s = minimalStart(v, 0, v.length);
  const len = v.length - s;
  ensure(5 + len);
  out[pos++] = neg ? 0x01 : 0x02;
  out.writeUInt32BE(neg ? (0xffffffff - len) >>> 0 : len, pos);
  pos += 4;
  for (let i = s; i < v.length; i++) out[pos++] = v[i]!;
}

function putDecimal(v: Uint8Array): void {
  const { sign, digits, exponent } = normalizeDecimal(decimalFromBytes(v));
  if (sign === 0) {
    put(0x02);
    return;
  }
  const start = pos;
  ensure(10 + digits.length);
  out[pos++] = sign < 0 ? 0x01 : 0x03;
  out.writeBigUInt64BE(BigInt.asUintN(64, BigInt(exponent)) ^ 0x8000000000000000n, pos);
  pos += 8;
  for (let i = 0; i < digits.length; i += 2) {
    const hi = digits.charCodeAt(i) - 48;
    const lo = i + 1 < digits.length ? digits.charCodeAt(i + 1) - 48 : 0;
    out[pos++] = hi * 10 + lo + 1;
  }
  out[pos++] = 0;
  if (sign < 0) for (let i = start + 1; i < pos; i++) out[i] = ~out[i]! & 0xff;
}

function putNative(name: string, v: Uint8Array): void {
  switch (name) {
    case 'int':
    case 'bigint':
    case 'smallint':
    case 'tinyint':
    case 'timestamp':
    case 'time':
    case 'counter':
      putSignedFixed(v);
      return;
    case 'date':
      ensure(4);
      out.set(v, pos);
      pos += 4;
      return;
    case 'float':
    case 'double':
      putFloating(v);
      return;
    case 'boolean':
      put(v[0] === 0 ? 0 : 1);
      return;
    case 'uuid':
      putUuid(v, false);
      return;
    case 'timeuuid':
      putUuid(v, true);
      return;
    case 'varint':
      putVarint(v);
      return;
    case 'decimal':
      putDecimal(v);
      return;
    default:
      putEscaped(v);
  }
}

/** Header and body of one value. */
function putValue(t: CqlType, v: Uint8Array): void {
  if (v.length === 0) {
    put(EMPTY);
    return;
  }
  put(PRESENT);
  switch (t.kind) {
    case 'native':
      putNative(t.name, v);
      return;
    case 'list':
    case 'set':
    case 'map': {
      const n = readInt(v, 0);
      const kt = t.kind === 'map' ? t.key : t.element;
      let o = 4;
      for (let i = 0; i < n; i++) {
        let len = readInt(v, o);
        putValue(kt, v.subarray(o + 4, o + 4 + len));
        o += 4 + len;
        if (t.kind === 'map') {
          len = readInt(v, o);
          putValue(t.value, v.subarray(o + 4, o + 4 + len));
          o += 4 + len;
        }
      }
      put(END);
      return;
    }
    case 'tuple':
    case 'udt': {
      // Find the last non-null field: trailing nulls are dropped.
      let o = 0;
      let lastEnd = 0;
      while (o < v.length) {
        const len = readInt(v, o);
        o += 4 + Math.max(len, 0);
        if (len >= 0) lastEnd = o;
      }
      o = 0;
      for (let i = 0; o < lastEnd; i++) {
        const len = readInt(v, o);
        o += 4;
        if (len < 0) {
          put(NULL_FIELD);
          continue;
        }
        const ft = t.kind === 'tuple' ? t.elements[i]! : t.fields[i]!.type;
        putValue(ft, v.subarray(o, o + len));
        o += len;
      }
      put(END);
      return;
    }
    case 'vector': {
      const fixed = fixedValueLength(t.element);
      let o = 0;
      for (let i = 0; i < t.dimension; i++) {
        let len = fixed;
        if (fixed < 0) {
          const r = readUnsignedVIntNumber(v, o)!;
          len = r[0];
          o = r[1];
        }
        putValue(t.element, v.subarray(o, o + len));
        o += len;
      }
      return;
    }
    case 'custom':
      putEscaped(v);
      return;
  }
}

function putComponent(t: CqlType, v: Uint8Array, descending: boolean): void {
  const start = pos;
  putValue(t, v);
  if (descending) for (let i = start; i < pos; i++) out[i] = ~out[i]! & 0xff;
}

function take(): Buffer {
  const r = Buffer.allocUnsafe(pos);
  // A plain loop beats Buffer.copy's native call for the short keys that dominate.
  if (pos <= 64) for (let i = 0; i < pos; i++) r[i] = out[i]!;
  else out.copy(r, 0, 0, pos);
  return r;
}

/** Encoding of one key component (a validated value of type t). */
export function encodeKeyComponent(t: CqlType, value: Uint8Array, descending = false): Buffer {
  pos = 0;
  putComponent(t, value, descending);
  return take();
}

/**
 * Encoding of a clustering key or prefix: components concatenated. `values` may be shorter than `types` (a prefix).
 */
export function encodeClusteringKey(
  types: readonly CqlType[],
  descending: readonly boolean[],
  values: readonly Uint8Array[],
): Buffer {
  pos = 0;
  for (let i = 0; i < values.length; i++) putComponent(types[i]!, values[i]!, descending[i] === true);
  return take();
}

/**
 * A range bound for the rows whose clustering starts with `prefix`: 'before' sorts before (or at) every such row,
 * 'after' sorts after all of them. Rows with the prefix are exactly those k with before <= k < after; an empty
 * prefix gives bounds around the whole partition.
 */
export function clusteringPrefixBound(
  types: readonly CqlType[],
  descending: readonly boolean[],
  prefix: readonly Uint8Array[],
  position: 'before' | 'after',
): Buffer {
  pos = 0;
  for (let i = 0; i < prefix.length; i++) putComponent(types[i]!, prefix[i]!, descending[i] === true);
  if (position === 'after') put(AFTER);
  return take();
}

/**
 * Bounds of a slice restriction on the last prefix column, `prefix[..n-1] = values and c op value`, in storage
 * order: the rows satisfying it are those k with start <= k < end (either may be undefined: unbounded within the
 * equal part of the prefix). DESC columns swap the sides, as storage order is then reversed.
 */
export function clusteringSliceBounds(
  types: readonly CqlType[],
  descending: readonly boolean[],
  prefix: readonly Uint8Array[],
  op: '<' | '<=' | '>' | '>=',
): { start: Buffer; end: Buffer } {
  const n = prefix.length;
  if (n === 0) throw new RangeError('clusteringSliceBounds needs the restricted column value');
  const eqPart = prefix.slice(0, n - 1);
  const lower = clusteringPrefixBound(types, descending, eqPart, 'before');
  const upper = clusteringPrefixBound(types, descending, eqPart, 'after');
  const before = clusteringPrefixBound(types, descending, prefix, 'before');
  const after = clusteringPrefixBound(types, descending, prefix, 'after');
  const greater = op === '>' || op === '>=';
  const inclusive = op === '<=' || op === '>=';
  const desc = descending[n - 1] === true;
  // In storage order, "values greater than v" lie after v for ASC and before it for DESC.
  if (greater !== desc) return { start: inclusive ? before : after, end: upper };
  return { start: lower, end: inclusive ? after : before };
}

// ---- decoding ----

const NO_BYTES = Buffer.alloc(0);
let src: Uint8Array = NO_BYTES;
let rp = 0;
let mask = 0;

function get(): number {
  if (rp >= src.length) throw new InvalidRequest('Truncated byte-comparable key');
  return src[rp++]! ^ mask;
}

function getN(n: number): Buffer {
  if (rp + n > src.length) throw new InvalidRequest('Truncated byte-comparable key');
  const r = Buffer.allocUnsafe(n);
  for (let i = 0; i < n; i++) r[i] = src[rp + i]! ^ mask;
  rp += n;
  return r;
}

function getEscaped(): Buffer {
  const bytes: number[] = [];
  for (;;) {
    const b = get();
    if (b === 0) {
      if (get() === 0) break;
      bytes.push(0);
    } else {
      bytes.push(b);
    }
  }
  return Buffer.from(bytes);
}

/** Byte widths of the fixed-width native encodings decoded here. */
const NATIVE_WIDTH: Partial<Record<string, number>> = {
  tinyint: 1,
  smallint: 2,
  int: 4,
  date: 4,
  float: 4,
  bigint: 8,
  timestamp: 8,
  time: 8,
  counter: 8,
  double: 8,
};

function getNative(name: string): Buffer {
  switch (name) {
    case 'int':
    case 'date':
    case 'float':
    case 'smallint':
    case 'tinyint':
    case 'bigint':
    case 'timestamp':
    case 'time':
    case 'counter':
    case 'double': {
      const n = NATIVE_WIDTH[name]!;
      const v = getN(n);
      if (name === 'date') return v;
      if (name === 'float' || name === 'double') {
        if (v[0]! & 0x80) v[0] = v[0]! ^ 0x80;
        else for (let i = 0; i < n; i++) v[i] = ~v[i]! & 0xff;
        return v;
      }
      v[0] = v[0]! ^ 0x80;
      return v;
    }
    case 'boolean':
      return Buffer.from([get()]);
    case 'uuid':
    case 'timeuuid': {
      const s = getN(16);
      const v = Buffer.allocUnsafe(16);
      const version = s[0]! >> 4;
      if (name === 'timeuuid' || version === 1) {
        for (let i = 0; i < 8; i++) v[V1_ORDER[i]!] = s[i]!;
      } else {
        const sh = readInt(s, 0) >>> 0;
        const sl = readInt(s, 4) >>> 0;
        v.writeUInt32BE(((sh << 4) | (sl >>> 28)) >>> 0, 0);
        v.writeUInt32BE((((sl << 4) & 0xffff0000) | (version << 12) | (sl & 0xfff)) >>> 0, 4);
      }
      for (let i = 8; i < 16; i++) v[i] = name === 'timeuuid' ? s[i]! ^ 0x80 : s[i]!;
      return v;
    }
    case 'varint': {
      const neg = get() === 0x01;
      const raw = getN(4).readUInt32BE(0);
      const len = neg ? (0xffffffff - raw) >>> 0 : raw;
      return getN(len);
    }
    case 'decimal': {
      const s = get();
      if (s === 0x02) return decimalToBytes({ unscaled: 0n, scale: 0 });
      const saved = mask;
      if (s === 0x01) mask ^= 0xff;
      const exponent = Number(BigInt.asIntN(64, getN(8).readBigUInt64BE(0) ^ 0x8000000000000000n));
      let digits = '';
      for (;;) {
        const b = get();
        if (b === 0) break;
        digits += String(b - 1).padStart(2, '0');
      }
      mask = saved;
      digits = digits.replace(/0+$/, '');
      let scale = digits.length - exponent;
      // Robustness fix (found by fuzzing): dropping trailing zeros lowers the scale, which could go
      // below the int32 minimum for a value stored with scale -2^31 (decimalToBytes then threw a
      // RangeError on every read of the row). Keep just enough of the zeros at that floor.
      if (scale < -0x80000000) {
        digits += '0'.repeat(-0x80000000 - scale);
        scale = -0x80000000;
      }
      const unscaled = BigInt(digits) * (s === 0x01 ? -1n : 1n);
      return decimalToBytes({ unscaled, scale });
    }
    default:
      return getEscaped();
  }
}

function getValue(t: CqlType): Buffer {
  const h = get();
  if (h === EMPTY) return Buffer.alloc(0);
  if (h !== PRESENT) throw new InvalidRequest(`Invalid byte-comparable header ${h} for ${cqlTypeToString(t)}`);
  switch (t.kind) {
    case 'native':
      return getNative(t.name);
    case 'list':
    case 'set':
    case 'map': {
      const parts: Buffer[] = [];
      let count = 0;
      for (;;) {
        if ((src[rp]! ^ mask) === END) {
          rp++;
          break;
        }
        if (t.kind === 'map') {
          parts.push(getValue(t.key), getValue(t.value));
        } else {
          parts.push(getValue(t.element));
        }
        count++;
      }
      return buildCollection(count, parts);
    }
    case 'tuple':
    case 'udt': {
      const fields: (Buffer | null)[] = [];
      for (let i = 0; ; i++) {
        const b = src[rp]! ^ mask;
        if (b === END) {
          rp++;
          break;
        }
        if (b === NULL_FIELD) {
          rp++;
          fields.push(null);
          continue;
        }
        fields.push(getValue(t.kind === 'tuple' ? t.elements[i]! : t.fields[i]!.type));
      }
      const arity = t.kind === 'tuple' ? t.elements.length : t.fields.length;
      // Dropped trailing nulls come back so the value has every declared field.
      while (fields.length < arity) fields.push(null);
      return buildTuple(fields);
    }
    case 'vector': {
      const elements: Buffer[] = [];
      for (let i = 0; i < t.dimension; i++) elements.push(getValue(t.element));
      return buildVector(t, elements);
    }
    case 'custom':
      return getEscaped();
  }
}

/** Decodes one component at `offset`; returns the value bytes and the offset after the component. */
export function decodeKeyComponent(
  t: CqlType,
  encoded: Uint8Array,
  offset = 0,
  descending = false,
): { value: Buffer; next: number } {
  src = encoded;
  rp = offset;
  mask = descending ? 0xff : 0;
  const value = getValue(t);
  const next = rp;
  src = NO_BYTES; // don't keep the caller's buffer alive
  return { value, next };
}

/** Decodes a full clustering key (or a prefix: decoding stops at the end of the bytes). */
export function decodeClusteringKey(
  types: readonly CqlType[],
  descending: readonly boolean[],
  encoded: Uint8Array,
): Buffer[] {
  const values: Buffer[] = [];
  let o = 0;
  for (let i = 0; i < types.length && o < encoded.length; i++) {
    const r = decodeKeyComponent(types[i]!, encoded, o, descending[i] === true);
    values.push(r.value);
    o = r.next;
  }
  return values;
}
