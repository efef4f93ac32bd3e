// Native-protocol [string] and [string map] encoders for minimal wire clients (the benches' raw-scan-client.ts and
// restart-time.ts; the tests' test/support/wire-client.ts).

/** A protocol [string]: u16 length, UTF-8 bytes. */
export function shortString(s: string): Buffer {
  const b = Buffer.from(s, 'utf8');
  const out = Buffer.alloc(2 + b.length);
  out.writeUInt16BE(b.length, 0);
  b.copy(out, 2);
  return out;
}

/** A protocol [string map]: u16 count, then key and value [string]s. */
export function stringMap(m: Record<string, string>): Buffer {
  const count = Object.keys(m).length;
  const parts: Buffer[] = [Buffer.from([count >>> 8, count & 0xff])];
  for (const [k, v] of Object.entries(m)) parts.push(shortString(k), shortString(v));
  return Buffer.concat(parts);
}
