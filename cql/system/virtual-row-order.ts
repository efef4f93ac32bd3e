// System tables are served from code, but Cassandra returns their rows as stored: partitions by
// token (by key for virtual keyspaces, whose tables use a local partitioner), rows by clustering.
// Drivers rely on it (e.g. the order of a table's columns comes from system_schema.columns).

import { murmur3Token } from '../../storage/murmur3-token.js';
import { serializePartitionKey } from '../../storage/partition-key.js';
import type { TableMetadata } from '../schema/table-metadata.js';
import type { SelectedRow } from '../selection/selected-row.js';
import { compareValues } from '../types/value-comparator.js';

export function sortAsStored(table: TableMetadata, byKey: boolean, rows: SelectedRow[]): SelectedRow[] {
  const pk = table.partitionKey.map((c) => table.columns.indexOf(c));
  const ck = table.clustering.map((c) => ({
    i: table.columns.indexOf(c),
    type: c.type,
    desc: c.clusteringOrder === 'desc',
  }));
  const keyOf = (r: SelectedRow) => serializePartitionKey(pk.map((i) => r.values[i] ?? Buffer.alloc(0)));
  const decorated = rows.map((row, n) => {
    const key = keyOf(row);
    return { row, n, key, token: byKey ? 0n : murmur3Token(key) };
  });
  decorated.sort((a, b) => {
    if (a.token !== b.token) return a.token < b.token ? -1 : 1;
    const k = Buffer.compare(a.key, b.key);
    if (k !== 0) return k;
    for (const c of ck) {
      const x = a.row.values[c.i];
      const y = b.row.values[c.i];
      if (!x || !y) continue;
      const d = compareValues(c.type, x, y);
      if (d !== 0) return c.desc ? -d : d;
    }
    return a.n - b.n;
  });
  return decorated.map((d) => d.row);
}
