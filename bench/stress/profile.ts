// A cassandra-stress user profile (YAML), read and checked as StressProfile does: keyspace and table
// (with optional definitions that must name them), extra_definitions, columnspec (per column:
// population, size, cluster distributions), insert (partitions, select, row-population, batchtype,
// condition; visits and revisit too), queries (cql, fields: samerow|multirow) and
// token_range_queries (columns, page_size). Keys are case-insensitive, as there.

import { readFileSync } from 'node:fs';
import { parse } from 'yaml';
import type { ColumnSpec } from './column-generator.js';
import { distributionFactory, StressArgError } from './distribution.js';

export interface ProfileQuery {
  cql: string;
  /** samerow: every bound value from one row; multirow: each from any row of the partition. */
  fields: 'samerow' | 'multirow';
}

export interface TokenRangeQueryDef {
  /** The selected columns: '*' or a list. */
  columns: string;
  pageSize: number;
}

export interface StressProfile {
  /** The file it came from. */
  file: string;
  /** Names the profile's operations when several profiles are given (specname.insert); keyspace.table by default. */
  specName: string;
  keyspace: string;
  keyspaceDefinition?: string;
  table: string;
  tableDefinition?: string;
  extraDefinitions: string[];
  columnSpecs: Map<string, ColumnSpec>;
  /** The insert section, keys lower-cased, values as text. */
  insert: Map<string, string>;
  queries: Map<string, ProfileQuery>;
  tokenRangeQueries: Map<string, TokenRangeQueryDef>;
}

const INSERT_KEYS = new Set(['partitions', 'select', 'row-population', 'batchtype', 'condition', 'visits', 'revisit']);

function lowerKeys(value: unknown, where: string): Map<string, unknown> {
  if (value === null || value === undefined) return new Map();
  if (typeof value !== 'object' || Array.isArray(value)) throw new StressArgError(`${where} must be a mapping`);
  return new Map(Object.entries(value as Record<string, unknown>).map(([k, v]) => [k.toLowerCase(), v]));
}

function text(value: unknown, where: string): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  throw new StressArgError(`${where} must be text`);
}

function optionalText(value: unknown, where: string): string | undefined {
  if (value === null || value === undefined) return undefined;
  const t = text(value, where).trim();
  return t.length > 0 ? t : undefined;
}

/** An identifier as CQL compares it: unquoted ones are case-insensitive. */
function identifier(name: string): string {
  return /^".*"$/.test(name) ? name.slice(1, -1).replace(/""/g, '"') : name.toLowerCase();
}

function checkDefinitionName(cql: string, kind: 'KEYSPACE' | 'TABLE', expected: string, file: string): void {
  const name = String.raw`("(?:[^"]|"")+"|\w+)`;
  const pattern = new RegExp(
    String.raw`^\s*CREATE\s+${kind}\s+(?:IF\s+NOT\s+EXISTS\s+)?(?:${name}\s*\.\s*)?${name}`,
    'i',
  );
  const m = pattern.exec(cql);
  if (!m) throw new StressArgError(`${file}: ${kind.toLowerCase()}_definition is not a CREATE ${kind} statement`);
  // cassandra-stress compares the names ignoring case.
  const found = identifier(m[2]!);
  if (found.toLowerCase() !== identifier(expected).toLowerCase()) {
    throw new StressArgError(
      `${file}: the name in ${kind.toLowerCase()}_definition doesn't match the ${kind.toLowerCase()} property: '${found}' != '${expected}'`,
    );
  }
}

