// -log hdrfile=F: the latencies of every interval as an HdrHistogram log, as cassandra-stress writes
// it (HistogramLogWriter's text format 1.3: a header, then one line per operation type and interval,
// "Tag=insert-st,<start s>,<length s>,<max ms>,<compressed histogram>"), readable by HdrHistogram's
// own tools (HistogramLogReader, HistogramLogProcessor, the plotters). Values are nanoseconds at 3
// significant digits. Tags: <type>-st the service time (request to response); with a rate limit
// also <type>-rt the response time (from the operation's scheduled start) and <type>-wt the wait
// for its slot. Histograms are encoded with hdr-histogram-js, HdrHistogram's JavaScript port.

import { closeSync, openSync, writeSync } from 'node:fs';
import * as hdr from 'hdr-histogram-js';

interface TypeHistograms {
  service: hdr.Histogram;
  response: hdr.Histogram;
  wait: hdr.Histogram;
}

const newHistogram = () => hdr.build({ numberOfSignificantValueDigits: 3, bitBucketSize: 32, autoResize: true });

/** Milliseconds on the performance.now() clock, to nanoseconds. */
const nanos = (ms: number) => Math.max(0, Math.round(ms * 1e6));

export class HdrLatencyLog {
  private fd: number | undefined;
  /** The log's base time: epoch milliseconds, rounded down to the second. */
  readonly baseTime: number;
  private readonly types = new Map<string, TypeHistograms>();

  constructor(
    readonly file: string,
    startedAt = Date.now(),
  ) {
    this.fd = openSync(file, 'w');
    this.baseTime = startedAt - (startedAt % 1000);
    const seconds = (this.baseTime / 1000).toFixed(3);
    this.write('#Logging op latencies for pmemcql-stress\n');
    this.write('#[Histogram log format version 1.3]\n');
    this.write(`#[BaseTime: ${seconds} (seconds since epoch)]\n`);
    this.write(`#[StartTime: ${seconds} (seconds since epoch), ${new Date(this.baseTime).toString()}]\n`);
    this.write('"StartTimestamp","Interval_Length","Interval_Max","Interval_Compressed_Histogram"\n');
  }

  private write(text: string): void {
    if (this.fd !== undefined) writeSync(this.fd, text);
  }

  private histograms(type: string): TypeHistograms {
    let h = this.types.get(type);
    if (!h) {
      h = { service: newHistogram(), response: newHistogram(), wait: newHistogram() };
      this.types.set(type, h);
    }
    return h;
  }

  /** One finished operation; times on the performance.now() clock, `intended` its rate-limit slot. */
  record(type: string, started: number, ended: number, intended?: number): void {
    const h = this.histograms(type);
    h.service.recordValue(nanos(ended - started));
    if (intended !== undefined) {
      h.response.recordValue(nanos(ended - intended));
      h.wait.recordValue(nanos(started - intended));
    }
  }

  /** Writes the interval [start, end] (performance.now() clock) of every type that recorded something, and resets. */
  interval(start: number, end: number): void {
    const startSec = (performance.timeOrigin + start - this.baseTime) / 1000;
    const length = (end - start) / 1000;
    for (const [type, h] of this.types) {
      for (const [suffix, histogram] of [
        ['st', h.service],
        ['rt', h.response],
        ['wt', h.wait],
      ] as const) {
        if (histogram.totalCount === 0) continue;
        const line = `Tag=${type}-${suffix},${startSec.toFixed(3)},${length.toFixed(3)},${(histogram.maxValue / 1e6).toFixed(3)},`;
        this.write(`${line}${hdr.encodeIntoCompressedBase64(histogram)}\n`);
        histogram.reset();
      }
    }
  }

  close(): void {
    if (this.fd !== undefined) closeSync(this.fd);
    this.fd = undefined;
    for (const h of this.types.values()) {
      h.service.destroy();
      h.response.destroy();
      h.wait.destroy();
    }
  }
}
