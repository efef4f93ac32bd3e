// Values as the row store and the protocol hold them (big-endian), for tests that write through storage directly.

export function int32Bytes(v: number): Buffer {
  const b = Buffer.allocUnsafe(4);
  b.writeInt32BE(v);
  return b;
}

export function int64Bytes(v: number | bigint): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeBigInt64BE(BigInt(v));
  return b;
}

export function doubleBytes(v: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeDoubleBE(v);
  return b;
}
