// Cassandra's variable-length integer (utils/vint/VIntCoding): the count of leading 1 bits of the first byte is the
// number of extra bytes; signed values are zig-zag encoded first. Used by duration values and by vectors of
// variable-length elements.

/** Bytes needed for an unsigned vint. */
export function unsignedVIntSize(v: bigint): number {
  let bits = 0;
  for (let x = v | 1n; x > 0n; x >>= 1n) bits++;
  const magnitude = 64 - bits; // numberOfLeadingZeros
  return Math.trunc((639 - magnitude * 9) / 64);
}

export function writeUnsignedVInt(v: bigint, out: number[]): void {
  v = BigInt.asUintN(64, v);
  const size = unsignedVIntSize(v);
  if (size === 1) {
    out.push(Number(v));
    return;
  }
  const extra = size - 1;
  const bytes: number[] = [];
  for (let i = 0; i < size; i++) {
    bytes.unshift(Number(v & 0xffn));
    v >>= 8n;
  }
  bytes[0] = (bytes[0]! | (~(0xff >> extra) & 0xff)) & 0xff;
  out.push(...bytes);
}

export function writeVInt(v: bigint, out: number[]): void {
  writeUnsignedVInt(BigInt.asUintN(64, (v << 1n) ^ (v >> 63n)), out);
}

/** Reads an unsigned vint at `pos`; returns [value, next position], or undefined if the bytes run out. */
export function readUnsignedVInt(b: Uint8Array, pos: number): [bigint, number] | undefined {
  if (pos >= b.length) return undefined;
  const first = b[pos]!;
  if (first < 0x80) return [BigInt(first), pos + 1];
  let extra = 0;
  while (extra < 8 && first & (0x80 >> extra)) extra++;
  if (pos + 1 + extra > b.length) return undefined;
  let v = BigInt(first & (0xff >> extra));
  for (let i = 1; i <= extra; i++) v = (v << 8n) | BigInt(b[pos + i]!);
  return [BigInt.asUintN(64, v), pos + 1 + extra];
}

export function readVInt(b: Uint8Array, pos: number): [bigint, number] | undefined {
  const r = readUnsignedVInt(b, pos);
  if (!r) return undefined;
  const u = r[0];
  return [BigInt.asIntN(64, (u >> 1n) ^ -(u & 1n)), r[1]];
}

/** Small-number fast path for unsigned vints (vector element lengths). */
export function readUnsignedVIntNumber(b: Uint8Array, pos: number): [number, number] | undefined {
  const r = readUnsignedVInt(b, pos);
  return r && r[0] <= BigInt(Number.MAX_SAFE_INTEGER) ? [Number(r[0]), r[1]] : undefined;
}
