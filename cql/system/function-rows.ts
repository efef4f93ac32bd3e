// Rows of system_schema.functions and system_schema.aggregates.

import type { SchemaCatalog } from '../schema/schema-catalog.js';
import { cqlTypeToString } from '../types/cql-type.js';
import type { RowObject } from './virtual-table.js';

export function functionsRows(catalog: SchemaCatalog): RowObject[] {
  const rows: RowObject[] = [];
  for (const ks of catalog.keyspaces()) {
    for (const f of ks.functions?.values() ?? []) {
      rows.push({
        keyspace_name: f.keyspace,
        function_name: f.name,
        argument_types: f.argTypes.map(cqlTypeToString),
        argument_names: [...f.argNames],
        body: f.body,
        called_on_null_input: f.calledOnNullInput,
        language: f.language,
        return_type: cqlTypeToString(f.returnType),
      });
    }
  }
  return rows;
}

export function aggregatesRows(catalog: SchemaCatalog): RowObject[] {
  const rows: RowObject[] = [];
  for (const ks of catalog.keyspaces()) {
    for (const a of ks.aggregates?.values() ?? []) {
      rows.push({
        keyspace_name: a.keyspace,
        aggregate_name: a.name,
        argument_types: a.argTypes.map(cqlTypeToString),
        final_func: a.finalFunction ?? null,
        initcond: a.initConditionText,
        return_type: cqlTypeToString(a.returnType),
        state_func: a.stateFunction,
        state_type: cqlTypeToString(a.stateType),
      });
    }
  }
  return rows;
}
