// CREATE / ALTER / DROP ROLE (and the legacy USER forms), GRANT / REVOKE role, LIST ROLES / USERS / SUPERUSERS,
// with Cassandra 5.0's rules and messages (CreateRoleStatement, AlterRoleStatement, DropRoleStatement,
// RoleManagementStatement, ListRolesStatement, ListUsersStatement). Access is checked when the statement runs,
// against the session's logged-in role, before validation, as QueryProcessor does (authorize, then validate).

import type { AccessControl } from '../auth/access-control.js';
import { ROLE_MANAGER_CLASS } from '../auth/access-control.js';
import { hashPassword } from '../auth/password-hash.js';
import { ALL_ROLES, applicablePermissions, roleResource } from '../auth/resources.js';
import type { StoredRole } from '../auth/role-store.js';
import { InvalidRequest, Unauthorized } from '../errors.js';
import type { CqlStatement, ExecutionContext } from '../execution/cql-statement.js';
import type {
  AlterRoleStatement as AlterRoleAst,
  CreateRoleStatement as CreateRoleAst,
  DropRoleStatement as DropRoleAst,
  GrantRoleStatement as GrantRoleAst,
  ListRolesStatement as ListRolesAst,
  RevokeRoleStatement as RevokeRoleAst,
  RoleOptions,
} from '../parser/ast.js';
import type { ClientState, ColumnSpec, ResultMessage } from '../query-handler.js';
import { type CqlType, native } from '../types/cql-type.js';
import { encodeJsValue, type JsValue } from '../types/js-value-encoder.js';

const VOID: ResultMessage = { kind: 'void' };
const TEXT = native('text');
const BOOLEAN = native('boolean');
const OPTIONS_TYPE: CqlType = { kind: 'map', key: TEXT, value: TEXT, frozen: false } as CqlType;
const BCRYPT_HASH = /^\$2[abxy]?\$\d\d\$[./A-Za-z0-9]{53}$/;

/** The access control the server was started with (always wired by server/run-server.ts). */
export function accessControl(ctx: ExecutionContext): AccessControl {
  const auth = ctx.auth;
  if (auth === undefined) throw new InvalidRequest('Role management is not available on this server');
  return auth;
}

export abstract class AuthStatementBase implements CqlStatement {
  readonly bindSpecs: readonly ColumnSpec[] = [];
  readonly partitionKeyIndices: readonly number[] = [];
  readonly resultColumns: readonly ColumnSpec[] = [];
  readonly isSchemaChange = false;
  abstract execute(ctx: ExecutionContext, state: ClientState): ResultMessage | Promise<ResultMessage>;
}

function column(table: string, name: string, type: CqlType): ColumnSpec {
  return { keyspace: 'system_auth', table, name, type };
}

/** RoleOptions.validate against CassandraRoleManager's supported options. */
function validateOptions(auth: AccessControl, o: RoleOptions): void {
  const unsupported = (option: string) => new InvalidRequest(`${ROLE_MANAGER_CLASS} doesn't support ${option}`);
  if (o.password !== undefined && o.hashedPassword !== undefined) {
    throw new InvalidRequest("Properties 'password' and 'hashed password' are mutually exclusive");
  }
  if (!auth.requireAuthentication) {
    if (o.password !== undefined) throw unsupported('PASSWORD');
    if (o.hashedPassword !== undefined) throw unsupported('HASHED_PASSWORD');
  }
  if (o.generatedPassword) throw unsupported('GENERATED_PASSWORD');
  if (o.hashedPassword !== undefined && !BCRYPT_HASH.test(o.hashedPassword)) {
    throw new InvalidRequest('Invalid hashed password value. Please use jBcrypt.');
  }
}

function isEmptyOptions(o: RoleOptions): boolean {
  return (
    o.password === undefined &&
    o.hashedPassword === undefined &&
    !o.generatedPassword &&
    o.login === undefined &&
    o.superuser === undefined &&
    o.options === undefined &&
    o.datacenters === undefined &&
    o.cidrs === undefined
  );
}

async function passwordHash(auth: AccessControl, o: RoleOptions): Promise<string | undefined> {
  if (o.hashedPassword !== undefined) return o.hashedPassword;
  if (o.password !== undefined) return await hashPassword(o.password, auth.bcryptRounds);
  return undefined;
}

function optionsRecord(o: RoleOptions): Record<string, string> | undefined {
  return o.options === undefined ? undefined : Object.fromEntries(o.options);
}

