// DESCRIBE's paging state, as Cassandra's DescribeStatement keeps it: a row offset into the
// result, valid only for the same server version and schema version (a schema change between
// pages is an error, not a silently shifted listing).

import { InvalidRequest } from '../errors.js';
import { RELEASE_VERSION } from '../system/node-info.js';

const VERSION = 0x0001;

export const SCHEMA_CHANGED_WHILE_PAGING_MESSAGE =
  'The schema has changed since the previous page of the DESCRIBE statement result. ' +
  'Please retry the DESCRIBE statement.';

function uuidBytes(uuid: string): Buffer {
  return Buffer.from(uuid.replace(/-/g, ''), 'hex');
}

export function encodeDescribePagingState(offset: number, schemaVersion: string): Buffer {
  const release = Buffer.from(RELEASE_VERSION, 'utf8');
  const b = Buffer.alloc(2 + 2 + release.length + 16 + 8);
  let o = b.writeUInt16BE(VERSION, 0);
  o = b.writeUInt16BE(release.length, o);
  o += release.copy(b, o);
  o += uuidBytes(schemaVersion).copy(b, o);
  b.writeBigInt64BE(BigInt(offset), o);
  return b;
}

/** The row offset a paging state points at; 0 without one. */
export function describePagingOffset(state: Buffer | undefined, schemaVersion: string): number {
  if (!state) return 0;
  try {
    if (state.readUInt16BE(0) !== VERSION) throw new InvalidRequest('Incompatible paging state');
    const len = state.readUInt16BE(2);
    const release = state.subarray(4, 4 + len).toString('utf8');
    if (release !== RELEASE_VERSION) {
      throw new InvalidRequest(
        `The server version of the paging state ${release} is different from the one of the server ${RELEASE_VERSION}`,
      );
    }
    const version = state.subarray(4 + len, 20 + len);
    if (!version.equals(uuidBytes(schemaVersion))) throw new InvalidRequest(SCHEMA_CHANGED_WHILE_PAGING_MESSAGE);
    return Number(state.readBigInt64BE(20 + len));
  } catch (e) {
    if (e instanceof InvalidRequest) throw e;
    throw new InvalidRequest('Invalid paging state.');
  }
}
