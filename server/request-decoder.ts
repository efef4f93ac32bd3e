// Decodes request bodies into the shapes of cql/query-handler.ts, per protocol version:
// query flags are a [byte] before v5 and an [int] from v5 (with keyspace and now_in_seconds),
// EXECUTE carries the result metadata id from v5, unset values exist from v4. Bound values
// are subarrays of the frame, never copied or decoded here.

import { ProtocolError } from '../cql/errors.js';
import type { BatchRequest, BatchStatement, BoundValue, QueryOptions } from '../cql/query-handler.js';
import type { ByteReader } from './byte-reader.js';

const QueryFlag = {
  VALUES: 0x01,
  SKIP_METADATA: 0x02,
  PAGE_SIZE: 0x04,
  PAGING_STATE: 0x08,
  SERIAL_CONSISTENCY: 0x10,
  DEFAULT_TIMESTAMP: 0x20,
  NAMES_FOR_VALUES: 0x40,
  KEYSPACE: 0x80,
  NOW_IN_SECONDS: 0x100,
} as const;

const BATCH_TYPES = ['LOGGED', 'UNLOGGED', 'COUNTER'] as const;

export interface QueryRequest {
  query: string;
  options: QueryOptions;
}

export interface PrepareRequest {
  query: string;
  keyspace: string | undefined;
}

export interface ExecuteRequest {
  id: Buffer;
  resultMetadataId: Buffer | undefined;
  options: QueryOptions;
}

export function decodeStartup(r: ByteReader): Map<string, string> {
  return r.stringMap();
}

export function decodeQuery(r: ByteReader, version: number): QueryRequest {
  const query = r.longString();
  return { query, options: decodeQueryParameters(r, version) };
}

export function decodePrepare(r: ByteReader, version: number): PrepareRequest {
  const query = r.longString();
  let keyspace: string | undefined;
  if (version >= 5) {
    const flags = r.int();
    if (flags & 0x01) keyspace = r.string();
  }
  return { query, keyspace };
}

export function decodeExecute(r: ByteReader, version: number): ExecuteRequest {
  const id = r.shortBytes();
  const resultMetadataId = version >= 5 ? r.shortBytes() : undefined;
  return { id, resultMetadataId, options: decodeQueryParameters(r, version) };
}

/** <consistency><flags>[values][page_size][paging_state][serial][timestamp][keyspace][now]. */
export function decodeQueryParameters(r: ByteReader, version: number): QueryOptions {
  const consistency = r.short();
  const flags = version >= 5 ? r.int() : r.byte();
  let values: BoundValue[] = NO_VALUES;
  let names: string[] | undefined;
  if (flags & QueryFlag.VALUES) {
    const n = r.short();
    values = new Array<BoundValue>(n);
    if (flags & QueryFlag.NAMES_FOR_VALUES) {
      names = new Array<string>(n);
      for (let i = 0; i < n; i++) {
        names[i] = r.string();
        values[i] = r.value(version);
      }
    } else {
      for (let i = 0; i < n; i++) values[i] = r.value(version);
    }
  }
  const pageSize = flags & QueryFlag.PAGE_SIZE ? r.int() : -1;
  let pagingState: Buffer | undefined;
  if (flags & QueryFlag.PAGING_STATE) pagingState = r.bytes() ?? undefined;
  const serialConsistency = flags & QueryFlag.SERIAL_CONSISTENCY ? r.short() : undefined;
  const timestamp = flags & QueryFlag.DEFAULT_TIMESTAMP ? readTimestamp(r) : undefined;
  let keyspace: string | undefined;
  let nowInSeconds: number | undefined;
  if (version >= 5) {
    if (flags & QueryFlag.KEYSPACE) keyspace = r.string();
    if (flags & QueryFlag.NOW_IN_SECONDS) nowInSeconds = r.int();
  }
  return {
    consistency,
    values,
    names,
    skipMetadata: (flags & QueryFlag.SKIP_METADATA) !== 0,
    pageSize,
    pagingState,
    serialConsistency,
    timestamp,
    keyspace,
    nowInSeconds,
  };
}

// Shared empty list for requests without values (never mutated by consumers).
const NO_VALUES: BoundValue[] = [];

/** Long.MIN_VALUE, which Cassandra refuses as a timestamp (a constant: the literal costs a BigInt negation each time). */
const MIN_LONG = -(2n ** 63n);

function readTimestamp(r: ByteReader): bigint {
  const ts = r.long();
  if (ts === MIN_LONG) {
    throw new ProtocolError(
      `Out of bound timestamp, must be in [-9223372036854775807, 9223372036854775807] (got ${ts})`,
    );
  }
  return ts;
}

export function decodeBatch(r: ByteReader, version: number): BatchRequest {
  const typeCode = r.byte();
  const type = BATCH_TYPES[typeCode];
  if (type === undefined) throw new ProtocolError(`Invalid BATCH message type ${typeCode}`);
  const n = r.short();
  const statements = new Array<BatchStatement>(n);
  for (let i = 0; i < n; i++) {
    const kind = r.byte();
    let query: string | undefined;
    let id: Buffer | undefined;
    if (kind === 0) query = r.longString();
    else if (kind === 1) id = r.shortBytes();
    else throw new ProtocolError(`Invalid query kind in BATCH messages. Must be 0 or 1 but got ${kind}`);
    const count = r.short();
    const values = new Array<BoundValue>(count);
    for (let v = 0; v < count; v++) values[v] = r.value(version);
    statements[i] = { query, id, values, names: undefined };
  }
  const options = decodeQueryParameters(r, version);
  return {
    type,
    statements,
    consistency: options.consistency,
    serialConsistency: options.serialConsistency,
    timestamp: options.timestamp,
    keyspace: options.keyspace,
    nowInSeconds: options.nowInSeconds,
  };
}

export const EVENT_TYPES: ReadonlySet<string> = new Set(['TOPOLOGY_CHANGE', 'STATUS_CHANGE', 'SCHEMA_CHANGE']);

export function decodeRegister(r: ByteReader): string[] {
  const types = r.stringList();
  for (const t of types) {
    if (!EVENT_TYPES.has(t)) throw new ProtocolError(`Invalid event type: ${t}`);
  }
  return types;
}

export function decodeAuthResponse(r: ByteReader): Buffer | null {
  return r.bytes();
}
