// Storage failures as the errors Cassandra clients expect: a full pool or a failed transaction is a
// WriteFailure (the write was not applied), not a generic server error.

import { PoolError } from '../../storage/native-pool.js';
import { CqlError, WriteFailure, type WriteType } from '../errors.js';

export function storageErrorToCql(err: unknown, consistency: number, writeType: WriteType): unknown {
  if (err instanceof CqlError || !(err instanceof PoolError)) return err;
  const message =
    err.code === 'POOL_FULL'
      ? `Operation failed - the pool is full (${err.message}); free space (TRUNCATE/DROP) or create the pool with a larger pool_size`
      : `Operation failed - storage error ${err.code}: ${err.message}`;
  return new WriteFailure(message, consistency, 0, 1, 1, writeType);
}
