// Which path SELECTs over user tables take: 'auto' (the planner decides), 'row' (always the row path), so the
// differential test and the benchmark can run one query on both paths over the same data. Set by the
// PMEMCQL_COLUMNAR environment variable, or at run time through system_arrow (cql/system/arrow-system-tables.ts).

export type ColumnarPath = 'auto' | 'row';

let mode: ColumnarPath =
  process.env.PMEMCQL_COLUMNAR === 'row' || process.env.PMEMCQL_COLUMNAR === 'off' ? 'row' : 'auto';

export function columnarPath(): ColumnarPath {
  return mode;
}

export function setColumnarPath(m: ColumnarPath): void {
  mode = m;
}
