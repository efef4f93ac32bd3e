// Where a twin flush spends its time (storage only, no server): N rows written in batches, then one synchronous
// flush taken in the background worker's steps, split into its phases (and the longest step: it holds the event loop).
// The segment is assembled in the flush thread unless PMEMCQL_TWIN_FLUSH_THREAD=off.
//   npx tsc -p tsconfig.json && node dist/bench/arrow-twin-flush-profile.js [rows] [--rounds 3] [--paced]

import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { native } from '../cql/types/cql-type.js';
import type { TwinColumn } from '../storage/arrow/arrow-schema.js';
import { openSegment } from '../storage/arrow/segment-reader.js';
import { liveCell, rowLiveness } from '../storage/mutation.js';
import { StorageEngine } from '../storage/storage-engine.js';
import { startFlush, THREAD_POLL_MS } from '../storage/twin/twin-flush.js';
import { segmentBytesKey } from '../storage/twin/twin-keys.js';
import { twinOptionsFromEnv } from '../storage/twin/twin-options-env.js';
import { pauseAfterStep } from '../storage/twin/twin-worker.js';
import { flag, numberOption } from './support/cli-options.js';

const N = Number(process.argv[2] ?? 65536);
// --rounds R: write N new rows and flush them R times (the first rounds run cold code: the last one is the figure).
const ROUNDS = numberOption('--rounds', 3);
const PACED = flag('--paced');
const dir = mkdtempSync(join(existsSync('/dev/shm') ? '/dev/shm' : tmpdir(), 'pmemcql-flushprof-'));
const cols: TwinColumn[] = [
  { name: 'k', id: 0, kind: 'partition_key', type: native('bigint'), position: 0 },
  { name: 'x', id: 1, kind: 'regular', type: native('double'), position: -1 },
  { name: 'y', id: 2, kind: 'regular', type: native('double'), position: -1 },
  { name: 'i', id: 3, kind: 'regular', type: native('int'), position: -1 },
  { name: 't', id: 4, kind: 'regular', type: native('text'), position: -1 },
];

async function main(): Promise<void> {
  const engine = StorageEngine.open({
    path: join(dir, 'pool'),
    size: 2 ** 30,
    twin: { ...twinOptionsFromEnv(process.env), autoFlush: false },
  });
  // --no-twin: the same writes without a twin (the table's twin is off), for the write cost alone.
  const noTwin = process.argv.includes('--no-twin');
  engine.setTwinSchemaSource(() => (noTwin ? null : { columns: cols, complexToBytes: () => null }));
  const store = await engine.createTable(Buffer.alloc(16, 1), { clustered: false });
  const now = Math.floor(Date.now() / 1000);
  const d = (v: number) => {
    const b = Buffer.allocUnsafe(8);
    b.writeDoubleBE(v);
    return b;
  };
  for (let round = 1; round <= ROUNDS; round++) {
    const base = (round - 1) * N;
    console.log(`round ${round}:`);
    let t = performance.now();
    const w0 = process.cpuUsage();
    for (let k0 = base; k0 < base + N; k0 += 1000) {
      const ps: Promise<void>[] = [];
      for (let k = k0; k < Math.min(base + N, k0 + 1000); k++) {
        const key = Buffer.allocUnsafe(8);
        key.writeBigInt64BE(BigInt(k));
        const i = Buffer.allocUnsafe(4);
        i.writeInt32BE(k % 1000);
        ps.push(
          store.applyMutations(
            [
              {
                key,
                token: undefined,
                rows: [
                  {
                    clustering: Buffer.alloc(0),
                    liveness: rowLiveness(k + 1, 0, now),
                    cells: [
                      liveCell(1, k + 1, d(k)),
                      liveCell(2, k + 1, d(k * 3)),
                      liveCell(3, k + 1, i),
                      liveCell(4, k + 1, Buffer.from(`text-${k % 1000}`)),
                    ],
                  },
                ],
              },
            ],
            now,
          ),
        );
      }
      await Promise.all(ps);
    }
    const wc = process.cpuUsage(w0);
    console.log(
      `write ${N} rows: ${(performance.now() - t).toFixed(0)} ms, CPU ${((wc.user + wc.system) / N).toFixed(2)} us/row`,
    );
    if (noTwin) continue;
    const f = startFlush(store.twin!)!;
    t = performance.now();
    const cpu0 = process.cpuUsage();
    let steps = 0;
    // Steps as the background worker takes them (twin sliceRows rows per read step); --paced: with the worker's
    // pauses between them, to see what an idle gap costs the next step.
    for (;;) {
      const s0 = performance.now();
      if (f.step(store.twin!.options.sliceRows)) break;
      steps++;
      const pause = f.waiting ? THREAD_POLL_MS : PACED ? pauseAfterStep(performance.now() - s0) : 0;
      if (pause >= 1) await new Promise((ok) => setTimeout(ok, pause));
    }
    const total = performance.now() - t;
    const cpu = process.cpuUsage(cpu0);
    console.log(
      `flush CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms (${((cpu.user + cpu.system) / N).toFixed(2)} us/row)`,
    );
    const phases = Object.entries(f.phaseMs)
      .map(([p, ms]) => `${p} ${ms.toFixed(1)}`)
      .join(', ');
    console.log(
      `flush total ${total.toFixed(0)} ms in ${steps + 1} steps, longest step ${f.maxStepMs.toFixed(1)} ms; per phase (ms): ${phases}`,
    );
    const r = f.result!;
    const assembly = Object.entries(r.assemblyMs)
      .map(([p, ms]) => `${p} ${ms.toFixed(1)}`)
      .join(', ');
    console.log(`assembled in the ${r.thread ? 'flush thread' : 'event loop'} (ms): ${assembly}`);
  }
  if (noTwin) {
    engine.close();
    rmSync(dir, { recursive: true, force: true });
    return;
  }
  // Reading a segment back: the addon's get copies the value into a fresh Buffer (no zero-copy view yet).
  const twin = store.twin!;
  const seg = twin.segments()[0]!;
  const key = segmentBytesKey(seg.id);
  let best = Number.POSITIVE_INFINITY;
  let bytes = 0;
  for (let r = 0; r < 5; r++) {
    const g0 = performance.now();
    const b = twin.pool.get(twin.handles.segments, key)!;
    best = Math.min(best, performance.now() - g0);
    bytes = b.length;
  }
  const o0 = performance.now();
  const opened = openSegment(twin.pool.get(twin.handles.segments, key)!);
  const openMs = performance.now() - o0;
  console.log(
    `segment of ${seg.record.rows} rows, ${(bytes / 2 ** 20).toFixed(1)} MiB: pool get (copy) ${best.toFixed(2)} ms ` +
      `(${(bytes / 2 ** 30 / (best / 1000)).toFixed(1)} GiB/s); get + open ${openMs.toFixed(2)} ms, zeroCopy ${opened.zeroCopy}`,
  );
  engine.close();
  rmSync(dir, { recursive: true, force: true });
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
