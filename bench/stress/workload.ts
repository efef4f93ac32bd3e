// What the runner asks of a workload: set up its schema and statements, then hand out operations
// one at a time. Each operation may be retried, so it must be safe to execute again.
import type cassandra from 'cassandra-driver';

export interface OpResult {
  partitions: number;
  rows: number;
}

export interface Operation {
  /** The name the output and the report use for this kind of operation (WRITE, READ, UPDATE, insert, ...). */
  readonly type: string;
  /**
   * How much of the run's n= it uses: 1 by default; a profile's insert, the partitions it writes
   * (cassandra-stress counts n= in partitions visited).
   */
  readonly permits?: number;
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
  /**
   * The next operation, using at most `budget` permits (what is left of n=); undefined when the
   * workload has run out (a -pop seq with no-wrap, token ranges without wrap): the caller stops.
   */
  next(budget: number): Operation | undefined;
  /** Lines printed after set-up and before the run (a profile's insert statement, ...). */
  describe?(print: (line: string) => void): void;
  /** The unmeasured warm-up runs, one per operation kind, sharing this workload's set-up. */
  warmups?(): Workload[];
  /** Releases what set-up opened (connections to the profiles' keyspaces). */
  close?(): Promise<void>;
}

/** A result that is wrong rather than failed (a counter read finding nothing): counted as an error, not retried. */
export class ValidationError extends Error {}

export interface ExecuteOptions {
  prepare: boolean;
  consistency: number;
}
