// Authorization, as Cassandra's ClientState + CassandraAuthorizer: which permission each statement needs on
// which resource, checked against the permissions granted to the logged-in role and every role granted to it
// (superusers have every applicable permission). With AllowAllAuthorizer nothing is checked but the role
// statements' own rules. The role store behind it serves the system_auth tables too.

import type { Logger } from 'pino';
import type { StorageEngine } from '../../storage/storage-engine.js';
import { InvalidRequest, Unauthorized } from '../errors.js';
import type { Permission, Statement } from '../parser/ast.js';
import type { ClientState, ServerEvent } from '../query-handler.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { SystemRows } from '../system/system-rows.js';
import type { RowObject } from '../system/virtual-table.js';
import { hashPassword } from './password-hash.js';
import {
  ALL_KEYSPACES,
  type AuthResource,
  applicablePermissions,
  functionResource,
  functionsInKeyspace,
  keyspaceResource,
  resourceChain,
  resourceFromName,
  tableResource,
} from './resources.js';
import { RoleStore } from './role-store.js';

export const DEFAULT_SUPERUSER_NAME = 'cassandra';
const DEFAULT_SUPERUSER_PASSWORD = 'cassandra';
export const ROLE_MANAGER_CLASS = 'org.apache.cassandra.auth.CassandraRoleManager';

export interface AccessControlOptions {
  authenticator: 'AllowAllAuthenticator' | 'PasswordAuthenticator';
  authorizer: 'AllowAllAuthorizer' | 'CassandraAuthorizer';
  /** bcrypt log2 rounds (Cassandra: -Dcassandra.auth_bcrypt_gensalt_log2_rounds, default 10). */
  bcryptRounds?: number;
}

/** Tables any logged-in role may read (ClientState.READABLE_SYSTEM_RESOURCES). */
function isReadableSystemTable(keyspace: string, table: string): boolean {
  if (keyspace === 'system_schema' || keyspace === 'system_virtual_schema') return true;
  return keyspace === 'system' && (table === 'local' || table === 'peers' || table === 'peers_v2');
}

const PROTECTED_AUTH_TABLES = new Set([
  'roles',
  'role_members',
  'role_permissions',
  'resource_role_permissons_index',
  'network_permissions',
]);
const LOCAL_SYSTEM_KEYSPACES = new Set(['system', 'system_schema', 'system_views', 'system_virtual_schema']);
const REPLICATED_SYSTEM_KEYSPACES = new Set(['system_auth', 'system_distributed', 'system_traces']);

interface UserInfo {
  version: number;
  roles: Set<string>;
  isSuper: boolean;
}

/**
 * What authorize() reads of a prepared statement (a CqlStatement): its table, and where the statement has them its
 * AST, kind and conditions.
 */
export interface AuthorizedStatement {
  readonly table?: TableMetadata | undefined;
}

export class AccessControl {
  readonly roles: RoleStore;
  readonly requireAuthentication: boolean;
  readonly requireAuthorization: boolean;
  readonly bcryptRounds: number;
  private readonly users = new Map<string, UserInfo>();
  /** Creator of a keyspace/table being created, by resource name (grantPermissionsToCreator). */
  private readonly creators = new Map<string, string>();

  constructor(
    storage: StorageEngine,
    private readonly catalog: SchemaCatalog,
    private readonly log: Logger,
    options: AccessControlOptions,
  ) {
    this.roles = new RoleStore(storage);
    this.requireAuthentication = options.authenticator === 'PasswordAuthenticator';
    this.requireAuthorization = options.authorizer === 'CassandraAuthorizer';
    this.bcryptRounds = options.bcryptRounds ?? 10;
  }

  /** Loads roles and grants; with PasswordAuthenticator creates the default superuser on a store without roles. */
  async setup(): Promise<void> {
    this.roles.load();
    if (this.requireAuthentication && this.roles.size === 0) {
      const hash = await hashPassword(DEFAULT_SUPERUSER_PASSWORD, this.bcryptRounds);
      await this.roles.createRole({
        role: DEFAULT_SUPERUSER_NAME,
        isSuper: true,
        canLogin: true,
        saltedHash: hash,
        memberOf: [],
        options: {},
      });
      this.log.info(`Created default superuser role '${DEFAULT_SUPERUSER_NAME}'`);
      this.log.warn(
        `The default superuser role '${DEFAULT_SUPERUSER_NAME}' has the default password: create another superuser ` +
          `and drop or ALTER ROLE ${DEFAULT_SUPERUSER_NAME} WITH PASSWORD = '...' before exposing this node`,
      );
    }
  }

