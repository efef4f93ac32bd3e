// Writes the bodies of the server's messages (everything but ERROR, see error-encoder.ts):
// READY, AUTHENTICATE, AUTH_CHALLENGE, AUTH_SUCCESS, SUPPORTED, RESULT, EVENT.

import type {
  ColumnSpec,
  PreparedMetadata,
  ResultMessage,
  RowsMetadata,
  SchemaChange,
  ServerEvent,
} from '../cql/query-handler.js';
import type { ByteWriter } from './byte-writer.js';
import { cachedColumnSpecs } from './column-specs-cache.js';
import { writeTypeOption } from './type-option-encoder.js';

export const ResultKind = {
  VOID: 0x0001,
  ROWS: 0x0002,
  SET_KEYSPACE: 0x0003,
  PREPARED: 0x0004,
  SCHEMA_CHANGE: 0x0005,
} as const;

const RowsFlag = {
  GLOBAL_TABLES_SPEC: 0x0001,
  HAS_MORE_PAGES: 0x0002,
  NO_METADATA: 0x0004,
  METADATA_CHANGED: 0x0008,
} as const;

export function writeSupported(w: ByteWriter, options: ReadonlyMap<string, readonly string[]>): void {
  w.short(options.size);
  for (const [key, values] of options) {
    w.string(key);
    w.stringList(values);
  }
}

export function writeAuthenticate(w: ByteWriter, authenticatorClass: string): void {
  w.string(authenticatorClass);
}

/** AUTH_CHALLENGE and AUTH_SUCCESS: one [bytes] token. */
export function writeAuthToken(w: ByteWriter, token: Buffer | null | undefined): void {
  w.bytes(token ?? null);
}

export function writeResult(w: ByteWriter, result: ResultMessage, version: number): void {
  switch (result.kind) {
    case 'void':
      w.int(ResultKind.VOID);
      return;
    case 'rows': {
      w.int(ResultKind.ROWS);
      const columnCount = writeRowsMetadata(w, result.metadata, version);
      if (result.encoded) {
        w.int(result.encoded.count);
        w.raw(result.encoded.bytes);
        return;
      }
      const rows = result.rows;
      w.int(rows.length);
      for (let i = 0; i < rows.length; i++) {
        const row = rows[i]!;
        for (let c = 0; c < columnCount; c++) w.bytes(row[c]);
      }
      return;
    }
    case 'set_keyspace':
      w.int(ResultKind.SET_KEYSPACE);
      w.string(result.keyspace);
      return;
    case 'prepared':
      w.int(ResultKind.PREPARED);
      w.shortBytes(result.id);
      if (version >= 5) w.shortBytes(result.resultMetadataId);
      writePreparedMetadata(w, result.bindMetadata, version);
      writeRowsMetadata(w, result.resultMetadata, version);
      return;
    case 'schema_change':
      w.int(ResultKind.SCHEMA_CHANGE);
      writeSchemaChange(w, result.change);
      return;
  }
}

/** Rows metadata (also the result metadata of Prepared); returns the column count. */
export function writeRowsMetadata(w: ByteWriter, m: RowsMetadata, version: number): number {
  const columns = m.columns;
  const noMetadata = m.noMetadata === true || columns.length === 0;
  let flags = 0;
  if (noMetadata) flags |= RowsFlag.NO_METADATA;
  if (m.pagingState !== undefined) flags |= RowsFlag.HAS_MORE_PAGES;
  if (version >= 5 && m.newMetadataId !== undefined) flags |= RowsFlag.METADATA_CHANGED;
  const cached = noMetadata
    ? undefined
    : cachedColumnSpecs(
        columns,
        version,
        (cw, g) => writeColumnSpecs(cw, columns, g, version),
        () => isSingleTable(columns),
      );
  const global = cached ? cached.global : !noMetadata && isSingleTable(columns);
  if (global) flags |= RowsFlag.GLOBAL_TABLES_SPEC;
  w.int(flags);
  w.int(columns.length);
  if (m.pagingState !== undefined) w.bytes(m.pagingState);
  if (flags & RowsFlag.METADATA_CHANGED) w.shortBytes(m.newMetadataId!);
  if (cached) w.raw(cached.bytes);
  else if (!noMetadata) writeColumnSpecs(w, columns, global, version);
  return columns.length;
}

function writePreparedMetadata(w: ByteWriter, m: PreparedMetadata, version: number): void {
  const columns = m.columns;
  const global = isSingleTable(columns);
  w.int(global ? RowsFlag.GLOBAL_TABLES_SPEC : 0);
  w.int(columns.length);
  if (version >= 4) {
    w.int(m.partitionKeyIndices.length);
    for (const i of m.partitionKeyIndices) w.short(i);
  }
  writeColumnSpecs(w, columns, global, version);
}

function writeColumnSpecs(w: ByteWriter, columns: readonly ColumnSpec[], global: boolean, version: number): void {
  if (global) {
    w.string(columns[0]!.keyspace);
    w.string(columns[0]!.table);
  }
  for (let i = 0; i < columns.length; i++) {
    const c = columns[i]!;
    if (!global) {
      w.string(c.keyspace);
      w.string(c.table);
    }
    w.string(c.name);
    writeTypeOption(w, c.type, version);
  }
}

function isSingleTable(columns: readonly ColumnSpec[]): boolean {
  if (columns.length === 0) return false;
  const ks = columns[0]!.keyspace;
  const table = columns[0]!.table;
  for (let i = 1; i < columns.length; i++) {
    if (columns[i]!.keyspace !== ks || columns[i]!.table !== table) return false;
  }
  return true;
}

/** <change_type><target><options>, the v3+ form shared by RESULT and EVENT. */
export function writeSchemaChange(w: ByteWriter, c: SchemaChange): void {
  w.string(c.change);
  w.string(c.target);
  w.string(c.keyspace);
  if (c.target === 'KEYSPACE') return;
  w.string(c.name ?? '');
  if (c.target === 'FUNCTION' || c.target === 'AGGREGATE') w.stringList(c.argTypes ?? []);
}

export function writeEvent(w: ByteWriter, event: ServerEvent): void {
  w.string(event.type);
  if (event.type === 'SCHEMA_CHANGE') {
    writeSchemaChange(w, event.change);
  } else {
    w.string(event.change);
    w.inet(event.address, event.port);
  }
}
