// Storage failures as the errors Cassandra clients expect: a full pool or a failed transaction is a
// WriteFailure (the write was not applied), not a generic server error. The operator sees each kind in the log
// (rate-limited): clients' drivers print only "Server failure during write query".

import type { Logger } from 'pino';
import { PoolError } from '../../storage/native-pool.js';
import { CqlError, WriteFailure, type WriteType } from '../errors.js';
import { noSpam } from './no-spam-log.js';

export function storageErrorToCql(err: unknown, consistency: number, writeType: WriteType, logger: Logger): unknown {
  if (err instanceof CqlError || !(err instanceof PoolError)) return err;
  const message =
    err.code === 'POOL_FULL'
      ? `Operation failed - the pool is full (${err.message}); free space (TRUNCATE/DROP) or create the pool with a larger pool_size`
      : `Operation failed - storage error ${err.code}: ${err.message}`;
  noSpam(logger).warn(`storage ${err.code}`, { code: err.code }, message);
  return new WriteFailure(message, consistency, 0, 1, 1, writeType);
}
