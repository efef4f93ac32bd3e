// The flush thread's sort of a flush's buffer records into its view (the latest entry of every key, by key) as
// offsets only: entries are decoded into typed arrays and sorted as indexes, so no object is made per entry. The
// event loop's SortedViewJob makes a BufferEntry per entry (it runs in bounded steps and its view serves readers);
// in the thread those objects were ~70 % of its allocations, and its garbage is collected by V8's helper threads,
// which run at the server's priority beside the event loop. Same order and same choice of entries: a radix sort on
// the first 4 key bytes (tokens are hashes), then runs of equal bytes by comparison, stable, the later entry of a
// key kept.

import { walkRecord } from './buffer-record.js';
import type { SortedOffsets } from './flush-view.js';

/** The view of `records` (oldest first; a later entry of a key replaces an earlier one) as offsets. */
export function sortRecordOffsets(records: readonly Buffer[]): SortedOffsets {
  let n = 0;
  for (const r of records) walkRecord(r, () => n++);
  const rec = new Uint32Array(n);
  const keyAt = new Uint32Array(n);
  const keyEnd = new Uint32Array(n);
  const valueAt = new Uint32Array(n);
  const valueEnd = new Uint32Array(n);
  const hi = new Uint32Array(n);
  const lo = new Uint32Array(n);
  let e = 0;
  records.forEach((r, ri) => {
    walkRecord(r, (k0, k1, v0, v1) => {
      rec[e] = ri;
      keyAt[e] = k0;
      keyEnd[e] = k1;
      valueAt[e] = v0;
      valueEnd[e] = v1;
      // Keys are at least 10 bytes (8 token bytes, the partition key length).
      hi[e] = r.readUInt32BE(k0);
      lo[e] = r.readUInt32BE(k0 + 4);
      e++;
    });
  });
  const order = radixByHigh(hi, n);
  const compare = (a: number, b: number): number => {
    if (lo[a] !== lo[b]) return lo[a]! < lo[b]! ? -1 : 1;
    const c = records[rec[a]!]!.compare(records[rec[b]!]!, keyAt[b]!, keyEnd[b]!, keyAt[a]!, keyEnd[a]!);
    // Equal keys stay in write order (entry index), so the last one of a run is the latest.
    return c !== 0 ? c : a - b;
  };
  // Runs of equal first bytes (rows of one partition, collisions, rewrites of a row) sorted by comparison.
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && hi[order[j]!] === hi[order[i]!]) j++;
    if (j - i > 1) order.subarray(i, j).sort(compare);
    i = j;
  }
  // The latest entry of each key: the last of its run of equal keys.
  const keep = new Uint32Array(n);
  let kept = 0;
  for (let i = 0; i < n; i++) {
    const a = order[i]!;
    if (i + 1 < n) {
      const b = order[i + 1]!;
      if (hi[a] === hi[b] && lo[a] === lo[b] && keyEnd[a]! - keyAt[a]! === keyEnd[b]! - keyAt[b]!) {
        if (records[rec[a]!]!.compare(records[rec[b]!]!, keyAt[b]!, keyEnd[b]!, keyAt[a]!, keyEnd[a]!) === 0) continue;
      }
    }
    keep[kept++] = a;
  }
  const pick = (from: Uint32Array): Uint32Array => {
    const out = new Uint32Array(kept);
    for (let i = 0; i < kept; i++) out[i] = from[keep[i]!]!;
    return out;
  };
  return {
    rec: pick(rec),
    keyAt: pick(keyAt),
    keyEnd: pick(keyEnd),
    valueAt: pick(valueAt),
    valueEnd: pick(valueEnd),
    high: pick(hi),
    low: pick(lo),
  };
}

/** Entry indexes ordered by `hi`, stably: an LSD radix sort, two passes of 16 bits. */
function radixByHigh(hi: Uint32Array, n: number): Uint32Array {
  let from = new Uint32Array(n);
  let to = new Uint32Array(n);
  for (let i = 0; i < n; i++) from[i] = i;
  const counts = new Uint32Array(65537);
  for (let shift = 0; shift <= 16; shift += 16) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((hi[from[i]!]! >>> shift) & 0xffff) + 1]!++;
    for (let b = 1; b <= 65536; b++) counts[b]! += counts[b - 1]!;
    for (let i = 0; i < n; i++) {
      const j = from[i]!;
      to[counts[(hi[j]! >>> shift) & 0xffff]!++] = j;
    }
    [from, to] = [to, from];
  }
  return from;
}
