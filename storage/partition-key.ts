// The partition key as Cassandra hashes and stores it: a single component is its own bytes; a composite key is
// CompositeType-encoded, each component as [2-byte length][bytes][0x00 end-of-component].
import { InvalidRequest } from '../cql/errors.js';

export function serializePartitionKey(components: readonly Uint8Array[]): Buffer {
  if (components.length === 1) {
    const c = components[0]!;
    if (c.length > 0xffff) throw new InvalidRequest(`Key length of ${c.length} is longer than maximum of 65535`);
    return Buffer.isBuffer(c) ? c : Buffer.from(c.buffer, c.byteOffset, c.length);
  }
  let size = 0;
  for (const c of components) {
    if (c.length > 0xffff) throw new InvalidRequest(`Key length of ${c.length} is longer than maximum of 65535`);
    size += c.length + 3;
  }
  const out = Buffer.allocUnsafe(size);
  let o = 0;
  for (const c of components) {
    out.writeUInt16BE(c.length, o);
    out.set(c, o + 2);
    o += 2 + c.length;
    out[o++] = 0;
  }
  return out;
}

/** Splits a serialized partition key back into `count` components (views into `key`, no copies). */
export function deserializePartitionKey(key: Buffer, count: number): Buffer[] {
  if (count === 1) return [key];
  const out: Buffer[] = [];
  let o = 0;
  for (let i = 0; i < count; i++) {
    if (o + 2 > key.length) throw new InvalidRequest('Invalid composite partition key: not enough bytes');
    const len = key.readUInt16BE(o);
    if (o + 3 + len > key.length) throw new InvalidRequest('Invalid composite partition key: not enough bytes');
    out.push(key.subarray(o + 2, o + 2 + len));
    o += 3 + len;
  }
  if (o !== key.length) throw new InvalidRequest('Invalid composite partition key: extraneous bytes');
  return out;
}
