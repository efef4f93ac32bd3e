// The event loop's heap floor (server/heap-floor.ts): every launcher passes node the same
// --initial-old-space-size, and the server's ready line says which floor it runs with.
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { HEAP_FLOOR_FLAG, heapFloorMb } from '../server/heap-floor.js';
import { startServer } from './support/server-process.js';

const ROOT = resolve(import.meta.dirname, '..');

describe('heap floor', () => {
  it('reads the flag in the forms node accepts', () => {
    expect(heapFloorMb(['--initial-old-space-size=128'])).toBe(128);
    expect(heapFloorMb(['--cpu-prof', '--initial_old_space_size=64'])).toBe(64);
    expect(heapFloorMb(['--initial-old-space-size', '256'])).toBe(256);
    expect(heapFloorMb(['--max-old-space-size=4096'])).toBeUndefined();
    expect(heapFloorMb([])).toBeUndefined();
    expect(heapFloorMb([HEAP_FLOOR_FLAG])).toBe(128);
  });

  it('is passed by npm start, npm run serve and main.js run as a program', () => {
    const pkg = JSON.parse(readFileSync(resolve(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toContain(`node ${HEAP_FLOOR_FLAG} dist/server/main.js`);
    expect(pkg.scripts.serve).toBe(`node ${HEAP_FLOOR_FLAG} dist/server/main.js`);
    const shebang = readFileSync(resolve(ROOT, 'dist/server/main.js'), 'utf8').split('\n')[0];
    expect(shebang).toBe(`#!/usr/bin/env -S node ${HEAP_FLOOR_FLAG}`);
  });

  it('shows in the ready line: 128 with the flag, default without', async () => {
    const floored = await startServer();
    try {
      expect(floored.readyLine().old_space_floor_mb).toBe(128);
    } finally {
      await floored.stop();
    }
    const plain = await startServer({ nodeArgs: [] });
    try {
      expect(plain.readyLine().old_space_floor_mb).toBe('default');
    } finally {
      await plain.stop();
    }
  });
});
