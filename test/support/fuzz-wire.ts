// Frame and segment building for the fuzz and robustness tests: the encoding half of
// test/support/wire-client.ts without its lz4js dependency (lz4 segments are compressed with the
// server's own block compressor: the decoders are what is under test), plus RawClient, a v3/v4
// frame client for the robustness tests against the real server.
import { connect, type Socket } from 'node:net';
import { crc32 } from 'node:zlib';
import { lz4CompressBlock } from '../../server/lz4-compression.js';

export const Op = {
  ERROR: 0x00,
  STARTUP: 0x01,
  READY: 0x02,
  AUTHENTICATE: 0x03,
  OPTIONS: 0x05,
  SUPPORTED: 0x06,
  QUERY: 0x07,
  RESULT: 0x08,
  PREPARE: 0x09,
  EXECUTE: 0x0a,
  REGISTER: 0x0b,
  EVENT: 0x0c,
  BATCH: 0x0d,
} as const;

export interface Frame {
  version: number;
  flags: number;
  stream: number;
  opcode: number;
  body: Buffer;
}

// ---- body building

export function str(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  const out = Buffer.alloc(2 + b.length);
  out.writeUInt16BE(b.length, 0);
  b.copy(out, 2);
  return out;
}

export function longStr(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  const out = Buffer.alloc(4 + b.length);
  out.writeInt32BE(b.length, 0);
  b.copy(out, 4);
  return out;
}

export function short(n: number): Buffer {
  const out = Buffer.alloc(2);
  out.writeUInt16BE(n, 0);
  return out;
}

export function int(n: number): Buffer {
  const out = Buffer.alloc(4);
  out.writeInt32BE(n, 0);
  return out;
}

export function stringMap(m: Record<string, string>): Buffer {
  const parts = [short(Object.keys(m).length)];
  for (const [k, v] of Object.entries(m)) parts.push(str(k), str(v));
  return Buffer.concat(parts);
}

export function stringList(list: string[]): Buffer {
  return Buffer.concat([short(list.length), ...list.map(str)]);
}

export function startupBody(extra: Record<string, string> = {}): Buffer {
  return stringMap({ CQL_VERSION: '3.0.0', DRIVER_NAME: 'wire-client', DRIVER_VERSION: '0.0.1', ...extra });
}

/** QUERY body: <query><consistency ONE><flags>[values]; flags are an [int] from v5. */
export function queryBody(version: number, cql: string, values: Buffer[] = []): Buffer {
  const flags = values.length > 0 ? 0x01 : 0;
  const parts = [longStr(cql), short(1), version >= 5 ? int(flags) : Buffer.from([flags])];
  if (values.length > 0) {
    parts.push(short(values.length));
    for (const v of values) parts.push(int(v.length), v);
  }
  return Buffer.concat(parts);
}

export function frameBytes(version: number, stream: number, opcode: number, body: Buffer, flags = 0): Buffer {
  if (version <= 2) {
    const h = Buffer.alloc(8);
    h[0] = version;
    h[1] = flags;
    h[2] = stream & 0xff;
    h[3] = opcode;
    h.writeInt32BE(body.length, 4);
    return Buffer.concat([h, body]);
  }
  const h = Buffer.alloc(9);
  h[0] = version;
  h[1] = flags;
  h.writeInt16BE(stream, 2);
  h[4] = opcode;
  h.writeInt32BE(body.length, 5);
  return Buffer.concat([h, body]);
}

// ---- body reading

export class Reader {
  constructor(
    readonly b: Buffer,
    public at = 0,
  ) {}
  int(): number {
    const v = this.b.readInt32BE(this.at);
    this.at += 4;
    return v;
  }
  short(): number {
    const v = this.b.readUInt16BE(this.at);
    this.at += 2;
    return v;
  }
  string(): string {
    const n = this.short();
    const s = this.b.toString('utf8', this.at, this.at + n);
    this.at += n;
    return s;
  }
  stringList(): string[] {
    const n = this.short();
    return Array.from({ length: n }, () => this.string());
  }
  bytes(): Buffer | null {
    const n = this.int();
    if (n < 0) return null;
    const v = this.b.subarray(this.at, this.at + n);
    this.at += n;
    return v;
  }
}

export function parseError(body: Buffer): { code: number; message: string } {
  const r = new Reader(body);
  return { code: r.int(), message: r.string() };
}

export function parseSupported(body: Buffer): Map<string, string[]> {
  const r = new Reader(body);
  const n = r.short();
  const out = new Map<string, string[]>();
  for (let i = 0; i < n; i++) out.set(r.string(), r.stringList());
  return out;
}

/** Rows result: column names and rows of raw values (assumes the metadata is present). */
export function parseRows(body: Buffer): { columns: string[]; rows: (Buffer | null)[][] } {
  const r = new Reader(body);
  const kind = r.int();
  if (kind !== 2) throw new Error(`not a Rows result: kind ${kind}`);
  const flags = r.int();
  const count = r.int();
  if (flags & 0x02) r.bytes();
  if (flags & 0x08) {
    const n = r.short();
    r.at += n;
  }
  const columns: string[] = [];
  if (!(flags & 0x04)) {
    if (flags & 0x01) {
      r.string();
      r.string();
    }
    for (let i = 0; i < count; i++) {
      if (!(flags & 0x01)) {
        r.string();
        r.string();
      }
      columns.push(r.string());
      skipOption(r);
    }
  }
  const rowCount = r.int();
  const rows: (Buffer | null)[][] = [];
  for (let i = 0; i < rowCount; i++) rows.push(Array.from({ length: count }, () => r.bytes()));
  return { columns, rows };
}

