// Consistency check of a table's twin against its row store (crash and differential tests, and an admin command):
// every pointer names a live row of an existing segment holding the same token; every live segment row has exactly
// one pointer; no row is both pointed to and buffered; every live row of the row store is buffered or pointed to,
// and a pointed-to row's columns in the segment equal the row store's.

import type { TwinColumn } from '../arrow/arrow-schema.js';
import { META_COLUMN_ID } from '../arrow/arrow-schema.js';
import { cqlBytesAt } from '../arrow/cql-value-decoder.js';
import type { ColumnValue } from '../row-projection.js';
import { Projection } from '../row-projection.js';
import { tokenOfMapKey } from '../table-layout.js';
import type { TableTwin } from './table-twin.js';
import { decodePointer, splitTwinKey } from './twin-keys.js';
import { TwinRowSource } from './twin-row-source.js';
import type { TwinSchema } from './twin-schema.js';

const CHUNK = 4096;

function scanAll(twin: TableTwin, map: number, visit: (k: Buffer, v: Buffer | undefined) => void): void {
  let start: Buffer | undefined;
  for (;;) {
    const res = twin.pool.scan(map, { start, startInclusive: false, limit: CHUNK });
    for (let i = 0; i < res.keys.length; i++) visit(res.keys[i]!, res.values[i]);
    if (res.keys.length < CHUNK) return;
    start = res.keys[res.keys.length - 1];
  }
}

/** Problems found (empty: consistent). `schema` enables the value comparison. */
export function checkTwin(twin: TableTwin, nowInSeconds: number, schema?: TwinSchema): string[] {
  const problems: string[] = [];
  const h = twin.handles;
  const buffered = new Set<string>();
  scanAll(twin, h.buffer, (k) => buffered.add(k.toString('latin1')));
  const pointed = new Map<string, { segment: number; row: number }>();
  const perSegment = new Map<number, number>();
  const segs = new Map(twin.segments().map((s) => [s.id, s]));
  const regular: TwinColumn[] = schema ? schema.columns.filter((c) => c.kind === 'regular') : [];
  const proj = new Projection(regular.map((c) => c.id));
  const source = new TwinRowSource(twin.table);
  scanAll(twin, h.pointers, (k, v) => {
    const p = decodePointer(v!);
    const ks = k.toString('latin1');
    pointed.set(ks, p);
    if (buffered.has(ks)) problems.push(`row ${k.toString('hex')} is both buffered and in segment ${p.segment}`);
    const seg = segs.get(p.segment);
    if (!seg) {
      problems.push(`pointer ${k.toString('hex')} names missing segment ${p.segment}`);
      return;
    }
    perSegment.set(p.segment, (perSegment.get(p.segment) ?? 0) + 1);
    if (p.row >= seg.record.rows) {
      problems.push(`pointer ${k.toString('hex')} names row ${p.row} of a ${seg.record.rows}-row segment`);
      return;
    }
    if (seg.deletions().test(p.row)) problems.push(`pointer ${k.toString('hex')} names a deleted row`);
    const data = seg.open();
    const { mapKey, rowKey } = splitTwinKey(k);
    const tokenData = data.batch!.data.children[0]!;
    const token = (tokenData.values as BigInt64Array)[p.row]!;
    if (token !== tokenOfMapKey(mapKey)) problems.push(`pointer ${k.toString('hex')}: segment token ${token} differs`);
    if (!schema) return;
    const expires = data.batch!.data.children[data.batch!.data.children.length - 1]!;
    const ex = expires.nullCount > 0 && !isValid(expires, p.row) ? null : (expires.values as Int32Array)[p.row]!;
    if (ex !== null && ex <= nowInSeconds) return; // expired: both sides agree it is gone
    const ref = source.read(mapKey, rowKey);
    const rr = ref ? proj.project(ref.buf, ref.offset, ref.clustering, ref.shadowTs, nowInSeconds) : undefined;
    if (!rr) {
      problems.push(`pointer ${k.toString('hex')} names a row the row store does not have`);
      return;
    }
    const fields = data.table.schema.fields;
    regular.forEach((c, s) => {
      const f = fields.findIndex((x) => x.metadata.get(META_COLUMN_ID) === String(c.id));
      const arrow = f < 0 ? null : cqlBytesAt(c.type, data.batch!.data.children[f]!, p.row);
      const stored = simpleOrComplex(schema, c.id, rr.values[s] ?? null);
      const same =
        arrow === null || stored === null
          ? arrow === stored || (arrow === null && stored!.length === 0)
          : Buffer.compare(arrow, stored) === 0;
      if (!same) problems.push(`row ${k.toString('hex')} column ${c.name}: segment and row store differ`);
    });
  });
  for (const seg of segs.values()) {
    const live = seg.deletions().liveCount;
    const n = perSegment.get(seg.id) ?? 0;
    if (live !== n) problems.push(`segment ${seg.id}: ${live} live rows but ${n} pointers`);
  }
  // Every live row of the row store is buffered or has a columnar copy.
  const all = new Projection([]);
  scanAll(twin, twin.table.partitionsHandle, (mapKey, v) => {
    const check = (rowKey: Buffer) => {
      const ref = source.read(mapKey, rowKey);
      if (!ref || !all.project(ref.buf, ref.offset, ref.clustering, ref.shadowTs, nowInSeconds)) return;
      const k = twinKeyString(mapKey, rowKey);
      if (!buffered.has(k) && !pointed.has(k)) problems.push(`live row ${k} is neither buffered nor flushed`);
    };
    if (!twin.table.clustered) {
      if (v) check(EMPTY);
      return;
    }
    const child = twin.pool.getChild(twin.table.partitionsHandle, mapKey);
    const rows = twin.pool.scan(child, { start: Buffer.from([2]) });
    for (const rk of rows.keys) if (rk[0] === 2) check(rk);
  });
  return problems;
}

function isValid(data: { nullBitmap: Uint8Array | null | undefined; offset: number }, i: number): boolean {
  const b = data.nullBitmap;
  if (!b || b.length === 0) return true;
  const j = data.offset + i;
  return (b[j >>> 3]! & (1 << (j & 7))) !== 0;
}

function simpleOrComplex(schema: TwinSchema, id: number, v: ColumnValue): Buffer | null {
  if (v === null) return null;
  return Buffer.isBuffer(v) ? v : schema.complexToBytes(id, v);
}

function twinKeyString(mapKey: Buffer, rowKey: Buffer): string {
  const out = Buffer.allocUnsafe(10 + mapKey.length - 8 + rowKey.length);
  mapKey.copy(out, 0, 0, 8);
  out.writeUInt16BE(mapKey.length - 8, 8);
  mapKey.copy(out, 10, 8);
  rowKey.copy(out, 10 + mapKey.length - 8);
  return out.toString('latin1');
}

const EMPTY = Buffer.alloc(0);
