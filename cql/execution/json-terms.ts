// INSERT JSON: the JSON object (a literal or one bound value) parsed once per execution, and a term
// per column reading its field. Columns absent from the object are null (DEFAULT NULL) or left
// untouched (DEFAULT UNSET).

import { InvalidRequest } from '../errors.js';
import type { BoundValue } from '../query-handler.js';
import { UNSET } from '../query-handler.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { CqlType } from '../types/cql-type.js';
import { jsonToBytes } from '../types/json-codec.js';
import { isJsonObject, JsonDecodeError, type JsonValue, parseJson } from '../types/json-text.js';
import { BoundTerm, type TermValue } from './bound-term.js';

/** JSON keys name columns as CQL identifiers: lower-cased unless written `"\"Quoted\""`. */
function columnName(key: string): string {
  return key.length >= 2 && key.startsWith('"') && key.endsWith('"')
    ? key.slice(1, -1).replaceAll('""', '"')
    : key.toLowerCase();
}

export class JsonObjectSource {
  private lastValues: readonly BoundValue[] | undefined;
  private lastFields: Map<string, JsonValue> | undefined;

  constructor(
    private readonly table: TableMetadata,
    private readonly json: (values: readonly BoundValue[]) => TermValue,
  ) {}

  fields(values: readonly BoundValue[]): Map<string, JsonValue> {
    if (this.lastValues === values && this.lastFields) return this.lastFields;
    const raw = this.json(values);
    if (raw === null || raw === UNSET) throw new InvalidRequest('Got null for INSERT JSON values');
    const text = raw.toString('utf8');
    let parsed: JsonValue;
    try {
      parsed = parseJson(text);
    } catch (e) {
      if (!(e instanceof JsonDecodeError)) throw e;
      throw new InvalidRequest(`Could not decode JSON string as a map: ${e.detail}. (String was: ${text})`);
    }
    if (!isJsonObject(parsed))
      throw new InvalidRequest(`Could not decode JSON string as a map: not a JSON object. (String was: ${text})`);
    const fields = new Map<string, JsonValue>();
    for (const [k, v] of parsed.object) {
      const name = columnName(k);
      if (!this.table.columns.some((c) => c.name === name)) {
        throw new InvalidRequest(`JSON values map contains unrecognized column: ${k}`);
      }
      fields.set(name, v);
    }
    this.lastValues = values;
    this.lastFields = fields;
    return fields;
  }
}

export class JsonFieldTerm extends BoundTerm {
  readonly isConstant = false;
  constructor(
    private readonly source: JsonObjectSource,
    private readonly column: string,
    private readonly type: CqlType,
    private readonly defaultUnset: boolean,
  ) {
    super();
  }
  value(values: readonly BoundValue[]): TermValue {
    const fields = this.source.fields(values);
    if (!fields.has(this.column)) return this.defaultUnset ? UNSET : null;
    try {
      return jsonToBytes(this.type, fields.get(this.column)!);
    } catch (e) {
      throw new InvalidRequest(`Error decoding JSON value for ${this.column}: ${(e as Error).message}`);
    }
  }
}
