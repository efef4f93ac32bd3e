// Cassandra's value ordering for every type (AbstractType.compare): the order of clustering rows, set elements
// and map keys, and of min()/max(). An empty value sorts before every non-empty one.
import type { CqlType } from './cql-type.js';
import { compareDecimals, decimalFromBytes } from './decimal-text.js';
import { fixedValueLength } from './serialized-layout.js';
import { minimalStart } from './varint-bytes.js';
import { readUnsignedVIntNumber } from './vint.js';

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);
const f64 = new Float64Array(1);
const u32x2 = new Uint32Array(f64.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

function readInt(b: Uint8Array, o: number): number {
  return (b[o]! << 24) | (b[o + 1]! << 16) | (b[o + 2]! << 8) | b[o + 3]!;
}

function readFloat(b: Uint8Array): number {
  u32[0] = readInt(b, 0) >>> 0;
  return f32[0]!;
}

function readDouble(b: Uint8Array): number {
  const hi = readInt(b, 0) >>> 0;
  const lo = readInt(b, 4) >>> 0;
  u32x2[littleEndian ? 1 : 0] = hi;
  u32x2[littleEndian ? 0 : 1] = lo;
  return f64[0]!;
}

/** Java's Float.compare/Double.compare: -0.0 < 0.0, NaN above everything and equal to itself. */
function compareJavaFloating(x: number, y: number): number {
  if (x < y) return -1;
  if (x > y) return 1;
  const xNaN = Number.isNaN(x);
  const yNaN = Number.isNaN(y);
  if (xNaN || yNaN) return xNaN === yNaN ? 0 : xNaN ? 1 : -1;
  if (x === 0 && y === 0) {
    const xn = Object.is(x, -0);
    const yn = Object.is(y, -0);
    return xn === yn ? 0 : xn ? -1 : 1;
  }
  return 0;
}

function sign(n: number): number {
  return n < 0 ? -1 : n > 0 ? 1 : 0;
}

function compareBytes(a: Uint8Array, b: Uint8Array): number {
  return Buffer.compare(a, b);
}

/** Signed big-endian comparison of two equal-length fixed-size integers. */
function compareSignedFixed(a: Uint8Array, b: Uint8Array): number {
  const x = (a[0]! << 24) >> 24;
  const y = (b[0]! << 24) >> 24;
  if (x !== y) return x < y ? -1 : 1;
  for (let i = 1; i < a.length; i++) {
    if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  return 0;
}

function compareVarint(a: Uint8Array, b: Uint8Array): number {
  const an = (a[0]! & 0x80) !== 0;
  const bn = (b[0]! & 0x80) !== 0;
  if (an !== bn) return an ? -1 : 1;
  const sa = minimalStart(a, 0, a.length);
  const sb = minimalStart(b, 0, b.length);
  const la = a.length - sa;
  const lb = b.length - sb;
  if (la !== lb) return la < lb !== an ? -1 : 1;
  for (let i = 0; i < la; i++) {
    const x = a[sa + i]!;
    const y = b[sb + i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** Byte positions of a version-1 UUID's timestamp, most significant first (time_hi, time_mid, time_low). */
const V1_TIME_ORDER = [6, 7, 4, 5, 0, 1, 2, 3];

/** TimeUUIDType: timestamp (time_hi, time_mid, time_low), then the last 8 bytes as signed bytes. */
function compareTimeUuid(a: Uint8Array, b: Uint8Array): number {
  for (let k = 0; k < 8; k++) {
    const i = V1_TIME_ORDER[k]!;
    const x = i === 6 ? a[i]! & 0x0f : a[i]!;
    const y = i === 6 ? b[i]! & 0x0f : b[i]!;
    if (x !== y) return x < y ? -1 : 1;
  }
  for (let i = 8; i < 16; i++) {
    const x = (a[i]! << 24) >> 24;
    const y = (b[i]! << 24) >> 24;
    if (x !== y) return x < y ? -1 : 1;
  }
  return 0;
}

/** UUIDType: version, then timestamp for version 1 or the high bytes for others, then unsigned low bytes. */
function compareUuid(a: Uint8Array, b: Uint8Array): number {
  const va = a[6]! >> 4;
  const vb = b[6]! >> 4;
  if (va !== vb) return va < vb ? -1 : 1;
  if (va === 1) {
    for (let k = 0; k < 8; k++) {
      const i = V1_TIME_ORDER[k]!;
      if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
    }
  } else {
    for (let i = 0; i < 8; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  }
  for (let i = 8; i < 16; i++) if (a[i] !== b[i]) return a[i]! < b[i]! ? -1 : 1;
  return 0;
}

function compareNative(name: string, a: Uint8Array, b: Uint8Array): number {
  switch (name) {
    case 'int':
    case 'bigint':
    case 'counter':
    case 'smallint':
    case 'tinyint':
    case 'timestamp':
    case 'time':
      return compareSignedFixed(a, b);
    case 'float':
      return compareJavaFloating(readFloat(a), readFloat(b));
    case 'double':
      return compareJavaFloating(readDouble(a), readDouble(b));
    case 'boolean':
      return (a[0] === 0 ? 0 : 1) - (b[0] === 0 ? 0 : 1);
    case 'uuid':
      return compareUuid(a, b);
    case 'timeuuid':
      return compareTimeUuid(a, b);
    case 'varint':
      return compareVarint(a, b);
    case 'decimal':
      return compareDecimals(decimalFromBytes(a), decimalFromBytes(b));
    default:
      // ascii, text, blob, inet, date (unsigned, epoch at 2^31), duration (byte order)
      return sign(compareBytes(a, b));
  }
}

/** Negative, zero or positive as a sorts before, with or after b in Cassandra's order for type t. */
export function compareValues(t: CqlType, a: Uint8Array, b: Uint8Array): number {
  if (a.length === 0 || b.length === 0) return (a.length === 0 ? 0 : 1) - (b.length === 0 ? 0 : 1);
  switch (t.kind) {
    case 'native':
      return compareNative(t.name, a, b);
    case 'list':
    case 'set':
      return compareCollections(a, b, t.element, undefined);
    case 'map':
      return compareCollections(a, b, t.key, t.value);
    case 'tuple':
    case 'udt':
      return compareTuples(a, b, t);
    case 'vector':
      return compareVectors(t, a, b);
    case 'custom':
      return sign(compareBytes(a, b));
  }
}

function compareCollections(a: Uint8Array, b: Uint8Array, key: CqlType, value: CqlType | undefined): number {
  const na = readInt(a, 0);
  const nb = readInt(b, 0);
  let oa = 4;
  let ob = 4;
  const n = Math.min(na, nb);
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < (value ? 2 : 1); j++) {
      const la = readInt(a, oa);
      const lb = readInt(b, ob);
      const c = compareValues(j === 0 ? key : value!, a.subarray(oa + 4, oa + 4 + la), b.subarray(ob + 4, ob + 4 + lb));
      if (c !== 0) return c;
      oa += 4 + la;
      ob += 4 + lb;
    }
  }
  return na === nb ? 0 : na < nb ? -1 : 1;
}

function remainingAreNull(b: Uint8Array, o: number): boolean {
  while (o < b.length) {
    if (readInt(b, o) >= 0) return false;
    o += 4;
  }
  return true;
}

/** TupleType.compareCustom: a null field sorts first, and missing trailing fields equal null ones. */
function compareTuples(a: Uint8Array, b: Uint8Array, t: CqlType & { kind: 'tuple' | 'udt' }): number {
  const count = t.kind === 'tuple' ? t.elements.length : t.fields.length;
  let oa = 0;
  let ob = 0;
  for (let i = 0; oa < a.length && ob < b.length && i < count; i++) {
    const la = readInt(a, oa);
    const lb = readInt(b, ob);
    oa += 4;
    ob += 4;
    if (la < 0) {
      if (lb < 0) continue;
      return -1;
    }
    if (lb < 0) return 1;
    const ft = t.kind === 'tuple' ? t.elements[i]! : t.fields[i]!.type;
    const c = compareValues(ft, a.subarray(oa, oa + la), b.subarray(ob, ob + lb));
    if (c !== 0) return c;
    oa += la;
    ob += lb;
  }
  const ra = remainingAreNull(a, oa);
  const rb = remainingAreNull(b, ob);
  if (ra && rb) return 0;
  return ra ? -1 : 1;
}

function compareVectors(t: CqlType & { kind: 'vector' }, a: Uint8Array, b: Uint8Array): number {
  const fixed = fixedValueLength(t.element);
  let oa = 0;
  let ob = 0;
  for (let i = 0; i < t.dimension; i++) {
    let la = fixed;
    let lb = fixed;
    if (fixed < 0) {
      const ra = readUnsignedVIntNumber(a, oa)!;
      const rb = readUnsignedVIntNumber(b, ob)!;
      la = ra[0];
      oa = ra[1];
      lb = rb[0];
      ob = rb[1];
    }
    const c = compareValues(t.element, a.subarray(oa, oa + la), b.subarray(ob, ob + lb));
    if (c !== 0) return c;
    oa += la;
    ob += lb;
  }
  return 0;
}
