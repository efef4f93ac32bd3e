// Sums what event-loop-gap-probe.ts recorded in a process (the server, a client) over each timed run of a bench:
// how long the event loop went without turning (gaps over 4 ms), split into its thread running, waiting for a
// CPU, and neither (blocked or asleep), and the GC pauses in the run.

import { readFileSync } from 'node:fs';
import type { Gap, GcPause } from './event-loop-gap-probe.js';

/** A timed run: its label and wall-clock span (ms since the epoch). */
export interface RunWindow {
  label: string;
  from: number;
  to: number;
}

export interface GapSummary {
  label: string;
  gaps: number;
  gapMs: number;
  runningMs: number;
  waitingMs: number;
  /** The rest of the gaps' time: the thread neither ran nor waited for a CPU (asleep or blocked). */
  otherMs: number;
  majorGcs: number;
  majorGcMs: number;
  /** Minor GCs (scavenges) over 1 ms. */
  minorGcs: number;
  minorGcMs: number;
}

export function summarizeGaps(file: string, runs: RunWindow[]): GapSummary[] {
  const { gaps, gcs } = JSON.parse(readFileSync(file, 'utf8')) as { gaps: Gap[]; gcs: GcPause[] };
  return runs.map(({ label, from, to }) => {
    const s: GapSummary = {
      label,
      gaps: 0,
      gapMs: 0,
      runningMs: 0,
      waitingMs: 0,
      otherMs: 0,
      majorGcs: 0,
      majorGcMs: 0,
      minorGcs: 0,
      minorGcMs: 0,
    };
    for (const [at, ms, running, waiting] of gaps) {
      if (at < from || at > to) continue;
      s.gaps++;
      s.gapMs += ms;
      s.runningMs += running;
      s.waitingMs += waiting;
      s.otherMs += Math.max(0, ms - running - waiting);
    }
    for (const [at, ms, kind] of gcs) {
      if (at < from || at > to) continue;
      if (kind === 4) {
        s.majorGcs++;
        s.majorGcMs += ms;
      } else if (kind === 1) {
        s.minorGcs++;
        s.minorGcMs += ms;
      }
    }
    return s;
  });
}

/** Several processes' summaries of one run (e.g. the bench's client processes) as one row: the sums. */
export function sumGaps(label: string, rows: GapSummary[]): GapSummary {
  const sum = (f: (r: GapSummary) => number) => rows.reduce((n, r) => n + f(r), 0);
  return {
    label,
    gaps: sum((r) => r.gaps),
    gapMs: sum((r) => r.gapMs),
    runningMs: sum((r) => r.runningMs),
    waitingMs: sum((r) => r.waitingMs),
    otherMs: sum((r) => r.otherMs),
    majorGcs: sum((r) => r.majorGcs),
    majorGcMs: sum((r) => r.majorGcMs),
    minorGcs: sum((r) => r.minorGcs),
    minorGcMs: sum((r) => r.minorGcMs),
  };
}

/** The summaries as a markdown table. */
export function gapTable(rows: GapSummary[]): string {
  const lines = [
    '| run | gaps > 4 ms | ms in gaps | running | waiting for a CPU | neither | major GCs (ms) | scavenges > 1 ms (ms) |',
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  const f = (n: number) => n.toFixed(0);
  for (const r of rows) {
    lines.push(
      `| ${r.label} | ${r.gaps} | ${f(r.gapMs)} | ${f(r.runningMs)} | ${f(r.waitingMs)} | ${f(r.otherMs)} | ${r.majorGcs} (${f(r.majorGcMs)}) | ${r.minorGcs} (${f(r.minorGcMs)}) |`,
    );
  }
  return lines.join('\n');
}
