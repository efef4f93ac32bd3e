// CQL duration: months, days and nanoseconds, serialized as three Cassandra vints (cql3/Duration.java).
import { InvalidRequest } from '../errors.js';
import { readVInt, writeVInt } from './vint.js';

export interface Duration {
  readonly months: number;
  readonly days: number;
  readonly nanoseconds: bigint;
}

const NANOS_PER_MICRO = 1000n;
const NANOS_PER_MILLI = 1_000_000n;
const NANOS_PER_SECOND = 1_000_000_000n;
const NANOS_PER_MINUTE = 60n * NANOS_PER_SECOND;
const NANOS_PER_HOUR = 60n * NANOS_PER_MINUTE;
const INT_MAX = 2147483647n;
const LONG_MAX = 2n ** 63n - 1n;

const UNIT_NAMES = [
  'years',
  'months',
  'weeks',
  'days',
  'hours',
  'minutes',
  'seconds',
  'milliseconds',
  'microseconds',
  'nanoseconds',
];

class Builder {
  private months = 0n;
  private days = 0n;
  private nanos = 0n;
  private current = -1;
  constructor(private readonly negative: boolean) {}

  private order(unit: number): void {
    if (unit === this.current)
      throw new InvalidRequest(`Invalid duration. The ${UNIT_NAMES[unit]} are specified multiple times`);
    if (unit <= this.current)
      throw new InvalidRequest(`Invalid duration. The ${UNIT_NAMES[this.current]} should be after ${UNIT_NAMES[unit]}`);
    this.current = unit;
  }

  private addMonths(unit: number, n: bigint, per: bigint): void {
    this.order(unit);
    if (n > (INT_MAX - this.months) / per)
      throw new InvalidRequest(`Invalid duration. The total number of months must be less or equal to ${INT_MAX}`);
    this.months += n * per;
  }

  private addDays(unit: number, n: bigint, per: bigint): void {
    this.order(unit);
    if (n > (INT_MAX - this.days) / per)
      throw new InvalidRequest(`Invalid duration. The total number of days must be less or equal to ${INT_MAX}`);
    this.days += n * per;
  }

  private addNanos(unit: number, n: bigint, per: bigint): void {
    this.order(unit);
    if (n > (LONG_MAX - this.nanos) / per)
      throw new InvalidRequest(
        `Invalid duration. The total number of nanoseconds must be less or equal to ${LONG_MAX}`,
      );
    this.nanos += n * per;
  }

  add(unit: string, n: bigint): void {
    switch (unit.toLowerCase()) {
      case 'y':
        this.addMonths(0, n, 12n);
        return;
      case 'mo':
        this.addMonths(1, n, 1n);
        return;
      case 'w':
        this.addDays(2, n, 7n);
        return;
      case 'd':
        this.addDays(3, n, 1n);
        return;
      case 'h':
        this.addNanos(4, n, NANOS_PER_HOUR);
        return;
      case 'm':
        this.addNanos(5, n, NANOS_PER_MINUTE);
        return;
      case 's':
        this.addNanos(6, n, NANOS_PER_SECOND);
        return;
      case 'ms':
        this.addNanos(7, n, NANOS_PER_MILLI);
        return;
      case 'us':
      case 'µs':
        this.addNanos(8, n, NANOS_PER_MICRO);
        return;
      case 'ns':
        this.addNanos(9, n, 1n);
        return;
    }
  }

  build(): Duration {
    const s = this.negative ? -1n : 1n;
    return { months: Number(s * this.months), days: Number(s * this.days), nanoseconds: s * this.nanos };
  }
}

const ISO_RE = /^P(?:(\d+)Y)?(?:(\d+)M)?(?:(\d+)D)?(?:T(?:(\d+)H)?(?:(\d+)M)?(?:(\d+)S)?)?$/;
const ISO_WEEK_RE = /^P(\d+)W$/;
const ISO_ALT_RE = /^P(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})$/;
const STANDARD_RE = /(\d+)(y|mo|w|d|h|s|ms|us|µs|ns|m)/iy;

