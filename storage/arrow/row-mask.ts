// Row masks over one segment (the rows a query sees): 32 rows per Int32 word, bit set = row selected, bits past the
// segment's end clear. `null` means "every row" so the kernels can take their no-bitmap fast paths. A live-row mask is
// NOT deleted AND (no `_expires` OR `_expires` > now); validity bitmaps and filters narrow it further.

import { type Data, Int32, makeData } from 'apache-arrow';
import { DeletionVector, popcount } from './deletion-vector.js';

export type RowMask = Int32Array | null;

export function wordCount(rows: number): number {
  return (rows + 31) >>> 5;
}

/** All rows selected, as an explicit bitmap. */
export function allRows(rows: number): Int32Array {
  const w = new Int32Array(wordCount(rows));
  w.fill(-1);
  const tail = rows & 31;
  if (tail !== 0) w[w.length - 1] = (1 << tail) - 1;
  return w;
}

/** Rows of a segment a query sees at `nowInSeconds`: not in the deletion vector, not expired. */
export function liveRows(
  rows: number,
  deletions: DeletionVector | null | undefined,
  expires: Data | null | undefined,
  nowInSeconds: number,
): RowMask {
  let sel: Int32Array | null = null;
  if (deletions && deletions.count() > 0) {
    sel = allRows(rows);
    const d = deletions.words;
    for (let w = 0; w < sel.length; w++) sel[w] = sel[w]! & ~d[w]!;
  }
  if (expires && expires.nullCount < expires.length) {
    const e = expires.values as Int32Array;
    const valid = validityWords(expires);
    sel ??= allRows(rows);
    for (let w = 0; w < sel.length; w++) {
      // Only rows with an expiry can be expired; most words have none or all far in the future.
      let bits = valid === null ? -1 : valid[w]!;
      if (bits === 0) continue;
      const base = w << 5;
      let expired = 0;
      if (bits === -1 && base + 32 <= rows) {
        for (let j = 0; j < 32; j++) expired |= +(e[base + j]! <= nowInSeconds) << j;
        sel[w] = sel[w]! & ~expired;
        continue;
      }
      while (bits !== 0) {
        const low = bits & -bits;
        const j = 31 - Math.clz32(low);
        bits ^= low;
        if (base + j < rows && e[base + j]! <= nowInSeconds) expired |= low;
      }
      sel[w] = sel[w]! & ~expired;
    }
  }
  return sel;
}

/** A column's validity as selection words (null: no nulls). */
export function validityWords(data: Data): Int32Array | null {
  const bitmap = data.nullBitmap;
  if (data.nullCount === 0 || !bitmap || bitmap.length === 0) return null;
  const n = data.length;
  const out = new Int32Array(wordCount(n));
  if (data.offset === 0) {
    new Uint8Array(out.buffer).set(bitmap.subarray(0, Math.min(bitmap.length, (n + 7) >>> 3)));
  } else {
    for (let i = 0; i < n; i++) {
      const j = data.offset + i;
      if (bitmap[j >>> 3]! & (1 << (j & 7))) out[i >>> 5]! |= 1 << (i & 31);
    }
  }
  const tail = n & 31;
  if (tail !== 0) out[out.length - 1]! &= (1 << tail) - 1;
  return out;
}

/** a AND b (either may be null = all rows); a fresh array unless one side is null. */
export function intersect(a: RowMask, b: RowMask): RowMask {
  if (a === null) return b;
  if (b === null) return a;
  const out = new Int32Array(a.length);
  for (let w = 0; w < a.length; w++) out[w] = a[w]! & b[w]!;
  return out;
}

/** Rows of `sel` where `data` is not null. */
export function withValues(data: Data, sel: RowMask): RowMask {
  return intersect(sel, validityWords(data));
}

/** Selected rows. */
export function countSelected(sel: RowMask, rows: number): number {
  return sel === null ? rows : popcount(sel);
}

// Record type feedback for every path at load time (see the note at the end of column-kernels.ts).
function primeSelections(): void {
  const n = 96;
  const dv = new DeletionVector(n);
  dv.set(3);
  const bitmap = new Uint8Array(12).fill(0xff);
  bitmap[5] = 0x0f;
  const expires = makeData({ type: new Int32(), length: n, nullCount: 4, nullBitmap: bitmap, data: new Int32Array(n) });
  const full = makeData({ type: new Int32(), length: n, nullCount: 0, data: new Int32Array(n) });
  for (let k = 0; k < 2; k++) {
    liveRows(n, dv, expires, 0);
    liveRows(n, dv, full, 0);
    liveRows(n, null, null, 0);
    liveRows(n, new DeletionVector(n), expires, 0);
    intersect(allRows(n), validityWords(expires));
  }
}
primeSelections();
