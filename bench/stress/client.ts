// The cassandra-driver client for a run: the contact points the user gave (and only those: an
// allow-list policy keeps the driver off any peer it discovers), the local datacenter, optional
// plain-text credentials, the consistency level and prepared statements; bound to a keyspace when
// asked (a profile's unqualified table names resolve there).

import { lookup } from 'node:dns/promises';
import { isIPv6 } from 'node:net';
import cassandra from 'cassandra-driver';
import type { StressSettings } from './args.js';
import { StressArgError } from './distribution.js';

export function consistencyOf(name: string): number {
  const key = name
    .toLowerCase()
    .replace(/_(\w)/g, (_, c: string) => c.toUpperCase()) as keyof typeof cassandra.types.consistencies;
  const value = cassandra.types.consistencies[key];
  if (typeof value !== 'number') {
    throw new StressArgError(`unknown consistency level ${name} (ONE, LOCAL_ONE, QUORUM, LOCAL_QUORUM, ALL, ...)`);
  }
  return value;
}

/** A host without the brackets of an IPv6 literal: the driver takes "::1", not "[::1]", without a port. */
function bare(node: string): string {
  return node.replace(/^\[(.*)\]$/, '$1');
}

/** host:port for each contact point and every address its name resolves to. */
async function allowedAddresses(nodes: string[], port: number): Promise<string[]> {
  const out = new Set<string>();
  // The driver names hosts "ip:port", IPv6 ones "[ip]:port".
  const endpoint = (address: string) => (isIPv6(address) ? `[${address}]:${port}` : `${address}:${port}`);
  for (const node of nodes) {
    const host = bare(node);
    out.add(endpoint(host));
    try {
      for (const a of await lookup(host, { all: true })) out.add(endpoint(a.address));
    } catch {
      // Unresolvable: connect() will say so.
    }
  }
  return [...out];
}

export async function connect(settings: StressSettings, keyspace?: string): Promise<cassandra.Client> {
  const { policies, auth } = cassandra;
  const allowed = await allowedAddresses(settings.nodes, settings.port);
  const options: cassandra.ClientOptions = {
    contactPoints: settings.nodes.map(bare),
    protocolOptions: { port: settings.port },
    localDataCenter: settings.localDataCenter,
    policies: {
      loadBalancing: new policies.loadBalancing.AllowListPolicy(
        new policies.loadBalancing.TokenAwarePolicy(
          new policies.loadBalancing.DCAwareRoundRobinPolicy(settings.localDataCenter),
        ),
        allowed,
      ),
    },
    queryOptions: { consistency: consistencyOf(settings.consistency), prepare: settings.prepared },
    socketOptions: { connectTimeout: 10_000, readTimeout: 12_000 },
    // Profile map columns are bound as Maps (any key type), not objects (string keys only).
    encoding: { map: Map },
  };
  if (keyspace !== undefined) options.keyspace = keyspace;
  if (settings.user !== undefined) {
    options.authProvider = new auth.PlainTextAuthProvider(settings.user, settings.password ?? '');
  }
  if (settings.connectionsPerHost !== undefined) {
    const distance = cassandra.types.distance;
    options.pooling = {
      coreConnectionsPerHost: { [distance.local]: settings.connectionsPerHost, [distance.remote]: 1 },
    };
  }
  const client = new cassandra.Client(options);
  await client.connect();
  return client;
}
