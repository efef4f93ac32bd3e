// `__cql` inside the sandbox: CQL's byte layouts read and written on Uint8Array, the ground both UDF value
// models (JavaScript and Java) build on. The sandbox has no host functions, so this is plain JavaScript that
// runs there; arguments arrive validated by the host, results are validated by the host again.

import { preludeOf } from './sandbox-program.js';

export const CQL_CODEC_PRELUDE = preludeOf('cql-codec', (global) => {
  const view = (b: Uint8Array) => new DataView(b.buffer, b.byteOffset, b.byteLength);
  const sized = (n: number) => {
    const b = new Uint8Array(n);
    return { b, v: new DataView(b.buffer) };
  };

  function utf8(b: Uint8Array): string {
    let s = '';
    for (let i = 0; i < b.length; ) {
      const c = b[i]!;
      let cp: number;
      if (c < 0x80) {
        cp = c;
        i += 1;
      } else if (c < 0xe0) {
        cp = ((c & 0x1f) << 6) | (b[i + 1]! & 0x3f);
        i += 2;
      } else if (c < 0xf0) {
        cp = ((c & 0x0f) << 12) | ((b[i + 1]! & 0x3f) << 6) | (b[i + 2]! & 0x3f);
        i += 3;
      } else {
        cp = ((c & 0x07) << 18) | ((b[i + 1]! & 0x3f) << 12) | ((b[i + 2]! & 0x3f) << 6) | (b[i + 3]! & 0x3f);
        i += 4;
      }
      s += String.fromCodePoint(cp);
    }
    return s;
  }

  function fromUtf8(s: string): Uint8Array {
    const out: number[] = [];
    for (const ch of s) {
      let cp = ch.codePointAt(0)!;
      if (cp >= 0xd800 && cp <= 0xdfff) cp = 0xfffd; // a lone surrogate, as Java's encoder replaces it
      if (cp < 0x80) out.push(cp);
      else if (cp < 0x800) out.push(0xc0 | (cp >> 6), 0x80 | (cp & 0x3f));
      else if (cp < 0x10000) out.push(0xe0 | (cp >> 12), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
      else out.push(0xf0 | (cp >> 18), 0x80 | ((cp >> 12) & 0x3f), 0x80 | ((cp >> 6) & 0x3f), 0x80 | (cp & 0x3f));
    }
    return new Uint8Array(out);
  }

  /** Two's complement, big-endian, as java.math.BigInteger.toByteArray. */
  function varint(b: Uint8Array, from = 0): bigint {
    if (b.length <= from) return 0n;
    let v = 0n;
    for (let i = from; i < b.length; i++) v = (v << 8n) | BigInt(b[i]!);
    if (b[from]! & 0x80) v -= 1n << BigInt((b.length - from) * 8);
    return v;
  }

  function fromVarint(v: bigint): Uint8Array {
    const bytes: number[] = [];
    let x = v;
    for (;;) {
      const byte = Number(x & 0xffn);
      bytes.unshift(byte);
      x >>= 8n;
      if ((x === 0n && (byte & 0x80) === 0) || (x === -1n && (byte & 0x80) !== 0)) break;
    }
    return new Uint8Array(bytes);
  }

  const HEX = '0123456789abcdef';
  function uuid(b: Uint8Array): string {
    let s = '';
    for (let i = 0; i < 16; i++) {
      if (i === 4 || i === 6 || i === 8 || i === 10) s += '-';
      s += HEX[b[i]! >> 4]! + HEX[b[i]! & 15]!;
    }
    return s;
  }

  function fromUuid(text: string): Uint8Array {
    if (!/^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/.test(text))
      throw new TypeError(`Invalid UUID string: ${text}`);
    const hex = text.replace(/-/g, '');
    const b = new Uint8Array(16);
    for (let i = 0; i < 16; i++) b[i] = Number.parseInt(hex.slice(i * 2, i * 2 + 2), 16);
    return b;
  }

  /** Dotted quad, or eight uncompressed hex groups as java.net.InetAddress.getHostAddress prints IPv6. */
  function inetText(b: Uint8Array): string {
    if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
    const groups: string[] = [];
    for (let i = 0; i < 16; i += 2) groups.push(((b[i]! << 8) | b[i + 1]!).toString(16));
    return groups.join(':');
  }

  function fromInetText(text: string): Uint8Array {
    const quad = /^(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(text);
    if (quad) {
      const parts = quad.slice(1).map(Number);
      if (parts.every((p) => p <= 255)) return new Uint8Array(parts);
    }
    const bad = () => new TypeError(`Invalid inet address: ${text}`);
    let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
    const v4 = /(\d{1,3})\.(\d{1,3})\.(\d{1,3})\.(\d{1,3})$/.exec(s);
    if (v4) {
      const q = v4.slice(1).map(Number);
      s = `${s.slice(0, v4.index)}${((q[0]! << 8) | q[1]!).toString(16)}:${((q[2]! << 8) | q[3]!).toString(16)}`;
    }
    const halves = s.split('::');
    if (halves.length > 2) throw bad();
    const head = halves[0] ? halves[0].split(':') : [];
    const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
    const missing = 8 - head.length - tail.length;
    if (halves.length === 1 ? missing !== 0 : missing < 1) throw bad();
    const groups = [...head, ...new Array<string>(halves.length === 2 ? missing : 0).fill('0'), ...tail];
    const b = new Uint8Array(16);
    groups.forEach((g, i) => {
      if (!/^[0-9a-fA-F]{1,4}$/.test(g)) throw bad();
      const n = Number.parseInt(g, 16);
      b[i * 2] = n >> 8;
      b[i * 2 + 1] = n & 0xff;
    });
    return b;
  }

  function readVint(b: Uint8Array, at: number): [bigint, number] {
    const first = b[at]!;
    let extra = 0;
    while (extra < 8 && first & (0x80 >> extra)) extra++;
    let v = BigInt(first & (0xff >> extra));
    for (let i = 1; i <= extra; i++) v = (v << 8n) | BigInt(b[at + i]!);
    return [(v >> 1n) ^ -(v & 1n), at + 1 + extra]; // zig-zag
  }

  function writeUnsignedVint(v: bigint, out: number[]): void {
    let extra = 0;
    while (extra < 8 && v >= 1n << BigInt(7 * (extra + 1) + (extra === 8 ? 1 : 0))) extra++;
    const bytes: number[] = [];
    let x = v;
    for (let i = 0; i <= extra; i++) {
      bytes.unshift(Number(x & 0xffn));
      x >>= 8n;
    }
    bytes[0] = bytes[0]! | ((0xff00 >> extra) & 0xff);
    out.push(...bytes);
  }

  function readUnsignedVint(b: Uint8Array, at: number): [number, number] {
    const first = b[at]!;
    let extra = 0;
    while (extra < 8 && first & (0x80 >> extra)) extra++;
    let v = first & (0xff >> extra);
    for (let i = 1; i <= extra; i++) v = v * 256 + b[at + i]!;
    return [v, at + 1 + extra];
  }

  function duration(b: Uint8Array) {
    const [months, a] = readVint(b, 0);
    const [days, c] = readVint(b, a);
    const [nanoseconds] = readVint(b, c);
    return { months: Number(months), days: Number(days), nanoseconds };
  }

  function fromDuration(months: number, days: number, nanoseconds: bigint): Uint8Array {
    const out: number[] = [];
    for (const v of [BigInt(months), BigInt(days), nanoseconds]) writeUnsignedVint((v << 1n) ^ (v >> 63n), out);
    return new Uint8Array(out);
  }

  /** list and set: [int n] then n × [int len][bytes]. */
  function elements(b: Uint8Array): (Uint8Array | null)[] {
    if (b.length === 0) return [];
    const v = view(b);
    const n = v.getInt32(0);
    const out: (Uint8Array | null)[] = [];
    let o = 4;
    for (let i = 0; i < n; i++) {
      const len = v.getInt32(o);
      o += 4;
      if (len < 0) out.push(null);
      else {
        out.push(b.subarray(o, o + len));
        o += len;
      }
    }
    return out;
  }

  function framed(count: number | undefined, parts: readonly (Uint8Array | null)[]): Uint8Array {
    let size = count === undefined ? 0 : 4;
    for (const p of parts) size += 4 + (p ? p.length : 0);
    const { b, v } = sized(size);
    let o = 0;
    if (count !== undefined) {
      v.setInt32(0, count);
      o = 4;
    }
    for (const p of parts) {
      v.setInt32(o, p ? p.length : -1);
      o += 4;
      if (p) {
        b.set(p, o);
        o += p.length;
      }
    }
    return b;
  }

  function entries(b: Uint8Array): [Uint8Array | null, Uint8Array | null][] {
    const flat = b.length === 0 ? [] : elementsOfMap(b);
    const out: [Uint8Array | null, Uint8Array | null][] = [];
    for (let i = 0; i < flat.length; i += 2) out.push([flat[i]!, flat[i + 1]!]);
    return out;
  }

  function elementsOfMap(b: Uint8Array): (Uint8Array | null)[] {
    const v = view(b);
    const n = v.getInt32(0);
    const out: (Uint8Array | null)[] = [];
    let o = 4;
    for (let i = 0; i < n * 2; i++) {
      const len = v.getInt32(o);
      o += 4;
      out.push(len < 0 ? null : b.subarray(o, o + len));
      if (len > 0) o += len;
    }
    return out;
  }

  /** Tuple and UDT fields: [int len][bytes] each until the end (trailing fields may be missing). */
  function fields(b: Uint8Array): (Uint8Array | null)[] {
    const v = view(b);
    const out: (Uint8Array | null)[] = [];
    for (let o = 0; o < b.length; ) {
      const len = v.getInt32(o);
      o += 4;
      out.push(len < 0 ? null : b.subarray(o, o + len));
      if (len > 0) o += len;
    }
    return out;
  }

  /** vector<T, n>: fixed-size elements back to back, or each behind an unsigned vint length (fixedSize 0). */
  function vectorElements(b: Uint8Array, dimension: number, fixedSize: number): Uint8Array[] {
    const out: Uint8Array[] = [];
    let o = 0;
    for (let i = 0; i < dimension; i++) {
      if (fixedSize > 0) {
        out.push(b.subarray(o, o + fixedSize));
        o += fixedSize;
      } else {
        const [len, at] = readUnsignedVint(b, o);
        out.push(b.subarray(at, at + len));
        o = at + len;
      }
    }
    return out;
  }

  function fromVectorElements(items: readonly Uint8Array[], fixedSize: number): Uint8Array {
    const out: number[] = [];
    for (const item of items) {
      if (fixedSize === 0) writeUnsignedVint(BigInt(item.length), out);
      for (const byte of item) out.push(byte);
    }
    return new Uint8Array(out);
  }

  const fixed = (n: number, write: (v: DataView) => void) => {
    const { b, v } = sized(n);
    write(v);
    return b;
  };

  global.__cql = {
    // Integers by byte arithmetic: the engine interprets, and a DataView per value costs more than the shifts.
    int8: (b: Uint8Array) => (b[0]! << 24) >> 24,
    int16: (b: Uint8Array) => (((b[0]! << 8) | b[1]!) << 16) >> 16,
    int32: (b: Uint8Array) => (b[0]! << 24) | (b[1]! << 16) | (b[2]! << 8) | b[3]!,
    int64: (b: Uint8Array) => view(b).getBigInt64(0),
    float32: (b: Uint8Array) => view(b).getFloat32(0),
    float64: (b: Uint8Array) => view(b).getFloat64(0),
    bool: (b: Uint8Array) => b[0] !== 0,
    fromInt8: (n: number) => new Uint8Array([n & 0xff]),
    fromInt16: (n: number) => new Uint8Array([(n >> 8) & 0xff, n & 0xff]),
    fromInt32: (n: number) => new Uint8Array([(n >>> 24) & 0xff, (n >> 16) & 0xff, (n >> 8) & 0xff, n & 0xff]),
    fromInt64: (n: bigint) => fixed(8, (v) => v.setBigInt64(0, BigInt.asIntN(64, n))),
    fromFloat32: (n: number) => fixed(4, (v) => v.setFloat32(0, n)),
    fromFloat64: (n: number) => fixed(8, (v) => v.setFloat64(0, n)),
    fromBool: (x: boolean) => new Uint8Array([x ? 1 : 0]),
    utf8,
    fromUtf8,
    varint: (b: Uint8Array) => varint(b),
    fromVarint,
    decimal: (b: Uint8Array) => ({ scale: view(b).getInt32(0), unscaled: varint(b, 4) }),
    fromDecimal: (unscaled: bigint, scale: number) => {
      const u = fromVarint(unscaled);
      const { b, v } = sized(4 + u.length);
      v.setInt32(0, scale);
      b.set(u, 4);
      return b;
    },
    uuid,
    fromUuid,
    inetText,
    fromInetText,
    /** date: an unsigned day count centred on the epoch at 2^31. */
    date: (b: Uint8Array) => view(b).getUint32(0) - 2147483648,
    fromDate: (days: number) => fixed(4, (v) => v.setUint32(0, days + 2147483648)),
    duration,
    fromDuration,
    elements,
    fromElements: (items: readonly (Uint8Array | null)[]) => framed(items.length, items),
    entries,
    fromEntries: (pairs: readonly [Uint8Array | null, Uint8Array | null][]) => framed(pairs.length, pairs.flat()),
    fields,
    fromFields: (items: readonly (Uint8Array | null)[]) => framed(undefined, items),
    vectorElements,
    fromVectorElements,
  };
});
