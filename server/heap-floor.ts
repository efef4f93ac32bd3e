// The event loop's V8 heap starts with a 128 MiB old-generation allocation limit (`--initial-old-space-size=128`,
// a Node start-up flag: V8 sizes the heap before any script runs, and NODE_OPTIONS refuses this one). With V8's
// default limit for a small heap (~35 MiB here), every twin flush started a mark-compact: V8 begins marking once
// the old generation's headroom is below the young generation's size, and the server's live heap (~15 MiB) plus a
// 16 MiB young generation sat right at that line. Each mark-compact paused requests for 2-10 ms: 1.5-2 a flush,
// ~60 % of the twin's event-loop stalls (docs/benchmarks.md). With the floor, 2 a run.
// The launchers (npm start / serve, the Dockerfile, main.js's shebang, the test and bench helpers) pass it.

export const HEAP_FLOOR_FLAG = '--initial-old-space-size=128';

/** The `--initial-old-space-size` (MiB) among node's options, or undefined when the process runs without one. */
export function heapFloorMb(execArgv: readonly string[]): number | undefined {
  for (let i = 0; i < execArgv.length; i++) {
    const a = execArgv[i]!;
    const m = /^--initial[-_]old[-_]space[-_]size(?:=(\d+))?$/.exec(a);
    if (!m) continue;
    const v = m[1] ?? execArgv[i + 1];
    const n = Number(v);
    if (Number.isFinite(n)) return n;
  }
  return undefined;
}
