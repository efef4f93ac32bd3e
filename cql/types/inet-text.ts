// inet text forms: dotted quads and IPv6 (java.net.InetAddress.getHostAddress prints IPv6 uncompressed).
import { isIPv4, isIPv6 } from 'node:net';

/** Address bytes for an IPv4/IPv6 literal (or 'localhost'); undefined otherwise. */
export function inetFromText(text: string): Buffer | undefined {
  if (text === 'localhost') return Buffer.from([127, 0, 0, 1]);
  if (isIPv4(text)) return Buffer.from(text.split('.').map(Number));
  let s = text.startsWith('[') && text.endsWith(']') ? text.slice(1, -1) : text;
  const pct = s.indexOf('%');
  if (pct >= 0) s = s.slice(0, pct);
  if (!isIPv6(s)) return undefined;
  // Expand embedded IPv4 into two groups, then '::'.
  const v4 = /(\d+\.\d+\.\d+\.\d+)$/.exec(s);
  if (v4) {
    const q = v4[1]!.split('.').map(Number);
    s = s.slice(0, v4.index) + `${((q[0]! << 8) | q[1]!).toString(16)}:${((q[2]! << 8) | q[3]!).toString(16)}`;
  }
  let groups: string[];
  const dbl = s.indexOf('::');
  if (dbl >= 0) {
    const head = s.slice(0, dbl) ? s.slice(0, dbl).split(':') : [];
    const tail = s.slice(dbl + 2) ? s.slice(dbl + 2).split(':') : [];
    groups = [...head, ...new Array<string>(8 - head.length - tail.length).fill('0'), ...tail];
  } else {
    groups = s.split(':');
  }
  const out = Buffer.alloc(16);
  for (let i = 0; i < 8; i++) out.writeUInt16BE(Number.parseInt(groups[i]!, 16), i * 2);
  // Java turns IPv4-mapped IPv6 addresses into Inet4Address.
  if (out.subarray(0, 10).every((b) => b === 0) && out[10] === 0xff && out[11] === 0xff) return out.subarray(12);
  return out;
}

export function inetToText(b: Uint8Array): string {
  if (b.length === 4) return `${b[0]}.${b[1]}.${b[2]}.${b[3]}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(((b[i]! << 8) | b[i + 1]!).toString(16));
  return groups.join(':');
}
