// The progress bar on stderr (cli-progress) while a run goes on: operations (or partitions) done of
// n (or seconds of duration=), the current op rate, p99 and errors. Only when both stdout and stderr are terminals;
// otherwise the periodic lines alone tell the progress. Lines printed while the bar is up clear it
// first, and the bar redraws under them.

import cliProgress from 'cli-progress';

export interface ProgressState {
  done: number;
  opRate: number;
  p99: number;
  errors: number;
}

export class ProgressBar {
  private bar: cliProgress.SingleBar | undefined;

  constructor(
    private readonly label: string,
    /** Operations to run, or undefined when bounded by time. */
    private readonly count: number | undefined,
    /** Seconds, when bounded by time. */
    private readonly seconds: number | undefined,
    /** What the count counts. */
    private readonly unit = 'ops',
  ) {}

  static enabled(wanted: boolean): boolean {
    return wanted && process.stdout.isTTY === true && process.stderr.isTTY === true && !process.env.CI;
  }

  start(): void {
    const byTime = this.count === undefined;
    this.bar = new cliProgress.SingleBar(
      {
        format: `${this.label} |{bar}| {percentage}% | {value}/{total} ${byTime ? 's' : this.unit} | {rate} op/s | p99 {p99} ms | errors {errors} | ETA {eta_formatted}`,
        stream: process.stderr,
        fps: 4,
        forceRedraw: true,
        hideCursor: true,
        clearOnComplete: true,
        barsize: 30,
        etaBuffer: 50,
      },
      cliProgress.Presets.shades_classic,
    );
    const total = byTime ? Math.max(1, Math.round(this.seconds ?? 1)) : Math.max(1, this.count ?? 1);
    this.bar.start(total, 0, { rate: '0', p99: '0.0', errors: 0 });
  }

  update(state: ProgressState, elapsedSeconds: number): void {
    if (!this.bar) return;
    const value = this.count === undefined ? Math.min(Math.floor(elapsedSeconds), this.seconds ?? 0) : state.done;
    this.bar.update(value, {
      rate: Math.round(state.opRate).toLocaleString('en-US'),
      p99: state.p99.toFixed(1),
      errors: state.errors,
    });
  }

  /** Wipes the bar's line before something else is printed; the bar redraws below it on its next tick. */
  clear(): void {
    if (this.bar) process.stderr.write('\r\x1b[2K');
  }

  stop(): void {
    this.bar?.stop();
    this.bar = undefined;
  }
}
