// writetime() / maxwritetime() / ttl() of a non-frozen collection or UDT (Cassandra 5.0, ColumnTimestamps): one
// value per cell in cell order — per field for a UDT, null for a field without a cell — as a list<bigint> or
// list<int> (null elements for cells that do not expire); maxwritetime() is the largest timestamp. No cell:
// null.

import type { ComplexValue } from '../../storage/row-projection.js';
import type { Timestamp } from '../../storage/timestamp.js';
import type { CqlType } from '../types/cql-type.js';

export type TimestampKind = 'writetime' | 'maxwritetime' | 'ttl';

/** Per-cell writetimes or TTLs of `v` (UDT: aligned with the type's fields). */
function perCell(type: CqlType, v: ComplexValue, kind: 'writetime' | 'ttl'): (Timestamp | null)[] {
  const of = (i: number): Timestamp | null => (kind === 'ttl' ? (v.ttls?.[i] ?? null) : (v.writetimes?.[i] ?? null));
  if (type.kind !== 'udt') return v.paths.map((_, i) => of(i));
  const out: (Timestamp | null)[] = type.fields.map(() => null);
  for (let i = 0; i < v.paths.length; i++) out[v.paths[i]!.readUInt16BE(0)] = of(i);
  return out;
}

export function complexTimestamps(type: CqlType, v: ComplexValue | null, kind: TimestampKind): Buffer | null {
  if (!v || v.paths.length === 0) return null;
  if (kind === 'maxwritetime') {
    let max: Timestamp | undefined;
    for (const t of perCell(type, v, 'writetime')) if (t !== null && (max === undefined || t > max)) max = t;
    if (max === undefined) return null;
    const b = Buffer.allocUnsafe(8);
    b.writeBigInt64BE(BigInt(max));
    return b;
  }
  const values = perCell(type, v, kind);
  const width = kind === 'ttl' ? 4 : 8;
  const out = Buffer.allocUnsafe(4 + values.reduce<number>((n, t) => n + 4 + (t === null ? 0 : width), 0));
  out.writeInt32BE(values.length, 0);
  let o = 4;
  for (const t of values) {
    if (t === null) {
      out.writeInt32BE(-1, o);
      o += 4;
      continue;
    }
    out.writeInt32BE(width, o);
    if (width === 4) out.writeInt32BE(Number(t), o + 4);
    else out.writeBigInt64BE(BigInt(t), o + 4);
    o += 4 + width;
  }
  return out;
}

/**
 * writetime() / maxwritetime() / ttl() of an element or a slice of a non-frozen set or map (`writetime(s[1])`,
 * `ttl(m[1..3])`): the cells whose path `matches`. An element gives its cell's value (null without the cell), a
 * slice a list of its cells' values (null without any) — maxwritetime their largest.
 */
export function selectedCellTimestamps(
  v: ComplexValue | null,
  kind: TimestampKind,
  matches: (path: Buffer) => boolean,
  element: boolean,
): Buffer | null {
  if (!v) return null;
  const picked: (Timestamp | null)[] = [];
  for (let i = 0; i < v.paths.length; i++) {
    if (!matches(v.paths[i]!)) continue;
    picked.push(kind === 'ttl' ? (v.ttls?.[i] ?? null) : (v.writetimes?.[i] ?? null));
  }
  if (picked.length === 0) return null;
  const width = kind === 'ttl' ? 4 : 8;
  const one = (t: Timestamp) => {
    const b = Buffer.allocUnsafe(width);
    if (width === 4) b.writeInt32BE(Number(t));
    else b.writeBigInt64BE(BigInt(t));
    return b;
  };
  if (kind === 'maxwritetime') {
    let max: Timestamp | undefined;
    for (const t of picked) if (t !== null && (max === undefined || t > max)) max = t;
    return max === undefined ? null : one(max);
  }
  if (element) return picked[0] === null ? null : one(picked[0]!);
  const out = Buffer.allocUnsafe(4 + picked.reduce<number>((n, t) => n + 4 + (t === null ? 0 : width), 0));
  out.writeInt32BE(picked.length, 0);
  let o = 4;
  for (const t of picked) {
    if (t === null) {
      out.writeInt32BE(-1, o);
      o += 4;
      continue;
    }
    out.writeInt32BE(width, o);
    one(t).copy(out, o + 4);
    o += 4 + width;
  }
  return out;
}
