// A secondary index as the schema holds it: what system_schema.indexes shows (name, kind, options with
// `target` and, for custom indexes, `class_name`), plus the target parsed and the id of its storage table.

import type { IndexTargetKind } from '../parser/ast.js';

export const SAI_CLASS = 'org.apache.cassandra.index.sai.StorageAttachedIndex';

export interface IndexMetadata {
  readonly name: string;
  /** COMPOSITES: a legacy secondary index; CUSTOM: `USING 'class'` (SAI). */
  readonly kind: 'COMPOSITES' | 'CUSTOM';
  /** As system_schema.indexes shows them: `target`, and for CUSTOM `class_name` plus the WITH OPTIONS. */
  readonly options: Readonly<Record<string, string>>;
  readonly column: string;
  readonly target: IndexTargetKind;
  /** Storage table holding the entries (uuid text); never shown to clients. */
  readonly storageId: string;
}

/** SAI (or SASI, served the same way): range queries, several indexes ANDed, vector ANN. */
export function isSai(index: IndexMetadata): boolean {
  return index.kind === 'CUSTOM';
}

/** The `target` option: `v`, `keys(m)`, `values(l)`, `entries(m)`, `full(f)` (quoted when not a plain name). */
export function indexTargetText(column: string, kind: IndexTargetKind): string {
  const name = /^[a-z][a-z0-9_]*$/.test(column) ? column : `"${column.replaceAll('"', '""')}"`;
  return kind === 'simple' ? name : `${kind}(${name})`;
}

export function indexStorageIdBytes(index: IndexMetadata): Buffer {
  return Buffer.from(index.storageId.replace(/-/g, ''), 'hex');
}
