// What system.local / system.peers say about this node.

export const RELEASE_VERSION = '5.0.4';
export const CQL_VERSION = '3.4.7';
export const PARTITIONER = 'org.apache.cassandra.dht.Murmur3Partitioner';

export interface NodeInfo {
  hostId: string;
  clusterName: string;
  dataCenter: string;
  rack: string;
  listenAddress: string;
  rpcAddress: string;
  nativePort: number;
  /** Murmur3 tokens owned by this node, as decimal strings. */
  tokens: string[];
  /** Highest protocol version served. */
  nativeProtocolVersion: number;
}

/** `n` tokens spread evenly over the Murmur3 ring, so a single node owns every range. */
export function evenTokens(n: number): string[] {
  const min = -(2n ** 63n);
  const step = 2n ** 64n / BigInt(n);
  const tokens: string[] = [];
  for (let i = 0; i < n; i++) tokens.push((min + step * BigInt(i)).toString());
  return tokens;
}