function skipOption(r: Reader): void {
  const id = r.short();
  if (id === 0x0000) r.string();
  else if (id === 0x0020 || id === 0x0022) skipOption(r);
  else if (id === 0x0021) {
    skipOption(r);
    skipOption(r);
  } else if (id === 0x0030) {
    r.string();
    r.string();
    const n = r.short();
    for (let i = 0; i < n; i++) {
      r.string();
      skipOption(r);
    }
  } else if (id === 0x0031) {
    const n = r.short();
    for (let i = 0; i < n; i++) skipOption(r);
  }
}

// ---- v5 segments

export function crc24(bytes: Uint8Array): number {
  let crc = 0x875060;
  for (const byte of bytes) {
    crc ^= byte << 16;
    for (let i = 0; i < 8; i++) {
      crc <<= 1;
      if (crc & 0x1000000) crc ^= 0x1974f0b;
    }
  }
  return crc;
}

const SEED = crc32(Buffer.from([0xfa, 0x2d, 0x55, 0xca]));
export function payloadCrc(payload: Uint8Array): number {
  return crc32(payload, SEED);
}

/** One segment around `payload` (plain, or lz4 when `compress`). */
export function segmentBytes(payload: Buffer, selfContained: boolean, compress = false): Buffer {
  if (!compress) {
    const header = Buffer.alloc(6);
    const h = payload.length | (selfContained ? 1 << 17 : 0);
    header.writeUIntLE(h, 0, 3);
    header.writeUIntLE(crc24(header.subarray(0, 3)), 3, 3);
    const trailer = Buffer.alloc(4);
    trailer.writeUInt32LE(payloadCrc(payload), 0);
    return Buffer.concat([header, payload, trailer]);
  }
  const packed = lz4CompressBlock(payload);
  const useRaw = packed.length >= payload.length;
  const body = useRaw ? payload : packed;
  const uncompressed = useRaw ? 0 : payload.length;
  const header = Buffer.alloc(8);
  const h = body.length + uncompressed * 2 ** 17 + (selfContained ? 2 ** 34 : 0);
  header.writeUIntLE(h, 0, 5);
  header.writeUIntLE(crc24(header.subarray(0, 5)), 5, 3);
  const trailer = Buffer.alloc(4);
  trailer.writeUInt32LE(payloadCrc(body), 0);
  return Buffer.concat([header, body, trailer]);
}

/** Splits one envelope over non-self-contained segments of at most 128 KiB - 1. */
export function largeEnvelopeSegments(envelope: Buffer, compress = false): Buffer[] {
  const max = 128 * 1024 - 1;
  const out: Buffer[] = [];
  for (let at = 0; at < envelope.length; at += max) {
    out.push(segmentBytes(envelope.subarray(at, Math.min(envelope.length, at + max)), false, compress));
  }
  return out;
}

// ---- a raw v3/v4 client

export class RawClient {
  private buf = Buffer.alloc(0);
  private frames: Frame[] = [];
  private waiters: (() => void)[] = [];
  closed = false;

  private constructor(readonly socket: Socket) {
    socket.on('data', (d) => {
      this.buf = this.buf.length === 0 ? d : Buffer.concat([this.buf, d]);
      this.parse();
      this.wake();
    });
    const done = () => {
      this.closed = true;
      this.wake();
    };
    socket.on('close', done);
    socket.on('end', done);
    socket.on('error', done);
  }

  static async connect(host: string, port: number): Promise<RawClient> {
    return await new Promise((resolve, reject) => {
      const s = connect(port, host, () => resolve(new RawClient(s)));
      s.once('error', reject);
    });
  }

  /** Connects and sends STARTUP (v4 unless told). */
  static async ready(host: string, port: number, version = 4): Promise<RawClient> {
    const c = await RawClient.connect(host, port);
    const f = await c.request(version, 0, Op.STARTUP, startupBody());
    if (f.opcode !== Op.READY) throw new Error(`STARTUP answered with opcode ${f.opcode}`);
    return c;
  }

  write(bytes: Buffer): boolean {
    return this.socket.write(bytes);
  }

  send(version: number, stream: number, opcode: number, body: Buffer = Buffer.alloc(0), flags = 0): void {
    this.write(frameBytes(version, stream, opcode, body, flags));
  }

  async request(version: number, stream: number, opcode: number, body?: Buffer, timeoutMs = 10_000): Promise<Frame> {
    this.send(version, stream, opcode, body);
    return await this.response(stream, timeoutMs);
  }

  async query(stream: number, cql: string, values: Buffer[] = [], timeoutMs = 10_000): Promise<Frame> {
    return await this.request(4, stream, Op.QUERY, queryBody(4, cql, values), timeoutMs);
  }

  async response(stream: number, timeoutMs = 10_000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.frames.findIndex((f) => f.stream === stream);
      if (i >= 0) return this.frames.splice(i, 1)[0]!;
      if (this.closed) throw new Error('connection closed');
      const left = deadline - Date.now();
      if (left <= 0) throw new Error(`timed out waiting for stream ${stream}`);
      await new Promise<void>((resolve) => {
        const t = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(t);
          resolve();
        });
      });
    }
  }

  close(): void {
    this.socket.destroy();
  }

  private wake(): void {
    const w = this.waiters;
    this.waiters = [];
    for (const f of w) f();
  }

  private parse(): void {
    for (;;) {
      const b = this.buf;
      if (b.length < 9) return;
      const length = b.readInt32BE(5);
      if (b.length < 9 + length) return;
      this.frames.push({
        version: b[0]! & 0x7f,
        flags: b[1]!,
        stream: b.readInt16BE(2),
        opcode: b[4]!,
        body: Buffer.from(b.subarray(9, 9 + length)),
      });
      this.buf = b.subarray(9 + length);
    }
  }
}
