// Native-protocol [string] and [string map] encoders for the benches' minimal wire clients
// (raw-scan-client.ts, restart-time.ts).

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
  const parts: Buffer[] = [Buffer.from([0, Object.keys(m).length])];
  for (const [k, v] of Object.entries(m)) parts.push(shortString(k), shortString(v));
  return Buffer.concat(parts);
}
