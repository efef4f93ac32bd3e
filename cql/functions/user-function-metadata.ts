// User-defined functions and aggregates as the schema stores them (system_schema.functions /
// aggregates). Keyed in their keyspace by signature: `name(type, type)`.

import type { CqlType } from '../types/cql-type.js';
import { cqlTypeToString } from '../types/cql-type.js';

export interface UserFunctionMetadata {
  readonly keyspace: string;
  readonly name: string;
  readonly argNames: readonly string[];
  readonly argTypes: readonly CqlType[];
  readonly returnType: CqlType;
  readonly calledOnNullInput: boolean;
  readonly language: string;
  readonly body: string;
}

export interface UserAggregateMetadata {
  readonly keyspace: string;
  readonly name: string;
  readonly argTypes: readonly CqlType[];
  readonly stateFunction: string;
  readonly stateType: CqlType;
  readonly finalFunction: string | undefined;
  /** INITCOND as serialized state (null when absent). */
  readonly initCondition: Buffer | null;
  /** INITCOND as CQL text (system_schema.aggregates.initcond). */
  readonly initConditionText: string | null;
  readonly returnType: CqlType;
}

export function signature(name: string, argTypes: readonly CqlType[]): string {
  return `${name}(${argTypes.map(cqlTypeToString).join(', ')})`;
}
