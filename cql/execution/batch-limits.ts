// Cassandra's batch guardrails: a batch larger than batch_size_warn_threshold (5 KiB) gets a client
// warning and a log line, larger than batch_size_fail_threshold (50 KiB) is refused; an unlogged batch
// spanning many partitions gets a warning too. Log lines are rate-limited (no-spam-log.ts), client warnings not.

import type { Logger } from 'pino';
import type { PartitionUpdate } from '../../storage/mutation.js';
import { InvalidRequest } from '../errors.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { noSpam } from './no-spam-log.js';

export const BATCH_SIZE_WARN_BYTES = 5 * 1024;
export const BATCH_SIZE_FAIL_BYTES = 50 * 1024;
export const UNLOGGED_PARTITIONS_WARN = 10;

/** Bytes a partition update carries (keys, clusterings, values, and 8 bytes of timestamp per cell). */
function dataSize(u: PartitionUpdate): number {
  let n = u.key.length;
  for (const r of [...(u.rows ?? []), ...(u.staticRow ? [u.staticRow] : [])]) {
    n += r.clustering.length;
    for (const c of r.cells ?? []) n += (c.value?.length ?? 0) + (c.path?.length ?? 0) + 8;
  }
  return n;
}

function kib(n: number): string {
  return `${(n / 1024).toFixed(3)}KiB`;
}

export function checkBatchLimits(
  type: 'LOGGED' | 'UNLOGGED' | 'COUNTER',
  writes: readonly { table: TableMetadata; updates: readonly PartitionUpdate[] }[],
  logger: Logger,
): string[] | undefined {
  const warnings: string[] = [];
  const tables = `[${[...new Set(writes.map((w) => `${w.table.keyspace}.${w.table.name}`))].join(', ')}]`;
  if (type !== 'COUNTER') {
    let size = 0;
    for (const w of writes) for (const u of w.updates) size += dataSize(u);
    if (size > BATCH_SIZE_FAIL_BYTES) {
      logger.error({ tables, size }, 'batch exceeds batch_size_fail_threshold');
      throw new InvalidRequest('Batch too large');
    }
    if (size > BATCH_SIZE_WARN_BYTES) {
      const w = `Batch for ${tables} is of size ${kib(size)}, exceeding specified threshold of ${kib(BATCH_SIZE_WARN_BYTES)} by ${kib(size - BATCH_SIZE_WARN_BYTES)}.`;
      noSpam(logger).warn('large batch', { tables, size }, w);
      warnings.push(w);
    }
  }
  if (type === 'UNLOGGED') {
    const partitions = new Set<string>();
    for (const w of writes) for (const u of w.updates) partitions.add(`${w.table.id}:${u.key.toString('hex')}`);
    if (partitions.size > UNLOGGED_PARTITIONS_WARN) {
      const w = `Unlogged batch covering ${partitions.size} partitions detected against table${writes.length > 1 ? 's' : ''} ${tables}. You should use a logged batch for atomicity, or asynchronous writes for performance.`;
      noSpam(logger).warn('unlogged batch', { tables, partitions: partitions.size }, w);
      warnings.push(w);
    }
  }
  return warnings.length > 0 ? warnings : undefined;
}
