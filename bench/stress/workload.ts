// What the runner asks of a workload: set up its schema and statements, then hand out operations
// one at a time. Each operation may be retried, so it must be safe to execute again.
import type cassandra from 'cassandra-driver';

export interface OpResult {
  partitions: number;
  rows: number;
}

export interface Operation {
  /** The name the output and the report use for this kind of operation (WRITE, READ, UPDATE, ...). */
  readonly type: string;
  execute(): Promise<OpResult>;
  /** Called once when the operation has finished, succeeded or failed (after any retries). */
  done?(): void;
}

export interface Workload {
  /** For "Running <name> with ..." and the report. */
  readonly name: string;
  /** Every operation type it can produce, in output order. */
  readonly opTypes: readonly string[];
  setup(client: cassandra.Client): Promise<void>;
  next(): Operation;
}

export interface ExecuteOptions {
  prepare: boolean;
  consistency: number;
}
