import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { it } from 'vitest';
import { openPool } from '../storage/native-binding.js';

it('bench raw', async () => {
  for (const size of [150, 560]) {
  for (const where of [tmpdir(), '/dev/shm']) {
  const dir = mkdtempSync(join(where, 'pm-bench-'));
  const p = openPool({ path: join(dir, 'b.pool'), size: 512 * 1024 * 1024 });
  const b0 = p.batch();
  b0.ensureChild(p.root, Buffer.from('m'));
  const [m] = p.apply(b0);
  const val = Buffer.alloc(size, 7);
  const t0 = performance.now();
  for (let b = 0; b < 20000; b += 100) {
    const batch = p.batch();
    for (let i = b; i < b + 100; i++) batch.put(m!, Buffer.from(`key${i}`), val);
    p.apply(batch);
  }
  console.log(`raw puts ${size}B ${p.info.mode} ${where}: ${(((performance.now() - t0) * 1000) / 20000).toFixed(2)} us/op`);
  p.close();
  rmSync(dir, { recursive: true, force: true });
  }}
}, 300000);
