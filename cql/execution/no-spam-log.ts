// Cassandra's NoSpamLogger: a warning that can repeat on every request (an unlogged batch over many partitions,
// a slow user function) is logged at most once per interval per kind; the next one after the interval says how
// many were left out meanwhile. Clients still get their warning every time.

import type { Logger } from 'pino';

const INTERVAL_MS = 60_000;

interface Seen {
  at: number;
  suppressed: number;
}

export class NoSpamLog {
  private readonly seen = new Map<string, Seen>();

  constructor(
    private readonly logger: Logger,
    private readonly intervalMs = INTERVAL_MS,
  ) {}

  /** Logs `message` unless a warning of the same `kind` was logged less than the interval ago. */
  warn(kind: string, fields: Record<string, unknown>, message: string): void {
    const now = Date.now();
    const s = this.seen.get(kind);
    if (s && now - s.at < this.intervalMs) {
      s.suppressed++;
      return;
    }
    const suppressed = s?.suppressed ?? 0;
    this.seen.set(kind, { at: now, suppressed: 0 });
    if (suppressed === 0) this.logger.warn(fields, message);
    else
      this.logger.warn(
        { ...fields, suppressed },
        `${message} (${suppressed} more like it in the last ${Math.round((now - s!.at) / 1000)} s)`,
      );
  }
}

const byLogger = new WeakMap<Logger, NoSpamLog>();

/** The rate-limited warnings of a logger (one set of intervals per logger). */
export function noSpam(logger: Logger): NoSpamLog {
  let log = byLogger.get(logger);
  if (!log) {
    log = new NoSpamLog(logger);
    byLogger.set(logger, log);
  }
  return log;
}
