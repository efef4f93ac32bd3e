// Cassandra's floor functions (TimeFcts.FloorTimestampFunction / FloorTimeUuidFunction / FloorDateFunction /
// floorTime, with Duration.floorTimestamp and Duration.floorTime): round a timestamp, timeuuid, date or time down to
// a multiple of a duration, optionally counted from a start time.

import { InvalidRequest } from '../errors.js';
import { type CqlType, type NativeTypeName, native } from '../types/cql-type.js';
import { type Duration, durationFromBytes, formatDuration } from '../types/duration.js';
import { intBytes } from '../types/java-integers.js';
import type { NativeFunction } from './native-function.js';
import { timeUuidMillis } from './timeuuid-generator.js';

const DAY_MS = 86_400_000n;
const NANOS_PER_MILLI = 1_000_000n;
const NANOS_PER_DAY = 86_400_000_000_000n;
const DATE_EPOCH = 2n ** 31n;

function duration(b: Buffer): Duration {
  const d = durationFromBytes(b)!;
  return { months: Number(d.months), days: Number(d.days), nanoseconds: d.nanoseconds };
}

function isNegative(d: Duration): boolean {
  return d.nanoseconds < 0n || d.days < 0 || d.months < 0;
}

/** Calendar.add(MONTH, n) in UTC: the day of month is clamped to the target month's length. */
function addMonths(ms: bigint, n: number): bigint {
  const date = new Date(Number(ms));
  const total = date.getUTCFullYear() * 12 + date.getUTCMonth() + n;
  const year = Math.floor(total / 12);
  const month = total - year * 12;
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate();
  const timeOfDay = ((ms % DAY_MS) + DAY_MS) % DAY_MS;
  const day = Math.min(date.getUTCDate(), lastDay);
  const d = new Date(0);
  d.setUTCFullYear(year, month, day);
  return BigInt(d.getTime()) + timeOfDay;
}

/** Duration.floorTimestamp. */
function floorTimestamp(time: bigint, d: Duration, start: bigint): bigint {
  if (start > time) throw new InvalidRequest('The floor function starting time is greater than the provided time');
  if (isNegative(d)) throw new InvalidRequest('Negative durations are not supported by the floor function');
  const durationMillis = BigInt(d.days) * DAY_MS + d.nanoseconds / NANOS_PER_MILLI;
  if (d.months === 0) {
    if (durationMillis === 0n) return time;
    return time - ((time - start) % durationMillis);
  }
  const t = new Date(Number(time));
  const s = new Date(Number(start));
  const months = (t.getUTCFullYear() - s.getUTCFullYear()) * 12 + (t.getUTCMonth() - s.getUTCMonth());
  let multiplier = Math.trunc(months / d.months);
  let calendar = addMonths(start, multiplier * d.months);
  if (d.days === 0 && d.nanoseconds === 0n) return calendar;
  let floor = calendar + BigInt(multiplier) * durationMillis;
  while (floor > time) {
    multiplier--;
    calendar = addMonths(calendar, -d.months);
    floor = calendar + BigInt(multiplier) * durationMillis;
  }
  return floor > start ? floor : start;
}

interface Temporal {
  toMillis(b: Buffer): bigint;
  fromMillis(ms: bigint): Buffer;
}

const TIMESTAMP: Temporal = { toMillis: (b) => b.readBigInt64BE(0), fromMillis: (ms) => intBytes(64, ms) };
const DATE: Temporal = {
  toMillis: (b) => (BigInt(b.readUInt32BE(0)) - DATE_EPOCH) * DAY_MS,
  fromMillis: (ms) => {
    const b = Buffer.allocUnsafe(4);
    // SimpleDateSerializer.timeInMillisToDay: the days, truncated, offset by 2^31.
    b.writeUInt32BE(Number(BigInt.asUintN(32, ms / DAY_MS + DATE_EPOCH)));
    return b;
  },
};
const TIMEUUID: Temporal = { toMillis: timeUuidMillis, fromMillis: (ms) => intBytes(64, ms) };

function floorFunction(
  input: NativeTypeName,
  inputTime: Temporal,
  result: NativeTypeName,
  resultTime: Temporal,
  start: NativeTypeName | undefined,
): NativeFunction {
  const T = (n: NativeTypeName): CqlType => native(n);
  const startTime = start === 'date' ? DATE : TIMESTAMP;
  return {
    name: 'floor',
    argTypes: start ? [T(input), T('duration'), T(start)] : [T(input), T('duration')],
    returnType: T(result),
    deterministic: true,
    call: (args) => {
      const [time, dur] = args;
      const startBytes = start ? args[2] : undefined;
      if (!time || !dur || startBytes === null || time.length === 0 || dur.length === 0) return null;
      if (startBytes !== undefined && startBytes.length === 0) return null;
      const d = duration(dur);
      if (input === 'date') {
        if (d.nanoseconds !== 0n)
          throw new InvalidRequest(
            `The floor on date values cannot be computed for the ${formatDuration(d)} duration as precision is below 1 day`,
          );
      } else if (d.nanoseconds % NANOS_PER_MILLI !== 0n) {
        throw new InvalidRequest(
          `The floor cannot be computed for the ${formatDuration(d)} duration as precision is below 1 millisecond`,
        );
      }
      const from = startBytes ? startTime.toMillis(startBytes) : 0n;
      return resultTime.fromMillis(floorTimestamp(inputTime.toMillis(time), d, from));
    },
  };
}

/** floor(time, duration) -> time (Duration.floorTime). */
const floorTime: NativeFunction = {
  name: 'floor',
  argTypes: [native('time'), native('duration')],
  returnType: native('time'),
  deterministic: true,
  call: ([time, dur]) => {
    if (!time || !dur || time.length === 0 || dur.length === 0) return null;
    const d = duration(dur);
    if (isNegative(d)) throw new InvalidRequest('Negative durations are not supported by the floor function');
    if (d.months !== 0 || d.days !== 0 || d.nanoseconds > NANOS_PER_DAY)
      throw new InvalidRequest('For time values, the floor can only be computed for durations smaller that a day');
    const t = time.readBigInt64BE(0);
    return intBytes(64, d.nanoseconds === 0n ? t : t - (t % d.nanoseconds));
  },
};

/** The floor overloads, in TimeFcts order. */
export function floorFunctions(): NativeFunction[] {
  return [
    floorFunction('timestamp', TIMESTAMP, 'timestamp', TIMESTAMP, undefined),
    floorFunction('timestamp', TIMESTAMP, 'timestamp', TIMESTAMP, 'timestamp'),
    floorFunction('timeuuid', TIMEUUID, 'timestamp', TIMESTAMP, undefined),
    floorFunction('timeuuid', TIMEUUID, 'timestamp', TIMESTAMP, 'timestamp'),
    floorFunction('date', DATE, 'date', DATE, undefined),
    floorFunction('date', DATE, 'date', DATE, 'date'),
    floorTime,
  ];
}
