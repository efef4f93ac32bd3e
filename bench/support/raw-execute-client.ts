// A minimal native-protocol v4 client that prepares statements and pipelines EXECUTEs of them (stream ids, all the
// requests made in one tick written together). The throughput bench's `--raw-client` uses it: it costs about half
// the client CPU of cassandra-driver per request, so beside the driver's figures it tells how much of a latency
// tail is the server's and how much the load generator's on a machine both share.

import { connect, type Socket } from 'node:net';
import { stringMap } from './protocol-strings.js';

const OP_ERROR = 0x00;
const OP_STARTUP = 0x01;
const OP_READY = 0x02;
const OP_PREPARE = 0x09;
const OP_EXECUTE = 0x0a;
const HEADER = 9;
const RESULT_PREPARED = 0x0004;
const MAX_STREAMS = 32768;

type Callback = (err: Error | null, opcode: number, body: Buffer) => void;

export class RawExecuteClient {
  private pending: Buffer | undefined;
  private readonly callbacks: (Callback | undefined)[] = new Array(MAX_STREAMS);
  /** Free stream ids (0 is kept free: some servers treat it specially in events). */
  private readonly freeStreams: number[] = [];
  private corked = false;

  private constructor(private readonly socket: Socket) {
    for (let s = MAX_STREAMS - 1; s >= 1; s--) this.freeStreams.push(s);
    socket.setNoDelay(true);
    socket.on('data', (d: Buffer) => this.onData(d));
  }

  static async connect(port: number, host = '127.0.0.1'): Promise<RawExecuteClient> {
    const socket = await new Promise<Socket>((ok, fail) => {
      const s = connect(port, host, () => ok(s));
      s.once('error', fail);
    });
    const c = new RawExecuteClient(socket);
    socket.on('error', (e) => c.failAll(e));
    socket.on('close', () => c.failAll(new Error('connection closed')));
    const ready = await c.request(OP_STARTUP, stringMap({ CQL_VERSION: '3.0.0' }));
    if (ready.opcode !== OP_READY) throw new Error(`STARTUP answered with opcode ${ready.opcode}`);
    return c;
  }

  /** Prepares `cql`; resolves to the statement id. */
  async prepare(cql: string): Promise<Buffer> {
    const q = Buffer.from(cql, 'utf8');
    const body = Buffer.alloc(4 + q.length);
    body.writeInt32BE(q.length, 0);
    q.copy(body, 4);
    const { body: res } = await this.request(OP_PREPARE, body);
    if (res.readInt32BE(0) !== RESULT_PREPARED) throw new Error('PREPARE did not answer a prepared result');
    return Buffer.from(res.subarray(6, 6 + res.readUInt16BE(4)));
  }

  /**
   * EXECUTE of a prepared statement with its values as bytes, at consistency ONE and without result metadata;
   * `done` gets an Error for an ERROR answer (its message) or a closed connection.
   */
  execute(id: Buffer, values: readonly Buffer[], done: (err: Error | null) => void): void {
    let size = 2 + id.length + 2 + 1 + 2;
    for (const v of values) size += 4 + v.length;
    const body = Buffer.allocUnsafe(size);
    let o = body.writeUInt16BE(id.length, 0);
    o += id.copy(body, o);
    o = body.writeUInt16BE(0x0001, o); // ONE
    body[o++] = 0x01 | 0x02; // values, skip metadata
    o = body.writeUInt16BE(values.length, o);
    for (const v of values) {
      o = body.writeInt32BE(v.length, o);
      o += v.copy(body, o);
    }
    this.send(OP_EXECUTE, body, (err) => done(err));
  }

  close(): void {
    this.socket.destroy();
  }

  private request(opcode: number, body: Buffer): Promise<{ opcode: number; body: Buffer }> {
    return new Promise((ok, fail) => {
      this.send(opcode, body, (err, answer, res) => (err ? fail(err) : ok({ opcode: answer, body: res })));
    });
  }

  private send(opcode: number, body: Buffer, cb: Callback): void {
    const stream = this.freeStreams.pop();
    if (stream === undefined) {
      cb(new Error(`more than ${MAX_STREAMS - 1} requests outstanding`), OP_ERROR, body);
      return;
    }
    this.callbacks[stream] = cb;
    const h = Buffer.allocUnsafe(HEADER);
    h[0] = 4;
    h[1] = 0;
    h.writeInt16BE(stream, 2);
    h[4] = opcode;
    h.writeInt32BE(body.length, 5);
    // Everything sent in this tick leaves in one write.
    if (!this.corked) {
      this.corked = true;
      this.socket.cork();
      process.nextTick(() => {
        this.corked = false;
        this.socket.uncork();
      });
    }
    this.socket.write(h);
    this.socket.write(body);
  }

  private onData(d: Buffer): void {
    let buf = this.pending ? Buffer.concat([this.pending, d]) : d;
    let o = 0;
    while (buf.length - o >= HEADER) {
      const length = buf.readInt32BE(o + 5);
      if (buf.length - o < HEADER + length) break;
      const stream = buf.readInt16BE(o + 2);
      const opcode = buf[o + 4]!;
      const body = buf.subarray(o + HEADER, o + HEADER + length);
      o += HEADER + length;
      const cb = stream > 0 ? this.callbacks[stream] : undefined;
      if (!cb) continue; // an event, or an answer nobody waits for
      this.callbacks[stream] = undefined;
      this.freeStreams.push(stream);
      if (opcode === OP_ERROR) {
        cb(new Error(`server error 0x${body.readInt32BE(0).toString(16)}: ${errorMessage(body)}`), opcode, body);
      } else cb(null, opcode, body);
    }
    buf = buf.subarray(o);
    this.pending = buf.length > 0 ? Buffer.from(buf) : undefined;
  }

  private failAll(e: Error): void {
    for (let s = 1; s < MAX_STREAMS; s++) {
      const cb = this.callbacks[s];
      if (!cb) continue;
      this.callbacks[s] = undefined;
      this.freeStreams.push(s);
      cb(e, OP_ERROR, Buffer.alloc(0));
    }
  }
}

/** The [string] message after an ERROR body's code. */
function errorMessage(body: Buffer): string {
  const n = body.readUInt16BE(4);
  return body.toString('utf8', 6, 6 + n);
}
