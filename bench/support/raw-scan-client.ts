// A minimal native-protocol v4 client that pages through a query and counts the rows without decoding them: how
// fast the server delivers a scan when the client costs (almost) nothing, beside the npm driver's figure, whose
// per-row decoding bounds it.

import { connect, type Socket } from 'node:net';
import { stringMap } from './protocol-strings.js';

const OP_STARTUP = 0x01;
const OP_READY = 0x02;
const OP_QUERY = 0x07;
const OP_RESULT = 0x08;
const HEADER = 9;

export class RawScanClient {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private waiter: (() => void) | undefined;

  private constructor(private readonly socket: Socket) {
    socket.on('data', (d: Buffer) => {
      this.chunks.push(d);
      this.buffered += d.length;
      this.waiter?.();
    });
  }

  static async connect(port: number): Promise<RawScanClient> {
    const socket = await new Promise<Socket>((ok, fail) => {
      const s = connect(port, '127.0.0.1', () => ok(s));
      s.once('error', fail);
    });
    const c = new RawScanClient(socket);
    const ready = await c.request(OP_STARTUP, stringMap({ CQL_VERSION: '3.0.0' }));
    if (ready.opcode !== OP_READY) throw new Error(`STARTUP answered with opcode ${ready.opcode}`);
    return c;
  }

  private take(n: number): Buffer {
    const all = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, this.buffered);
    const out = all.subarray(0, n);
    const rest = all.subarray(n);
    this.chunks = rest.length > 0 ? [rest] : [];
    this.buffered = rest.length;
    return out;
  }

  private async need(n: number): Promise<void> {
    while (this.buffered < n) {
      await new Promise<void>((ok) => {
        this.waiter = ok;
      });
      this.waiter = undefined;
    }
  }

  private async request(opcode: number, body: Buffer): Promise<{ opcode: number; body: Buffer }> {
    const h = Buffer.alloc(HEADER);
    h[0] = 4;
    h.writeInt16BE(1, 2);
    h[4] = opcode;
    h.writeInt32BE(body.length, 5);
    this.socket.write(Buffer.concat([h, body]));
    await this.need(HEADER);
    const head = this.take(HEADER);
    const length = head.readInt32BE(5);
    await this.need(length);
    return { opcode: head[4]!, body: this.take(length) };
  }

  /** Pages through `cql` (no bound values); returns the number of rows. */
  async scan(cql: string, pageSize: number): Promise<number> {
    const q = Buffer.from(cql, 'utf8');
    let state: Buffer | null = null;
    let rows = 0;
    do {
      const head = Buffer.alloc(4 + q.length + 2 + 1 + 4);
      head.writeInt32BE(q.length, 0);
      q.copy(head, 4);
      let o = 4 + q.length;
      o = head.writeUInt16BE(1, o); // consistency ONE
      head[o++] = state ? 0x0c : 0x04; // page size, paging state
      head.writeInt32BE(pageSize, o);
      const body: Buffer = state ? Buffer.concat([head, lengthPrefixed(state)]) : head;
      const res = await this.request(OP_QUERY, body);
      if (res.opcode !== OP_RESULT) throw new Error(`query answered with opcode ${res.opcode}`);
      const page = parseRowsHeader(res.body);
      rows += page.rows;
      state = page.pagingState;
    } while (state);
    return rows;
  }

  close(): void {
    this.socket.destroy();
  }
}

function lengthPrefixed(b: Buffer): Buffer {
  const out = Buffer.alloc(4 + b.length);
  out.writeInt32BE(b.length, 0);
  b.copy(out, 4);
  return out;
}

/** The row count and paging state of a ROWS body (metadata skipped; the cells are not read). */
function parseRowsHeader(b: Buffer): { rows: number; pagingState: Buffer | null } {
  let o = 4; // kind
  const flags = b.readInt32BE(o);
  const columns = b.readInt32BE(o + 4);
  o += 8;
  let pagingState: Buffer | null = null;
  if (flags & 0x02) {
    const n = b.readInt32BE(o);
    pagingState = Buffer.from(b.subarray(o + 4, o + 4 + n));
    o += 4 + n;
  }
  if (!(flags & 0x04)) {
    const str = () => {
      o += 2 + b.readUInt16BE(o);
    };
    const type = (): void => {
      const id = b.readUInt16BE(o);
      o += 2;
      if (id === 0x0000) str();
      else if (id === 0x0020 || id === 0x0022) type();
      else if (id === 0x0021) {
        type();
        type();
      } else if (id === 0x0030) {
        str();
        str();
        const n = b.readUInt16BE(o);
        o += 2;
        for (let i = 0; i < n; i++) {
          str();
          type();
        }
      } else if (id === 0x0031) {
        const n = b.readUInt16BE(o);
        o += 2;
        for (let i = 0; i < n; i++) type();
      }
    };
    if (flags & 0x01) {
      str();
      str();
    }
    for (let c = 0; c < columns; c++) {
      if (!(flags & 0x01)) {
        str();
        str();
      }
      str();
      type();
    }
  }
  return { rows: b.readInt32BE(o), pagingState };
}
