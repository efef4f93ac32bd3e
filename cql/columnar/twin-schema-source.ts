// The schema side of the Arrow twins: storage asks, by table id, for the columns of a table's twin. Tables with
// static columns, counter tables and tables storage does not know from the catalog (e.g. view storage) get none.

import type { TwinColumn } from '../../storage/arrow/arrow-schema.js';
import type { ComplexValue } from '../../storage/row-projection.js';
import type { TwinSchema, TwinSchemaSource } from '../../storage/twin/twin-schema.js';
import { complexToBytes } from '../execution/complex-value.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import type { TableMetadata } from '../schema/table-metadata.js';

/** Whether a table keeps an Arrow twin. */
export function hasTwin(t: TableMetadata): boolean {
  return !t.isVirtual && !t.isCounter && !t.columns.some((c) => c.kind === 'static');
}

export function twinColumns(t: TableMetadata): TwinColumn[] {
  return t.columns.map((c) => ({
    name: c.name,
    id: c.id,
    kind: c.kind,
    type: c.type,
    position: c.position,
    descending: c.clusteringOrder === 'desc',
  }));
}

function twinSchema(t: TableMetadata): TwinSchema {
  const byId = new Map(t.columns.map((c) => [c.id, c]));
  return {
    columns: twinColumns(t),
    complexToBytes: (id: number, v: ComplexValue) => {
      const c = byId.get(id);
      return c ? complexToBytes(c.type, v) : null;
    },
  };
}

/** A source over the catalog, re-indexed whenever the schema changes. */
export function catalogTwinSchemaSource(catalog: SchemaCatalog): TwinSchemaSource {
  let byId: Map<string, TableMetadata> | undefined;
  const schemas = new WeakMap<TableMetadata, TwinSchema>();
  catalog.onChange(() => {
    byId = undefined;
  });
  return (id: Buffer) => {
    if (!byId) {
      byId = new Map();
      for (const ks of catalog.keyspaces()) {
        for (const t of ks.tables.values()) byId.set(t.id.replace(/-/g, ''), t);
      }
    }
    const t = byId.get(id.toString('hex'));
    if (!t || !hasTwin(t)) return null;
    let s = schemas.get(t);
    if (!s) {
      s = twinSchema(t);
      schemas.set(t, s);
    }
    return s;
  };
}
