// The bench's event-loop gap probe (bench/support/event-loop-gap-probe.ts) in a real Node process: a loop held
// by work shows as a gap spent running, one held by a blocking wait as a gap spent neither running nor waiting
// for a CPU; summarizeGaps counts each inside its run's window only.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { sumGaps, summarizeGaps } from '../bench/support/event-loop-gaps.js';

const dir = mkdtempSync(join(tmpdir(), 'pmemcql-gap-probe-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
const probe = resolve(import.meta.dirname, '../dist/bench/support/event-loop-gap-probe.js');
const idleControl = resolve(import.meta.dirname, '../dist/bench/support/idle-control.js');

/** Runs `block` (JS source) in a process with the probe, 100 ms after start; returns the probe's file. */
function probed(name: string, block: string): { file: string; from: number; to: number } {
  const file = join(dir, `${name}.json`);
  const from = Date.now();
  const r = spawnSync(process.execPath, ['--import', probe, '-e', `setTimeout(() => { ${block} }, 100)`], {
    env: { ...process.env, PMEMCQL_GAP_PROBE: file },
    encoding: 'utf8',
    timeout: 20_000,
  });
  expect(r.status, r.stderr).toBe(0);
  return { file, from, to: Date.now() };
}

describe('event-loop gap probe', () => {
  it("runs in the bench's idle control process until SIGTERM, then writes what it saw", async () => {
    const file = join(dir, 'control.json');
    const from = Date.now();
    const child = spawn(process.execPath, ['--import', probe, idleControl], {
      env: { ...process.env, PMEMCQL_GAP_PROBE: file },
      stdio: 'ignore',
    });
    const exited = new Promise<number | null>((ok) => child.once('exit', (code) => ok(code)));
    await new Promise((ok) => setTimeout(ok, 300));
    // Still running: nothing written yet.
    expect(child.exitCode).toBe(null);
    expect(existsSync(file)).toBe(false);
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const [s] = summarizeGaps(file, [{ label: 'idle', from, to: Date.now() }]);
    // The file parsed: the probe wrote it on the way out.
    expect(s!.label).toBe('idle');
  });

  it('counts a loop held by work as running', () => {
    const { file, from, to } = probed('busy', 'const end = Date.now() + 80; while (Date.now() < end);');
    const [s] = summarizeGaps(file, [{ label: 'busy', from, to }]);
    expect(s!.gaps).toBeGreaterThanOrEqual(1);
    expect(s!.gapMs).toBeGreaterThanOrEqual(70);
    // Running for part of it at least (on a machine loaded past its cores the process gets half of it or less).
    expect(s!.runningMs).toBeGreaterThanOrEqual(20);
    // Outside the window, nothing.
    const [none] = summarizeGaps(file, [{ label: 'before', from: from - 10_000, to: from - 1 }]);
    expect(none!.gaps).toBe(0);
  });

  it('counts a loop held by a blocking wait as neither running nor waiting for a CPU', () => {
    const { file, from, to } = probed('asleep', 'Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 80);');
    const [s] = summarizeGaps(file, [{ label: 'asleep', from, to }]);
    expect(s!.gapMs).toBeGreaterThanOrEqual(70);
    expect(s!.otherMs).toBeGreaterThanOrEqual(50);
    expect(s!.runningMs).toBeLessThan(30);
  });

  it('sums several processes of one run into one row (the bench clients)', () => {
    const a = probed('client0', 'const end = Date.now() + 60; while (Date.now() < end);');
    const b = probed('client1', 'const end = Date.now() + 60; while (Date.now() < end);');
    const window = [{ label: 'run', from: a.from, to: b.to }];
    const [sa] = summarizeGaps(a.file, window);
    const [sb] = summarizeGaps(b.file, window);
    const sum = sumGaps('clients', [sa!, sb!]);
    expect(sum.label).toBe('clients');
    expect(sum.gaps).toBe(sa!.gaps + sb!.gaps);
    expect(sum.gapMs).toBeCloseTo(sa!.gapMs + sb!.gapMs, 6);
    expect(sum.runningMs).toBeCloseTo(sa!.runningMs + sb!.runningMs, 6);
    expect(sum.minorGcs).toBe(sa!.minorGcs + sb!.minorGcs);
    expect(sum.gaps).toBeGreaterThanOrEqual(1);
  });
});
