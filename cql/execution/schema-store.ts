// Persists the user schema (keyspaces with their tables and types), the schema version and the node's
// host id in the pool's catalog map, so they survive restarts. The schema is small and changes rarely:
// one JSON document per keyspace is simple and plenty fast.

import { randomUUID } from 'node:crypto';
import type { StorageEngine } from '../../storage/storage-engine.js';
import {
  signature,
  type UserAggregateMetadata,
  type UserFunctionMetadata,
} from '../functions/user-function-metadata.js';
import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { ViewMetadata } from '../schema/view-metadata.js';

const KEYSPACE_PREFIX = 'ks/';
const HOST_ID_KEY = 'node/host_id';
const SCHEMA_VERSION_KEY = 'node/schema_version';

interface StoredKeyspace {
  name: string;
  durableWrites: boolean;
  replication: Record<string, string>;
  tables: TableMetadata[];
  types: { keyspace: string; name: string; fields: { name: string; type: unknown }[] }[];
  functions?: UserFunctionMetadata[];
  aggregates?: UserAggregateMetadata[];
  /** Materialized views (absent in documents written before views existed). */
  views?: ViewMetadata[];
}

function replacer(_key: string, value: unknown): unknown {
  if (typeof value === 'bigint') return { $bigint: value.toString() };
  if (value && typeof value === 'object' && (value as { type?: string }).type === 'Buffer' && 'data' in value) {
    return { $hex: Buffer.from((value as { data: number[] }).data).toString('hex') };
  }
  return value;
}

function reviver(_key: string, value: unknown): unknown {
  if (value && typeof value === 'object') {
    if ('$bigint' in value) return BigInt((value as { $bigint: string }).$bigint);
    if ('$hex' in value) return Buffer.from((value as { $hex: string }).$hex, 'hex');
  }
  return value;
}

/**
 * JSON gives partitionKey/clustering their own copies of the column objects; code compares columns by
 * identity, so they must be the very entries of `columns` again.
 */
function relinkColumns(t: TableMetadata): TableMetadata {
  const byName = new Map(t.columns.map((c) => [c.name, c]));
  return {
    ...t,
    partitionKey: t.partitionKey.map((c) => byName.get(c.name)!),
    clustering: t.clustering.map((c) => byName.get(c.name)!),
  };
}

export class SchemaStore {
  constructor(
    private readonly storage: StorageEngine,
    private readonly catalog: SchemaCatalog,
  ) {}

  /** The node's host id, created on first start. */
  async hostId(): Promise<string> {
    const v = this.storage.catalogGet(HOST_ID_KEY);
    if (v) return v.toString('utf8');
    const id = randomUUID();
    await this.storage.catalogPut(HOST_ID_KEY, Buffer.from(id, 'utf8'));
    return id;
  }

  /** Loads every stored keyspace into the catalog (start-up). */
  load(): number {
    let n = 0;
    for (const { value } of this.storage.catalogScan(KEYSPACE_PREFIX)) {
      const s = JSON.parse(value.toString('utf8'), reviver) as StoredKeyspace;
      const ks: KeyspaceMetadata = {
        name: s.name,
        durableWrites: s.durableWrites,
        replication: s.replication,
        tables: new Map(s.tables.map((t) => [t.name, relinkColumns(t)])),
        types: new Map(s.types.map((t) => [t.name, t as never])),
        functions: new Map((s.functions ?? []).map((f) => [signature(f.name, f.argTypes), f])),
        aggregates: new Map((s.aggregates ?? []).map((a) => [signature(a.name, a.argTypes), a])),
        virtual: false,
        views: new Map((s.views ?? []).map((v) => [v.name, { ...v, table: relinkColumns(v.table) }])),
      };
      this.catalog.putKeyspace(ks, true);
      n++;
    }
    const version = this.storage.catalogGet(SCHEMA_VERSION_KEY);
    if (version) this.catalog.setVersion(version.toString('utf8'));
    return n;
  }

  /** Writes a keyspace (after it changed in the catalog) and the new schema version, atomically. */
  save(keyspace: string): Promise<void> {
    const ks = this.catalog.keyspace(keyspace);
    const version = this.catalog.version;
    return this.storage.run((ctx) => {
      if (ks) {
        const stored: StoredKeyspace = {
          name: ks.name,
          durableWrites: ks.durableWrites,
          replication: { ...ks.replication },
          tables: [...ks.tables.values()],
          types: [...ks.types.values()] as StoredKeyspace['types'],
          functions: [...(ks.functions?.values() ?? [])],
          aggregates: [...(ks.aggregates?.values() ?? [])],
          views: [...(ks.views?.values() ?? [])],
        };
        this.storage.stageCatalogPut(
          ctx,
          KEYSPACE_PREFIX + keyspace,
          Buffer.from(JSON.stringify(stored, replacer), 'utf8'),
        );
      } else {
        this.storage.stageCatalogDelete(ctx, KEYSPACE_PREFIX + keyspace);
      }
      this.storage.stageCatalogPut(ctx, SCHEMA_VERSION_KEY, Buffer.from(version, 'utf8'));
    });
  }
}
