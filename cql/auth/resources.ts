// Cassandra's IResource hierarchy for authorization: data (ALL KEYSPACES > KEYSPACE > TABLE), roles (ALL ROLES >
// ROLE) and functions (ALL FUNCTIONS > ALL FUNCTIONS IN KEYSPACE > FUNCTION). `name` is the stored form
// (DataResource.getName(): "data/ks/t"), `display` the form users see in messages and LIST output
// ("<table ks.t>"). Permission lists are in Cassandra's Permission enum order.

import { InvalidRequest, SyntaxError } from '../errors.js';
import type { Permission, Resource } from '../parser/ast.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import { resolveKeyspace } from '../statements/table-resolution.js';
import { type CqlType, cqlTypeToString } from '../types/cql-type.js';

export type AuthResourceKind = 'data' | 'roles' | 'functions';

export interface AuthResource {
  readonly kind: AuthResourceKind;
  /** Stored name: data, data/ks, data/ks/t, roles, roles/r, functions, functions/ks, functions/ks/f[int^text]. */
  readonly name: string;
  /** toString(): <all keyspaces>, <keyspace ks>, <table ks.t>, <all roles>, <role r>, <function ks.f(int)>... */
  readonly display: string;
  /** Depth in its hierarchy: 0 root, 1 keyspace/role/functions-in-keyspace, 2 table/function. */
  readonly level: 0 | 1 | 2;
  readonly keyspace?: string;
  readonly table?: string;
  readonly role?: string;
}

/** Cassandra's Permission enum order (the deprecated READ/WRITE left out). */
export const PERMISSION_ORDER: readonly Permission[] = [
  'CREATE',
  'ALTER',
  'DROP',
  'SELECT',
  'MODIFY',
  'AUTHORIZE',
  'DESCRIBE',
  'EXECUTE',
  'UNMASK',
  'SELECT_MASKED',
];

export function sortPermissions(perms: Iterable<Permission>): Permission[] {
  return [...new Set(perms)].sort((a, b) => PERMISSION_ORDER.indexOf(a) - PERMISSION_ORDER.indexOf(b));
}

const DATA_ROOT_OR_KEYSPACE: readonly Permission[] = [
  'CREATE',
  'ALTER',
  'DROP',
  'SELECT',
  'MODIFY',
  'AUTHORIZE',
  'UNMASK',
  'SELECT_MASKED',
];
const DATA_TABLE: readonly Permission[] = ['ALTER', 'DROP', 'SELECT', 'MODIFY', 'AUTHORIZE', 'UNMASK', 'SELECT_MASKED'];
const ROLES_ROOT: readonly Permission[] = ['CREATE', 'ALTER', 'DROP', 'AUTHORIZE', 'DESCRIBE'];
const ROLE: readonly Permission[] = ['ALTER', 'DROP', 'AUTHORIZE'];
const FUNCTIONS_ROOT_OR_KEYSPACE: readonly Permission[] = ['CREATE', 'ALTER', 'DROP', 'AUTHORIZE', 'EXECUTE'];
const FUNCTION: readonly Permission[] = ['ALTER', 'DROP', 'AUTHORIZE', 'EXECUTE'];

/** IResource.applicablePermissions(). */
export function applicablePermissions(r: AuthResource): readonly Permission[] {
  switch (r.kind) {
    case 'data':
      return r.level === 2 ? DATA_TABLE : DATA_ROOT_OR_KEYSPACE;
    case 'roles':
      return r.level === 0 ? ROLES_ROOT : ROLE;
    case 'functions':
      return r.level === 2 ? FUNCTION : FUNCTIONS_ROOT_OR_KEYSPACE;
  }
}

export const ALL_KEYSPACES: AuthResource = { kind: 'data', name: 'data', display: '<all keyspaces>', level: 0 };
export const ALL_ROLES: AuthResource = { kind: 'roles', name: 'roles', display: '<all roles>', level: 0 };
export const ALL_FUNCTIONS: AuthResource = {
  kind: 'functions',
  name: 'functions',
  display: '<all functions>',
  level: 0,
};

export function keyspaceResource(keyspace: string): AuthResource {
  return { kind: 'data', name: `data/${keyspace}`, display: `<keyspace ${keyspace}>`, level: 1, keyspace };
}

export function tableResource(keyspace: string, table: string): AuthResource {
  return {
    kind: 'data',
    name: `data/${keyspace}/${table}`,
    display: `<table ${keyspace}.${table}>`,
    level: 2,
    keyspace,
    table,
  };
}

export function roleResource(role: string): AuthResource {
  return { kind: 'roles', name: `roles/${role}`, display: `<role ${role}>`, level: 1, role };
}

export function functionsInKeyspace(keyspace: string): AuthResource {
  return {
    kind: 'functions',
    name: `functions/${keyspace}`,
    display: `<all functions in ${keyspace}>`,
    level: 1,
    keyspace,
  };
}

