// Rows of system.local, system.peers(_v2) (empty on a single node) and system_views.settings.

import type { SchemaCatalog } from '../schema/schema-catalog.js';
import { CQL_VERSION, type NodeInfo, PARTITIONER, RELEASE_VERSION } from './node-info.js';
import type { RowObject } from './virtual-table.js';

export function localRows(node: NodeInfo, catalog: SchemaCatalog): RowObject[] {
  return [
    {
      key: 'local',
      bootstrapped: 'COMPLETED',
      broadcast_address: node.listenAddress,
      broadcast_port: 7000,
      cluster_name: node.clusterName,
      cql_version: CQL_VERSION,
      data_center: node.dataCenter,
      gossip_generation: Math.floor(Date.now() / 1000),
      host_id: node.hostId,
      listen_address: node.listenAddress,
      listen_port: 7000,
      native_protocol_version: String(node.nativeProtocolVersion),
      partitioner: PARTITIONER,
      rack: node.rack,
      release_version: RELEASE_VERSION,
      rpc_address: node.rpcAddress,
      rpc_port: node.nativePort,
      schema_version: catalog.version,
      tokens: node.tokens,
      truncated_at: null,
    },
  ];
}

export function settingsRows(settings: Record<string, unknown>): RowObject[] {
  return Object.entries(settings)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .map(([name, value]) => ({
      name,
      value: value === undefined || value === null ? null : typeof value === 'string' ? value : JSON.stringify(value),
    }));
}
