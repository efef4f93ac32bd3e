// Keyspace system_arrow: the Arrow twins' companion tables, read-only, so a user sees buffers and
// segments with cqlsh — the study's buffer table `(token_id, ts, serialized_pu)` and Arrow index table
// `(token_id, ts, arrow_addr, arrow_size)` with their counts. Admin commands are tables too (the keyspace is
// read-only): reading `flush_now` / `compact_now` flushes / compacts every twin and returns what was done,
// `consistency` checks every twin against its row store, and `use_row_path` / `use_auto_path` switch the
// SELECT path for the differential test and the benchmark; `flush_thread` shows the flush thread's scheduling.

import type { StorageEngine } from '../../storage/storage-engine.js';
import { tokenOfMapKey } from '../../storage/table-layout.js';
import type { TableStore } from '../../storage/table-store.js';
import { FlushThreadClient, flushThreadLifts } from '../../storage/twin/flush-thread-client.js';
import { checkTwin } from '../../storage/twin/twin-check.js';
import { splitTwinKey } from '../../storage/twin/twin-keys.js';
import { columnarPath, setColumnarPath } from '../columnar/columnar-mode.js';
import { pathStats } from '../columnar/columnar-read.js';
import { readAheadStats } from '../columnar/scan-read-ahead.js';
import { catalogTwinSchemaSource, hasTwin } from '../columnar/twin-schema-source.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import { type TableMetadata, tableIdBytes } from '../schema/table-metadata.js';
import { ARROW_KEYSPACE } from './arrow-system-definitions.js';
import type { SystemRows } from './system-rows.js';
import type { RowObject } from './virtual-table.js';

interface Twinned {
  table: TableMetadata;
  store: TableStore;
}

function twinnedTables(catalog: SchemaCatalog, storage: StorageEngine): Twinned[] {
  const out: Twinned[] = [];
  for (const ks of catalog.keyspaces()) {
    for (const table of ks.tables.values()) {
      if (!hasTwin(table)) continue;
      const store = storage.table(tableIdBytes(table));
      if (store?.twin?.enabled) out.push({ table, store });
    }
  }
  return out;
}

function pathRow(): RowObject[] {
  // encoded: scan pages written straight from Arrow columns; read_ahead: pages answered from a prepared next page;
  // read_ahead_prepared: next pages prepared; continued: pages that continued the previous page's scan state.
  return [
    {
      path: columnarPath(),
      ...pathStats,
      read_ahead: readAheadStats.used,
      read_ahead_prepared: readAheadStats.prepared,
      continued: readAheadStats.continued,
    },
  ];
}

/** Registers the row sources of system_arrow's tables. */
export function registerArrowSystemTables(rows: SystemRows, catalog: SchemaCatalog, storage: StorageEngine): void {
  const key = (t: TableMetadata) => ({ keyspace_name: t.keyspace, table_name: t.name });
  rows.register(ARROW_KEYSPACE, 'buffers', () =>
    twinnedTables(catalog, storage).map(({ table, store }) => {
      const twin = store.twin!;
      return {
        ...key(table),
        buffer_rows: BigInt(twin.bufferRows()),
        bytes_since_flush: BigInt(twin.bytesSinceFlush),
        flushing: twin.flushing !== undefined,
        segments: twin.segmentCount,
        last_flush_ms: store.twinWorker?.lastFlush?.ms ?? null,
      };
    }),
  );
  rows.register(ARROW_KEYSPACE, 'buffer_rows', () => {
    const out: RowObject[] = [];
    for (const { table, store } of twinnedTables(catalog, storage)) {
      const twin = store.twin!;
      for (const entry of twin.buffer.sortedView()) {
        const { mapKey, rowKey } = splitTwinKey(entry.key);
        out.push({
          ...key(table),
          token_id: tokenOfMapKey(mapKey),
          partition_key: mapKey.subarray(8),
          clustering: rowKey.subarray(1),
          deleted: entry.value.length === 0,
        });
      }
    }
    return out;
  });
  rows.register(ARROW_KEYSPACE, 'segments', () => {
    const out: RowObject[] = [];
    for (const { table, store } of twinnedTables(catalog, storage)) {
      for (const s of store.twin!.segments()) {
        const r = s.record;
        out.push({
          ...key(table),
          segment_id: r.id,
          first_token: r.firstToken,
          last_token: r.lastToken,
          ts: new Date(r.ts),
          // Segments live as values of the table's 's' map, keyed by id: the id is their handle.
          arrow_addr: BigInt(r.id),
          arrow_size: r.size,
          row_count: r.rows,
          deleted_count: s.deletions().count(),
        });
      }
    }
    return out;
  });
  rows.register(ARROW_KEYSPACE, 'flush_now', () =>
    twinnedTables(catalog, storage).map(({ table, store }) => {
      const r = store.flushTwin();
      return {
        ...key(table),
        segment_id: r?.segment?.id ?? null,
        rows: r?.segment?.rows ?? 0,
        removed: r?.removed ?? 0,
        kept: r?.kept ?? 0,
        ms: r?.ms ?? 0,
      };
    }),
  );
  rows.register(ARROW_KEYSPACE, 'compact_now', () =>
    twinnedTables(catalog, storage).map(({ table, store }) => {
      const r = store.compactTwin(true);
      return {
        ...key(table),
        victims: r?.compaction?.victims ?? 0,
        moved: r?.compaction?.moved ?? 0,
        segments: store.twin!.segmentCount,
        ms: (r?.compaction?.ms ?? 0) + (r?.flush?.ms ?? 0),
      };
    }),
  );
  const schemas = catalogTwinSchemaSource(catalog);
  rows.register(ARROW_KEYSPACE, 'consistency', () => {
    const now = Math.floor(Date.now() / 1000);
    return twinnedTables(catalog, storage).map(({ table, store }) => {
      const problems = checkTwin(store.twin!, now, schemas(tableIdBytes(table)) ?? undefined);
      return { ...key(table), problems: problems.length, first_problem: problems[0] ?? null };
    });
  });
  rows.register(ARROW_KEYSPACE, 'use_row_path', () => {
    setColumnarPath('row');
    return pathRow();
  });
  rows.register(ARROW_KEYSPACE, 'use_auto_path', () => {
    setColumnarPath('auto');
    return pathRow();
  });
  rows.register(ARROW_KEYSPACE, 'flush_thread', () => [
    {
      name: 'flush',
      ...FlushThreadClient.status(),
      thread_id: FlushThreadClient.idleThreadId() ?? null,
      lifts: flushThreadLifts.count,
    },
  ]);
}