/** Duration.from: `1h30m`, `-2d`, ISO 8601 `P1Y2M3DT4H5M6S`, `P2W`, `P0001-02-03T04:05:06`. */
export function parseDuration(input: string): Duration {
  const negative = input.startsWith('-');
  const source = negative ? input.slice(1) : input;
  const fail = () => new InvalidRequest(`Unable to convert '${source}' to a duration`);
  const b = new Builder(negative);
  const add = (unit: string, v: string | undefined) => {
    if (v !== undefined) b.add(unit, BigInt(v));
  };
  if (source.startsWith('P')) {
    let m: RegExpExecArray | null;
    if (source.endsWith('W')) {
      m = ISO_WEEK_RE.exec(source);
      if (!m) throw fail();
      add('w', m[1]);
    } else if (source.includes('-')) {
      m = ISO_ALT_RE.exec(source);
      if (!m) throw fail();
      add('y', m[1]);
      add('mo', m[2]);
      add('d', m[3]);
      add('h', m[4]);
      add('m', m[5]);
      add('s', m[6]);
    } else {
      m = ISO_RE.exec(source);
      if (!m || source === 'P' || source.endsWith('T')) throw fail();
      add('y', m[1]);
      add('mo', m[2]);
      add('d', m[3]);
      add('h', m[4]);
      add('m', m[5]);
      add('s', m[6]);
    }
    return b.build();
  }
  STANDARD_RE.lastIndex = 0;
  let any = false;
  while (STANDARD_RE.lastIndex < source.length) {
    const m = STANDARD_RE.exec(source);
    if (!m) throw fail();
    any = true;
    b.add(m[2]!, BigInt(m[1]!));
  }
  if (!any) throw fail();
  return b.build();
}

export function durationToBytes(d: Duration): Buffer {
  const out: number[] = [];
  writeVInt(BigInt(d.months), out);
  writeVInt(BigInt(d.days), out);
  writeVInt(d.nanoseconds, out);
  return Buffer.from(out);
}

/** Decodes the three vints; undefined if the bytes run out. */
export function durationFromBytes(
  b: Uint8Array,
): { months: bigint; days: bigint; nanoseconds: bigint; end: number } | undefined {
  const m = readVInt(b, 0);
  if (!m) return undefined;
  const d = readVInt(b, m[1]);
  if (!d) return undefined;
  const n = readVInt(b, d[1]);
  if (!n) return undefined;
  return { months: m[0], days: d[0], nanoseconds: n[0], end: n[1] };
}

function append(parts: string[], dividend: bigint, divisor: bigint, unit: string): bigint {
  if (dividend === 0n || dividend < divisor) return dividend;
  parts.push(`${dividend / divisor}${unit}`);
  return dividend % divisor;
}

/** Duration.toString: `1y2mo3d4h5m6s7ms8us9ns`, with a leading '-' when negative (empty for zero). */
export function formatDuration(d: Duration): string {
  const parts: string[] = [];
  const abs = (x: bigint) => (x < 0n ? -x : x);
  if (d.months < 0 || d.days < 0 || d.nanoseconds < 0n) parts.push('-');
  const r = append(parts, abs(BigInt(d.months)), 12n, 'y');
  append(parts, r, 1n, 'mo');
  append(parts, abs(BigInt(d.days)), 1n, 'd');
  if (d.nanoseconds !== 0n) {
    let rem = append(parts, abs(d.nanoseconds), NANOS_PER_HOUR, 'h');
    rem = append(parts, rem, NANOS_PER_MINUTE, 'm');
    rem = append(parts, rem, NANOS_PER_SECOND, 's');
    rem = append(parts, rem, NANOS_PER_MILLI, 'ms');
    rem = append(parts, rem, NANOS_PER_MICRO, 'us');
    append(parts, rem, 1n, 'ns');
  }
  return parts.join('');
}
