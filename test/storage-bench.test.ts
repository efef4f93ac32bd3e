import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { murmur3Token } from '../storage/murmur3-token.js';
import { NO_DELETION_TIME, rowLiveness } from '../storage/mutation.js';
import { StorageEngine } from '../storage/storage-engine.js';

it('bench', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'pm-bench-'));
  const e = StorageEngine.open({ path: join(dir, 'b.pool'), size: 512 * 1024 * 1024 });
  let applyMs = 0;
  const pool = e.pool as unknown as { apply: (b: unknown) => number[]; get: (m: number, k: Buffer) => Buffer | undefined };
  const origApply = pool.apply.bind(pool);
  pool.apply = (b) => { const t = performance.now(); const r = origApply(b); applyMs += performance.now() - t; return r; };
  let getMs = 0;
  const origGet = pool.get.bind(pool);
  pool.get = (m, k) => { const t = performance.now(); const r = origGet(m, k); getMs += performance.now() - t; return r; };
  const t = await e.createTable(Buffer.from('u'), { clustered: false });
  const now = 1000;
  const N = 20000;
  const keys = Array.from({ length: N }, (_, i) => Buffer.from(`key${i}`));
  const toks = keys.map((k) => murmur3Token(k));
  const val = Buffer.alloc(100, 7);
  const t0 = performance.now();
  for (let b = 0; b < N; b += 100) {
    const ps: Promise<void>[] = [];
    for (let i = b; i < b + 100; i++) {
      ps.push(t.applyMutations([{ key: keys[i]!, token: toks[i], rows: [{ clustering: Buffer.alloc(0), liveness: rowLiveness(i, 0, now), cells: [0, 1, 2, 3, 4].map((c) => ({ column: c, ts: i, ttl: 0, ldt: NO_DELETION_TIME, value: val })) }] }], now));
    }
    await Promise.all(ps);
  }
  const dt = performance.now() - t0;
  console.log(`single writes: ${((dt * 1000) / N).toFixed(2)} us/op, apply ${applyMs.toFixed(0)} ms, get ${getMs.toFixed(0)} ms, total ${dt.toFixed(0)} ms, commits ${e.commit.commits}`);
  e.close();
  rmSync(dir, { recursive: true, force: true });
}, 300000);
