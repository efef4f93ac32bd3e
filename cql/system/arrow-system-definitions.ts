// The schema of keyspace system_arrow (the Arrow twins' companion tables); rows come from
// arrow-system-tables.ts. Kept apart (no imports) so the built-in keyspace list can include it without cycles.

import type { SystemKeyspaceDefinition } from './system-keyspace-definition.js';

export const ARROW_KEYSPACE = 'system_arrow';

const KEY = 'keyspace_name text, table_name text';

export const ARROW_KEYSPACE_DEFINITION: SystemKeyspaceDefinition = {
  name: ARROW_KEYSPACE,
  virtual: true,
  replication: { class: 'org.apache.cassandra.locator.LocalStrategy' },
  durableWrites: false,
  tables: [
    {
      name: 'buffers',
      comment: 'Arrow twin buffers: rows changed since the last flush, per table',
      cql: `CREATE TABLE buffers (${KEY}, buffer_rows bigint, bytes_since_flush bigint, flushing boolean,
        segments int, last_flush_ms double, PRIMARY KEY ((keyspace_name, table_name)))`,
    },
    {
      name: 'buffer_rows',
      comment: 'Arrow twin buffer tables: one row per buffered row (deleted: a deletion marker)',
      cql: `CREATE TABLE buffer_rows (${KEY}, token_id bigint, partition_key blob, clustering blob, deleted boolean,
        PRIMARY KEY ((keyspace_name, table_name), token_id, partition_key, clustering))`,
    },
    {
      name: 'segments',
      comment: 'Arrow index tables: one row per Arrow IPC segment',
      cql: `CREATE TABLE segments (${KEY}, segment_id int, first_token bigint, last_token bigint, ts timestamp,
        arrow_addr bigint, arrow_size int, row_count int, deleted_count int,
        PRIMARY KEY ((keyspace_name, table_name), segment_id))`,
    },
    {
      name: 'flush_now',
      comment: 'admin: reading it flushes every Arrow twin buffer',
      cql: `CREATE TABLE flush_now (${KEY}, segment_id int, rows int, removed int, kept int, ms double,
        PRIMARY KEY ((keyspace_name, table_name)))`,
    },
    {
      name: 'compact_now',
      comment: 'admin: reading it compacts every Arrow twin (all segments into one) and flushes',
      cql: `CREATE TABLE compact_now (${KEY}, victims int, moved int, segments int, ms double,
        PRIMARY KEY ((keyspace_name, table_name)))`,
    },
    {
      name: 'consistency',
      comment: 'admin: every Arrow twin checked against its row store',
      cql: `CREATE TABLE consistency (${KEY}, problems int, first_problem text, PRIMARY KEY ((keyspace_name, table_name)))`,
    },
    {
      name: 'use_row_path',
      comment: 'admin: reading it sends every SELECT to the row path',
      cql: 'CREATE TABLE use_row_path (path text, columnar int, row int, declined int, encoded int, read_ahead int, read_ahead_prepared int, continued int, PRIMARY KEY (path))',
    },
    {
      name: 'use_auto_path',
      comment: 'admin: reading it lets the planner choose the columnar path again',
      cql: 'CREATE TABLE use_auto_path (path text, columnar int, row int, declined int, encoded int, read_ahead int, read_ahead_prepared int, continued int, PRIMARY KEY (path))',
    },
    {
      name: 'flush_thread',
      comment: 'the flush thread: running, its thread id under SCHED_IDLE, lifted out of it now, how often it was',
      cql: 'CREATE TABLE flush_thread (name text, running boolean, thread_id int, lifted boolean, lifts int, PRIMARY KEY (name))',
    },
  ],
};
