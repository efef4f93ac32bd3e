// The twin buffer's record format: each record holds entries back to back, each
// [u32 key length | twin key | u32 value length | value] (see twin-buffer.ts); parsing and building records.

import { PoolError } from '../native-pool.js';
import { BufferEntry } from './buffer-entry.js';
import type { RecordArena } from './record-arena.js';
import { copyBytes } from './twin-key-compare.js';

/**
 * Walks a record's entries (`[u32 key length][key][u32 value length][value]`...), by offsets, in order: up to
 * `limit` of them from byte `at` on. Returns where the next entry starts.
 */
export function walkRecord(
  rec: Buffer,
  visit: (k0: number, k1: number, v0: number, v1: number) => void,
  at = 0,
  limit = Number.POSITIVE_INFINITY,
): number {
  for (let n = 0; n < limit && at < rec.length; n++) {
    if (at + 4 > rec.length) throw damaged();
    const kl = rec.readUInt32BE(at);
    const k0 = at + 4;
    if (k0 + kl + 4 > rec.length) throw damaged();
    const vl = rec.readUInt32BE(k0 + kl);
    const v0 = k0 + kl + 4;
    if (v0 + vl > rec.length) throw damaged();
    visit(k0, k0 + kl, v0, v0 + vl);
    at = v0 + vl;
  }
  return at;
}

/** Decodes up to `limit` entries of a record from byte `at` on (no views); returns where the next one starts. */
export function decodeEntriesFrom(rec: Buffer, at: number, limit: number, out: BufferEntry[]): number {
  return walkRecord(rec, (k0, k1, v0, v1) => out.push(new BufferEntry(rec, k0, k1, v0, v1)), at, limit);
}

/** Builds one record (one batch's buffer changes) in place. */
export class BufferRecordBuilder {
  private buf = Buffer.allocUnsafe(1024);
  length = 0;
  entries = 0;
  /** Where the key of the last appendRow is (see lastKey). */
  private lastKeyAt = 0;
  private lastKeyEnd = 0;

  private reserve(n: number): void {
    if (this.length + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.length + n));
    this.buf.copy(grown, 0, 0, this.length);
    this.buf = grown;
  }

  /**
   * Appends the entry of a row: its twin key [token | u16 pk length | pk | row key] is written from the
   * partitions-map key [token | pk] and the row key. Returns the key's length; lastKey() makes a view of it (a view
   * costs more than the copy, and the write path rarely needs one).
   */
  appendRow(mapKey: Buffer, rowKey: Buffer, value: Buffer): number {
    const pkLen = mapKey.length - 8;
    const kl = 10 + pkLen + rowKey.length;
    this.reserve(8 + kl + value.length);
    const b = this.buf;
    const at = this.length;
    b.writeUInt32BE(kl, at);
    const k0 = at + 4;
    copyBytes(mapKey, b, k0, 0, 8);
    b[k0 + 8] = pkLen >>> 8;
    b[k0 + 9] = pkLen & 0xff;
    copyBytes(mapKey, b, k0 + 10, 8);
    copyBytes(rowKey, b, k0 + 10 + pkLen);
    this.finish(k0 + kl, value);
    this.lastKeyAt = k0;
    this.lastKeyEnd = k0 + kl;
    return kl;
  }

  /** A view of the key of the last appendRow (valid until the next append). */
  lastKey(): Buffer {
    return this.buf.subarray(this.lastKeyAt, this.lastKeyEnd);
  }

  /** Appends a copy of another record's entry. */
  appendEntry(e: BufferEntry): void {
    const kl = e.keyEnd - e.keyAt;
    const vl = e.valueEnd - e.valueAt;
    this.reserve(8 + kl + vl);
    const b = this.buf;
    b.writeUInt32BE(kl, this.length);
    copyBytes(e.rec, b, this.length + 4, e.keyAt, e.keyEnd);
    const at = this.length + 4 + kl;
    b.writeUInt32BE(vl, at);
    copyBytes(e.rec, b, at + 4, e.valueAt, e.valueEnd);
    this.length = at + 4 + vl;
    this.entries++;
  }

  append(key: Buffer, value: Buffer): void {
    this.reserve(8 + key.length + value.length);
    this.buf.writeUInt32BE(key.length, this.length);
    copyBytes(key, this.buf, this.length + 4);
    this.finish(this.length + 4 + key.length, value);
  }

  private finish(at: number, value: Buffer): void {
    const b = this.buf;
    b.writeUInt32BE(value.length, at);
    copyBytes(value, b, at + 4);
    this.length = at + 4 + value.length;
    this.entries++;
  }

  /** The entries so far (views of the builder's bytes). */
  visitEntries(visit: (key: Buffer, value: Buffer) => void): void {
    decodeBufferRecord(this.buf.subarray(0, this.length), visit);
  }

  /** The record's bytes (a copy sized to fit, in `arena`: the builder's buffer is mostly slack). */
  bytes(arena: RecordArena): Buffer {
    return arena.copy(this.buf, 0, this.length);
  }

  clear(): void {
    this.length = 0;
    this.entries = 0;
  }
}

/** The entries of a record, as views of its bytes, in order. */
function decodeBufferRecord(rec: Buffer, visit: (key: Buffer, value: Buffer) => void): void {
  walkRecord(rec, (k0, k1, v0, v1) => visit(rec.subarray(k0, k1), rec.subarray(v0, v1)));
}

function damaged(): PoolError {
  return new PoolError('POOL_CORRUPT', 'an Arrow twin buffer record is damaged');
}