export function parseProfile(source: string, file: string): StressProfile {
  let doc: unknown;
  try {
    doc = parse(source);
  } catch (e) {
    throw new StressArgError(`${file}: not valid YAML: ${(e as Error).message}`);
  }
  const top = lowerKeys(doc, file);
  const keyspace = optionalText(top.get('keyspace'), `${file}: keyspace`);
  const table = optionalText(top.get('table'), `${file}: table`);
  if (!keyspace) throw new StressArgError(`${file}: keyspace name is required`);
  if (!table) throw new StressArgError(`${file}: table name is required`);
  const keyspaceDefinition = optionalText(top.get('keyspace_definition'), `${file}: keyspace_definition`);
  const tableDefinition = optionalText(top.get('table_definition'), `${file}: table_definition`);
  if (keyspaceDefinition) checkDefinitionName(keyspaceDefinition, 'KEYSPACE', keyspace, file);
  if (tableDefinition) checkDefinitionName(tableDefinition, 'TABLE', table, file);

  const extra = top.get('extra_definitions');
  if (extra !== undefined && extra !== null && !Array.isArray(extra)) {
    throw new StressArgError(`${file}: extra_definitions must be a list of CQL statements`);
  }
  const extraDefinitions = ((extra as unknown[] | undefined) ?? []).map((e, i) =>
    text(e, `${file}: extra_definitions[${i}]`),
  );

  const columnSpecs = new Map<string, ColumnSpec>();
  const specs = top.get('columnspec');
  if (specs !== undefined && specs !== null) {
    if (!Array.isArray(specs)) throw new StressArgError(`${file}: columnspec must be a list`);
    for (const [i, raw] of specs.entries()) {
      const entry = lowerKeys(raw, `${file}: columnspec[${i}]`);
      const name = optionalText(entry.get('name'), `${file}: columnspec[${i}].name`);
      if (!name) throw new StressArgError(`${file}: missing name argument in column spec ${i + 1}`);
      const spec: ColumnSpec = {};
      for (const [key, value] of entry) {
        if (key === 'name') continue;
        if (key !== 'population' && key !== 'size' && key !== 'cluster') {
          throw new StressArgError(`${file}: unrecognised option in the column spec of ${name}: ${key}`);
        }
        const dist = text(value, `${file}: ${name}.${key}`);
        distributionFactory(dist); // fails here, naming the column, rather than at run time
        spec[key] = dist;
      }
      columnSpecs.set(name, spec);
    }
  }

  const insert = new Map<string, string>();
  for (const [key, value] of lowerKeys(top.get('insert'), `${file}: insert`)) {
    if (!INSERT_KEYS.has(key)) throw new StressArgError(`${file}: unrecognised insert option: ${key}`);
    insert.set(key, text(value, `${file}: insert.${key}`).trim());
  }

  const queries = new Map<string, ProfileQuery>();
  for (const [name, raw] of lowerKeys(top.get('queries'), `${file}: queries`)) {
    const q = lowerKeys(raw, `${file}: queries.${name}`);
    const cql = optionalText(q.get('cql'), `${file}: queries.${name}.cql`);
    if (!cql) throw new StressArgError(`${file}: query ${name} has no cql`);
    const fields = (optionalText(q.get('fields'), `${file}: queries.${name}.fields`) ?? 'multirow').toLowerCase();
    if (fields !== 'samerow' && fields !== 'multirow') {
      throw new StressArgError(`${file}: query ${name}: fields must be samerow or multirow, not ${fields}`);
    }
    queries.set(name, { cql, fields });
  }

  const tokenRangeQueries = new Map<string, TokenRangeQueryDef>();
  for (const [name, raw] of lowerKeys(top.get('token_range_queries'), `${file}: token_range_queries`)) {
    if (queries.has(name)) {
      throw new StressArgError(
        `${file}: found ${name} in both queries and token_range_queries, please use different names`,
      );
    }
    const q = lowerKeys(raw, `${file}: token_range_queries.${name}`);
    const columns = optionalText(q.get('columns'), `${file}: token_range_queries.${name}.columns`) ?? '*';
    const pageSize = Number(q.get('page_size') ?? 5000);
    if (!Number.isInteger(pageSize) || pageSize <= 0) {
      throw new StressArgError(`${file}: token_range_queries.${name}.page_size must be a positive integer`);
    }
    tokenRangeQueries.set(name, { columns, pageSize });
  }

  const specName = optionalText(top.get('specname'), `${file}: specname`) ?? `${keyspace}.${table}`;
  return {
    file,
    specName,
    keyspace,
    keyspaceDefinition,
    table,
    tableDefinition,
    extraDefinitions,
    columnSpecs,
    insert,
    queries,
    tokenRangeQueries,
  };
}

export function loadProfile(file: string): StressProfile {
  let source: string;
  try {
    source = readFileSync(file, 'utf8');
  } catch (e) {
    throw new StressArgError(
      `cannot read the profile ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`,
    );
  }
  if (source.trim().length === 0) throw new StressArgError(`the profile ${file} is empty`);
  return parseProfile(source, file);
}
