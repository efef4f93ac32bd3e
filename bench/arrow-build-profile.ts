// Scratch: where segment build time goes (removed before hand-off).
import { native } from '../cql/types/cql-type.js';
import { twinLayout } from '../storage/arrow/arrow-schema.js';
import { buildSegmentBatch, serializeSegment, type TwinRow } from '../storage/arrow/segment-builder.js';

const n = 1_000_000;
const layout = twinLayout([
  { name: 'k', id: 0, kind: 'partition_key', type: native('bigint'), position: 0 },
  { name: 'x', id: 1, kind: 'regular', type: native('double'), position: -1 },
  { name: 'y', id: 2, kind: 'regular', type: native('double'), position: -1 },
  { name: 'i', id: 3, kind: 'regular', type: native('int'), position: -1 },
  { name: 't', id: 4, kind: 'regular', type: native('text'), position: -1 },
]);
let t0 = performance.now();
const rows: TwinRow[] = new Array(n);
for (let i = 0; i < n; i++) {
  const k = Buffer.allocUnsafe(8); k.writeBigInt64BE(BigInt(i));
  const x = Buffer.allocUnsafe(8); x.writeDoubleBE(i * 0.5);
  const y = Buffer.allocUnsafe(8); y.writeDoubleBE(i % 100);
  const iv = Buffer.allocUnsafe(4); iv.writeInt32BE(i);
  rows[i] = { token: BigInt(i), partitionKey: [k], clustering: [], cells: new Map([[1, x], [2, y], [3, iv], [4, Buffer.from(`row ${i}`)]]), writetime: i, expires: null };
}
console.log('rows', (performance.now() - t0).toFixed(0));
t0 = performance.now();
const b = buildSegmentBatch(layout, rows);
console.log('batch', (performance.now() - t0).toFixed(0));
t0 = performance.now();
const ipc = serializeSegment(b);
console.log('ipc', (performance.now() - t0).toFixed(0), ipc.length);
