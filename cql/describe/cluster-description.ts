// DESCRIBE CLUSTER: cluster name, partitioner and snitch (package prefixes trimmed, as Cassandra
// does) and, when a non-system keyspace is in use, which endpoints own each token range.

import type { ColumnSpec } from '../query-handler.js';
import { type NodeInfo, PARTITIONER } from '../system/node-info.js';
import { type CqlType, native } from '../types/cql-type.js';
import { inetFromText } from '../types/inet-text.js';
import { encodeJsValue } from '../types/js-value-encoder.js';

/** Cassandra's default endpoint_snitch (SimpleSnitch) wrapped by dynamic_snitch: true. */
const SNITCH = 'DynamicEndpointSnitch';
/** The storage port system.local reports as listen_port. */
const STORAGE_PORT = 7000;

const TEXT = native('text');
const RANGE_OWNERSHIP: CqlType = {
  kind: 'map',
  key: TEXT,
  value: { kind: 'list', element: TEXT, frozen: true },
  frozen: true,
};

function spec(name: string, type: CqlType): ColumnSpec {
  return { keyspace: 'system', table: 'describe', name, type };
}

export function clusterColumns(withRanges: boolean): ColumnSpec[] {
  const columns = [spec('cluster', TEXT), spec('partitioner', TEXT), spec('snitch', TEXT)];
  if (withRanges) columns.push(spec('range_ownership', RANGE_OWNERSHIP));
  return columns;
}

function trimPrefix(s: string, prefix: string): string {
  return s.startsWith(prefix) ? s.slice(prefix.length) : s;
}

/** InetAddressAndPort.toString: `/address:port`, IPv6 as Java writes it (`/[0:0:0:0:0:0:0:1]:port`). */
function endpoint(node: NodeInfo): string {
  const b = inetFromText(node.listenAddress);
  if (!b || b.length === 4) return `/${b ? [...b].join('.') : node.listenAddress}:${STORAGE_PORT}`;
  const groups: string[] = [];
  for (let i = 0; i < 16; i += 2) groups.push(b.readUInt16BE(i).toString(16));
  return `/[${groups.join(':')}]:${STORAGE_PORT}`;
}

export function clusterRow(node: NodeInfo, withRanges: boolean): (Buffer | null)[] {
  const row: Buffer[] = [
    Buffer.from(node.clusterName, 'utf8'),
    Buffer.from(trimPrefix(PARTITIONER, 'org.apache.cassandra.dht.'), 'utf8'),
    Buffer.from(SNITCH, 'utf8'),
  ];
  if (withRanges) {
    // Each range (previous token, token] is keyed by its end token; this node owns them all.
    // Map values are serialized sorted by key bytes, as MapSerializer does.
    const tokens = [...node.tokens].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    const owners = [endpoint(node)];
    row.push(encodeJsValue(RANGE_OWNERSHIP, new Map(tokens.map((t) => [t, owners])))!);
  }
  return row;
}
