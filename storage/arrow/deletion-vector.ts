// A segment's deletion vector: one bit per row (set = the row was updated, deleted or expired since the flush), so
// a columnar scan = the live rows of every segment + the buffer. Bits are LSB-first like Arrow validity bitmaps and
// padded to whole 32-bit words, so kernels combine it with validity bitmaps a word at a time.
//
// Persisted in chunks (CHUNK_BYTES each, one pool map value per chunk): marking a row rewrites one small chunk in
// the row store's transaction rather than the whole bitmap.

export const CHUNK_BYTES = 4096;
export const ROWS_PER_CHUNK = CHUNK_BYTES * 8;

export class DeletionVector {
  /** The bitmap as 32-bit words (bit i of word w = row 32w + i). */
  readonly words: Int32Array;
  private deleted = 0;
  private readonly dirty = new Set<number>();

  constructor(
    readonly rowCount: number,
    bytes?: Uint8Array,
  ) {
    this.words = new Int32Array((rowCount + 31) >>> 5);
    if (bytes) {
      new Uint8Array(this.words.buffer).set(bytes.subarray(0, Math.min(bytes.length, this.words.byteLength)));
      this.clearPadding();
      this.deleted = popcount(this.words);
    }
  }

  /** Rebuilds a vector from its persisted chunks (missing chunks: no deletions there). */
  static fromChunks(rowCount: number, chunks: ReadonlyMap<number, Uint8Array>): DeletionVector {
    const dv = new DeletionVector(rowCount);
    const bytes = new Uint8Array(dv.words.buffer);
    for (const [index, chunk] of chunks) {
      const at = index * CHUNK_BYTES;
      if (at >= bytes.length) continue;
      bytes.set(chunk.subarray(0, Math.min(chunk.length, bytes.length - at)), at);
    }
    dv.clearPadding();
    dv.deleted = popcount(dv.words);
    return dv;
  }

  private clearPadding(): void {
    const tail = this.rowCount & 31;
    if (tail !== 0) this.words[this.words.length - 1]! &= (1 << tail) - 1;
  }

  /** Marks row `i` deleted; false if it already was. */
  set(i: number): boolean {
    if (i < 0 || i >= this.rowCount) throw new RangeError(`row ${i} outside a segment of ${this.rowCount} rows`);
    const bit = 1 << (i & 31);
    const w = i >>> 5;
    if (this.words[w]! & bit) return false;
    this.words[w]! |= bit;
    this.deleted++;
    this.dirty.add(Math.floor(i / ROWS_PER_CHUNK));
    return true;
  }

  /** Undoes set(i) (a transaction that failed after marking). */
  unset(i: number): void {
    const bit = 1 << (i & 31);
    const w = i >>> 5;
    if (!(this.words[w]! & bit)) return;
    this.words[w]! &= ~bit;
    this.deleted--;
    this.dirty.add(Math.floor(i / ROWS_PER_CHUNK));
  }

  test(i: number): boolean {
    return (this.words[i >>> 5]! & (1 << (i & 31))) !== 0;
  }

  /** Deleted rows. */
  count(): number {
    return this.deleted;
  }

  get liveCount(): number {
    return this.rowCount - this.deleted;
  }

  /** The whole bitmap, ceil(rows / 32) * 4 bytes (a copy). */
  toBytes(): Uint8Array {
    return new Uint8Array(this.words.buffer.slice(0));
  }

  /** Chunk `index` as persisted (the last one may be shorter). */
  chunk(index: number): Uint8Array {
    const bytes = new Uint8Array(this.words.buffer);
    return bytes.slice(index * CHUNK_BYTES, Math.min(bytes.length, (index + 1) * CHUNK_BYTES));
  }

  /** Chunks changed since the last call, to write in the transaction that made the change. */
  takeDirtyChunks(): { index: number; bytes: Uint8Array }[] {
    const out = [...this.dirty].sort((a, b) => a - b).map((index) => ({ index, bytes: this.chunk(index) }));
    this.dirty.clear();
    return out;
  }
}

/** Set bits in `words`. */
export function popcount(words: Int32Array): number {
  let n = 0;
  for (let i = 0; i < words.length; i++) {
    let v = words[i]!;
    if (v === 0) continue;
    v = v - ((v >>> 1) & 0x55555555);
    v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
    n += (Math.imul((v + (v >>> 4)) & 0x0f0f0f0f, 0x01010101) >>> 24) & 0xff;
  }
  return n;
}
