// A growable byte buffer of native-protocol `[bytes]` cells (int32 length, then the value; -1 = null): the body of a
// ROWS result written straight from Arrow columns by columnar scans, with no Buffer per value.

const MIN_CAPACITY = 64 * 1024;

export class WireCells {
  buf: Buffer;
  /** `buf` as a DataView: fixed-width cells are written big-endian with it (one store a word, not a byte). */
  view: DataView;
  pos = 0;

  constructor(capacity = MIN_CAPACITY) {
    this.buf = Buffer.allocUnsafe(Math.max(16, capacity));
    this.view = new DataView(this.buf.buffer, this.buf.byteOffset, this.buf.length);
  }

  /** Room for `n` more bytes. */
  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    let cap = this.buf.length * 2;
    while (cap < this.pos + n) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, 0, this.pos);
    this.buf = next;
    this.view = new DataView(next.buffer, next.byteOffset, next.length);
  }

  nullCell(): void {
    this.ensure(4);
    this.buf.writeInt32BE(-1, this.pos);
    this.pos += 4;
  }

  /** A cell from bytes already in CQL form (null = null cell). */
  bytesCell(b: Uint8Array | null): void {
    if (b === null) {
      this.nullCell();
      return;
    }
    this.ensure(4 + b.length);
    this.buf.writeInt32BE(b.length, this.pos);
    this.buf.set(b, this.pos + 4);
    this.pos += 4 + b.length;
  }

  /** The cells written so far (a view of this buffer: copy or stop writing before reusing it). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}
