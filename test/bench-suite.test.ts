// The benchmark suite's CI mode: every study workload and YCSB A–F run briefly against a real
// server and land in the generated document with no errors; the document's hand-written text stays.
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';

const dir = mkdtempSync(join(tmpdir(), 'pmemcql-suite-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('benchmark suite (quick mode)', () => {
  it('runs the study experiments and YCSB A-F and writes the report', () => {
    const out = join(dir, 'benchmarks.md');
    // A file with hand-written text around a stale block: the run replaces the block and keeps the text.
    writeFileSync(
      out,
      '# Benchmarks\n\nHand-written analysis.\n\n<!-- bench:study -->\nSTALE TABLE\n<!-- /bench:study -->\n\nMore by hand.\n',
    );
    const r = spawnSync(
      process.execPath,
      [
        resolve(import.meta.dirname, '../dist/bench/suite.js'),
        '--quick',
        '--no-children',
        '--rows',
        '300',
        '--ycsb-records',
        '200',
        '--ycsb-ops',
        '200',
        '--threads',
        '4',
        '--out',
        out,
      ],
      { encoding: 'utf8', timeout: 170_000 },
    );
    expect(r.status, r.stderr).toBe(0);
    const doc = readFileSync(out, 'utf8');
    for (const name of ['write', 'read', 'mixed (1:1)', 'YCSB A', 'YCSB B', 'YCSB C', 'YCSB D', 'YCSB E', 'YCSB F']) {
      const line = doc.split('\n').find((l) => l.startsWith(`| ${name} |`));
      expect(line, name).toBeDefined();
      const cells = line!.split('|').map((c) => c.trim());
      expect(Number(cells[2]), `${name} op/s`).toBeGreaterThan(0);
      expect(cells[7], `${name} errors`).toBe('0');
    }
    expect(doc).toMatch(/Restart with that data, process start to first query answered: \*\*\d+\.\d+ s\*\*/);
    expect(doc).toContain('Hand-written analysis.');
    expect(doc).toContain('More by hand.');
    expect(doc).not.toContain('STALE TABLE');
  }, 180_000);
});
