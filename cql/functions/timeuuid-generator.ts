// Version 1 (time-based) UUIDs as Cassandra's TimeUUID makes them: 100 ns ticks since 1582-10-15,
// strictly increasing within this process, with a random clock sequence and node.

import { randomBytes } from 'node:crypto';

/** 100-ns intervals between 1582-10-15 (the UUID epoch) and 1970-01-01. */
const GREGORIAN_OFFSET = 0x01b21dd213814000n;

const node = randomBytes(8);
node[0] = (node[0]! | 0x01) >>> 0; // multicast bit: not a real MAC address
let lastTicks = 0n;

function buildUuid(ticks: bigint, clockSeqAndNode: Buffer): Buffer {
  const b = Buffer.allocUnsafe(16);
  const low = Number(ticks & 0xffffffffn);
  const mid = Number((ticks >> 32n) & 0xffffn);
  const hi = Number((ticks >> 48n) & 0x0fffn) | 0x1000;
  b.writeUInt32BE(low, 0);
  b.writeUInt16BE(mid, 4);
  b.writeUInt16BE(hi, 6);
  clockSeqAndNode.copy(b, 8, 0, 8);
  b[8] = (b[8]! & 0x3f) | 0x80;
  return b;
}

/** A new, unique timeuuid for "now". */
export function newTimeUuid(nowMs: number = Date.now()): Buffer {
  let ticks = BigInt(nowMs) * 10000n + GREGORIAN_OFFSET;
  if (ticks <= lastTicks) ticks = lastTicks + 1n;
  lastTicks = ticks;
  return buildUuid(ticks, node);
}

/** The smallest / largest timeuuid of a millisecond (minTimeuuid / maxTimeuuid). */
export function boundTimeUuid(ms: bigint, max: boolean): Buffer {
  const ticks = ms * 10000n + GREGORIAN_OFFSET + (max ? 9999n : 0n);
  // Cassandra compares the clock-seq/node half as signed bytes: 0x80.. is the minimum, 0x7f.. the maximum.
  const tail = max ? Buffer.from('7f7f7f7f7f7f7f7f', 'hex') : Buffer.from('8080808080808080', 'hex');
  const b = buildUuid(ticks, tail);
  tail.copy(b, 8);
  return b;
}

/** Milliseconds since the Unix epoch of a timeuuid. */
export function timeUuidMillis(b: Uint8Array): bigint {
  const buf = Buffer.from(b.buffer, b.byteOffset, b.byteLength);
  const low = BigInt(buf.readUInt32BE(0));
  const mid = BigInt(buf.readUInt16BE(4));
  const hi = BigInt(buf.readUInt16BE(6) & 0x0fff);
  const ticks = (hi << 48n) | (mid << 32n) | low;
  return (ticks - GREGORIAN_OFFSET) / 10000n;
}
