// Writes the native protocol's notations into a growable buffer. Responses of one event-loop
// turn are encoded back to back; take() hands the bytes out without copying and the writer
// continues after them in the same backing buffer (a bump allocator), so a busy connection
// reuses one allocation for many turns.

const MIN_CAPACITY = 16 * 1024;

export class ByteWriter {
  buf: Buffer;
  /** Where the bytes not yet taken begin. */
  private start = 0;
  pos = 0;

  constructor(capacity = MIN_CAPACITY) {
    this.buf = Buffer.allocUnsafe(capacity);
  }

  /** Bytes written since the last take(). */
  get length(): number {
    return this.pos - this.start;
  }

  /** Offset relative to the last take(); stays valid when the backing buffer grows. */
  get mark(): number {
    return this.pos - this.start;
  }

  /** Absolute index into `buf` of a mark (valid until the next write that may grow). */
  at(mark: number): number {
    return this.start + mark;
  }

  patchInt(mark: number, v: number): void {
    this.buf.writeInt32BE(v | 0, this.start + mark);
  }

  /** A view of the bytes between two marks (valid until the next write that may grow). */
  view(from: number, to: number): Buffer {
    return this.buf.subarray(this.start + from, this.start + to);
  }

  ensure(n: number): void {
    if (this.pos + n <= this.buf.length) return;
    const used = this.pos - this.start;
    let cap = Math.max(MIN_CAPACITY, this.buf.length);
    while (cap < used + n) cap *= 2;
    const next = Buffer.allocUnsafe(cap);
    this.buf.copy(next, 0, this.start, this.pos);
    this.buf = next;
    this.start = 0;
    this.pos = used;
  }

  /** The pending bytes; the writer then starts fresh after them. */
  take(): Buffer {
    const out = this.buf.subarray(this.start, this.pos);
    // Leave the rest of the backing buffer to the next turn only if enough of it is left.
    if (this.buf.length - this.pos < 1024) {
      this.buf = Buffer.allocUnsafe(Math.max(MIN_CAPACITY, this.buf.length));
      this.pos = 0;
    }
    this.start = this.pos;
    return out;
  }

  /** Forgets the pending bytes (after they were copied elsewhere), keeping the memory. */
  reset(): void {
    this.pos = this.start;
  }

  /** Drops everything written since `mark`. */
  truncate(mark: number): void {
    this.pos = this.start + mark;
  }

  byte(v: number): void {
    this.ensure(1);
    this.buf[this.pos++] = v;
  }

  short(v: number): void {
    this.ensure(2);
    this.buf.writeUInt16BE(v & 0xffff, this.pos);
    this.pos += 2;
  }

  int(v: number): void {
    this.ensure(4);
    this.buf.writeInt32BE(v | 0, this.pos);
    this.pos += 4;
  }

  long(v: bigint): void {
    this.ensure(8);
    this.buf.writeBigInt64BE(v, this.pos);
    this.pos += 8;
  }

  raw(b: Uint8Array): void {
    this.ensure(b.length);
    this.buf.set(b, this.pos);
    this.pos += b.length;
  }

  string(s: string): void {
    const max = s.length * 3;
    this.ensure(2 + max);
    const n = this.buf.write(s, this.pos + 2, 'utf8');
    if (n > 0xffff) throw new RangeError(`String too long for [string]: ${n} bytes`);
    this.buf.writeUInt16BE(n, this.pos);
    this.pos += 2 + n;
  }

  longString(s: string): void {
    this.ensure(4 + s.length * 3);
    const n = this.buf.write(s, this.pos + 4, 'utf8');
    this.buf.writeInt32BE(n, this.pos);
    this.pos += 4 + n;
  }

  stringList(list: readonly string[]): void {
    this.short(list.length);
    for (let i = 0; i < list.length; i++) this.string(list[i]!);
  }

  /** [bytes]; null as length -1. */
  bytes(b: Uint8Array | null | undefined): void {
    if (b == null) {
      this.int(-1);
      return;
    }
    this.ensure(4 + b.length);
    this.buf.writeInt32BE(b.length, this.pos);
    this.buf.set(b, this.pos + 4);
    this.pos += 4 + b.length;
  }

  shortBytes(b: Uint8Array): void {
    this.short(b.length);
    this.raw(b);
  }

  /** [inetaddr] from a textual IPv4/IPv6 address. */
  inetAddr(address: string): void {
    const bytes = inetBytes(address);
    this.byte(bytes.length);
    this.raw(bytes);
  }

  /** [inet]: address then [int] port. */
  inet(address: string, port: number): void {
    this.inetAddr(address);
    this.int(port);
  }
}

/** 4 or 16 bytes of an IPv4 / IPv6 textual address (IPv4-mapped IPv6 becomes IPv4). */
export function inetBytes(address: string): Buffer {
  if (address.startsWith('::ffff:') && address.includes('.')) address = address.slice(7);
  if (!address.includes(':')) {
    const parts = address.split('.');
    const out = Buffer.alloc(4);
    for (let i = 0; i < 4; i++) out[i] = Number(parts[i] ?? 0) & 0xff;
    return out;
  }
  const out = Buffer.alloc(16);
  const [head, tail] = address.split('::') as [string, string | undefined];
  const headGroups = head ? head.split(':') : [];
  const tailGroups = tail ? tail.split(':') : [];
  const groups: number[] = [];
  for (const g of headGroups) groups.push(Number.parseInt(g, 16) || 0);
  const missing = 8 - headGroups.length - tailGroups.length;
  for (let i = 0; i < (tail === undefined ? 0 : missing); i++) groups.push(0);
  for (const g of tailGroups) groups.push(Number.parseInt(g, 16) || 0);
  for (let i = 0; i < 8; i++) out.writeUInt16BE(groups[i] ?? 0, i * 2);
  return out;
}
