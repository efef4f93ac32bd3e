// What the server logs about durability: the ready line's commit log fields (the policy in Cassandra's words)
// and, after an open that had to repair something, how the pool was brought back and which journal records were
// found torn or damaged (never applied).

import type { Logger } from 'pino';
import type { PoolInfo } from '../storage/native-pool.js';

/** The ready line's durability fields: the commit log policy in force (pmem and emulated pools have none). */
export function durabilityFields(info: PoolInfo): Record<string, string> {
  const c = info.commitLog;
  if (info.sync === 'flush' || !c) {
    return { commitlog_sync: `none: ${info.mode} pool, durable at commit` };
  }
  const fields: Record<string, string> = { commitlog_sync: info.sync };
  if (info.sync === 'periodic') {
    fields.commitlog_sync_period = `${c.periodMs}ms`;
    fields.periodic_commitlog_sync_lag_block = `${c.lagBlockMs}ms`;
  } else if (info.sync === 'group') {
    fields.commitlog_sync_group_window = `${c.groupWindowMs}ms`;
  }
  if (info.recovery) fields.pool_open = info.recovery.action;
  return fields;
}

/** Logs an open that rebuilt, adopted or converted the pool, and every journal problem it found. */
export function logPoolRecovery(logger: Logger, info: PoolInfo): void {
  const r = info.recovery;
  if (!r) return;
  for (const problem of r.problems) {
    logger.warn({ pool: info.path, problem }, 'journal: torn or damaged data found on open, not applied');
  }
  if (r.action === 'opened' || r.action === 'created') return;
  logger.info(
    {
      pool: info.path,
      action: r.action,
      reason: r.reason,
      replayed_records: r.replayedRecords,
      journal_bytes: r.journalBytes,
      ms: Math.round(r.ms),
    },
    r.action === 'rebuilt' ? 'working pool rebuilt from its image and journal' : `pool ${r.action}`,
  );
}
