// Hostile and broken input against the real server: each case gets Cassandra's error (or a
// close where the byte stream is lost), and the server keeps serving other connections.
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';
import {
  frameBytes,
  Op,
  parseError,
  queryBody,
  short,
  startupBody,
  stringMap,
  WireClient,
} from './support/wire-client.js';

let server: ServerProcess;

beforeAll(async () => {
  server = await startServer();
});

afterAll(async () => {
  await server?.stop();
});

afterEach(async () => {
  // After every abuse: the process is alive and a fresh connection is served.
  expect(server.child.exitCode).toBeNull();
  const c = await WireClient.connect(server.host, server.port);
  const f = await c.request(4, 1, Op.OPTIONS);
  expect(f.opcode).toBe(Op.SUPPORTED);
  c.close();
});

async function client(): Promise<WireClient> {
  return await WireClient.connect(server.host, server.port);
}

async function ready(version = 4): Promise<WireClient> {
  const c = await client();
  expect((await c.request(version, 0, Op.STARTUP, startupBody())).opcode).toBe(Op.READY);
  return c;
}

/** A deterministic pseudo-random generator (xorshift32), so failures can be replayed. */
function random(seed: number): () => number {
  let x = seed;
  return () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) / 0x100000000;
  };
}

describe('bad input', () => {
  it('survives random bytes', async () => {
    for (let seed = 1; seed <= 20; seed++) {
      const next = random(seed);
      const c = await client();
      const bytes = Buffer.from(Array.from({ length: 1 + Math.floor(next() * 4000) }, () => Math.floor(next() * 256)));
      c.write(bytes);
      // Either an error frame or a close (or silence while the server waits for the rest).
      await c.next(100).catch(() => undefined);
      c.close();
    }
  });

  it('survives random bytes after STARTUP, in v4 and v5', async () => {
    for (const version of [4, 5]) {
      for (let seed = 100; seed < 110; seed++) {
        const next = random(seed);
        const c = await ready(version);
        if (version === 5) c.useSegments(false);
        const bytes = Buffer.from(
          Array.from({ length: 1 + Math.floor(next() * 2000) }, () => Math.floor(next() * 256)),
        );
        c.write(bytes);
        await c.next(100).catch(() => undefined);
        c.close();
      }
    }
  });

  it('survives random bodies behind valid headers', async () => {
    const next = random(7);
    const c = await ready(4);
    for (let i = 0; i < 200; i++) {
      const opcode = [Op.QUERY, Op.PREPARE, Op.EXECUTE, Op.BATCH, Op.REGISTER][i % 5]!;
      const body = Buffer.from(Array.from({ length: Math.floor(next() * 64) }, () => Math.floor(next() * 256)));
      const f = await c.request(4, i + 1, opcode, body);
      // Each gets an answer on its own stream; malformed ones a PROTOCOL_ERROR (or a CQL error).
      expect([Op.ERROR, Op.RESULT, Op.READY]).toContain(f.opcode);
    }
    c.close();
  });

  it('waits for the rest of a truncated header, and copes when the client goes away', async () => {
    const c = await client();
    c.write(frameBytes(4, 1, Op.OPTIONS, Buffer.alloc(0)).subarray(0, 5));
    await expect(c.next(300)).rejects.toThrow(/timed out/);
    // The rest arrives: the frame is served.
    c.write(frameBytes(4, 1, Op.OPTIONS, Buffer.alloc(0)).subarray(5));
    expect((await c.next()).opcode).toBe(Op.SUPPORTED);
    c.write(frameBytes(4, 2, Op.OPTIONS, Buffer.alloc(0)).subarray(0, 3));
    c.socket.end();
    expect(await c.waitClosed()).toBe(true);
  });

  it('answers an oversized length field with "Request is too big"', async () => {
    const c = await ready(4);
    const header = Buffer.alloc(9);
    header[0] = 4;
    header.writeInt16BE(3, 2);
    header[4] = Op.QUERY;
    header.writeUInt32BE(0x7ffffff0, 5);
    c.write(header);
    const f = await c.response(3);
    expect(f.opcode).toBe(Op.ERROR);
    const e = parseError(f.body);
    expect(e.code).toBe(0x2200);
    expect(e.message).toMatch(/Request is too big: length \d+ exceeds maximum allowed length \d+/);
    c.close();
  });

  it('skips an oversized frame and serves the next one', async () => {
    const c = await ready(4);
    const huge = 17 * 1024 * 1024;
    const body = Buffer.alloc(huge);
    c.write(frameBytes(4, 3, Op.QUERY, body));
    c.write(frameBytes(4, 4, Op.OPTIONS, Buffer.alloc(0)));
    expect(parseError((await c.response(3, 20_000)).body).code).toBe(0x2200);
    expect((await c.response(4, 20_000)).opcode).toBe(Op.SUPPORTED);
    c.close();
  });

  it('answers unknown opcodes with a PROTOCOL_ERROR and stays in step', async () => {
    const c = await ready(4);
    for (const [stream, opcode] of [
      [5, 0x04],
      [6, 0x11],
      [7, 0xff],
    ] as const) {
      const f = await c.request(4, stream, opcode, Buffer.from('junk'));
      expect(f.opcode).toBe(Op.ERROR);
      expect(parseError(f.body)).toMatchObject({ code: 0x000a, message: `Unknown opcode ${opcode}` });
    }
    expect((await c.request(4, 8, Op.OPTIONS)).opcode).toBe(Op.SUPPORTED);
    c.close();
  });

  it('answers response opcodes sent as requests with a PROTOCOL_ERROR', async () => {
    const c = await ready(4);
    const f = await c.request(4, 5, Op.RESULT, Buffer.alloc(4));
    expect(parseError(f.body).message).toContain('Wrong protocol direction');
    c.close();
  });

  it('refuses a wrong version byte and closes', async () => {
    const c = await client();
    c.write(Buffer.from([0x07, 0, 0, 1, Op.OPTIONS, 0, 0, 0, 0]));
    const f = await c.next();
    expect(f.opcode).toBe(Op.ERROR);
    expect(parseError(f.body).message).toContain('unsupported protocol version');
    expect(await c.waitClosed()).toBe(true);
  });

  it('refuses a frame of another version after STARTUP but keeps the connection', async () => {
    const c = await ready(4);
    const f = await c.request(3, 9, Op.OPTIONS);
    expect(f.opcode).toBe(Op.ERROR);
    expect(parseError(f.body).message).toContain('Invalid message version');
    expect((await c.request(4, 10, Op.OPTIONS)).opcode).toBe(Op.SUPPORTED);
    c.close();
  });

  it('refuses a request before STARTUP', async () => {
    const c = await client();
    for (const opcode of [Op.QUERY, Op.PREPARE, Op.EXECUTE, Op.BATCH, Op.REGISTER]) {
      const f = await c.request(4, 2, opcode, queryBody(4, 'SELECT key FROM system.local'));
      expect(f.opcode).toBe(Op.ERROR);
      expect(parseError(f.body).code).toBe(0x000a);
      expect(parseError(f.body).message).toMatch(/^Unexpected message \w+, expecting STARTUP or OPTIONS$/);
    }
    c.close();
  });

  it('refuses a frame with the response-direction bit set', async () => {
    const c = await client();
    c.write(frameBytes(0x84, 3, Op.OPTIONS, Buffer.alloc(0)));
    const f = await c.response(3);
    expect(f.opcode).toBe(Op.ERROR);
    expect(parseError(f.body)).toMatchObject({
      code: 0x000a,
      message: expect.stringContaining('Wrong protocol direction'),
    });
    c.close();
  });

  it('refuses a second STARTUP', async () => {
    const c = await ready(4);
    const f = await c.request(4, 1, Op.STARTUP, startupBody());
    expect(parseError(f.body).message).toContain('already initialized');
    c.close();
  });

  it('refuses a STARTUP without CQL_VERSION', async () => {
    const c = await client();
    const f = await c.request(4, 1, Op.STARTUP, stringMap({ DRIVER_NAME: 'no-cql-version' }));
    expect(f.opcode).toBe(Op.ERROR);
    expect(parseError(f.body).code).toBe(0x000a);
    c.close();
  });

  it('answers a body shorter than its contents claim with a PROTOCOL_ERROR', async () => {
    const c = await ready(4);
    // [long string] of 1000 bytes announced, 10 sent.
    const body = Buffer.concat([Buffer.from([0, 0, 3, 0xe8]), Buffer.alloc(10, 0x61)]);
    const f = await c.request(4, 12, Op.QUERY, body);
    expect(parseError(f.body).code).toBe(0x000a);
    expect((await c.request(4, 13, Op.OPTIONS)).opcode).toBe(Op.SUPPORTED);
    c.close();
  });

  it('refuses an unknown event type in REGISTER', async () => {
    const c = await ready(4);
    const body = Buffer.concat([short(1), short(4), Buffer.from('NOPE')]);
    const f = await c.request(4, 3, Op.REGISTER, body);
    expect(parseError(f.body).code).toBe(0x000a);
    c.close();
  });

  it('survives many connections opened and dropped mid-frame', async () => {
    const clients = await Promise.all(Array.from({ length: 50 }, () => client()));
    for (const c of clients) {
      c.write(frameBytes(4, 1, Op.STARTUP, startupBody()).subarray(0, 12));
      c.close();
    }
  });
});
