// The live schema: keyspaces with their tables and types, and the schema version that
// changes on every DDL. Copy-on-write: each change replaces the keyspace object, so a
// statement prepared against an older snapshot keeps a consistent view.

import { randomUUID } from 'node:crypto';
import type { KeyspaceMetadata } from './keyspace-metadata.js';
import type { TableMetadata } from './table-metadata.js';

export type SchemaListener = (catalog: SchemaCatalog) => void;

export class SchemaCatalog {
  private readonly keyspaceMap = new Map<string, KeyspaceMetadata>();
  private schemaVersion: string = randomUUID();
  private readonly listeners: SchemaListener[] = [];

  get version(): string {
    return this.schemaVersion;
  }

  /** Restores a persisted version (start-up), so it stays stable across restarts. */
  setVersion(version: string): void {
    this.schemaVersion = version;
  }

  keyspace(name: string): KeyspaceMetadata | undefined {
    return this.keyspaceMap.get(name);
  }

  keyspaces(): IterableIterator<KeyspaceMetadata> {
    return this.keyspaceMap.values();
  }

  table(keyspace: string, name: string): TableMetadata | undefined {
    return this.keyspaceMap.get(keyspace)?.tables.get(name);
  }

  /** Adds or replaces a keyspace; `silent` for start-up loading (no version change). */
  putKeyspace(ks: KeyspaceMetadata, silent = false): void {
    this.keyspaceMap.set(ks.name, ks);
    if (!silent) this.changed();
  }

  dropKeyspace(name: string): void {
    this.keyspaceMap.delete(name);
    this.changed();
  }

  putTable(table: TableMetadata, silent = false): void {
    const ks = this.keyspaceMap.get(table.keyspace);
    if (!ks) throw new Error(`no keyspace ${table.keyspace}`);
    const tables = new Map(ks.tables);
    tables.set(table.name, table);
    this.putKeyspace({ ...ks, tables }, silent);
  }

  dropTable(keyspace: string, name: string): void {
    const ks = this.keyspaceMap.get(keyspace);
    if (!ks) return;
    const tables = new Map(ks.tables);
    tables.delete(name);
    this.putKeyspace({ ...ks, tables });
  }

  onChange(listener: SchemaListener): void {
    this.listeners.push(listener);
  }

  private changed(): void {
    this.schemaVersion = randomUUID();
    for (const l of this.listeners) l(this);
  }
}
