// Roles, role memberships and granted permissions: Cassandra's system_auth.roles / role_members /
// role_permissions / resource_role_permissons_index, kept in memory and persisted in the pool's catalog
// map (prefix `auth/`) so they survive restarts. Every change is staged in one group-commit operation.
// The sets are small (tens to thousands of roles): a JSON document per role and per (role, resource).

import type { StorageEngine } from '../../storage/storage-engine.js';
import type { Permission } from '../parser/ast.js';
import { sortPermissions } from './resources.js';

const ROLE_PREFIX = 'auth/roles/';
const PERM_PREFIX = 'auth/perms/';
const SEP = '\u0000';

export interface StoredRole {
  readonly role: string;
  isSuper: boolean;
  canLogin: boolean;
  /** bcrypt hash ($2a$...), null without a password. */
  saltedHash: string | null;
  /** Roles granted to this role (system_auth.roles.member_of). */
  memberOf: string[];
  /** Custom OPTIONS = {...} of CREATE/ALTER ROLE. */
  options: Record<string, string>;
}

export interface RoleChanges {
  isSuper?: boolean | undefined;
  canLogin?: boolean | undefined;
  saltedHash?: string | undefined;
  options?: Record<string, string> | undefined;
}

export interface PermissionEntry {
  readonly role: string;
  readonly resource: string;
  readonly permissions: readonly Permission[];
}

export class RoleStore {
  private readonly roles = new Map<string, StoredRole>();
  /** role -> resource name -> granted permissions. */
  private readonly perms = new Map<string, Map<string, Set<Permission>>>();
  private generation = 0;

  constructor(private readonly storage: StorageEngine) {}

  /** Bumped on every change; caches of effective permissions compare it. */
  get version(): number {
    return this.generation;
  }

  /** Reads every stored role and permission (start-up). */
  load(): void {
    this.roles.clear();
    this.perms.clear();
    for (const { value } of this.storage.catalogScan(ROLE_PREFIX)) {
      const r = JSON.parse(value.toString('utf8')) as StoredRole;
      this.roles.set(r.role, { ...r, memberOf: [...r.memberOf], options: { ...r.options } });
    }
    for (const { key, value } of this.storage.catalogScan(PERM_PREFIX)) {
      const rest = key.toString('utf8').slice(PERM_PREFIX.length);
      const at = rest.indexOf(SEP);
      if (at < 0) continue;
      const role = rest.slice(0, at);
      const resource = rest.slice(at + 1);
      this.permsOf(role, true)!.set(resource, new Set(JSON.parse(value.toString('utf8')) as Permission[]));
    }
    this.generation++;
  }

  get size(): number {
    return this.roles.size;
  }

  get(role: string): StoredRole | undefined {
    return this.roles.get(role);
  }

  exists(role: string): boolean {
    return this.roles.has(role);
  }

  /** Every role, sorted by name. */
  all(): StoredRole[] {
    return [...this.roles.values()].sort((a, b) => (a.role < b.role ? -1 : a.role > b.role ? 1 : 0));
  }

  /**
   * The role and the roles granted to it (recursively when `recursive`, else only direct grants), as
   * CassandraRoleManager.getRoles; empty when the role does not exist.
   */
  rolesOf(role: string, recursive: boolean): Set<string> {
    const out = new Set<string>();
    const start = this.roles.get(role);
    if (!start) return out;
    out.add(role);
    if (!recursive) {
      for (const m of start.memberOf) if (this.roles.has(m)) out.add(m);
      return out;
    }
    const stack = [...start.memberOf];
    while (stack.length > 0) {
      const r = stack.pop()!;
      if (out.has(r)) continue;
      const stored = this.roles.get(r);
      if (!stored) continue;
      out.add(r);
      stack.push(...stored.memberOf);
    }
    return out;
  }

  /** Roles.hasSuperuserStatus: the role or any role granted to it is a superuser. */
  hasSuperuserStatus(role: string): boolean {
    for (const r of this.rolesOf(role, true)) if (this.roles.get(r)?.isSuper) return true;
    return false;
  }

  /** Direct members of `role` (system_auth.role_members). */
  membersOf(role: string): string[] {
    const out: string[] = [];
    for (const r of this.roles.values()) if (r.memberOf.includes(role)) out.push(r.role);
    return out.sort();
  }

  /** Permissions granted directly to `role` on `resource`. */
  granted(role: string, resource: string): ReadonlySet<Permission> | undefined {
    return this.perms.get(role)?.get(resource);
  }

  /** Every (role, resource, permissions) grant, sorted by role then resource. */
  permissionEntries(): PermissionEntry[] {
    const out: PermissionEntry[] = [];
    for (const [role, byResource] of this.perms) {
      for (const [resource, set] of byResource) {
        if (set.size > 0) out.push({ role, resource, permissions: sortPermissions(set) });
      }
    }
    return out.sort((a, b) => cmp(a.role, b.role) || cmp(a.resource, b.resource));
  }

