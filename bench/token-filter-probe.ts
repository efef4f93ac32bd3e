// The write path's live-copy check at scale (docs/arrow-twins.md, "Token filters"): which of S segments of R tokens
// may hold a fresh token, asked of the block filters (segment-filter-tree.ts) and, side by side, of every
// segment's own filter (what each write did before the blocks). In memory only: random tokens, no pool.
//   npx tsc -p tsconfig.json && node dist/bench/token-filter-probe.js [--segments 153] [--rows 65536] [--probes 2000000]

import type { LiveSegment } from '../storage/twin/live-segment.js';
import { SegmentFilterTree } from '../storage/twin/segment-filter-tree.js';
import { TokenFilter } from '../storage/twin/token-filter.js';
import { numberOption } from './support/cli-options.js';

const SEGMENTS = numberOption('--segments', 153);
const ROWS = numberOption('--rows', 65_536);
const PROBES = numberOption('--probes', 2_000_000);

const randomInt32 = () => (Math.random() * 2 ** 32) | 0;

/** A stand-in for a flushed segment: its id, row count, tokens and own filter. */
function fakeSegment(id: number): LiveSegment {
  const hi = new Int32Array(ROWS).map(randomInt32);
  const lo = new Int32Array(ROWS).map(randomInt32);
  const own = new TokenFilter(ROWS);
  for (let i = 0; i < ROWS; i++) own.add(hi[i]!, lo[i]!);
  const seg = {
    id,
    record: { rows: ROWS },
    tokenFilter: () => own,
    addTokensTo: (f: TokenFilter) => {
      for (let i = 0; i < ROWS; i++) f.add(hi[i]!, lo[i]!);
      return true;
    },
  };
  return seg as unknown as LiveSegment;
}

const segments = Array.from({ length: SEGMENTS }, (_, i) => fakeSegment(i + 1));
const tree = new SegmentFilterTree({
  liveSegments: () => segments,
  pendingSegmentId: () => SEGMENTS + 1,
  onFilterWork: undefined,
});
const built = performance.now();
for (let build = tree.startBuild(); build; build = tree.startBuild()) while (!build.step()) {}
console.log(
  `${SEGMENTS} segments of ${ROWS} tokens: ${tree.blockFilters} block filters built in ${(performance.now() - built).toFixed(0)} ms`,
);

const qHi = new Int32Array(PROBES).map(randomInt32);
const qLo = new Int32Array(PROBES).map(randomInt32);
const out: LiveSegment[] = [];

function viaBlocks(): number {
  let n = 0;
  for (let i = 0; i < PROBES; i++) n += tree.candidates(qHi[i]!, qLo[i]!, out).length;
  return n;
}

function viaEverySegment(): number {
  let n = 0;
  for (let i = 0; i < PROBES; i++) {
    for (const seg of segments) if (seg.tokenFilter()!.mayContain(qHi[i]!, qLo[i]!)) n++;
  }
  return n;
}

for (let round = 0; round < 3; round++) {
  for (const [name, run] of [
    ['block filters', viaBlocks],
    ['every segment', viaEverySegment],
  ] as const) {
    const t = performance.now();
    const n = run();
    const ns = ((performance.now() - t) * 1e6) / PROBES;
    console.log(
      `${name.padEnd(14)} ${ns.toFixed(0).padStart(6)} ns a fresh token, ${(n / PROBES).toFixed(4)} candidates`,
    );
  }
}