  /** Serves system_auth.roles, role_members, role_permissions and resource_role_permissons_index. */
  registerSystemTables(systemRows: SystemRows): void {
    systemRows.register('system_auth', 'roles', () =>
      this.roles.all().map(
        (r): RowObject => ({
          role: r.role,
          can_login: r.canLogin,
          is_superuser: r.isSuper,
          member_of: r.memberOf.length > 0 ? [...r.memberOf].sort() : null,
          salted_hash: r.saltedHash,
        }),
      ),
    );
    systemRows.register('system_auth', 'role_members', () => {
      const rows: RowObject[] = [];
      for (const r of this.roles.all())
        for (const m of this.roles.membersOf(r.role)) rows.push({ role: r.role, member: m });
      return rows;
    });
    systemRows.register('system_auth', 'role_permissions', () =>
      this.roles
        .permissionEntries()
        .map((e): RowObject => ({ role: e.role, resource: e.resource, permissions: [...e.permissions].sort() })),
    );
    systemRows.register('system_auth', 'resource_role_permissons_index', () =>
      this.roles
        .permissionEntries()
        .map((e): RowObject => ({ resource: e.resource, role: e.role }))
        .sort((a, b) => cmp(String(a.resource), String(b.resource)) || cmp(String(a.role), String(b.role))),
    );
  }

  /** Keeps grants in step with the schema: creators get their new keyspace/table, drops revoke all on it. */
  onSchemaEvent(event: ServerEvent): void {
    if (event.type !== 'SCHEMA_CHANGE') return;
    const c = event.change;
    if ((c.target === 'FUNCTION' || c.target === 'AGGREGATE') && c.change === 'DROPPED') {
      this.background(this.roles.revokeAllOn(functionResource(c.keyspace, c.name ?? '', c.argTypes ?? []).name, false));
      return;
    }
    if (c.target !== 'KEYSPACE' && c.target !== 'TABLE') return;
    const resource = c.target === 'KEYSPACE' ? keyspaceResource(c.keyspace) : tableResource(c.keyspace, c.name ?? '');
    if (c.change === 'DROPPED') {
      this.background(this.roles.revokeAllOn(resource.name, c.target === 'KEYSPACE'));
      if (c.target === 'KEYSPACE') this.background(this.roles.revokeAllOn(`functions/${c.keyspace}`, true));
    } else if (c.change === 'CREATED') {
      const creator = this.creators.get(resource.name);
      this.creators.delete(resource.name);
      if (creator !== undefined && this.requireAuthorization && this.roles.exists(creator)) {
        this.background(this.roles.grant(applicablePermissions(resource), resource.name, creator));
        if (c.target === 'KEYSPACE') {
          // CreateKeyspaceStatement.grantPermissionsToCreator: the keyspace's functions too.
          const functions = functionsInKeyspace(c.keyspace);
          this.background(this.roles.grant(applicablePermissions(functions), functions.name, creator));
        }
      }
    }
  }

  private background(p: Promise<unknown>): void {
    p.catch((e) => this.log.error({ err: e }, 'cannot persist a change of permissions'));
  }

  // ---- who is asking

  /** ClientState.ensureNotAnonymous: the logged-in role's name. */
  ensureNotAnonymous(state: ClientState): string {
    if (state.user === undefined) {
      throw new Unauthorized('You have to be logged in and not anonymous to perform this request');
    }
    return state.user;
  }

  private info(user: string): UserInfo {
    let i = this.users.get(user);
    if (i === undefined || i.version !== this.roles.version) {
      i = {
        version: this.roles.version,
        roles: this.roles.rolesOf(user, true),
        isSuper: this.roles.hasSuperuserStatus(user),
      };
      this.users.set(user, i);
    }
    return i;
  }

  /** AuthenticatedUser.isSuper (inherited superuser status counts). */
  isSuper(user: string): boolean {
    return this.info(user).isSuper;
  }

  /** The role and every role granted to it. */
  rolesOf(user: string): ReadonlySet<string> {
    return this.info(user).roles;
  }

