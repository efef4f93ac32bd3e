// GRANT / REVOKE / LIST PERMISSIONS with Cassandra 5.0's rules and messages (PermissionsManagementStatement,
// GrantPermissionsStatement, RevokePermissionsStatement, ListPermissionsStatement, CassandraAuthorizer.list).

import type { AccessControl } from '../auth/access-control.js';
import {
  type AuthResource,
  filterPermissions,
  PERMISSION_ORDER,
  resolveResource,
  resourceChain,
  resourceExists,
  resourceFromName,
} from '../auth/resources.js';
import { InvalidRequest, Unauthorized } from '../errors.js';
import type { ExecutionContext } from '../execution/cql-statement.js';
import type {
  GrantPermissionsStatement as GrantAst,
  ListPermissionsStatement as ListAst,
  Permission,
  RevokePermissionsStatement as RevokeAst,
} from '../parser/ast.js';
import type { ClientState, ColumnSpec, ResultMessage } from '../query-handler.js';
import { native } from '../types/cql-type.js';
import { encodeJsValue } from '../types/js-value-encoder.js';
import { AuthStatementBase, accessControl } from './role-statements.js';

const VOID: ResultMessage = { kind: 'void' };

/** Resolves and checks the resource and grantee of GRANT/REVOKE (authorize, then validate). */
function prepareChange(
  auth: AccessControl,
  ctx: ExecutionContext,
  state: ClientState,
  permissions: readonly Permission[],
  astResource: GrantAst['resource'],
  role: string,
  operation: 'GRANT' | 'REVOKE',
): { resource: AuthResource; permissions: Permission[] } {
  auth.ensureNotAnonymous(state);
  const resource = resolveResource(astResource, state.keyspace);
  const perms = filterPermissions(permissions, resource);
  if (!auth.requireAuthorization) {
    throw new InvalidRequest(`${operation} operation is not supported by AllowAllAuthorizer`);
  }
  auth.ensurePermission(state, 'AUTHORIZE', resource);
  for (const p of perms) auth.ensurePermission(state, p, resource);
  if (!auth.roles.exists(role)) throw new InvalidRequest(`Role ${role} doesn't exist`);
  if (resource.kind === 'functions' && resource.level > 0 && resource.keyspace === 'system') {
    throw new InvalidRequest('Altering permissions on builtin functions is not supported');
  }
  if (!resourceExists(resource, ctx.catalog, (r) => auth.roles.exists(r))) {
    throw new InvalidRequest(`Resource ${resource.display} doesn't exist`);
  }
  return { resource, permissions: perms };
}

export class GrantPermissionsStatement extends AuthStatementBase {
  constructor(readonly ast: GrantAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const auth = accessControl(ctx);
    const a = this.ast;
    const { resource, permissions } = prepareChange(auth, ctx, state, a.permissions, a.resource, a.grantee, 'GRANT');
    await auth.roles.grant(permissions, resource.name, a.grantee);
    return VOID;
  }
}

export class RevokePermissionsStatement extends AuthStatementBase {
  constructor(readonly ast: RevokeAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const auth = accessControl(ctx);
    const a = this.ast;
    const { resource, permissions } = prepareChange(auth, ctx, state, a.permissions, a.resource, a.revokee, 'REVOKE');
    await auth.roles.revoke(permissions, resource.name, a.revokee);
    return VOID;
  }
}

const TEXT = native('text');
const LIST_COLUMNS: readonly ColumnSpec[] = ['role', 'username', 'resource', 'permission'].map((name) => ({
  keyspace: 'system_auth',
  table: 'permissions',
  name,
  type: TEXT,
}));

interface PermissionDetails {
  grantee: string;
  resource: AuthResource;
  permission: Permission;
}

export class ListPermissionsStatement extends AuthStatementBase {
  override readonly resultColumns = LIST_COLUMNS;

  constructor(readonly ast: ListAst) {
    super();
  }

  execute(ctx: ExecutionContext, state: ClientState): ResultMessage {
    const auth = accessControl(ctx);
    const user = auth.ensureNotAnonymous(state);
    const a = this.ast;
    let resource: AuthResource | undefined;
    if (a.resource !== undefined) {
      resource = resolveResource(a.resource, state.keyspace);
      if (!resourceExists(resource, ctx.catalog, (r) => auth.roles.exists(r))) {
        throw new InvalidRequest(`${resource.display} doesn't exist`);
      }
    }
    const grantee = a.role;
    if (grantee !== undefined && !auth.roles.exists(grantee))
      throw new InvalidRequest(`<role ${grantee}> doesn't exist`);
    if (!auth.requireAuthorization) {
      throw new InvalidRequest('LIST PERMISSIONS operation is not supported by AllowAllAuthorizer');
    }
    // CassandraAuthorizer.list
    if (!auth.isSuper(user) && (grantee === undefined || !auth.rolesOf(user).has(grantee))) {
      throw new Unauthorized(`You are not authorized to view ${grantee ?? 'everyone'}'s permissions`);
    }
    const resources = resource === undefined ? undefined : a.recursive ? resourceChain(resource) : [resource];
    const wanted = new Set(a.permissions);
    const roles = grantee === undefined ? undefined : auth.roles.rolesOf(grantee, true);
    const details: PermissionDetails[] = [];
    for (const e of auth.roles.permissionEntries()) {
      if (roles !== undefined && !roles.has(e.role)) continue;
      if (resources !== undefined && !resources.some((r) => r.name === e.resource)) continue;
      const r = resourceFromName(e.resource);
      if (r === undefined) continue;
      for (const p of e.permissions) if (wanted.has(p)) details.push({ grantee: e.role, resource: r, permission: p });
    }
    if (details.length === 0) return VOID;
    details.sort(
      (x, y) =>
        cmp(x.grantee, y.grantee) ||
        cmp(x.resource.name, y.resource.name) ||
        PERMISSION_ORDER.indexOf(x.permission) - PERMISSION_ORDER.indexOf(y.permission),
    );
    return {
      kind: 'rows',
      metadata: { columns: [...LIST_COLUMNS] },
      rows: details.map((d) =>
        [d.grantee, d.grantee, d.resource.display, d.permission].map((v) => encodeJsValue(TEXT, v)),
      ),
    };
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
