import { readFileSync } from 'node:fs';
import { it } from 'vitest';
import { int, Op, queryBody, RawClient } from './support/fuzz-wire.js';
import { startServer } from './support/server-process.js';
const mem = (pid: number) => { const s = readFileSync(`/proc/${pid}/status`, 'utf8'); return ['VmHWM', 'VmRSS', 'RssAnon'].map((k) => `${k}=${Math.round(Number(new RegExp(`^${k}:\\s+(\\d+)`, 'm').exec(s)![1]) / 1024)}`).join(' '); };
it('pipeline', async () => {
  const server = await startServer({ args: ['--pool-size', '1GiB'] });
  const c = await RawClient.ready(server.host, server.port);
  await c.query(1, "CREATE KEYSPACE ro WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await c.query(2, 'CREATE TABLE ro.blobs (k int PRIMARY KEY, v blob)');
  console.log('before', mem(server.child.pid!));
  const v = Buffer.alloc(8 << 20, 1);
  const t0 = performance.now();
  for (let i = 0; i < 60; i++) c.send(4, 100 + i, Op.QUERY, queryBody(4, 'SELECT v FROM ro.blobs WHERE k = ?', [v]));
  for (let i = 0; i < 60; i++) await c.response(100 + i, 120000);
  console.log('rejected x60 8MiB', mem(server.child.pid!), Math.round(performance.now() - t0));
  for (let i = 0; i < 60; i++) c.send(4, 200 + i, Op.QUERY, queryBody(4, 'INSERT INTO ro.blobs (k, v) VALUES (?, ?)', [int(i), v]));
  for (let i = 0; i < 60; i++) { const f = await c.response(200 + i, 120000); if (f.opcode !== 8) console.log('err', f.body.toString()); }
  console.log('insert x60 8MiB', mem(server.child.pid!), Math.round(performance.now() - t0));
  c.close();
  await server.stop();
}, 300000);
