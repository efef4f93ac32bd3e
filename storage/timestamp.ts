// Write timestamps: Cassandra's are any 64-bit integer but Long.MIN_VALUE (microseconds by convention; USING
// TIMESTAMP takes the whole range). They travel as JS numbers, exact below 2^53 in magnitude and cheap to
// compare; only a value beyond that is a bigint. Each value has exactly one representation, so `===` compares
// two timestamps and `<` / `>` order any pair, mixed or not.

export type Timestamp = number | bigint;

/** 2^53: numbers are exact integers strictly inside (-2^53, 2^53). */
const EXACT = 2 ** 53;
const EXACT_BIG = 2n ** 53n;
const TWO_32 = 2 ** 32;

/** The one representation of a 64-bit timestamp. */
export function timestampOf(v: bigint): Timestamp {
  return v > -EXACT_BIG && v < EXACT_BIG ? Number(v) : v;
}

/** `ts + delta` (delta a small integer), in its one representation. */
export function timestampPlus(ts: Timestamp, delta: number): Timestamp {
  if (typeof ts === 'number') {
    const v = ts + delta;
    if (v > -EXACT && v < EXACT) return v;
    return BigInt(ts) + BigInt(delta);
  }
  return timestampOf(ts + BigInt(delta));
}

export function timestampToBigInt(ts: Timestamp): bigint {
  return typeof ts === 'bigint' ? ts : BigInt(ts);
}

/** Writes the timestamp as a big-endian int64 at `pos`; returns the position after it. */
export function writeTimestamp(buf: Buffer, pos: number, ts: Timestamp): number {
  if (typeof ts === 'bigint') {
    buf.writeBigInt64BE(ts, pos);
    return pos + 8;
  }
  const hi = Math.floor(ts / TWO_32);
  buf.writeInt32BE(hi, pos);
  buf.writeUInt32BE(ts - hi * TWO_32, pos + 4);
  return pos + 8;
}

/** Reads a big-endian int64 timestamp at `pos`. */
export function readTimestamp(buf: Buffer, pos: number): Timestamp {
  // Rounding is monotonic and +-2^53 are doubles: the rounded value is inside the exact range exactly when the
  // true one is, and is then the true one.
  const v = buf.readInt32BE(pos) * TWO_32 + buf.readUInt32BE(pos + 4);
  return v > -EXACT && v < EXACT ? v : buf.readBigInt64BE(pos);
}
