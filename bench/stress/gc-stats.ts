// The gc columns (gc: #, max ms, sum ms, sdv ms, mb) and the summary's GC lines. cassandra-stress
// reads them from the servers over JMX; a CQL server has no such channel, so these are the stress
// process's own collections (V8's GCProfiler: pause time and heap reclaimed), which still shows when
// the client itself is the bottleneck.

import v8 from 'node:v8';

export interface GcInterval {
  count: number;
  maxMs: number;
  sumMs: number;
  sdvMs: number;
  /** Megabytes reclaimed. */
  mb: number;
}

interface GcStatistic {
  cost: number;
  beforeGC: { heapStatistics: { usedHeapSize: number } };
  afterGC: { heapStatistics: { usedHeapSize: number } };
}

export class GcStats {
  private profiler: v8.GCProfiler | undefined;
  totalCount = 0;
  totalMs = 0;
  totalSquares = 0;
  totalBytes = 0;

  start(): void {
    try {
      this.profiler = new v8.GCProfiler();
      this.profiler.start();
    } catch {
      this.profiler = undefined;
    }
  }

  /** The collections since the last call (restarts the profiler). */
  interval(): GcInterval {
    if (!this.profiler) return { count: 0, maxMs: 0, sumMs: 0, sdvMs: 0, mb: 0 };
    const result = this.profiler.stop() as unknown as { statistics?: GcStatistic[] } | undefined;
    this.profiler.start();
    const stats = result?.statistics ?? [];
    let maxMs = 0;
    let sumMs = 0;
    let squares = 0;
    let bytes = 0;
    for (const s of stats) {
      const ms = s.cost / 1000;
      maxMs = Math.max(maxMs, ms);
      sumMs += ms;
      squares += ms * ms;
      bytes += Math.max(0, s.beforeGC.heapStatistics.usedHeapSize - s.afterGC.heapStatistics.usedHeapSize);
    }
    const count = stats.length;
    this.totalCount += count;
    this.totalMs += sumMs;
    this.totalSquares += squares;
    this.totalBytes += bytes;
    const mean = count ? sumMs / count : 0;
    const sdvMs = count ? Math.sqrt(Math.max(0, squares / count - mean * mean)) : 0;
    return { count, maxMs, sumMs, sdvMs, mb: bytes / 1048576 };
  }

  stop(): void {
    this.profiler?.stop();
    this.profiler = undefined;
  }
}