export function functionResource(keyspace: string, name: string, argTypes: readonly string[]): AuthResource {
  return {
    kind: 'functions',
    name: `functions/${keyspace}/${name}[${argTypes.join('^')}]`,
    display: `<function ${keyspace}.${name}(${argTypes.join(', ')})>`,
    level: 2,
    keyspace,
  };
}

/** The resource and its parents, most specific first (Resources.chain). */
export function resourceChain(r: AuthResource): AuthResource[] {
  const chain = [r];
  if (r.kind === 'data') {
    if (r.level === 2) chain.push(keyspaceResource(r.keyspace!));
    if (r.level >= 1) chain.push(ALL_KEYSPACES);
  } else if (r.kind === 'roles') {
    if (r.level >= 1) chain.push(ALL_ROLES);
  } else {
    if (r.level === 2) chain.push(functionsInKeyspace(r.keyspace!));
    if (r.level >= 1) chain.push(ALL_FUNCTIONS);
  }
  return chain;
}

/** Rebuilds a resource from its stored name (for LIST PERMISSIONS and system_auth rows). */
export function resourceFromName(name: string): AuthResource | undefined {
  const parts = name.split('/');
  switch (parts[0]) {
    case 'data':
      if (parts.length === 1) return ALL_KEYSPACES;
      if (parts.length === 2) return keyspaceResource(parts[1]!);
      if (parts.length === 3) return tableResource(parts[1]!, parts[2]!);
      return undefined;
    case 'roles':
      if (parts.length === 1) return ALL_ROLES;
      return roleResource(parts.slice(1).join('/'));
    case 'functions': {
      if (parts.length === 1) return ALL_FUNCTIONS;
      if (parts.length === 2) return functionsInKeyspace(parts[1]!);
      const m = /^(.*)\[(.*)\]$/.exec(parts.slice(2).join('/'));
      if (!m) return undefined;
      return functionResource(parts[1]!, m[1]!, m[2] === '' ? [] : m[2]!.split('^'));
    }
    default:
      return undefined;
  }
}

/**
 * The AST resource as an AuthResource, the keyspace of `ON TABLE t` filled in from the session
 * (maybeCorrectResource). MBeans are not supported here.
 */
export function resolveResource(r: Resource, currentKeyspace: string | undefined): AuthResource {
  switch (r.kind) {
    case 'allKeyspaces':
      return ALL_KEYSPACES;
    case 'keyspace':
    case 'allTablesInKeyspace':
      return keyspaceResource(r.keyspace);
    case 'table':
      return tableResource(resolveKeyspace(r.table.keyspace, currentKeyspace), r.table.name);
    case 'allRoles':
      return ALL_ROLES;
    case 'role':
      return roleResource(r.role);
    case 'allFunctions':
      return ALL_FUNCTIONS;
    case 'allFunctionsInKeyspace':
      return functionsInKeyspace(r.keyspace);
    case 'function':
      return functionResource(
        resolveKeyspace(r.function.keyspace, currentKeyspace),
        r.function.name,
        r.argTypes.map((t) => (t.kind === 'userType' ? t.name : cqlTypeToString(t as CqlType))),
      );
    case 'allMBeans':
    case 'mbean':
      throw new InvalidRequest('JMX resources are not supported by this server');
  }
}

/** IResource.exists(). */
export function resourceExists(
  r: AuthResource,
  catalog: SchemaCatalog,
  roleExists: (role: string) => boolean,
): boolean {
  if (r.level === 0) return true;
  switch (r.kind) {
    case 'data':
      return r.level === 1
        ? catalog.keyspace(r.keyspace!) !== undefined
        : catalog.table(r.keyspace!, r.table!) !== undefined;
    case 'roles':
      return roleExists(r.role!);
    case 'functions':
      if (r.level === 1) return catalog.keyspace(r.keyspace!) !== undefined;
      return functionSignatureExists(catalog, r);
  }
}

/** Keeps the permissions the resource supports (Cql.g filterPermissions), or the SyntaxException Cassandra gives. */
export function filterPermissions(perms: readonly Permission[], r: AuthResource): Permission[] {
  const applicable = applicablePermissions(r);
  const kept = perms.filter((p) => applicable.includes(p));
  if (kept.length === 0) {
    const cls = r.kind === 'data' ? 'DataResource' : r.kind === 'roles' ? 'RoleResource' : 'FunctionResource';
    throw new SyntaxError(`Resource type ${cls} does not support any of the requested permissions`);
  }
  return sortPermissions(kept);
}

/** A user-defined function or aggregate with the resource's signature exists (`name(type, ...)` keys). */
function functionSignatureExists(catalog: SchemaCatalog, r: AuthResource): boolean {
  const ks = catalog.keyspace(r.keyspace!);
  const m = /^<function [^.]+\.(.*)>$/.exec(r.display);
  if (!ks || !m) return false;
  return ks.functions?.has(m[1]!) === true || ks.aggregates?.has(m[1]!) === true;
}
