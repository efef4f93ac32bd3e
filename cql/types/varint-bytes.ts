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
  // Minimal byte count so that the sign bit is right.
  let n = 1;
  const neg = v < 0n;
  let x = neg ? -v - 1n : v;
  x >>= 7n;
  while (x > 0n) {
    n++;
    x >>= 8n;
  }
  const out = Buffer.allocUnsafe(n);
  let y = BigInt.asUintN(n * 8, v);
  for (let i = n - 1; i >= 0; i--) {
    out[i] = Number(y & 0xffn);
    y >>= 8n;
  }
  return out;
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
