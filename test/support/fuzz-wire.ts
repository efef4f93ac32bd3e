// The fuzz and robustness tests' wire pieces: test/support/wire-client.ts's frame and segment building, with
// lz4 segments compressed by the server's own block compressor (the decoders are what is under test), plus
// RawClient, a v3/v4 frame client for the robustness tests against the real server.
import { connect, type Socket } from 'node:net';
import { lz4CompressBlock } from '../../server/lz4-compression.js';
import {
  type Frame,
  frameBytes,
  Op,
  queryBody,
  startupBody,
  largeEnvelopeSegments as wireLargeEnvelopeSegments,
  segmentBytes as wireSegmentBytes,
} from './wire-client.js';

export * from './wire-client.js';

/** One segment around `payload` (plain, or lz4 by the server's compressor when `compress`). */
export function segmentBytes(payload: Buffer, selfContained: boolean, compress = false): Buffer {
  return wireSegmentBytes(payload, selfContained, compress, lz4CompressBlock);
}

/** Splits one envelope over non-self-contained segments, lz4 by the server's compressor when `compress`. */
export function largeEnvelopeSegments(envelope: Buffer, compress = false): Buffer[] {
  return wireLargeEnvelopeSegments(envelope, compress, lz4CompressBlock);
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
