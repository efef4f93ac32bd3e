// Consistency check of a table's twin against its row store (crash and differential tests, and an admin command):
// every segment's key index is sorted, names each row at most once and every live row; a live segment row holds
// its key's token; no row is live in two segments, nor both live in a segment and buffered; every live row of the
// row store is buffered or live in a segment, whose columns then equal the row store's.

import type { TwinColumn } from '../arrow/arrow-schema.js';
import { META_COLUMN_ID } from '../arrow/arrow-schema.js';
import { cqlBytesAt } from '../arrow/cql-value-decoder.js';
import type { ColumnValue } from '../row-projection.js';
import { Projection } from '../row-projection.js';
import { tokenOfMapKey } from '../table-layout.js';
import type { LiveSegment } from './live-segment.js';
import type { TableTwin } from './table-twin.js';
import { splitTwinKey } from './twin-keys.js';
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
  problems.push(...twin.buffer.verifyAgainstLog());
  const buffered = new Set<string>(twin.buffer.sortedView().map((e) => e.key.toString('latin1')));
  const pointed = new Map<string, { segment: number; row: number }>();
  const segs = new Map(twin.segments().map((s) => [s.id, s]));
  const regular: TwinColumn[] = schema ? schema.columns.filter((c) => c.kind === 'regular') : [];
  const proj = new Projection(regular.map((c) => c.id));
  const source = new TwinRowSource(twin.table);
  const checkLiveCopy = (seg: LiveSegment, k: Buffer, row: number) => {
    const ks = k.toString('latin1');
    const prior = pointed.get(ks);
    if (prior) problems.push(`row ${k.toString('hex')} is live in segments ${prior.segment} and ${seg.id}`);
    pointed.set(ks, { segment: seg.id, row });
    if (buffered.has(ks)) problems.push(`row ${k.toString('hex')} is both buffered and in segment ${seg.id}`);
    const data = seg.open();
    const { mapKey, rowKey } = splitTwinKey(k);
    const tokenData = data.batch!.data.children[0]!;
    const token = (tokenData.values as BigInt64Array)[row]!;
    if (token !== tokenOfMapKey(mapKey)) problems.push(`row ${k.toString('hex')}: segment token ${token} differs`);
    if (!schema) return;
    const expires = data.batch!.data.children[data.batch!.data.children.length - 1]!;
    const ex = expires.nullCount > 0 && !isValid(expires, row) ? null : (expires.values as Int32Array)[row]!;
    if (ex !== null && ex <= nowInSeconds) return; // expired: both sides agree it is gone
    const ref = source.read(mapKey, rowKey);
    const rr = ref ? proj.project(ref.buf, ref.offset, ref.clustering, ref.shadowTs, nowInSeconds) : undefined;
    if (!rr) {
      problems.push(`segment ${seg.id} row ${row} (${k.toString('hex')}) is a row the row store does not have`);
      return;
    }
    const fields = data.table.schema.fields;
    regular.forEach((c, s) => {
      const f = fields.findIndex((x) => x.metadata.get(META_COLUMN_ID) === String(c.id));
      const arrow = f < 0 ? null : cqlBytesAt(c.type, data.batch!.data.children[f]!, row);
      const stored = simpleOrComplex(schema, c.id, rr.values[s] ?? null);
      const same =
        arrow === null || stored === null
          ? arrow === stored || (arrow === null && stored!.length === 0)
          : Buffer.compare(arrow, stored) === 0;
      if (!same) problems.push(`row ${k.toString('hex')} column ${c.name}: segment and row store differ`);
    });
  };
  if (twin.pool.count(h.pointers) > 0) problems.push('the old row-pointer map still has entries');
  // A row's live columnar copy: its key in a segment's key index with the deletion bit clear.
  for (const seg of segs.values()) {
    const index = seg.keyIndex();
    if (!index) {
      problems.push(`segment ${seg.id} has no key index`);
      continue;
    }
    const dv = seg.deletions();
    const seen = new Uint8Array(seg.record.rows);
    let live = 0;
    for (let i = 0; i < index.count; i++) {
      const k = index.keyAt(i);
      const row = index.rowAt(i);
      if (i > 0 && Buffer.compare(index.keyAt(i - 1), k) >= 0)
        problems.push(`segment ${seg.id}: key index unsorted at ${i}`);
      if (row >= seg.record.rows) {
        problems.push(`segment ${seg.id}: key ${k.toString('hex')} names row ${row} of ${seg.record.rows}`);
        continue;
      }
      if (seen[row]) problems.push(`segment ${seg.id}: row ${row} has two keys`);
      seen[row] = 1;
      if (dv.test(row)) continue;
      live++;
      checkLiveCopy(seg, k, row);
    }
    if (live !== dv.liveCount) problems.push(`segment ${seg.id}: ${dv.liveCount} live rows but ${live} indexed`);
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
