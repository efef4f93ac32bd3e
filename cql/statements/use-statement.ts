import { InvalidRequest } from '../errors.js';
import type { CqlStatement, ExecutionContext } from '../execution/cql-statement.js';
import type { UseStatement as UseAst } from '../parser/ast.js';
import type { ClientState, ColumnSpec, ResultMessage } from '../query-handler.js';

/** USE ks: sets the connection's keyspace. */
export class UseStatement implements CqlStatement {
  readonly bindSpecs: readonly ColumnSpec[] = [];
  readonly partitionKeyIndices: readonly number[] = [];
  readonly resultColumns: readonly ColumnSpec[] = [];
  readonly isSchemaChange = false;
  constructor(readonly ast: UseAst) {}
  execute(ctx: ExecutionContext, state: ClientState): ResultMessage {
    if (!ctx.catalog.keyspace(this.ast.keyspace))
      throw new InvalidRequest(`Keyspace '${this.ast.keyspace}' does not exist`);
    state.keyspace = this.ast.keyspace;
    return { kind: 'set_keyspace', keyspace: this.ast.keyspace };
  }
}
