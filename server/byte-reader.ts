// Reads the native protocol's notations ([int], [string], [value], ...) from a frame body.
// Byte values come back as subarrays of the body: no copies on the request path.

import { ProtocolError } from '../cql/errors.js';
import { type BoundValue, UNSET } from '../cql/query-handler.js';

export class ByteReader {
  buf: Buffer;
  offset: number;
  end: number;

  constructor(buf: Buffer, start = 0, end = buf.length) {
    this.buf = buf;
    this.offset = start;
    this.end = end;
  }

  /** Points the reader at another body (one reader serves every request of a connection). */
  reset(buf: Buffer, start = 0, end = buf.length): this {
    this.buf = buf;
    this.offset = start;
    this.end = end;
    return this;
  }

  get remaining(): number {
    return this.end - this.offset;
  }

  private need(n: number): void {
    if (this.offset + n > this.end) {
      throw new ProtocolError(`Not enough bytes to read: need ${n}, have ${this.end - this.offset}`);
    }
  }

  byte(): number {
    this.need(1);
    return this.buf[this.offset++]!;
  }

  short(): number {
    this.need(2);
    const v = this.buf.readUInt16BE(this.offset);
    this.offset += 2;
    return v;
  }

  int(): number {
    this.need(4);
    const v = this.buf.readInt32BE(this.offset);
    this.offset += 4;
    return v;
  }

  long(): bigint {
    this.need(8);
    const v = this.buf.readBigInt64BE(this.offset);
    this.offset += 8;
    return v;
  }

  string(): string {
    const n = this.short();
    this.need(n);
    const s = this.buf.toString('utf8', this.offset, this.offset + n);
    this.offset += n;
    return s;
  }

  longString(): string {
    const n = this.int();
    if (n < 0) throw new ProtocolError(`Invalid length for long string: ${n}`);
    this.need(n);
    const s = this.buf.toString('utf8', this.offset, this.offset + n);
    this.offset += n;
    return s;
  }

  stringList(): string[] {
    const n = this.short();
    const out = new Array<string>(n);
    for (let i = 0; i < n; i++) out[i] = this.string();
    return out;
  }

  stringMap(): Map<string, string> {
    const n = this.short();
    const out = new Map<string, string>();
    for (let i = 0; i < n; i++) {
      const k = this.string();
      out.set(k, this.string());
    }
    return out;
  }

  /** [bytes]: negative length is null. */
  bytes(): Buffer | null {
    const n = this.int();
    if (n < 0) return null;
    this.need(n);
    const v = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }

  shortBytes(): Buffer {
    const n = this.short();
    this.need(n);
    const v = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }

  /** [value]: -1 is null, -2 is unset (v4+); before v4 any negative length is null. */
  value(version: number): BoundValue {
    const n = this.int();
    if (n < 0) {
      if (n === -1 || version < 4) return null;
      if (n === -2) return UNSET;
      throw new ProtocolError(`Invalid length for value: ${n}`);
    }
    this.need(n);
    const v = this.buf.subarray(this.offset, this.offset + n);
    this.offset += n;
    return v;
  }

  /** [bytes map]: only skipped (custom payloads are ignored, as by Cassandra's default handler). */
  skipBytesMap(): void {
    const n = this.short();
    for (let i = 0; i < n; i++) {
      this.skip(this.short());
      const len = this.int();
      if (len > 0) this.skip(len);
    }
  }

  skip(n: number): void {
    this.need(n);
    this.offset += n;
  }
}
