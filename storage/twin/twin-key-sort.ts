// Sorting buffer entries by twin key (byte order), stably: of two entries for one key, the one written later
// stays later. A flush sorts the ~65 k entries written since the last one; comparison sorts cost ~0.7 µs an entry
// on the server. Keys start with the 8 sortable token bytes and tokens are hashes, so a radix sort on the first 4
// bytes nearly finishes the job; runs with equal first bytes (rows of one partition, rare collisions, rewrites of
// one row) are then sorted by comparison (Array.prototype.sort is stable).

import { type BufferEntry, compareEntries } from './twin-buffer.js';

const SMALL = 64;

export function sortEntries(entries: BufferEntry[]): BufferEntry[] {
  const n = entries.length;
  if (n < SMALL) return entries.sort(compareEntries);
  const hi = new Uint32Array(n);
  // Keys are at least 10 bytes (8 token bytes, the partition key length).
  for (let i = 0; i < n; i++) {
    const e = entries[i]!;
    hi[i] = e.rec.readUInt32BE(e.keyAt);
  }
  // LSD radix sort of the indexes by hi: two stable passes of 16 bits.
  let from = new Uint32Array(n);
  let to = new Uint32Array(n);
  for (let i = 0; i < n; i++) from[i] = i;
  const counts = new Uint32Array(65537);
  for (let shift = 0; shift <= 16; shift += 16) {
    counts.fill(0);
    for (let i = 0; i < n; i++) counts[((hi[i]! >>> shift) & 0xffff) + 1]!++;
    for (let b = 1; b <= 65536; b++) counts[b]! += counts[b - 1]!;
    for (let i = 0; i < n; i++) {
      const j = from[i]!;
      to[counts[(hi[j]! >>> shift) & 0xffff]!++] = j;
    }
    const t = from;
    from = to;
    to = t;
  }
  const out = new Array<BufferEntry>(n);
  for (let i = 0; i < n; i++) out[i] = entries[from[i]!]!;
  for (let i = 0; i < n; ) {
    let j = i + 1;
    const h = hi[from[i]!]!;
    while (j < n && hi[from[j]!]! === h) j++;
    if (j - i > 1) {
      const run = out.slice(i, j).sort(compareEntries);
      for (let r = 0; r < run.length; r++) out[i + r] = run[r]!;
    }
    i = j;
  }
  return out;
}