  /** CassandraAuthorizer.authorize: the permissions `user` holds on exactly `resource`. */
  permissionsOn(user: string, resource: AuthResource): Set<Permission> {
    const info = this.info(user);
    if (info.isSuper) return new Set(applicablePermissions(resource));
    const out = new Set<Permission>();
    for (const role of info.roles) {
      const granted = this.roles.granted(role, resource.name);
      if (granted) for (const p of granted) out.add(p);
    }
    return out;
  }

  /** ClientState.ensurePermission: `perm` on the resource or one of its parents. */
  ensurePermission(state: ClientState, perm: Permission, resource: AuthResource): void {
    if (!this.requireAuthorization) return;
    const user = this.ensureLoggedIn(state);
    if (resource.kind === 'functions' && resource.level > 0 && resource.keyspace === 'system') return;
    const info = this.info(user);
    for (const r of resourceChain(resource)) {
      if (info.isSuper) {
        if (applicablePermissions(r).includes(perm)) return;
        continue;
      }
      for (const role of info.roles) if (this.roles.granted(role, r.name)?.has(perm)) return;
    }
    throw new Unauthorized(`User ${user} has no ${perm} permission on ${resource.display} or any of its parents`);
  }

  private ensureLoggedIn(state: ClientState): string {
    if (state.user === undefined) throw new Unauthorized('You have not logged in');
    return state.user;
  }

  /** ClientState.hasAccess for a keyspace or table (system schema readable, system keyspaces protected). */
  ensureDataAccess(state: ClientState, perm: Permission, keyspace: string, table?: string): void {
    if (!this.requireAuthorization) return;
    this.ensureLoggedIn(state);
    const resource = table === undefined ? keyspaceResource(keyspace) : tableResource(keyspace, table);
    if (perm === 'ALTER' || perm === 'DROP' || perm === 'CREATE') {
      if (LOCAL_SYSTEM_KEYSPACES.has(keyspace)) throw new Unauthorized(`${keyspace} keyspace is not user-modifiable.`);
      if (REPLICATED_SYSTEM_KEYSPACES.has(keyspace) && !(perm === 'ALTER' && table === undefined)) {
        throw new Unauthorized(`Cannot ${perm} ${resource.display}`);
      }
    }
    if (perm === 'SELECT' && table !== undefined && isReadableSystemTable(keyspace, table)) return;
    if (keyspace === 'system_auth' && table !== undefined && PROTECTED_AUTH_TABLES.has(table)) {
      if (perm === 'CREATE' || perm === 'ALTER' || perm === 'DROP') {
        throw new Unauthorized(`${resource.display} schema is protected`);
      }
    }
    this.ensurePermission(state, perm, resource);
  }

  // ---- statements

  /**
   * Checks that the session may run `st` (prepared against `keyspace`): the one hook the query handler calls
   * before executing a QUERY or EXECUTE and for every statement of a BATCH. Role and permission statements
   * check their own rules when they run.
   */
  authorize(st: AuthorizedStatement, state: ClientState, keyspace: string | undefined): void {
    if (!this.requireAuthorization) return;
    const ast = (st as { ast?: Statement }).ast;
    if (ast !== undefined && ast.kind !== 'select') {
      this.authorizeAst(ast, state, keyspace);
      return;
    }
    const table = st.table;
    if (table === undefined) return;
    const kind = (st as { kind?: string }).kind;
    if (kind === 'insert' || kind === 'update' || kind === 'delete') {
      this.ensureDataAccess(state, 'MODIFY', table.keyspace, table.name);
      if ((st as { conditions?: unknown }).conditions !== undefined) {
        this.ensureDataAccess(state, 'SELECT', table.keyspace, table.name);
      }
    } else {
      this.ensureDataAccess(state, 'SELECT', table.keyspace, table.name);
    }
  }

