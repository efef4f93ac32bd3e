// Builds the metadata of the built-in keyspaces from their CQL definitions.

import { createHash } from 'node:crypto';
import { InvalidRequest } from '../errors.js';
import { parseStatement } from '../parser/parser.js';
import type { KeyspaceMetadata } from '../schema/keyspace-metadata.js';
import { buildTableMetadata } from '../schema/table-builder.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { SYSTEM_KEYSPACES } from './system-table-definitions.js';

/** Cassandra's TableId.forSystemTable: a name-based (v3) UUID of keyspace + table bytes. */
export function systemTableId(keyspace: string, table: string): string {
  const b = createHash('md5')
    .update(keyspace + table, 'utf8')
    .digest();
  b[6] = (b[6]! & 0x0f) | 0x30;
  b[8] = (b[8]! & 0x3f) | 0x80;
  const h = b.toString('hex');
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
}

export function buildSystemKeyspaces(): KeyspaceMetadata[] {
  return SYSTEM_KEYSPACES.map((def) => {
    const tables = new Map<string, TableMetadata>();
    for (const t of def.tables) {
      const ast = parseStatement(t.cql);
      if (ast.kind !== 'createTable') throw new Error(`system table ${def.name}.${t.name} is not a CREATE TABLE`);
      const meta = buildTableMetadata(
        ast,
        def.name,
        () => {
          throw new InvalidRequest('system tables use no user types');
        },
        { virtual: true, id: systemTableId(def.name, t.name) },
      );
      tables.set(t.name, { ...meta, options: { ...meta.options, comment: t.comment } });
    }
    return {
      name: def.name,
      durableWrites: def.durableWrites,
      replication: def.replication,
      tables,
      types: new Map(),
      virtual: def.virtual,
    };
  });
}

export const SYSTEM_KEYSPACE_NAMES: ReadonlySet<string> = new Set(SYSTEM_KEYSPACES.map((k) => k.name));
