// Java's byte / short / int / long as Cassandra's integer types store them: big-endian two's complement of a
// fixed width, narrowing by keeping the low bits, and Java's (int) / (long) casts of a double.

export type IntBits = 8 | 16 | 32 | 64;

/** `v`'s low `bits` bits, big-endian (Java's narrowing of an integer; wraps like its arithmetic). */
export function intBytes(bits: IntBits, v: bigint): Buffer {
  const b = Buffer.allocUnsafe(bits / 8);
  const x = BigInt.asIntN(bits, v);
  if (bits === 8) b.writeInt8(Number(x));
  else if (bits === 16) b.writeInt16BE(Number(x));
  else if (bits === 32) b.writeInt32BE(Number(x));
  else b.writeBigInt64BE(x);
  return b;
}

/** A `bits`-wide big-endian integer. */
export function readIntBytes(bits: IntBits, b: Buffer): bigint {
  if (bits === 8) return BigInt(b.readInt8(0));
  if (bits === 16) return BigInt(b.readInt16BE(0));
  if (bits === 32) return BigInt(b.readInt32BE(0));
  return b.readBigInt64BE(0);
}

/** Java's (int) cast of a double: NaN -> 0, saturating, truncating. */
export function javaIntCast(v: number): number {
  if (Number.isNaN(v)) return 0;
  return Math.max(-(2 ** 31), Math.min(2 ** 31 - 1, Math.trunc(v)));
}

/** Java's (long) cast of a double: NaN -> 0, saturating, truncating. */
export function javaLongCast(v: number): bigint {
  if (Number.isNaN(v)) return 0n;
  if (v >= 9.223372036854776e18) return 2n ** 63n - 1n;
  if (v <= -9.223372036854776e18) return -(2n ** 63n);
  return BigInt(Math.trunc(v));
}
