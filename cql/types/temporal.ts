// Text forms of timestamp (ms since epoch), date (days, unsigned with the epoch at 2^31) and time (ns of day), as
// Cassandra's TimestampSerializer, SimpleDateSerializer and TimeSerializer parse and print them. Dates are computed
// with the proleptic Gregorian calendar on plain numbers, so the whole range works (JS Date stops at ±275760 years).
// Strings without a zone are read as UTC (Cassandra uses the JVM zone; servers run in UTC).

const MS_PER_DAY = 86_400_000;
export const NANOS_PER_DAY = 86_400_000_000_000n;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

export function civilFromDays(z: number): [number, number, number] {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp + (mp < 10 ? 3 : -9);
  return [yoe + era * 400 + (m <= 2 ? 1 : 0), m, d];
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

function pad(n: number, w: number): string {
  return String(n).padStart(w, '0');
}

// yyyy-MM-dd, then optional ' '|'T' HH:mm[:ss[.SSS]], then an optional zone (z: ' UTC', ' GMT+01:00', ' +0100';
// X: 'Z', '+01', '+0100', '+01:00'). A '-' before the year (years before 1 AD, as formatTimestamp prints them)
// is our extension: Java prints such years without a sign and cannot read them back.
const TIMESTAMP_RE =
  /^(-?\d{1,9})-(\d{1,2})-(\d{1,2})(?:[ T](\d{1,2}):(\d{1,2})(?::(\d{1,2})(?:\.(\d+))?)?)?(?:( ?)(Z|[+-]\d{2}(?::?\d{2})?)| (UTC|GMT|UT|Z|(?:GMT|UTC)?[+-]\d{1,2}(?::?\d{2})?))?$/;

function zoneOffsetMinutes(zone: string): number | undefined {
  if (zone === 'Z' || zone === 'UTC' || zone === 'GMT' || zone === 'UT') return 0;
  const m = /^(?:GMT|UTC)?([+-])(\d{1,2})(?::?(\d{2}))?$/.exec(zone);
  if (!m) return undefined;
  const h = Number(m[2]);
  const min = m[3] === undefined ? 0 : Number(m[3]);
  if (h > 23 || min > 59) return undefined;
  return (m[1] === '-' ? -1 : 1) * (h * 60 + min);
}

/** TimestampSerializer.dateStringToTimestamp; undefined when Cassandra would fail to coerce the string. */
export function parseTimestampText(text: string): bigint | undefined {
  if (text.toLowerCase() === 'now') return BigInt(Date.now());
  if (/^-?\d+$/.test(text)) {
    const v = BigInt(text);
    return v === BigInt.asIntN(64, v) ? v : undefined;
  }
  const m = TIMESTAMP_RE.exec(text);
  if (!m) return undefined;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return undefined;
  const h = m[4] === undefined ? 0 : Number(m[4]);
  const mi = m[5] === undefined ? 0 : Number(m[5]);
  const s = m[6] === undefined ? 0 : Number(m[6]);
  // SimpleDateFormat reads "SSS" as a count of milliseconds: '.5' is 5 ms, and anything over 999 is rejected.
  const ms = m[7] === undefined ? 0 : Number(m[7]);
  if (h > 23 || mi > 59 || s > 59 || ms > 999) return undefined;
  let offset = 0;
  const zone = m[9] ?? m[10];
  if (zone !== undefined) {
    const o = zoneOffsetMinutes(zone);
    if (o === undefined) return undefined;
    offset = o;
  }
  const days = daysFromCivil(y, mo, d);
  return BigInt(days) * BigInt(MS_PER_DAY) + BigInt(((h * 60 + mi - offset) * 60 + s) * 1000 + ms);
}

function splitMillis(ms: bigint): { days: number; msOfDay: number } {
  const day = BigInt(MS_PER_DAY);
  let days = ms / day;
  let rem = ms % day;
  if (rem < 0n) {
    rem += day;
    days -= 1n;
  }
  return { days: Number(days), msOfDay: Number(rem) };
}

function yearText(y: number): string {
  return y < 0 ? `-${pad(-y, 4)}` : pad(y, 4);
}

/** `sep` 'T' gives TimestampSerializer's UTC_FORMAT (CQL literal), ' ' gives its JSON format; both end in 'Z'. */
export function formatTimestamp(ms: bigint, sep: 'T' | ' '): string {
  const { days, msOfDay } = splitMillis(ms);
  const [y, mo, d] = civilFromDays(days);
  const h = Math.floor(msOfDay / 3_600_000);
  const mi = Math.floor(msOfDay / 60_000) % 60;
  const s = Math.floor(msOfDay / 1000) % 60;
  const milli = msOfDay % 1000;
  return `${yearText(y)}-${pad(mo, 2)}-${pad(d, 2)}${sep}${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${pad(milli, 3)}Z`;
}

const DATE_EPOCH = 2 ** 31;

/** SimpleDateSerializer.dateStringToDays as the stored unsigned value; a string error message when it fails. */
export function parseDateText(text: string): number | string {
  if (/^-?\d+$/.test(text)) {
    const v = Number(text);
    if (!Number.isSafeInteger(v) || v < 0 || v > 2 ** 32 - 1)
      return `Unable to make unsigned int (for date) from: '${text}'`;
    return v;
  }
  const m = /^([+-]?\d{4,9})-(\d{2})-(\d{2})$/.exec(text);
  const fail = `Unable to coerce '${text}' to a formatted date (long)`;
  if (!m) return fail;
  const yText = m[1]!;
  // ISO_LOCAL_DATE wants a sign on years of more than 4 digits.
  if (yText.replace(/^[+-]/, '').length > 4 && !/^[+-]/.test(yText)) return fail;
  const y = Number(yText);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return fail;
  const days = daysFromCivil(y, mo, d);
  if (days < -DATE_EPOCH) return `Input date ${text} is less than min supported date -5877641-06-23T00:00Z`;
  if (days > DATE_EPOCH - 1) return `Input date ${text} is greater than max supported date 5881580-07-11T00:00Z`;
  return days + DATE_EPOCH;
}

/** Stored unsigned day number to 'yyyy-MM-dd' (ISO_LOCAL_DATE: '+' before years past 9999). */
export function formatDate(unsignedDays: number): string {
  const [y, mo, d] = civilFromDays(unsignedDays - DATE_EPOCH);
  const yt = y > 9999 ? `+${y}` : yearText(y);
  return `${yt}-${pad(mo, 2)}-${pad(d, 2)}`;
}

/** TimeSerializer.timeStringToLong; a string error message when it fails. */
export function parseTimeText(text: string): bigint | string {
  if (/^-?\d+$/.test(text)) {
    const v = BigInt(text);
    if (v < 0n || v >= NANOS_PER_DAY) return `Unable to make long (for time) from: '${text}'`;
    return v;
  }
  const fail = `(TimeType) Unable to coerce '${text}' to a formatted time (long)`;
  const m = /^\s*([+-]?\d+):([+-]?\d+):([+-]?\d+)(?:\.(\d{1,9}))?\s*$/.exec(text);
  if (!m) return fail;
  const h = Number(m[1]);
  const mi = Number(m[2]);
  const s = Number(m[3]);
  if (h < 0 || h >= 24 || mi < 0 || mi >= 60 || s < 0 || s >= 60) return fail;
  const nanos = m[4] === undefined ? 0n : BigInt(m[4].padEnd(9, '0'));
  return ((BigInt(h) * 60n + BigInt(mi)) * 60n + BigInt(s)) * 1_000_000_000n + nanos;
}

/** 'HH:mm:ss.nnnnnnnnn', as TimeSerializer.toString. */
export function formatTime(nanos: bigint): string {
  const ns = nanos % 1_000_000_000n;
  const totalS = Number(nanos / 1_000_000_000n);
  const h = Math.floor(totalS / 3600);
  const mi = Math.floor(totalS / 60) % 60;
  const s = totalS % 60;
  return `${pad(h, 2)}:${pad(mi, 2)}:${pad(s, 2)}.${String(ns).padStart(9, '0')}`;
}
