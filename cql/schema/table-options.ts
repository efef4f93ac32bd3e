// Table options with Cassandra 5.0's defaults, as system_schema.tables and DESCRIBE show them.
// Stored options have no effect on this engine (no SSTables, no compaction) except
// default_time_to_live and gc_grace_seconds, but clients read and replay them.

export interface TableOptions {
  additional_write_policy: string;
  allow_auto_snapshot: boolean;
  bloom_filter_fp_chance: number;
  caching: Record<string, string>;
  cdc: boolean;
  comment: string;
  compaction: Record<string, string>;
  compression: Record<string, string>;
  crc_check_chance: number;
  default_time_to_live: number;
  extensions: Record<string, Buffer>;
  gc_grace_seconds: number;
  incremental_backups: boolean;
  max_index_interval: number;
  memtable: string;
  memtable_flush_period_in_ms: number;
  min_index_interval: number;
  read_repair: string;
  speculative_retry: string;
}

export function defaultTableOptions(): TableOptions {
  return {
    additional_write_policy: '99p',
    allow_auto_snapshot: true,
    bloom_filter_fp_chance: 0.01,
    caching: { keys: 'ALL', rows_per_partition: 'NONE' },
    cdc: false,
    comment: '',
    compaction: {
      class: 'org.apache.cassandra.db.compaction.SizeTieredCompactionStrategy',
      max_threshold: '32',
      min_threshold: '4',
    },
    compression: { chunk_length_in_kb: '16', class: 'org.apache.cassandra.io.compress.LZ4Compressor' },
    crc_check_chance: 1.0,
    default_time_to_live: 0,
    extensions: {},
    gc_grace_seconds: 864000,
    incremental_backups: true,
    max_index_interval: 2048,
    memtable: 'default',
    memtable_flush_period_in_ms: 0,
    min_index_interval: 128,
    read_repair: 'BLOCKING',
    speculative_retry: '99p',
  };
}
