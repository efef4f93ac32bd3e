// `__jsValues` inside the sandbox: the values JavaScript UDF bodies see and return, decoded from and encoded to
// CQL bytes by the argument and return types (given as CqlType JSON). The mapping is in
// docs/user-defined-functions.md ("JavaScript values").

import { preludeOf } from './sandbox-program.js';

export const JS_VALUE_PRELUDE = preludeOf('js-values', (global) => {
  type Bytes = Uint8Array;
  type CqlTypeJson = {
    kind: string;
    name?: string;
    element?: CqlTypeJson;
    key?: CqlTypeJson;
    value?: CqlTypeJson;
    elements?: CqlTypeJson[];
    fields?: { name: string; type: CqlTypeJson }[];
    dimension?: number;
  };
  const cql = global.__cql as Record<string, (...a: never[]) => unknown> & {
    int8(b: Bytes): number;
    int16(b: Bytes): number;
    int32(b: Bytes): number;
    int64(b: Bytes): bigint;
    float32(b: Bytes): number;
    float64(b: Bytes): number;
    bool(b: Bytes): boolean;
    fromInt8(n: number): Bytes;
    fromInt16(n: number): Bytes;
    fromInt32(n: number): Bytes;
    fromInt64(n: bigint): Bytes;
    fromFloat32(n: number): Bytes;
    fromFloat64(n: number): Bytes;
    fromBool(v: boolean): Bytes;
    utf8(b: Bytes): string;
    fromUtf8(s: string): Bytes;
    varint(b: Bytes): bigint;
    fromVarint(v: bigint): Bytes;
    decimal(b: Bytes): { unscaled: bigint; scale: number };
    fromDecimal(unscaled: bigint, scale: number): Bytes;
    uuid(b: Bytes): string;
    fromUuid(s: string): Bytes;
    inetText(b: Bytes): string;
    fromInetText(s: string): Bytes;
    date(b: Bytes): number;
    fromDate(days: number): Bytes;
    duration(b: Bytes): { months: number; days: number; nanoseconds: bigint };
    fromDuration(months: number, days: number, nanoseconds: bigint): Bytes;
    elements(b: Bytes): (Bytes | null)[];
    fromElements(items: (Bytes | null)[]): Bytes;
    entries(b: Bytes): [Bytes | null, Bytes | null][];
    fromEntries(pairs: [Bytes | null, Bytes | null][]): Bytes;
    fields(b: Bytes): (Bytes | null)[];
    fromFields(items: (Bytes | null)[]): Bytes;
    vectorElements(b: Bytes, dimension: number, fixedSize: number): Bytes[];
    fromVectorElements(items: Bytes[], fixedSize: number): Bytes;
  };

  const FIXED: Record<string, number> = {
    boolean: 1,
    tinyint: 1,
    smallint: 2,
    int: 4,
    float: 4,
    date: 4,
    bigint: 8,
    counter: 8,
    double: 8,
    timestamp: 8,
    time: 8,
    uuid: 16,
    timeuuid: 16,
  };
  const fixedSize = (t: CqlTypeJson) => (t.kind === 'native' ? (FIXED[t.name!] ?? 0) : 0);

  // Days since 1970-01-01 <-> proleptic Gregorian 'YYYY-MM-DD', with the server's calendar (__calendar).
  const calendar = global.__calendar as {
    civilFromDays(days: number): [number, number, number];
    daysFromCivil(y: number, m: number, d: number): number;
  };
  function dateText(days: number): string {
    const [y, m, d] = calendar.civilFromDays(days);
    const pad = (n: number, w: number) => String(Math.abs(n)).padStart(w, '0');
    return `${y < 0 ? '-' : ''}${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
  }

  function daysOf(text: string): number {
    const m = /^(-?\d{1,9})-(\d{1,2})-(\d{1,2})$/.exec(text);
    if (!m) throw new TypeError(`Unable to coerce '${text}' to a formatted date (long)`);
    return calendar.daysFromCivil(Number(m[1]), Number(m[2]), Number(m[3]));
  }

  /** java.math.BigDecimal.toString. */
  function decimalText(unscaled: bigint, scale: number): string {
    const neg = unscaled < 0n;
    const digits = (neg ? -unscaled : unscaled).toString();
    const adjusted = -scale + (digits.length - 1);
    const sign = neg ? '-' : '';
    if (scale >= 0 && adjusted >= -6) {
      if (scale === 0) return sign + digits;
      const padded = digits.length <= scale ? '0'.repeat(scale - digits.length + 1) + digits : digits;
      const p = padded.length - scale;
      return `${sign}${padded.slice(0, p)}.${padded.slice(p)}`;
    }
    const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits;
    return `${sign}${mantissa}E${adjusted >= 0 ? '+' : ''}${adjusted}`;
  }

  function decimalOf(v: unknown): Bytes {
    const text = typeof v === 'number' ? String(v) : String(v);
    const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
    if (!m || (m[2] === '' && (m[3] ?? '') === '')) throw new TypeError(`Cannot convert ${text} to decimal`);
    const frac = m[3] ?? '';
    const scale = frac.length - (m[4] === undefined ? 0 : Number(m[4]));
    const unscaled = BigInt(`${m[2]}${frac}` || '0');
    return cql.fromDecimal(m[1] === '-' ? -unscaled : unscaled, scale);
  }

  const describe = (t: CqlTypeJson): string => (t.kind === 'native' ? t.name! : t.kind);
  const mismatch = (t: CqlTypeJson, v: unknown) =>
    new TypeError(`Cannot convert ${typeof v} ${String(v)} to ${describe(t)}`);

  const integral = (t: CqlTypeJson, v: unknown, bits: number): bigint => {
    if (typeof v === 'bigint') return BigInt.asIntN(bits, v);
    if (typeof v === 'number' && Number.isFinite(v)) return BigInt.asIntN(bits, BigInt(Math.trunc(v)));
    throw mismatch(t, v);
  };

  type Decoder = (b: Bytes) => unknown;
  type Encoder = (v: unknown) => Bytes | null;

  function decoder(t: CqlTypeJson): Decoder {
    switch (t.kind) {
      case 'native':
        switch (t.name) {
          case 'int':
            return cql.int32;
          case 'smallint':
            return cql.int16;
          case 'tinyint':
            return cql.int8;
          case 'float':
            return cql.float32;
          case 'double':
            return cql.float64;
          case 'bigint':
          case 'counter':
          case 'time':
            return cql.int64;
          case 'varint':
            return cql.varint;
          case 'boolean':
            return cql.bool;
          case 'timestamp':
            return (b) => new Date(Number(cql.int64(b)));
          case 'date':
            return (b) => dateText(cql.date(b));
          case 'decimal':
            return (b) => {
              const d = cql.decimal(b);
              return decimalText(d.unscaled, d.scale);
            };
          case 'uuid':
          case 'timeuuid':
            return cql.uuid;
          case 'inet':
            return cql.inetText;
          case 'duration':
            return cql.duration;
          case 'text':
          case 'ascii':
            return cql.utf8;
          default:
            return (b) => b.slice();
        }
      case 'list':
      case 'set': {
        const element = decoder(t.element!);
        const items = (b: Bytes) => cql.elements(b).map((e) => (e === null ? null : element(e)));
        return t.kind === 'list' ? items : (b) => new Set(items(b));
      }
      case 'map': {
        const key = decoder(t.key!);
        const value = decoder(t.value!);
        return (b) => new Map(cql.entries(b).map(([k, v]) => [k && key(k), v && value(v)]));
      }
      case 'tuple': {
        const parts = t.elements!.map(decoder);
        return (b) => {
          const f = cql.fields(b);
          return parts.map((d, i) => (f[i] ? d(f[i]!) : null));
        };
      }
      case 'udt': {
        const parts = t.fields!.map((f) => [f.name, decoder(f.type)] as const);
        return (b) => {
          const f = cql.fields(b);
          const o: Record<string, unknown> = {};
          parts.forEach(([name, d], i) => {
            o[name] = f[i] ? d(f[i]!) : null;
          });
          return o;
        };
      }
      case 'vector': {
        const element = decoder(t.element!);
        const size = fixedSize(t.element!);
        return (b) => cql.vectorElements(b, t.dimension!, size).map(element);
      }
      default:
        return (b) => b.slice();
    }
  }

  function encoder(t: CqlTypeJson): Encoder {
    const nullable =
      (f: (v: unknown) => Bytes): Encoder =>
      (v) =>
        v === null || v === undefined ? null : f(v);
    switch (t.kind) {
      case 'native':
        switch (t.name) {
          case 'int':
            return nullable((v) => cql.fromInt32(Number(integral(t, v, 32))));
          case 'smallint':
            return nullable((v) => cql.fromInt16(Number(integral(t, v, 16))));
          case 'tinyint':
            return nullable((v) => cql.fromInt8(Number(integral(t, v, 8))));
          case 'bigint':
          case 'counter':
          case 'time':
            return nullable((v) => cql.fromInt64(integral(t, v, 64)));
          case 'varint':
            return nullable((v) => {
              if (typeof v === 'bigint') return cql.fromVarint(v);
              if (typeof v === 'number' && Number.isFinite(v)) return cql.fromVarint(BigInt(Math.trunc(v)));
              throw mismatch(t, v);
            });
          case 'float':
          case 'double':
            return nullable((v) => {
              if (typeof v !== 'number' && typeof v !== 'bigint') throw mismatch(t, v);
              return t.name === 'float' ? cql.fromFloat32(Number(v)) : cql.fromFloat64(Number(v));
            });
          case 'boolean':
            return nullable((v) => cql.fromBool(Boolean(v)));
          case 'timestamp':
            return nullable((v) => {
              const ms = v instanceof Date ? v.getTime() : typeof v === 'number' || typeof v === 'bigint' ? v : NaN;
              return cql.fromInt64(integral(t, ms, 64));
            });
          case 'date':
            return nullable((v) => cql.fromDate(typeof v === 'number' ? v : daysOf(String(v))));
          case 'decimal':
            return nullable(decimalOf);
          case 'uuid':
          case 'timeuuid':
            return nullable((v) => cql.fromUuid(String(v)));
          case 'inet':
            return nullable((v) => cql.fromInetText(String(v)));
          case 'duration':
            return nullable((v) => {
              const d = v as { months?: unknown; days?: unknown; nanoseconds?: unknown };
              if (typeof d !== 'object') throw mismatch(t, v);
              return cql.fromDuration(
                Number(d.months ?? 0),
                Number(d.days ?? 0),
                BigInt((d.nanoseconds ?? 0) as bigint),
              );
            });
          case 'text':
          case 'ascii':
            return nullable((v) => cql.fromUtf8(String(v)));
          default:
            return nullable((v) => {
              if (v instanceof Uint8Array) return v;
              if (v instanceof ArrayBuffer) return new Uint8Array(v);
              throw mismatch(t, v);
            });
        }
      case 'list':
      case 'set': {
        const element = encoder(t.element!);
        return nullable((v) => {
          const items = v instanceof Set ? [...v] : Array.isArray(v) ? v : undefined;
          if (!items) throw mismatch(t, v);
          return cql.fromElements(items.map(element));
        });
      }
      case 'map': {
        const key = encoder(t.key!);
        const value = encoder(t.value!);
        return nullable((v) => {
          const pairs =
            v instanceof Map ? [...v.entries()] : typeof v === 'object' ? Object.entries(v as object) : undefined;
          if (!pairs) throw mismatch(t, v);
          return cql.fromEntries(pairs.map(([k, x]) => [key(k), value(x)]));
        });
      }
      case 'tuple': {
        const parts = t.elements!.map(encoder);
        return nullable((v) => {
          if (!Array.isArray(v)) throw mismatch(t, v);
          return cql.fromFields(parts.map((e, i) => e(v[i])));
        });
      }
      case 'udt': {
        const parts = t.fields!.map((f) => [f.name, encoder(f.type)] as const);
        return nullable((v) => {
          if (typeof v !== 'object') throw mismatch(t, v);
          const o = v as Record<string, unknown>;
          return cql.fromFields(parts.map(([name, e]) => e(o[name])));
        });
      }
      case 'vector': {
        const element = encoder(t.element!);
        const size = fixedSize(t.element!);
        return nullable((v) => {
          if (!Array.isArray(v) || v.length !== t.dimension) throw mismatch(t, v);
          return cql.fromVectorElements(
            v.map((x) => {
              const e = element(x);
              if (e === null) throw mismatch(t, v);
              return e;
            }),
            size,
          );
        });
      }
      default:
        return nullable((v) => {
          if (v instanceof Uint8Array) return v;
          throw mismatch(t, v);
        });
    }
  }

  global.__jsValues = { decoder, encoder };
});
