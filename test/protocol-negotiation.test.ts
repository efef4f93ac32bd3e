// Version negotiation and v3/v4 compression against the real server over a socket: unsupported
// versions are refused with the PROTOCOL_ERROR wording drivers step down on, framed so the
// client can read it; supported versions answer OPTIONS; lz4 and snappy bodies round-trip.
import { spawnSync } from 'node:child_process';
import cassandra from 'cassandra-driver';
import lz4 from 'lz4js';
import snappy from 'snappyjs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ServerProcess, startServer } from './support/server-process.js';
import {
  type Frame,
  Op,
  parseError,
  parseRows,
  parseSupported,
  queryBody,
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

async function client(): Promise<WireClient> {
  return await WireClient.connect(server.host, server.port);
}

function lz4Compress(body: Buffer): Buffer {
  const dst = new Uint8Array(lz4.compressBound(body.length) + 16);
  let n = lz4.compressBlock(body, dst, 0, body.length, new Uint32Array(1 << 16));
  if (n === 0) {
    // all literals
    let at = 0;
    if (body.length >= 15) {
      dst[at++] = 0xf0;
      let rest = body.length - 15;
      for (; rest >= 255; rest -= 255) dst[at++] = 255;
      dst[at++] = rest;
    } else dst[at++] = body.length << 4;
    dst.set(body, at);
    n = at + body.length;
  }
  const out = Buffer.alloc(4 + n);
  out.writeInt32BE(body.length, 0);
  out.set(dst.subarray(0, n), 4);
  return out;
}

function lz4Decompress(body: Buffer): Buffer {
  const length = body.readInt32BE(0);
  const dst = new Uint8Array(length);
  const n = (
    lz4 as unknown as { decompressBlock(s: Uint8Array, d: Uint8Array, si: number, sl: number, di: number): number }
  ).decompressBlock(body, dst, 4, body.length - 4, 0);
  expect(n).toBe(length);
  return Buffer.from(dst);
}

function bodyOf(f: Frame, decompress: (b: Buffer) => Buffer): Buffer {
  return f.flags & 0x01 ? decompress(f.body) : f.body;
}

describe('unsupported protocol versions', () => {
  for (const [version, replyVersion] of [
    [0x42, 5],
    [0x41, 5],
    [6, 5],
    [0x7f, 5],
    [2, 2],
    [1, 1],
  ] as const) {
    it(`refuses version ${version} readably (framed as v${replyVersion}) and closes`, async () => {
      const c = await client();
      c.send(version, 7, Op.OPTIONS);
      const f = await c.next();
      expect(f.version).toBe(replyVersion);
      expect(f.opcode).toBe(Op.ERROR);
      expect(f.stream).toBe(7);
      const e = parseError(f.body);
      expect(e.code).toBe(0x000a);
      expect(e.message).toContain('unsupported protocol version');
      expect(e.message).toContain(`(${version})`);
      expect(e.message).toContain('the lowest supported version is 3 and the greatest is 5');
      expect(await c.waitClosed()).toBe(true);
    });
  }

  it('refuses a STARTUP in an unsupported version the same way (Python driver starts at DSE_V2)', async () => {
    const c = await client();
    c.send(0x42, 0, Op.STARTUP, startupBody());
    const f = await c.next();
    expect(f.opcode).toBe(Op.ERROR);
    expect(parseError(f.body).message).toContain('unsupported protocol version');
    expect(await c.waitClosed()).toBe(true);
  });
});

describe('supported versions', () => {
  for (const version of [3, 4, 5]) {
    it(`answers OPTIONS in v${version} with SUPPORTED`, async () => {
      const c = await client();
      const f = await c.request(version, 3, Op.OPTIONS);
      expect(f.version).toBe(version);
      expect(f.opcode).toBe(Op.SUPPORTED);
      const supported = parseSupported(f.body);
      expect(supported.get('CQL_VERSION')?.[0]).toMatch(/^3\.\d+\.\d+$/);
      expect(supported.get('COMPRESSION')).toEqual(expect.arrayContaining(['lz4', 'snappy']));
      expect(supported.get('PROTOCOL_VERSIONS')).toEqual(['3/v3', '4/v4', '5/v5']);
      c.close();
    });
  }

  for (const version of [3, 4]) {
    it(`serves a v${version} session without compression`, async () => {
      const c = await client();
      expect((await c.request(version, 0, Op.STARTUP, startupBody())).opcode).toBe(Op.READY);
      const f = await c.request(
        version,
        1,
        Op.QUERY,
        queryBody(version, "SELECT key FROM system.local WHERE key='local'"),
      );
      expect(f.opcode).toBe(Op.RESULT);
      const rows = parseRows(f.body);
      expect(rows.columns).toEqual(['key']);
      expect(rows.rows.map((r) => r[0]?.toString())).toEqual(['local']);
      c.close();
    });
  }

  it('refuses an unknown compression algorithm', async () => {
    const c = await client();
    const f = await c.request(4, 0, Op.STARTUP, startupBody({ COMPRESSION: 'zstd-nope' }));
    expect(f.opcode).toBe(Op.ERROR);
    expect(parseError(f.body)).toMatchObject({ code: 0x000a, message: expect.stringContaining('zstd-nope') });
    c.close();
  });

  it('refuses snappy in v5', async () => {
    const c = await client();
    const f = await c.request(5, 0, Op.STARTUP, startupBody({ COMPRESSION: 'snappy' }));
    expect(f.opcode).toBe(Op.ERROR);
    expect(parseError(f.body).code).toBe(0x000a);
    c.close();
  });
});

describe('v4 body compression', () => {
  const codecs = {
    lz4: { compress: lz4Compress, decompress: lz4Decompress },
    snappy: {
      compress: (b: Buffer) => Buffer.from(snappy.compress(b)),
      decompress: (b: Buffer) => Buffer.from(snappy.uncompress(b)),
    },
  };
  for (const [name, codec] of Object.entries(codecs)) {
    it(`round-trips ${name} compressed requests and responses`, async () => {
      const c = await client();
      const ready = await c.request(4, 0, Op.STARTUP, startupBody({ COMPRESSION: name }));
      expect(ready.opcode).toBe(Op.READY);
      const query = queryBody(4, 'SELECT key FROM system.local');
      // Compressed request...
      c.send(4, 1, Op.QUERY, codec.compress(query), 0x01);
      const f = await c.response(1);
      expect(f.opcode).toBe(Op.RESULT);
      const rows = parseRows(bodyOf(f, codec.decompress));
      expect(rows.rows.map((r) => r[0]?.toString())).toEqual(['local']);
      // ...and an uncompressed one on the same connection is fine too.
      const g = await c.request(4, 2, Op.QUERY, query);
      expect(g.opcode).toBe(Op.RESULT);
      expect(parseRows(bodyOf(g, codec.decompress)).rows.length).toBe(1);
      // Something the server has to compress: an error with a long message stays readable.
      c.close();
    });
  }

  it('answers a corrupt compressed body with a PROTOCOL_ERROR and keeps the connection', async () => {
    const c = await client();
    await c.request(4, 0, Op.STARTUP, startupBody({ COMPRESSION: 'lz4' }));
    const bogus = Buffer.from([0, 0, 0, 50, 0xff, 0xff, 0xff]);
    const f = await c.request(4, 1, Op.QUERY, bogus, 0x01);
    expect(f.opcode).toBe(Op.ERROR);
    expect(parseError(bodyOf(f, lz4Decompress)).code).toBe(0x000a);
    const g = await c.request(4, 2, Op.OPTIONS);
    expect(g.opcode).toBe(Op.SUPPORTED);
    c.close();
  });
});

// Debian's python3-cassandra (3.25): starts at DSE_V2 (0x42) and steps down on our refusal.
const hasPythonDriver = spawnSync('/usr/bin/python3', ['-c', 'import cassandra'], { stdio: 'ignore' }).status === 0;

describe('drivers', () => {
  it.skipIf(!hasPythonDriver)('the Python driver steps down to v5 (and v4, v3), with and without lz4', () => {
    const script = `
import logging, sys
logging.disable(logging.CRITICAL)
from cassandra.cluster import Cluster
from cassandra.policies import RoundRobinPolicy
for version, compression in [(None, False), (None, 'lz4'), (4, 'lz4'), (4, 'snappy'), (3, False)]:
    kw = {} if version is None else {'protocol_version': version}
    c = Cluster(['${server.host}'], port=${server.port}, compression=compression, load_balancing_policy=RoundRobinPolicy(), **kw)
    s = c.connect()
    row = s.execute("SELECT key FROM system.local").one()
    print(c.protocol_version, compression, row.key)
    c.shutdown()
`;
    const r = spawnSync('/usr/bin/python3', ['-c', script], { encoding: 'utf8', timeout: 60_000 });
    expect(r.stderr).not.toMatch(/Traceback/);
    expect(r.stdout.trim().split('\n')).toEqual([
      '5 False local',
      '5 lz4 local',
      '4 lz4 local',
      '4 snappy local',
      '3 False local',
    ]);
  });

  it('the DataStax Node.js driver (v4 max) negotiates and queries', async () => {
    const client = new cassandra.Client({
      contactPoints: [`${server.host}:${server.port}`],
      localDataCenter: 'datacenter1',
      protocolOptions: { port: server.port },
    });
    try {
      await client.connect();
      expect(client.getState().getConnectedHosts().length).toBe(1);
      const rs = await client.execute('SELECT key FROM system.local');
      expect(rs.rows[0]?.get('key')).toBe('local');
    } finally {
      await client.shutdown();
    }
  });
});
