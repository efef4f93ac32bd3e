import type { CqlType } from '../types/cql-type.js';

export type ColumnKind = 'partition_key' | 'clustering' | 'regular' | 'static';
export type ClusteringOrder = 'asc' | 'desc' | 'none';

export interface ColumnMetadata {
  readonly name: string;
  readonly type: CqlType;
  readonly kind: ColumnKind;
  /** Position within the partition key or clustering key; -1 for regular and static columns. */
  readonly position: number;
  readonly clusteringOrder: ClusteringOrder;
  /** Stable small integer naming the column in storage; never reused within a table. */
  readonly id: number;
}
