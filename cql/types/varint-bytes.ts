// Arbitrary-precision integers as Cassandra's varint (Java BigInteger.toByteArray): big-endian two's complement,
// minimal length (an empty buffer is not a number, it is the "empty" value).

export function bigintFromTwosComplement(b: Uint8Array, start = 0, end = b.length): bigint {
  if (end - start <= 0) return 0n;
  if (end - start <= 6) {
    let v = (b[start]! << 24) >> 24; // signed first byte
    for (let i = start + 1; i < end; i++) v = v * 256 + b[i]!;
    return BigInt(v);
  }
  const hex = Buffer.from(b.buffer, b.byteOffset + start, end - start).toString('hex');
  const u = BigInt(`0x${hex}`);
  return b[start]! & 0x80 ? u - (1n << BigInt((end - start) * 8)) : u;
}

export function bigintToTwosComplement(v: bigint): Buffer {
  // Robustness fix (found by fuzzing): the former loop shifted the value 8 bits at a time, which is
  // quadratic in its size (a 64 KiB varint took 3 s, a 1 MiB literal minutes of blocked event loop).
  // Hex conversion of a bigint is linear. Minimal byte count so that the sign bit is right.
  const neg = v < 0n;
  const x = neg ? -v - 1n : v;
  let bits = 0;
  if (x > 0n) {
    const hex = x.toString(16);
    bits = (hex.length - 1) * 4 + (32 - Math.clz32(Number.parseInt(hex[0]!, 16)));
  }
  const n = Math.floor(bits / 8) + 1;
  return Buffer.from(
    BigInt.asUintN(n * 8, v)
      .toString(16)
      .padStart(n * 2, '0'),
    'hex',
  );
}

/** Length of the minimal two's complement form of the bytes (dropping redundant leading 0x00/0xff). */
export function minimalStart(b: Uint8Array, start: number, end: number): number {
  while (end - start > 1) {
    const first = b[start]!;
    const next = b[start + 1]!;
    if ((first === 0 && (next & 0x80) === 0) || (first === 0xff && (next & 0x80) !== 0)) start++;
    else break;
  }
  return start;
}
