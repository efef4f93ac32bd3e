// Rows of system_views.clients (Cassandra's ClientsTable) from the open connections.

import type { RowObject } from '../cql/system/virtual-table.js';
import type { ConnectionInfo } from './connection.js';

export function clientRows(connections: readonly ConnectionInfo[]): RowObject[] {
  return connections.map((c) => ({
    address: c.remoteAddress,
    port: c.remotePort,
    client_options: c.startupOptions ?? null,
    connection_stage: c.protocolVersion === undefined ? 'connecting' : 'ready',
    driver_name: c.driverName ?? null,
    driver_version: c.driverVersion ?? null,
    hostname: c.remoteAddress,
    protocol_version: c.protocolVersion ?? null,
    request_count: BigInt(c.requests),
    ssl_cipher_suite: c.tls?.cipher ?? null,
    ssl_enabled: c.tls !== undefined,
    ssl_protocol: c.tls?.protocol ?? null,
    username: c.user ?? 'anonymous',
    keyspace_name: c.keyspace ?? null,
  }));
}