export class CreateRoleStatement extends AuthStatementBase {
  constructor(readonly ast: CreateRoleAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const auth = accessControl(ctx);
    const user = auth.ensureNotAnonymous(state);
    const { role, options: o } = this.ast;
    // checkAccess
    auth.ensurePermission(state, 'CREATE', ALL_ROLES);
    if (o.superuser === true && !auth.isSuper(user)) {
      throw new Unauthorized('Only superusers can create a role with superuser status');
    }
    // validate
    validateOptions(auth, o);
    if (role === '') throw new InvalidRequest("Role name can't be an empty string");
    if (auth.roles.exists(role)) {
      if (this.ast.ifNotExists) return VOID;
      throw new InvalidRequest(`${role} already exists`);
    }
    const hash = await passwordHash(auth, o);
    if (auth.roles.exists(role)) {
      if (this.ast.ifNotExists) return VOID;
      throw new InvalidRequest(`${role} already exists`);
    }
    const stored: StoredRole = {
      role,
      isSuper: o.superuser ?? false,
      canLogin: o.login ?? false,
      saltedHash: hash ?? null,
      memberOf: [],
      options: optionsRecord(o) ?? {},
    };
    await auth.roles.createRole(stored);
    // grantPermissionsToCreator
    if (auth.requireAuthorization) {
      const resource = roleResource(role);
      await auth.roles.grant(applicablePermissions(resource), resource.name, user);
    }
    return VOID;
  }
}

export class AlterRoleStatement extends AuthStatementBase {
  constructor(readonly ast: AlterRoleAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const auth = accessControl(ctx);
    const user = auth.ensureNotAnonymous(state);
    const { role, options: o } = this.ast;
    // checkAccess
    const isSuper = auth.isSuper(user);
    if (o.superuser !== undefined && auth.rolesOf(user).has(role)) {
      throw new Unauthorized("You aren't allowed to alter your own superuser status or that of a role granted to you");
    }
    if (o.superuser !== undefined && !isSuper) {
      throw new Unauthorized('Only superusers are allowed to alter superuser status');
    }
    if (!isSuper) {
      if (user === role) {
        // A role may change its own password only (CassandraRoleManager.alterableOptions).
        const changed: string[] = [];
        if (o.login !== undefined) changed.push('LOGIN');
        if (o.options !== undefined) changed.push('OPTIONS');
        if (o.datacenters !== undefined && !auth.requireAuthentication) changed.push('DATACENTERS');
        if (!auth.requireAuthentication && o.password !== undefined) changed.push('PASSWORD');
        if (changed.length > 0) throw new Unauthorized(`You aren't allowed to alter ${changed[0]}`);
      } else {
        auth.ensurePermission(state, 'ALTER', roleResource(role));
      }
    }
    // validate
    validateOptions(auth, o);
    if (isEmptyOptions(o)) throw new InvalidRequest("ALTER [ROLE|USER] can't be empty");
    if (!auth.roles.exists(role)) {
      if (this.ast.ifExists) return VOID;
      throw new InvalidRequest(`${role} doesn't exist`);
    }
    const hash = await passwordHash(auth, o);
    await auth.roles.alterRole(role, {
      isSuper: o.superuser,
      canLogin: o.login,
      saltedHash: hash,
      options: optionsRecord(o),
    });
    return VOID;
  }
}

export class DropRoleStatement extends AuthStatementBase {
  constructor(readonly ast: DropRoleAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const auth = accessControl(ctx);
    const user = auth.ensureNotAnonymous(state);
    const { role } = this.ast;
    auth.ensurePermission(state, 'DROP', roleResource(role));
    if (auth.roles.exists(role) && auth.roles.hasSuperuserStatus(role) && !auth.isSuper(user)) {
      throw new Unauthorized('Only superusers can drop a role with superuser status');
    }
    if (!auth.roles.exists(role)) {
      if (this.ast.ifExists) return VOID;
      throw new InvalidRequest(`${role} doesn't exist`);
    }
    if (user === role) throw new InvalidRequest('Cannot DROP primary role for current login');
    await auth.roles.dropRole(role);
    return VOID;
  }
}

/** GRANT role TO grantee / REVOKE role FROM revokee (RoleManagementStatement). */
abstract class RoleManagementStatement extends AuthStatementBase {
  protected check(auth: AccessControl, state: ClientState, role: string, grantee: string): void {
    auth.ensureNotAnonymous(state);
    auth.ensurePermission(state, 'AUTHORIZE', roleResource(role));
    if (!auth.roles.exists(role)) throw new InvalidRequest(`${role} doesn't exist`);
    if (!auth.roles.exists(grantee)) throw new InvalidRequest(`${grantee} doesn't exist`);
  }
}

export class GrantRoleStatement extends RoleManagementStatement {
  constructor(readonly ast: GrantRoleAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const auth = accessControl(ctx);
    const { role, grantee } = this.ast;
    this.check(auth, state, role, grantee);
    if (auth.roles.rolesOf(grantee, true).has(role)) throw new InvalidRequest(`${grantee} is a member of ${role}`);
    if (auth.roles.rolesOf(role, true).has(grantee)) throw new InvalidRequest(`${role} is a member of ${grantee}`);
    await auth.roles.grantRole(role, grantee);
    return VOID;
  }
}

