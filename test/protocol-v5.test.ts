// Protocol v5 against the real server with a hand-written client: OPTIONS/STARTUP in plain
// frames, then segments (CRC24 header, CRC32 payload) both ways, several envelopes per
// self-contained segment, one envelope split over many segments, corrupt CRCs, lz4 segments.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';
import {
  frameBytes,
  largeEnvelopeSegments,
  Op,
  parseError,
  parseRows,
  parseSupported,
  queryBody,
  segmentBytes,
  startupBody,
  WireClient,
} from './support/wire-client.js';

let server: ServerProcess;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

/** A v5 connection past STARTUP, reading segments. */
async function v5Session(lz4 = false): Promise<WireClient> {
  const c = await WireClient.connect(server.host, server.port);
  const ready = await c.request(5, 0, Op.STARTUP, startupBody(lz4 ? { COMPRESSION: 'lz4' } : {}));
  expect(ready.version).toBe(5);
  expect(ready.opcode).toBe(Op.READY);
  c.useSegments(lz4);
  return c;
}

const LOCAL = 'SELECT key FROM system.local';

async function expectServing(): Promise<void> {
  const c = await WireClient.connect(server.host, server.port);
  const f = await c.request(5, 1, Op.OPTIONS);
  expect(f.opcode).toBe(Op.SUPPORTED);
  c.close();
  expect(server.child.exitCode).toBeNull();
}

describe('protocol v5', () => {
  it('answers OPTIONS before STARTUP in a plain v5 frame', async () => {
    const c = await WireClient.connect(server.host, server.port);
    const f = await c.request(5, 9, Op.OPTIONS);
    expect(f.version).toBe(5);
    expect(f.opcode).toBe(Op.SUPPORTED);
    expect([...parseSupported(f.body).keys()]).toEqual(
      expect.arrayContaining(['CQL_VERSION', 'COMPRESSION', 'PROTOCOL_VERSIONS']),
    );
    c.close();
  });

  it('switches to segments after READY', async () => {
    const c = await v5Session();
    c.sendSegment([frameBytes(5, 1, Op.QUERY, queryBody(5, LOCAL))]);
    const f = await c.response(1);
    expect(f.version).toBe(5);
    expect(f.opcode).toBe(Op.RESULT);
    expect(parseRows(f.body).rows.map((r) => r[0]?.toString())).toEqual(['local']);
    c.close();
  });

  it('serves several envelopes of one self-contained segment', async () => {
    const c = await v5Session();
    const streams = [11, 12, 13, 14];
    c.sendSegment([
      ...streams.slice(0, 3).map((s) => frameBytes(5, s, Op.QUERY, queryBody(5, LOCAL))),
      frameBytes(5, 14, Op.OPTIONS, Buffer.alloc(0)),
    ]);
    for (const s of streams.slice(0, 3)) expect((await c.response(s)).opcode).toBe(Op.RESULT);
    expect((await c.response(14)).opcode).toBe(Op.SUPPORTED);
    c.close();
  });

  it('reassembles one envelope split over several segments', async () => {
    const c = await v5Session();
    const literal = 'x'.repeat(300 * 1024);
    const envelope = frameBytes(5, 21, Op.QUERY, queryBody(5, `SELECT key FROM system.local WHERE key = '${literal}'`));
    const segments = largeEnvelopeSegments(envelope);
    expect(segments.length).toBeGreaterThan(2);
    // Dribble the segments in pieces to exercise partial reads too.
    for (const s of segments) {
      c.write(s.subarray(0, 1000));
      c.write(s.subarray(1000));
    }
    const f = await c.response(21);
    // Whatever the statement's fate, it was decoded as a whole: never a protocol error.
    if (f.opcode === Op.ERROR) expect(parseError(f.body).code).not.toBe(0x000a);
    else expect(f.opcode).toBe(Op.RESULT);
    // The connection is still in step.
    c.sendSegment([frameBytes(5, 22, Op.QUERY, queryBody(5, LOCAL))]);
    expect((await c.response(22)).opcode).toBe(Op.RESULT);
    c.close();
  });

  it('reads a large envelope with many bound values', async () => {
    const c = await v5Session();
    const values = Array.from({ length: 3000 }, (_, i) => Buffer.alloc(64, i & 0xff));
    const envelope = frameBytes(5, 31, Op.QUERY, queryBody(5, LOCAL, values));
    expect(envelope.length).toBeGreaterThan(128 * 1024);
    for (const s of largeEnvelopeSegments(envelope)) c.write(s);
    const f = await c.response(31);
    if (f.opcode === Op.ERROR) expect(parseError(f.body).code).not.toBe(0x000a);
    c.close();
  });

  it('closes the connection on a corrupt header CRC24', async () => {
    const c = await v5Session();
    const seg = segmentBytes(frameBytes(5, 1, Op.OPTIONS, Buffer.alloc(0)), true);
    seg[3] = seg[3]! ^ 0x5a;
    c.write(seg);
    expect(await c.waitClosed()).toBe(true);
    await expectServing();
  });

  it('answers a corrupt payload CRC32 with a PROTOCOL_ERROR, then closes (as Cassandra)', async () => {
    const c = await v5Session();
    const seg = segmentBytes(frameBytes(5, 1, Op.OPTIONS, Buffer.alloc(0)), true);
    seg[8] = seg[8]! ^ 0x01; // inside the payload
    c.write(seg);
    const f = await c.next();
    expect(f.opcode).toBe(Op.ERROR);
    const e = parseError(f.body);
    expect(e.code).toBe(0x000a);
    expect(e.message).toContain('CRC mismatch');
    expect(await c.waitClosed()).toBe(true);
    await expectServing();
  });

  it('speaks lz4 segments after STARTUP COMPRESSION=lz4', async () => {
    const c = await v5Session(true);
    c.sendSegment(
      [
        frameBytes(5, 1, Op.QUERY, queryBody(5, LOCAL)),
        frameBytes(5, 2, Op.QUERY, queryBody(5, `${LOCAL} WHERE key = 'local'`)),
      ],
      true,
    );
    for (const s of [1, 2]) {
      const f = await c.response(s);
      expect(f.opcode).toBe(Op.RESULT);
      expect(parseRows(f.body).rows.map((r) => r[0]?.toString())).toEqual(['local']);
    }
    // A compressible large envelope over lz4 segments.
    const literal = 'abc'.repeat(100 * 1024);
    const big = frameBytes(5, 3, Op.QUERY, queryBody(5, `SELECT key FROM system.local WHERE key = '${literal}'`));
    for (const s of largeEnvelopeSegments(big, true)) c.write(s);
    const f = await c.response(3);
    if (f.opcode === Op.ERROR) expect(parseError(f.body).code).not.toBe(0x000a);
    c.close();
  });

  it('rejects requests before STARTUP in v5 like any version', async () => {
    const c = await WireClient.connect(server.host, server.port);
    const f = await c.request(5, 4, Op.QUERY, queryBody(5, LOCAL));
    expect(f.opcode).toBe(Op.ERROR);
    expect(parseError(f.body).message).toContain('expecting STARTUP or OPTIONS');
    c.close();
  });

  it('refuses an envelope of another version inside a v5 session', async () => {
    const c = await v5Session();
    c.sendSegment([frameBytes(4, 5, Op.OPTIONS, Buffer.alloc(0))]);
    const f = await c.response(5);
    expect(f.opcode).toBe(Op.ERROR);
    expect(parseError(f.body).code).toBe(0x000a);
    c.close();
  });
});
