// Rows of system_schema.* and system_virtual_schema.*, generated from the live catalog.

import type { ColumnMetadata } from '../schema/column-metadata.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { cqlTypeToString } from '../types/cql-type.js';
import type { RowObject } from './virtual-table.js';

function columnRow(t: TableMetadata, c: ColumnMetadata): RowObject {
  return {
    keyspace_name: t.keyspace,
    table_name: t.name,
    column_name: c.name,
    clustering_order: c.clusteringOrder,
    column_name_bytes: Buffer.from(c.name, 'utf8'),
    kind: c.kind,
    position: c.position,
    type: cqlTypeToString(c.type),
  };
}

function* storedKeyspaces(catalog: SchemaCatalog) {
  for (const ks of catalog.keyspaces()) if (!ks.virtual) yield ks;
}

function* virtualKeyspaces(catalog: SchemaCatalog) {
  for (const ks of catalog.keyspaces()) if (ks.virtual) yield ks;
}

export function keyspacesRows(catalog: SchemaCatalog): RowObject[] {
  return [...storedKeyspaces(catalog)].map((ks) => ({
    keyspace_name: ks.name,
    durable_writes: ks.durableWrites,
    replication: new Map(Object.entries(ks.replication)),
  }));
}

export function tablesRows(catalog: SchemaCatalog): RowObject[] {
  const rows: RowObject[] = [];
  for (const ks of storedKeyspaces(catalog)) {
    for (const t of ks.tables.values()) {
      const o = t.options;
      rows.push({
        keyspace_name: t.keyspace,
        table_name: t.name,
        additional_write_policy: o.additional_write_policy,
        allow_auto_snapshot: o.allow_auto_snapshot,
        bloom_filter_fp_chance: o.bloom_filter_fp_chance,
        caching: new Map(Object.entries(o.caching)),
        cdc: o.cdc,
        comment: o.comment,
        compaction: new Map(Object.entries(o.compaction)),
        compression: new Map(Object.entries(o.compression)),
        crc_check_chance: o.crc_check_chance,
        dclocal_read_repair_chance: 0.0,
        default_time_to_live: o.default_time_to_live,
        extensions: new Map(Object.entries(o.extensions)),
        flags: t.isCounter ? ['compound', 'counter'] : ['compound'],
        gc_grace_seconds: o.gc_grace_seconds,
        id: t.id,
        incremental_backups: o.incremental_backups,
        max_index_interval: o.max_index_interval,
        memtable: o.memtable,
        memtable_flush_period_in_ms: o.memtable_flush_period_in_ms,
        min_index_interval: o.min_index_interval,
        read_repair: o.read_repair,
        read_repair_chance: 0.0,
        speculative_retry: o.speculative_retry,
      });
    }
  }
  return rows;
}

export function columnsRows(catalog: SchemaCatalog, virtual = false): RowObject[] {
  const rows: RowObject[] = [];
  for (const ks of virtual ? virtualKeyspaces(catalog) : storedKeyspaces(catalog)) {
    for (const t of ks.tables.values()) for (const c of t.columns) rows.push(columnRow(t, c));
    // A view's columns are listed under the view's name, as Cassandra does.
    for (const v of ks.views?.values() ?? []) for (const c of v.table.columns) rows.push(columnRow(v.table, c));
  }
  return rows;
}

export function indexesRows(catalog: SchemaCatalog): RowObject[] {
  const rows: RowObject[] = [];
  for (const ks of storedKeyspaces(catalog)) {
    for (const t of ks.tables.values()) {
      for (const i of t.indexes ?? []) {
        rows.push({
          keyspace_name: t.keyspace,
          table_name: t.name,
          index_name: i.name,
          kind: i.kind,
          options: new Map(Object.entries(i.options)),
        });
      }
    }
  }
  return rows;
}

export function viewsRows(catalog: SchemaCatalog): RowObject[] {
  const rows: RowObject[] = [];
  for (const ks of storedKeyspaces(catalog)) {
    for (const v of ks.views?.values() ?? []) {
      const o = v.table.options;
      rows.push({
        keyspace_name: v.keyspace,
        view_name: v.name,
        additional_write_policy: o.additional_write_policy,
        allow_auto_snapshot: o.allow_auto_snapshot,
        base_table_id: v.baseTableId,
        base_table_name: v.baseTableName,
        bloom_filter_fp_chance: o.bloom_filter_fp_chance,
        caching: new Map(Object.entries(o.caching)),
        cdc: o.cdc,
        comment: o.comment,
        compaction: new Map(Object.entries(o.compaction)),
        compression: new Map(Object.entries(o.compression)),
        crc_check_chance: o.crc_check_chance,
        dclocal_read_repair_chance: 0.0,
        default_time_to_live: o.default_time_to_live,
        extensions: new Map(Object.entries(o.extensions)),
        gc_grace_seconds: o.gc_grace_seconds,
        id: v.table.id,
        include_all_columns: v.includeAllColumns,
        incremental_backups: o.incremental_backups,
        max_index_interval: o.max_index_interval,
        memtable: o.memtable,
        memtable_flush_period_in_ms: o.memtable_flush_period_in_ms,
        min_index_interval: o.min_index_interval,
        read_repair: o.read_repair,
        read_repair_chance: 0.0,
        speculative_retry: o.speculative_retry,
        where_clause: v.whereClause,
      });
    }
  }
  return rows;
}

export function droppedColumnsRows(catalog: SchemaCatalog): RowObject[] {
  const rows: RowObject[] = [];
  for (const ks of storedKeyspaces(catalog)) {
    for (const t of ks.tables.values()) {
      for (const d of t.droppedColumns) {
        rows.push({
          keyspace_name: t.keyspace,
          table_name: t.name,
          column_name: d.name,
          dropped_time: d.droppedTime / 1000n,
          kind: d.kind,
          type: d.type,
        });
      }
    }
  }
  return rows;
}

export function typesRows(catalog: SchemaCatalog): RowObject[] {
  const rows: RowObject[] = [];
  for (const ks of storedKeyspaces(catalog)) {
    for (const t of ks.types.values()) {
      rows.push({
        keyspace_name: t.keyspace,
        type_name: t.name,
        field_names: t.fields.map((f) => f.name),
        field_types: t.fields.map((f) => cqlTypeToString(f.type)),
      });
    }
  }
  return rows;
}

export function virtualKeyspacesRows(catalog: SchemaCatalog): RowObject[] {
  return [...virtualKeyspaces(catalog)].map((ks) => ({ keyspace_name: ks.name }));
}

export function virtualTablesRows(catalog: SchemaCatalog): RowObject[] {
  const rows: RowObject[] = [];
  for (const ks of virtualKeyspaces(catalog)) {
    for (const t of ks.tables.values())
      rows.push({ keyspace_name: ks.name, table_name: t.name, comment: t.options.comment });
  }
  return rows;
}
