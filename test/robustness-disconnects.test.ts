// Misbehaving clients against the real server: half a frame then close, a request in flight then
// close, half-closed sockets (FIN after a partial frame), slowloris clients feeding a frame byte by
// byte, and idle connections that never speak. Resources are released: the connections gauge
// (pmemcql_connections on /metrics) and system_views.clients go back to the baseline, the server's
// memory does not grow with them, and other clients are answered promptly throughout.

import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { frameBytes, int, Op, parseRows, queryBody, RawClient, startupBody } from './support/fuzz-wire.js';
import { freePort, type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess;
let metricsPort: number;
let probe: RawClient;
let stream = 1;

beforeAll(async () => {
  metricsPort = await freePort();
  server = await startServer({ args: ['--metrics-port', String(metricsPort)] });
  probe = await RawClient.ready(server.host, server.port);
  for (const cql of [
    "CREATE KEYSPACE rd WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}",
    'CREATE TABLE rd.t (k int PRIMARY KEY, v blob)',
  ]) {
    expect((await probe.query(stream++, cql)).opcode).toBe(Op.RESULT);
  }
}, 60_000);

afterAll(async () => {
  probe?.close();
  await server?.stop();
});

async function gauge(): Promise<number> {
  const text = await (await fetch(`http://127.0.0.1:${metricsPort}/metrics`)).text();
  const m = /^pmemcql_connections (\d+)$/m.exec(text);
  if (!m) throw new Error('no pmemcql_connections in /metrics');
  return Number(m[1]);
}

async function clientRows(): Promise<number> {
  const f = await probe.query(stream++, 'SELECT address, port FROM system_views.clients');
  expect(f.opcode).toBe(Op.RESULT);
  return parseRows(f.body).rows.length;
}

/** Polls until the gauge and system_views.clients are back to `baseline` (the probe's connection). */
async function expectBaseline(baseline: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  let now = await gauge();
  while (now !== baseline && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    now = await gauge();
  }
  if (now !== baseline) {
    const f = await probe.query(
      stream++,
      'SELECT port, driver_name, request_count, protocol_version FROM system_views.clients',
    );
    console.log('LEFT', now, JSON.stringify(parseRows(f.body).rows.map((r) => r.map((x) => x?.toString('hex')))));
  }
  expect(now).toBe(baseline);
  expect(await clientRows()).toBe(baseline);
}

/** The probe's small query answers quickly. */
async function expectResponsive(): Promise<void> {
  const t0 = performance.now();
  const f = await probe.query(stream++, "SELECT release_version FROM system.local WHERE key = 'local'");
  expect(f.opcode).toBe(Op.RESULT);
  expect(performance.now() - t0).toBeLessThan(2000);
}

async function rawSocket(): Promise<Socket> {
  return await new Promise((resolve, reject) => {
    const s = connect(server.port, server.host, () => resolve(s));
    s.on('error', () => {});
    s.once('error', reject);
  });
}

function anonMiB(): number {
  const status = readFileSync(`/proc/${server.child.pid}/status`, 'utf8');
  return Number(/^RssAnon:\s+(\d+) kB/m.exec(status)![1]) / 1024;
}

describe('clients that go away or dawdle', () => {
  it('half a frame then close; a request in flight then close; FIN after a partial frame', async () => {
    const baseline = await gauge();
    expect(baseline).toBe(1);
    const startup = frameBytes(4, 0, Op.STARTUP, startupBody());
    const insert = frameBytes(
      4,
      1,
      Op.QUERY,
      queryBody(4, 'INSERT INTO rd.t (k, v) VALUES (?, ?)', [int(1), Buffer.alloc(256 * 1024, 1)]),
    );
    const sockets: Socket[] = [];
    for (let i = 0; i < 30; i++) {
      const s = await rawSocket();
      sockets.push(s);
      if (i % 3 === 0) {
        // Half a STARTUP, then gone.
        s.write(startup.subarray(0, 7));
        s.destroy();
      } else if (i % 3 === 1) {
        // A 256 KiB INSERT announced, a third of it sent, then gone.
        s.write(startup);
        s.write(insert.subarray(0, insert.length / 3));
        s.destroy();
      } else {
        // A complete request in flight, then a half-close (FIN) mid-way through the next frame.
        s.write(startup);
        s.write(insert);
        s.write(insert.subarray(0, 20));
        s.end();
      }
    }
    await expectResponsive();
    await expectBaseline(baseline);
    for (const s of sockets) s.destroy();
    // The writes whose requests were complete were applied or not, but the table answers.
    expect((await probe.query(stream++, 'SELECT k FROM rd.t')).opcode).toBe(Op.RESULT);
  });

  it('slowloris: frames fed one byte at a time, and idle connections, are released when they close', async () => {
    const baseline = await gauge();
    const anonBefore = anonMiB();
    // 40 idle connections (never a byte) and 40 slowloris ones (a STARTUP, then a query byte by byte).
    const idle = await Promise.all(Array.from({ length: 40 }, () => rawSocket()));
    const slow = await Promise.all(Array.from({ length: 40 }, () => RawClient.ready(server.host, server.port)));
    const query = frameBytes(4, 5, Op.QUERY, queryBody(4, 'SELECT k FROM rd.t WHERE k = 1'));
    expect(await gauge()).toBe(baseline + 80);
    for (let at = 0; at < query.length - 1; at++) {
      for (const c of slow) c.write(query.subarray(at, at + 1));
      if (at % 8 === 0) await expectResponsive();
      await new Promise((r) => setTimeout(r, 5));
    }
    // Nothing is answered before the last byte; with it, every slow client gets its answer.
    for (const c of slow) c.write(query.subarray(query.length - 1));
    for (const c of slow) expect((await c.response(5)).opcode).toBe(Op.RESULT);
    // Each holds a few bytes at most: memory did not grow with them.
    expect(anonMiB() - anonBefore).toBeLessThan(100);
    // Half of the slow ones stop mid-frame and vanish.
    slow.forEach((c, i) => {
      if (i % 2 === 0) c.write(query.subarray(0, 11));
      c.close();
    });
    for (const s of idle) s.destroy();
    await expectBaseline(baseline);
    await expectResponsive();
    expect(server.output()).not.toMatch(/unexpected error/);
  });
});
