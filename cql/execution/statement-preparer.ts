// Raw AST -> executable statement, against the current schema and the connection's keyspace.

import { DescribeStatement } from '../describe/describe-statement.js';
import { InvalidRequest } from '../errors.js';
import type { UserFunctionRuntime } from '../functions/user-function-runtime.js';
import type { Statement } from '../parser/ast.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import { BatchStatement } from '../statements/batch-statement.js';
import {
  CreateAggregateStatement,
  CreateFunctionStatement,
  DropAggregateStatement,
  DropFunctionStatement,
} from '../statements/function-statements.js';
import { CreateIndexStatement, DropIndexStatement } from '../statements/index-statements.js';
import {
  AlterKeyspaceStatement,
  CreateKeyspaceStatement,
  DropKeyspaceStatement,
} from '../statements/keyspace-statements.js';
import { ModificationStatement } from '../statements/modification-statement.js';
import {
  GrantPermissionsStatement,
  ListPermissionsStatement,
  RevokePermissionsStatement,
} from '../statements/permission-statements.js';
import {
  AlterRoleStatement,
  CreateRoleStatement,
  DropRoleStatement,
  GrantRoleStatement,
  ListRolesStatement,
  ListSuperUsersStatement,
  ListUsersStatement,
  RevokeRoleStatement,
} from '../statements/role-statements.js';
import { SelectStatement } from '../statements/select-statement.js';
import {
  AlterTableStatement,
  CreateTableStatement,
  DropTableStatement,
  TruncateStatement,
} from '../statements/table-statements.js';
import { AlterTypeStatement, CreateTypeStatement, DropTypeStatement } from '../statements/type-statements.js';
import { UseStatement } from '../statements/use-statement.js';
import { AlterViewStatement, CreateViewStatement, DropViewStatement } from '../statements/view-statements.js';
import type { CqlStatement } from './cql-statement.js';

export function prepareStatement(
  ast: Statement,
  catalog: SchemaCatalog,
  keyspace: string | undefined,
  functions: UserFunctionRuntime,
): CqlStatement {
  switch (ast.kind) {
    case 'select':
      return SelectStatement.prepare(ast, catalog, keyspace, functions);
    case 'insert':
    case 'insertJson':
    case 'update':
    case 'delete':
      return ModificationStatement.prepare(ast, catalog, keyspace);
    case 'batch':
      return new BatchStatement(ast, catalog, keyspace);
    case 'use':
      return new UseStatement(ast);
    case 'createKeyspace':
      return new CreateKeyspaceStatement(ast);
    case 'alterKeyspace':
      return new AlterKeyspaceStatement(ast);
    case 'dropKeyspace':
      return new DropKeyspaceStatement(ast);
    case 'createTable':
      return new CreateTableStatement(ast);
    case 'alterTable':
      return new AlterTableStatement(ast);
    case 'dropTable':
      return new DropTableStatement(ast);
    case 'createType':
      return new CreateTypeStatement(ast);
    case 'alterType':
      return new AlterTypeStatement(ast);
    case 'dropType':
      return new DropTypeStatement(ast);
    case 'createFunction':
      return new CreateFunctionStatement(ast);
    case 'dropFunction':
      return new DropFunctionStatement(ast);
    case 'createAggregate':
      return new CreateAggregateStatement(ast);
    case 'dropAggregate':
      return new DropAggregateStatement(ast);
    case 'truncate':
      return new TruncateStatement(ast);
    case 'createIndex':
      return new CreateIndexStatement(ast);
    case 'dropIndex':
      return new DropIndexStatement(ast);
    case 'createView':
      return new CreateViewStatement(ast);
    case 'alterView':
      return new AlterViewStatement(ast);
    case 'dropView':
      return new DropViewStatement(ast);
    case 'describe':
      return new DescribeStatement(ast, keyspace);
    // Roles and permissions (cql/statements/role-statements.ts, permission-statements.ts).
    case 'createRole':
      return new CreateRoleStatement(ast);
    case 'alterRole':
      return new AlterRoleStatement(ast);
    case 'dropRole':
      return new DropRoleStatement(ast);
    case 'grantRole':
      return new GrantRoleStatement(ast);
    case 'revokeRole':
      return new RevokeRoleStatement(ast);
    case 'listRoles':
      return new ListRolesStatement(ast);
    case 'listUsers':
      return new ListUsersStatement();
    case 'listSuperUsers':
      return new ListSuperUsersStatement();
    case 'grantPermissions':
      return new GrantPermissionsStatement(ast);
    case 'revokePermissions':
      return new RevokePermissionsStatement(ast);
    case 'listPermissions':
      return new ListPermissionsStatement(ast);
    default:
      throw new InvalidRequest(`${ast.kind} statements are not supported yet`);
  }
}
