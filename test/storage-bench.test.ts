import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { it } from 'vitest';
import { murmur3Token } from '../storage/murmur3-token.js';
import { NO_DELETION_TIME, rowLiveness } from '../storage/mutation.js';
import { Projection } from '../storage/row-projection.js';
import { StorageEngine } from '../storage/storage-engine.js';

it('bench', async () => {
  const dir = mkdtempSync(join('/dev/shm', 'pm-bench-'));
  const e = StorageEngine.open({ path: join(dir, 'b.pool'), size: 1024 * 1024 * 1024 });
  let applyMs = 0;
  const pool = e.pool as unknown as { apply: (b: unknown) => number[] };
  const origApply = pool.apply.bind(pool);
  pool.apply = (b) => { const t = performance.now(); const r = origApply(b); applyMs += performance.now() - t; return r; };
  for (const clustered of [false, true]) {
    applyMs = 0;
    const t = await e.createTable(Buffer.from(clustered ? 'c' : 'u'), { clustered });
    const now = 1000;
    const N = 100000;
    const keys = Array.from({ length: N }, (_, i) => Buffer.from(`key${i}`));
    const toks = keys.map((k) => murmur3Token(k));
    const val = Buffer.alloc(100, 7);
    let t0 = performance.now();
    for (let b = 0; b < N; b += 100) {
      const ps: Promise<void>[] = [];
      for (let i = b; i < b + 100; i++) {
        const k = clustered ? i % 1000 : i;
        ps.push(
          t.applyMutations(
            [{ key: keys[k]!, token: toks[k], rows: [{ clustering: clustered ? Buffer.from(`c${i}`) : Buffer.alloc(0), clusteringValues: clustered ? [Buffer.from(`c${i}`)] : undefined, liveness: rowLiveness(i, 0, now), cells: [0, 1, 2, 3, 4].map((c) => ({ column: c, ts: i, ttl: 0, ldt: NO_DELETION_TIME, value: val })) }] }],
            now,
          ),
        );
      }
      await Promise.all(ps);
    }
    let dt = performance.now() - t0;
    console.log(`${clustered ? 'clustered' : 'single'} writes: ${((dt * 1000) / N).toFixed(2)} us/op (apply ${((applyMs * 1000) / N).toFixed(2)} us/op)`);
    const proj = new Projection([0, 2, 4]);
    t0 = performance.now();
    let found = 0;
    for (let i = 0; i < N; i++) {
      const k = clustered ? i % 1000 : i;
      const r = t.readPartition(keys[k]!, toks[k], { columns: proj, nowInSeconds: now, ...(clustered ? { start: { prefix: Buffer.from(`c${i}`), inclusive: true }, end: { prefix: Buffer.from(`c${i}`), inclusive: true } } : {}) });
      if (r && r.rows.length === 1) found++;
    }
    dt = performance.now() - t0;
    console.log(`${clustered ? 'clustered' : 'single'} point reads: ${((dt * 1000) / N).toFixed(2)} us/op, found ${found}`);
    t0 = performance.now();
    let rows = 0;
    let after;
    for (;;) {
      const r = t.scanRange({ columns: proj, nowInSeconds: now, limit: 5000, after });
      for (const p of r.partitions) rows += p.rows.length;
      if (!r.next) break;
      after = r.next;
    }
    dt = performance.now() - t0;
    console.log(`${clustered ? 'clustered' : 'single'} scan: ${((dt * 1000) / rows).toFixed(2)} us/row, rows ${rows}`);
  }
  e.close();
  rmSync(dir, { recursive: true, force: true });
}, 300000);
