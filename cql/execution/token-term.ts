// `token(?, ?)` / `token('a')` on the right of a token restriction: the Murmur3 token of a
// partition key given as its component values (receivers: the partition key columns).

import { murmur3Token } from '../../storage/murmur3-token.js';
import { serializePartitionKey } from '../../storage/partition-key.js';
import { InvalidRequest } from '../errors.js';
import type { Term } from '../parser/ast.js';
import { type BoundValue, UNSET } from '../query-handler.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import { type BindSpecs, BoundTerm, prepareTerm, type TermValue } from './bound-term.js';

export class TokenTerm extends BoundTerm {
  readonly isConstant = false;
  constructor(private readonly components: readonly BoundTerm[]) {
    super();
  }
  value(values: readonly BoundValue[]): TermValue {
    const parts = this.components.map((c) => {
      const v = c.value(values);
      if (v === null || v === UNSET) throw new InvalidRequest('Invalid null value for partition key part in token()');
      return v;
    });
    const b = Buffer.allocUnsafe(8);
    b.writeBigInt64BE(murmur3Token(serializePartitionKey(parts)));
    return b;
  }
}

/** A TokenTerm when `term` is a `token(...)` call over the table's partition key columns. */
export function prepareTokenTerm(term: Term, table: TableMetadata, specs: BindSpecs): TokenTerm | undefined {
  if (term.kind !== 'function' || term.name.toLowerCase() !== 'token') return undefined;
  const pk = table.partitionKey;
  if (term.args.length !== pk.length) {
    throw new InvalidRequest(
      `Invalid number of arguments in call to function token: ${pk.length} required but ${term.args.length} provided`,
    );
  }
  return new TokenTerm(
    term.args.map((a, i) =>
      prepareTerm(a, { keyspace: table.keyspace, table: table.name, name: pk[i]!.name, type: pk[i]!.type }, specs),
    ),
  );
}
