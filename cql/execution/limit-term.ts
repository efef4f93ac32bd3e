// LIMIT / PER PARTITION LIMIT / USING TTL / USING TIMESTAMP values: terms with fixed receivers.

import { InvalidRequest } from '../errors.js';
import type { Term } from '../parser/ast.js';
import { type BoundValue, UNSET } from '../query-handler.js';
import { native } from '../types/cql-type.js';
import { type BindSpecs, type BoundTerm, prepareTerm } from './bound-term.js';

export function prepareLimit(
  term: Term | undefined,
  name: '[limit]' | '[per_partition_limit]',
  keyspace: string,
  table: string,
  specs: BindSpecs,
): BoundTerm | undefined {
  return term ? prepareTerm(term, { keyspace, table, name, type: native('int') }, specs) : undefined;
}

/** The bound limit, or `Infinity` when absent or unset; one message for both limits, as SelectStatement.getLimit. */
export function limitValue(term: BoundTerm | undefined, values: readonly BoundValue[]): number {
  if (!term) return Number.POSITIVE_INFINITY;
  const v = term.value(values);
  if (v === UNSET) return Number.POSITIVE_INFINITY;
  if (v === null) throw new InvalidRequest('Invalid null value of limit');
  const n = v.readInt32BE(0);
  if (n <= 0) throw new InvalidRequest('LIMIT must be strictly positive');
  return n;
}
