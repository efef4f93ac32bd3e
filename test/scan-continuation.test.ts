// Paged columnar scans continue from where the previous page left the segment cursors (encoded-scan.ts
// EncodedScanState, kept by scan-read-ahead.ts) when nothing changed: pages must equal the row path's, also when a
// write lands between two pages (the kept state is then dropped) and when a page is asked for twice.

import cassandra from 'cassandra-driver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reportIfDied, type ServerProcess, startServer } from './support/server-process.js';

let server: ServerProcess;
let client: cassandra.Client;

interface Page {
  rows: string[];
  state: string | undefined;
}

async function admin(table: string): Promise<cassandra.types.Row | undefined> {
  return (await client.execute(`SELECT * FROM system_arrow.${table}`)).first();
}

async function continued(): Promise<number> {
  return (await admin('use_auto_path'))!.get('continued') as number;
}

async function page(fetchSize: number, pageState: string | undefined): Promise<Page> {
  const rs = await client.execute('SELECT k, v, x FROM ks.c', [], { fetchSize, pageState, prepare: true });
  return {
    rows: rs.rows.map((r) => `${r.get('k')}|${r.get('v')}|${r.get('x')}`),
    state: rs.pageState ?? undefined,
  };
}

async function allPages(fetchSize: number): Promise<Page[]> {
  const out: Page[] = [];
  let state: string | undefined;
  do {
    const p = await page(fetchSize, state);
    out.push(p);
    state = p.state;
  } while (state);
  return out;
}

async function onRowPath<T>(f: () => Promise<T>): Promise<T> {
  await admin('use_row_path');
  try {
    return await f();
  } finally {
    await admin('use_auto_path');
  }
}

beforeAll(async () => {
  server = await startServer({ env: { PMEMCQL_TWIN_AUTO_FLUSH: '0', PMEM_IS_PMEM_FORCE: '1' } });
  client = new cassandra.Client({ contactPoints: [`127.0.0.1:${server.port}`], localDataCenter: 'datacenter1' });
  await client.connect();
  await client.execute("CREATE KEYSPACE ks WITH replication = {'class': 'SimpleStrategy', 'replication_factor': 1}");
  await client.execute('CREATE TABLE ks.c (k int PRIMARY KEY, v text, x double)');
  const insert = (k: number) =>
    client.execute('INSERT INTO ks.c (k, v, x) VALUES (?, ?, ?)', [k, `v${k}`, k / 4], { prepare: true });
  // Three segments and buffer rows, with rewrites of flushed rows.
  for (const [from, to] of [
    [0, 200],
    [200, 400],
    [100, 150],
  ]) {
    for (let k = from!; k < to!; k++) await insert(k);
    await admin('flush_now');
  }
  for (let k = 400; k < 450; k++) await insert(k);
}, 60_000);

afterAll(async () => {
  reportIfDied(server);
  await client?.shutdown();
  await server?.stop();
});

describe('paged columnar scans', () => {
  it('continue the previous page when nothing changed, with the row path’s pages', async () => {
    for (const size of [7, 100, 449, 450]) {
      const before = await continued();
      const second = () => Math.floor(Date.now() / 1000);
      const started = second();
      const columnar = await allPages(size);
      // Every page after the first continued its predecessor's scan, except where a new second began between two
      // pages (a kept scan is for the second it read the rows in: TTLs).
      const n = (await continued()) - before;
      expect(n).toBeLessThanOrEqual(columnar.length - 1);
      expect(n).toBeGreaterThanOrEqual(columnar.length - 1 - (second() - started));
      const row = await onRowPath(() => allPages(size));
      expect(columnar).toEqual(row);
      expect(columnar.flatMap((p) => p.rows)).toHaveLength(450);
    }
  });

  it('drop the kept scan after a write: the next page shows it', async () => {
    const first = await page(10, undefined);
    const expected = await onRowPath(() => page(10, first.state));
    const [k1, , x1] = expected.rows[0]!.split('|');
    const k2 = Number(expected.rows[1]!.split('|')[0]);
    await client.execute('UPDATE ks.c SET v = ? WHERE k = ?', ['written between pages', Number(k1)], {
      prepare: true,
    });
    await client.execute('DELETE FROM ks.c WHERE k = ?', [k2], { prepare: true });
    const before = await continued();
    const second = await page(10, first.state);
    expect(await continued()).toBe(before);
    expect(second.rows[0]).toBe(`${k1}|written between pages|${x1}`);
    expect(second.rows.some((r) => r.startsWith(`${k2}|`))).toBe(false);
    expect(second).toEqual(await onRowPath(() => page(10, first.state)));
  });

  it('answer a page asked for twice the same way', async () => {
    const first = await page(25, undefined);
    const second = await page(25, first.state);
    const again = await page(25, first.state);
    expect(again).toEqual(second);
    const third = await page(25, second.state);
    expect(third).toEqual(await onRowPath(() => page(25, second.state)));
  });
});
