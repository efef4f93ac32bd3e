// A deliberately minimal native-protocol client for protocol tests, written from the spec and
// independent of server/: raw frames (v1..v5 headers), v5 segments (CRC24/CRC32, lz4), and
// just enough message encoding to drive a server (STARTUP, OPTIONS, QUERY, REGISTER).
import { connect, type Socket } from 'node:net';
import { crc32 } from 'node:zlib';
import lz4 from 'lz4js';
import { shortString as str, stringMap } from '../../bench/support/protocol-strings.js';

export { str, stringMap };

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

/** Raw lz4 block compression; a result no shorter than the input means "send it uncompressed". */
export type BlockCompressor = (payload: Buffer) => Buffer;

function lz4jsCompressBlock(payload: Buffer): Buffer {
  const dst = new Uint8Array(lz4.compressBound(payload.length));
  const n = lz4.compressBlock(payload, dst, 0, payload.length, new Uint32Array(1 << 16));
  return n === 0 ? payload : Buffer.from(dst.subarray(0, n));
}

/** One segment around `payload` (plain, or lz4 when `compress`). */
export function segmentBytes(
  payload: Buffer,
  selfContained: boolean,
  compress = false,
  compressBlock: BlockCompressor = lz4jsCompressBlock,
): Buffer {
  if (!compress) {
    const header = Buffer.alloc(6);
    const h = payload.length | (selfContained ? 1 << 17 : 0);
    header.writeUIntLE(h, 0, 3);
    header.writeUIntLE(crc24(header.subarray(0, 3)), 3, 3);
    const trailer = Buffer.alloc(4);
    trailer.writeUInt32LE(payloadCrc(payload), 0);
    return Buffer.concat([header, payload, trailer]);
  }
  const packed = compressBlock(payload);
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
export function largeEnvelopeSegments(
  envelope: Buffer,
  compress = false,
  compressBlock: BlockCompressor = lz4jsCompressBlock,
): Buffer[] {
  const max = 128 * 1024 - 1;
  const out: Buffer[] = [];
  for (let at = 0; at < envelope.length; at += max) {
    out.push(segmentBytes(envelope.subarray(at, Math.min(envelope.length, at + max)), false, compress, compressBlock));
  }
  return out;
}

function decodeLz4(src: Uint8Array, length: number): Buffer {
  const dst = new Uint8Array(length);
  const n = (
    lz4 as unknown as { decompressBlock(s: Uint8Array, d: Uint8Array, si: number, sl: number, di: number): number }
  ).decompressBlock(src, dst, 0, src.length, 0);
  if (n !== length) throw new Error(`lz4: got ${n} bytes, expected ${length}`);
  return Buffer.from(dst);
}

// ---- the client

export class WireClient {
  private buf = Buffer.alloc(0);
  private frames: Frame[] = [];
  private waiters: (() => void)[] = [];
  private segmentMode: 'none' | 'plain' | 'lz4' = 'none';
  private large: Buffer[] = [];
  closed = false;
  /** Resolves when the server closes the connection. */
  readonly closedPromise: Promise<void>;

  private constructor(readonly socket: Socket) {
    socket.on('data', (d) => {
      this.buf = Buffer.concat([this.buf, d]);
      this.parse();
      this.wake();
    });
    this.closedPromise = new Promise((resolve) => {
      const done = () => {
        this.closed = true;
        this.wake();
        resolve();
      };
      socket.on('end', done);
      socket.on('close', done);
      socket.on('error', done);
    });
  }

  static async connect(host: string, port: number): Promise<WireClient> {
    return await new Promise((resolve, reject) => {
      const s = connect(port, host, () => resolve(new WireClient(s)));
      s.once('error', reject);
    });
  }

  /** From now on, read responses as v5 segments. */
  useSegments(lz4Compressed: boolean): void {
    this.segmentMode = lz4Compressed ? 'lz4' : 'plain';
    this.parse();
  }

  write(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  send(version: number, stream: number, opcode: number, body: Buffer = Buffer.alloc(0), flags = 0): void {
    this.write(frameBytes(version, stream, opcode, body, flags));
  }

  /** Sends envelopes in one self-contained segment. */
  sendSegment(envelopes: Buffer[], compress = false): void {
    this.write(segmentBytes(Buffer.concat(envelopes), true, compress));
  }

  /** The next frame, whatever its stream. */
  async next(timeoutMs = 5000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    while (this.frames.length === 0) await this.waitForData(deadline);
    return this.frames.shift()!;
  }

  /** The next frame on `stream` (frames of other streams stay queued). */
  async response(stream: number, timeoutMs = 5000): Promise<Frame> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const i = this.frames.findIndex((f) => f.stream === stream);
      if (i >= 0) return this.frames.splice(i, 1)[0]!;
      await this.waitForData(deadline);
    }
  }

  private async waitForData(deadline: number): Promise<void> {
    if (this.closed) throw new Error('connection closed');
    const left = deadline - Date.now();
    if (left <= 0) throw new Error('timed out waiting for a frame');
    await new Promise<void>((resolve) => {
      const t = setTimeout(resolve, left);
      this.waiters.push(() => {
        clearTimeout(t);
        resolve();
      });
    });
  }

  async request(version: number, stream: number, opcode: number, body?: Buffer, flags = 0): Promise<Frame> {
    this.send(version, stream, opcode, body, flags);
    return await this.response(stream);
  }

  /** Waits until the server closes the connection; false on timeout. */
  async waitClosed(timeoutMs = 5000): Promise<boolean> {
    if (this.closed) return true;
    return await Promise.race([
      this.closedPromise.then(() => true),
      new Promise<boolean>((resolve) => setTimeout(() => resolve(false), timeoutMs)),
    ]);
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
      if (this.segmentMode === 'none') {
        if (!this.parseFrame()) return;
      } else if (!this.parseSegment()) return;
    }
  }

  private parseFrame(): boolean {
    const b = this.buf;
    if (b.length < 1) return false;
    const version = b[0]! & 0x7f;
    const headerLength = version <= 2 ? 8 : 9;
    if (b.length < headerLength) return false;
    const length = b.readInt32BE(headerLength - 4);
    if (length < 0) throw new Error(`negative frame length ${length} from the server`);
    if (b.length < headerLength + length) return false;
    this.frames.push({
      version,
      flags: b[1]!,
      stream: version <= 2 ? b.readInt8(2) : b.readInt16BE(2),
      opcode: b[headerLength - 5]!,
      body: Buffer.from(b.subarray(headerLength, headerLength + length)),
    });
    this.buf = b.subarray(headerLength + length);
    return true;
  }

  private parseSegment(): boolean {
    const b = this.buf;
    const lz = this.segmentMode === 'lz4';
    const hl = lz ? 8 : 6;
    if (b.length < hl) return false;
    let length: number;
    let uncompressed = 0;
    let selfContained: boolean;
    const h = b.readUIntLE(0, lz ? 5 : 3);
    const crc = b.readUIntLE(lz ? 5 : 3, 3);
    if (crc !== crc24(b.subarray(0, lz ? 5 : 3))) throw new Error('bad header crc from server');
    if (lz) {
      length = h % 2 ** 17;
      uncompressed = Math.floor(h / 2 ** 17) % 2 ** 17;
      selfContained = Math.floor(h / 2 ** 34) % 2 === 1;
    } else {
      length = h & 0x1ffff;
      selfContained = (h & (1 << 17)) !== 0;
    }
    if (b.length < hl + length + 4) return false;
    let payload = b.subarray(hl, hl + length);
    if (b.readUInt32LE(hl + length) !== payloadCrc(payload)) throw new Error('bad payload crc from server');
    if (uncompressed > 0) payload = decodeLz4(payload, uncompressed);
    this.buf = b.subarray(hl + length + 4);
    if (selfContained) {
      let at = 0;
      while (at < payload.length) at += this.takeEnvelope(payload, at);
    } else {
      this.large.push(Buffer.from(payload));
      const all = Buffer.concat(this.large);
      if (all.length >= 9 && all.length >= 9 + all.readInt32BE(5)) {
        this.large = [];
        this.takeEnvelope(all, 0);
      }
    }
    return true;
  }

  private takeEnvelope(p: Buffer, at: number): number {
    const length = p.readInt32BE(at + 5);
    this.frames.push({
      version: p[at]! & 0x7f,
      flags: p[at + 1]!,
      stream: p.readInt16BE(at + 2),
      opcode: p[at + 4]!,
      body: Buffer.from(p.subarray(at + 9, at + 9 + length)),
    });
    return 9 + length;
  }
}