  private authorizeAst(ast: Statement, state: ClientState, current: string | undefined): void {
    const ks = (name: string | undefined): string => {
      const k = name ?? current;
      if (!k) {
        throw new InvalidRequest(
          'No keyspace has been specified. USE a keyspace, or explicitly specify keyspace.tablename',
        );
      }
      return k;
    };
    switch (ast.kind) {
      case 'select':
        this.ensureDataAccess(state, 'SELECT', ks(ast.table.keyspace), ast.table.name);
        return;
      case 'insert':
      case 'insertJson':
      case 'update':
      case 'delete': {
        const k = ks(ast.table.keyspace);
        this.ensureDataAccess(state, 'MODIFY', k, ast.table.name);
        const lwt =
          ast.kind === 'insert' || ast.kind === 'insertJson'
            ? ast.ifNotExists
            : ast.ifExists || ast.conditions.length > 0;
        if (lwt) this.ensureDataAccess(state, 'SELECT', k, ast.table.name);
        return;
      }
      case 'batch':
        for (const s of ast.statements) this.authorizeAst(s, state, current);
        return;
      case 'truncate':
        this.ensureDataAccess(state, 'MODIFY', ks(ast.table.keyspace), ast.table.name);
        return;
      case 'createKeyspace':
        // ClientState.ensureAllKeyspacesPermission
        this.ensurePermission(state, 'CREATE', ALL_KEYSPACES);
        this.noteCreator(state, keyspaceResource(ast.keyspace));
        return;
      case 'alterKeyspace':
        this.ensureDataAccess(state, 'ALTER', ast.keyspace);
        return;
      case 'dropKeyspace':
        this.ensureDataAccess(state, 'DROP', ast.keyspace);
        return;
      case 'createTable': {
        const k = ks(ast.table.keyspace);
        this.ensureDataAccess(state, 'CREATE', k);
        this.noteCreator(state, tableResource(k, ast.table.name));
        return;
      }
      case 'alterTable':
        this.ensureDataAccess(state, 'ALTER', ks(ast.table.keyspace), ast.table.name);
        return;
      case 'dropTable':
        this.ensureDataAccess(state, 'DROP', ks(ast.table.keyspace), ast.table.name);
        return;
      case 'createType':
        this.ensureDataAccess(state, 'CREATE', ks(ast.type.keyspace));
        return;
      case 'alterType':
        this.ensureDataAccess(state, 'ALTER', ks(ast.type.keyspace));
        return;
      case 'dropType':
        this.ensureDataAccess(state, 'DROP', ks(ast.type.keyspace));
        return;
      case 'createIndex':
        this.ensureDataAccess(state, 'ALTER', ks(ast.table.keyspace), ast.table.name);
        return;
      case 'dropIndex': {
        const k = ks(ast.index.keyspace);
        const base = this.indexTable(k, ast.index.name);
        this.ensureDataAccess(state, 'ALTER', k, base);
        return;
      }
      case 'createView':
        this.ensureDataAccess(state, 'ALTER', ks(ast.baseTable.keyspace ?? ast.view.keyspace), ast.baseTable.name);
        return;
      case 'dropView': {
        const k = ks(ast.view.keyspace);
        const base = this.catalog.keyspace(k)?.views?.get(ast.view.name)?.baseTableName;
        this.ensureDataAccess(state, 'ALTER', k, base);
        return;
      }
      case 'createFunction':
      case 'createAggregate': {
        const name = ast.kind === 'createFunction' ? ast.function : ast.aggregate;
        this.ensurePermission(state, 'CREATE', functionsInKeyspace(ks(name.keyspace)));
        return;
      }
      case 'dropFunction':
      case 'dropAggregate': {
        const name = ast.kind === 'dropFunction' ? ast.function : ast.aggregate;
        this.ensurePermission(state, 'DROP', functionsInKeyspace(ks(name.keyspace)));
        return;
      }
      default:
        // USE and DESCRIBE need a login only; role and permission statements check themselves.
        return;
    }
  }

  /** The table an index belongs to (undefined when unknown: the keyspace is checked then). */
  private indexTable(keyspace: string, index: string): string | undefined {
    for (const t of this.catalog.keyspace(keyspace)?.tables.values() ?? []) {
      if (t.indexes?.some((i) => i.name === index)) return t.name;
    }
    return undefined;
  }

  private noteCreator(state: ClientState, resource: AuthResource): void {
    if (state.user !== undefined) this.creators.set(resource.name, state.user);
  }

  /** For LIST PERMISSIONS: a stored resource name back as a resource. */
  resource(name: string): AuthResource | undefined {
    return resourceFromName(name);
  }

  get schema(): SchemaCatalog {
    return this.catalog;
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
