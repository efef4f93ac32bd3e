// The timestamp a write takes from the client: `USING TIMESTAMP` or the protocol's default timestamp, any 64-bit
// value but Long.MIN_VALUE (Cassandra's UpdateParameters refuses it: it means "no timestamp" there).

import { type Timestamp, timestampOf } from '../../storage/timestamp.js';
import { InvalidRequest } from '../errors.js';

const MIN = -(2n ** 63n);

/** A bound USING TIMESTAMP value (8 bytes). */
export function usingTimestamp(bytes: Buffer): Timestamp {
  return clientTimestamp(bytes.readBigInt64BE(0));
}

export function clientTimestamp(v: bigint): Timestamp {
  if (v === MIN) {
    throw new InvalidRequest('Out of bound timestamp, must be in [-9223372036854775807, 9223372036854775807]');
  }
  return timestampOf(v);
}
