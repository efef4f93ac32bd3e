// Reads of user tables from storage (placeholder until the storage engine lands).

import { InvalidRequest } from '../errors.js';
import type { BindSpecs } from '../execution/bound-term.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import type { SelectStatement as SelectAst } from '../parser/ast.js';
import type { QueryOptions, ResultMessage } from '../query-handler.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { Selection } from '../selection/selection.js';

export class UserTableRead {
  readonly partitionKeyIndices: number[] = [];
  constructor(
    readonly ast: SelectAst,
    readonly table: TableMetadata,
    readonly selection: Selection,
    readonly specs: BindSpecs,
  ) {}
  execute(_ctx: ExecutionContext, _options: QueryOptions, _limit: number): ResultMessage {
    throw new InvalidRequest('reads of user tables are not supported yet');
  }
}