  // ---- changes

  createRole(role: StoredRole): Promise<void> {
    this.roles.set(role.role, role);
    return this.persist([role.role], []);
  }

  alterRole(name: string, changes: RoleChanges): Promise<void> {
    const r = this.roles.get(name);
    if (!r) return Promise.resolve();
    if (changes.isSuper !== undefined) r.isSuper = changes.isSuper;
    if (changes.canLogin !== undefined) r.canLogin = changes.canLogin;
    if (changes.saltedHash !== undefined) r.saltedHash = changes.saltedHash;
    if (changes.options !== undefined) r.options = { ...changes.options };
    return this.persist([name], []);
  }

  /** Drops a role with its memberships, the permissions granted to it and those granted on it. */
  dropRole(name: string): Promise<void> {
    const touched: string[] = [name];
    this.roles.delete(name);
    for (const r of this.roles.values()) {
      if (r.memberOf.includes(name)) {
        r.memberOf = r.memberOf.filter((m) => m !== name);
        touched.push(r.role);
      }
    }
    const permKeys = this.dropPermissions((role, resource) => role === name || resource === `roles/${name}`);
    return this.persist(touched, permKeys);
  }

  grantRole(role: string, grantee: string): Promise<void> {
    const g = this.roles.get(grantee);
    if (!g || g.memberOf.includes(role)) return Promise.resolve();
    g.memberOf = [...g.memberOf, role].sort();
    return this.persist([grantee], []);
  }

  revokeRole(role: string, revokee: string): Promise<void> {
    const g = this.roles.get(revokee);
    if (!g?.memberOf.includes(role)) return Promise.resolve();
    g.memberOf = g.memberOf.filter((m) => m !== role);
    return this.persist([revokee], []);
  }

  /** Adds permissions; returns those that were not granted before. */
  async grant(perms: readonly Permission[], resource: string, role: string): Promise<Permission[]> {
    const set = this.permsOf(role, true)!.get(resource) ?? new Set<Permission>();
    const added = perms.filter((p) => !set.has(p));
    for (const p of perms) set.add(p);
    this.permsOf(role, true)!.set(resource, set);
    await this.persist([], [[role, resource]]);
    return added;
  }

  /** Removes permissions; returns those that were granted before. */
  async revoke(perms: readonly Permission[], resource: string, role: string): Promise<Permission[]> {
    const set = this.permsOf(role, false)?.get(resource);
    if (!set) return [];
    const removed = perms.filter((p) => set.has(p));
    for (const p of perms) set.delete(p);
    await this.persist([], [[role, resource]]);
    return removed;
  }

  /** revokeAllOn: after DROP KEYSPACE (the keyspace and its tables) or DROP TABLE. */
  revokeAllOn(resource: string, withChildren: boolean): Promise<void> {
    const prefix = `${resource}/`;
    const keys = this.dropPermissions((_role, r) => r === resource || (withChildren && r.startsWith(prefix)));
    return keys.length === 0 ? Promise.resolve() : this.persist([], keys);
  }

  private permsOf(role: string, create: boolean): Map<string, Set<Permission>> | undefined {
    let m = this.perms.get(role);
    if (!m && create) {
      m = new Map();
      this.perms.set(role, m);
    }
    return m;
  }

  /** Removes matching grants from memory; returns their keys, to be persisted (as deletions). */
  private dropPermissions(match: (role: string, resource: string) => boolean): [string, string][] {
    const keys: [string, string][] = [];
    for (const [role, byResource] of this.perms) {
      for (const resource of [...byResource.keys()]) {
        if (match(role, resource)) {
          byResource.delete(resource);
          keys.push([role, resource]);
        }
      }
      if (byResource.size === 0) this.perms.delete(role);
    }
    return keys;
  }

  /** Writes the current state of the given roles and grants (deleting those gone) in one operation. */
  private persist(roles: readonly string[], grants: readonly (readonly [string, string])[]): Promise<void> {
    this.generation++;
    const rolesNow = roles.map((name) => [name, this.roles.get(name)] as const);
    const grantsNow = grants.map(([role, resource]) => [role, resource, this.granted(role, resource)] as const);
    return this.storage.run((ctx) => {
      for (const [name, r] of rolesNow) {
        const key = ROLE_PREFIX + name;
        if (r) this.storage.stageCatalogPut(ctx, key, Buffer.from(JSON.stringify(r), 'utf8'));
        else this.storage.stageCatalogDelete(ctx, key);
      }
      for (const [role, resource, set] of grantsNow) {
        const key = PERM_PREFIX + role + SEP + resource;
        if (set && set.size > 0) {
          this.storage.stageCatalogPut(ctx, key, Buffer.from(JSON.stringify(sortPermissions(set)), 'utf8'));
        } else {
          this.storage.stageCatalogDelete(ctx, key);
        }
      }
    });
  }
}

function cmp(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
