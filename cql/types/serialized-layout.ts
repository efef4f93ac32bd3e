// Byte layouts of composite values: collections (protocol v3+: [int n] then n × [int len][bytes]; maps alternate
// keys and values), tuples and UDTs ([int len][bytes] per field, len < 0 for null, trailing fields may be missing)
// and vectors (fixed-size elements back to back; variable-size ones each behind an unsigned vint length).
// These readers assume a validated value (see value-validator.ts).
import type { CqlType } from './cql-type.js';
import { readUnsignedVIntNumber, writeUnsignedVInt } from './vint.js';

/**
 * The types whose AbstractType.valueLengthIfFixed is not VARIABLE_LENGTH in Cassandra 5.0 (and the drivers'
 * serializationSizeIfFixed). tinyint, smallint, date and time have one width too, but their types do not say so:
 * inside a vector each of their elements carries a length like any variable-length value.
 */
const FIXED_LENGTHS: Partial<Record<string, number>> = {
  boolean: 1,
  int: 4,
  float: 4,
  bigint: 8,
  double: 8,
  timestamp: 8,
  uuid: 16,
  timeuuid: 16,
};

/** Byte length of every value of the type, or -1 if values vary in length (AbstractType.valueLengthIfFixed). */
export function fixedValueLength(t: CqlType): number {
  if (t.kind === 'native') return FIXED_LENGTHS[t.name] ?? -1;
  if (t.kind === 'vector') {
    const e = fixedValueLength(t.element);
    return e < 0 ? -1 : e * t.dimension;
  }
  return -1;
}

/** Elements of a list/set, or keys and values alternating for a map. */
export function readCollectionElements(b: Buffer): Buffer[] {
  if (b.length === 0) return [];
  const n = b.readInt32BE(0);
  const count = Math.max(n, 0);
  const out: Buffer[] = [];
  let o = 4;
  for (let i = 0; i < count; i++) {
    const len = b.readInt32BE(o);
    o += 4;
    out.push(b.subarray(o, o + len));
    o += len;
  }
  return out;
}

/** Map entries as [key, value] pairs. */
export function readMapEntries(b: Buffer): [Buffer, Buffer][] {
  if (b.length === 0) return [];
  const n = b.readInt32BE(0);
  const out: [Buffer, Buffer][] = [];
  let o = 4;
  for (let i = 0; i < n; i++) {
    const kl = b.readInt32BE(o);
    const k = b.subarray(o + 4, o + 4 + kl);
    o += 4 + kl;
    const vl = b.readInt32BE(o);
    const v = b.subarray(o + 4, o + 4 + vl);
    o += 4 + vl;
    out.push([k, v]);
  }
  return out;
}

/** `count` is the element count (entries for a map); `parts` are the serialized elements (keys/values alternating). */
export function buildCollection(count: number, parts: readonly Uint8Array[]): Buffer {
  let size = 4;
  for (const p of parts) size += 4 + p.length;
  const out = Buffer.allocUnsafe(size);
  out.writeInt32BE(count, 0);
  let o = 4;
  for (const p of parts) {
    out.writeInt32BE(p.length, o);
    out.set(p, o + 4);
    o += 4 + p.length;
  }
  return out;
}

/** Tuple/UDT fields present in the value (null for a null field). */
export function readTupleFields(b: Buffer): (Buffer | null)[] {
  const out: (Buffer | null)[] = [];
  let o = 0;
  while (o < b.length) {
    const len = b.readInt32BE(o);
    o += 4;
    if (len < 0) {
      out.push(null);
      continue;
    }
    out.push(b.subarray(o, o + len));
    o += len;
  }
  return out;
}

export function buildTuple(fields: readonly (Uint8Array | null)[]): Buffer {
  let size = 0;
  for (const f of fields) size += 4 + (f ? f.length : 0);
  const out = Buffer.allocUnsafe(size);
  let o = 0;
  for (const f of fields) {
    if (f === null) {
      out.writeInt32BE(-1, o);
      o += 4;
      continue;
    }
    out.writeInt32BE(f.length, o);
    out.set(f, o + 4);
    o += 4 + f.length;
  }
  return out;
}

export function readVectorElements(t: CqlType & { kind: 'vector' }, b: Buffer): Buffer[] {
  const out: Buffer[] = [];
  const fixed = fixedValueLength(t.element);
  let o = 0;
  for (let i = 0; i < t.dimension; i++) {
    if (fixed >= 0) {
      out.push(b.subarray(o, o + fixed));
      o += fixed;
    } else {
      const r = readUnsignedVIntNumber(b, o)!;
      out.push(b.subarray(r[1], r[1] + r[0]));
      o = r[1] + r[0];
    }
  }
  return out;
}

export function buildVector(t: CqlType & { kind: 'vector' }, elements: readonly Uint8Array[]): Buffer {
  if (fixedValueLength(t.element) >= 0) return Buffer.concat(elements);
  const parts: Uint8Array[] = [];
  for (const e of elements) {
    const len: number[] = [];
    writeUnsignedVInt(BigInt(e.length), len);
    parts.push(Buffer.from(len), e);
  }
  return Buffer.concat(parts);
}