export class RevokeRoleStatement extends RoleManagementStatement {
  constructor(readonly ast: RevokeRoleAst) {
    super();
  }

  async execute(ctx: ExecutionContext, state: ClientState): Promise<ResultMessage> {
    const auth = accessControl(ctx);
    const { role, revokee } = this.ast;
    this.check(auth, state, role, revokee);
    if (!auth.roles.rolesOf(revokee, false).has(role) || role === revokee) {
      throw new InvalidRequest(`${revokee} is not a member of ${role}`);
    }
    await auth.roles.revokeRole(role, revokee);
    return VOID;
  }
}

function rows(columns: readonly ColumnSpec[], values: JsValue[][]): ResultMessage {
  if (values.length === 0) return VOID;
  return {
    kind: 'rows',
    metadata: { columns: [...columns] },
    rows: values.map((row) => row.map((v, i) => encodeJsValue(columns[i]!.type, v))),
  };
}

/** The roles LIST ROLES may show to `user` (ListRolesStatement.execute). */
function visibleRoles(auth: AccessControl, state: ClientState, grantee: string | undefined, recursive: boolean) {
  const user = auth.ensureNotAnonymous(state);
  if (grantee !== undefined && !auth.roles.exists(grantee)) {
    throw new InvalidRequest(`<role ${grantee}> doesn't exist`);
  }
  const rootDescribe = !auth.requireAuthorization || auth.permissionsOn(user, ALL_ROLES).has('DESCRIBE');
  let names: Set<string>;
  if (rootDescribe) {
    names =
      grantee === undefined ? new Set(auth.roles.all().map((r) => r.role)) : auth.roles.rolesOf(grantee, recursive);
  } else if (grantee === undefined) {
    names = auth.roles.rolesOf(user, recursive);
  } else if (auth.roles.rolesOf(user, true).has(grantee)) {
    names = auth.roles.rolesOf(grantee, recursive);
  } else {
    throw new Unauthorized(`You are not authorized to view roles granted to ${grantee} `);
  }
  return [...names].sort().map((n) => auth.roles.get(n)!);
}

export class ListRolesStatement extends AuthStatementBase {
  static readonly COLUMNS: readonly ColumnSpec[] = [
    column('roles', 'role', TEXT),
    column('roles', 'super', BOOLEAN),
    column('roles', 'login', BOOLEAN),
    column('roles', 'options', OPTIONS_TYPE),
    column('roles', 'datacenters', TEXT),
  ];
  override readonly resultColumns = ListRolesStatement.COLUMNS;

  constructor(readonly ast: ListRolesAst) {
    super();
  }

  execute(ctx: ExecutionContext, state: ClientState): ResultMessage {
    const auth = accessControl(ctx);
    const list = visibleRoles(auth, state, this.ast.role, this.ast.recursive);
    return rows(
      this.resultColumns,
      list.map((r) => [r.role, r.isSuper, r.canLogin, new Map(Object.entries(r.options)), 'ALL']),
    );
  }
}

/** LIST USERS: the roles that can log in (ListUsersStatement, legacy columns). */
export class ListUsersStatement extends AuthStatementBase {
  static readonly COLUMNS: readonly ColumnSpec[] = [
    column('users', 'name', TEXT),
    column('users', 'super', BOOLEAN),
    column('users', 'datacenters', TEXT),
  ];
  override readonly resultColumns = ListUsersStatement.COLUMNS;

  execute(ctx: ExecutionContext, state: ClientState): ResultMessage {
    const auth = accessControl(ctx);
    const list = visibleRoles(auth, state, undefined, false).filter((r) => r.canLogin);
    return rows(
      this.resultColumns,
      list.map((r) => [r.role, auth.roles.hasSuperuserStatus(r.role), 'ALL']),
    );
  }
}

/** LIST SUPERUSERS (5.0): roles with superuser status, directly or through a granted role. */
export class ListSuperUsersStatement extends AuthStatementBase {
  static readonly COLUMNS: readonly ColumnSpec[] = [column('roles', 'role', TEXT)];
  override readonly resultColumns = ListSuperUsersStatement.COLUMNS;

  execute(ctx: ExecutionContext, state: ClientState): ResultMessage {
    const auth = accessControl(ctx);
    auth.ensureNotAnonymous(state);
    auth.ensurePermission(state, 'DESCRIBE', ALL_ROLES);
    const list = auth.roles.all().filter((r) => auth.roles.hasSuperuserStatus(r.role));
    return rows(
      this.resultColumns,
      list.map((r) => [r.role]),
    );
  }
}
