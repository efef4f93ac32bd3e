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

/**
 * Whether unfiltered columnar scans write ROWS cells straight from Arrow columns (encoded-scan.ts); off
 * (PMEMCQL_SCAN_ENCODER=off) they build row objects for Selection.project, for comparisons in tests and benchmarks.
 */
export const directScanEncoding = process.env.PMEMCQL_SCAN_ENCODER !== 'off';

/**
 * Whether paged columnar scans prepare their next page ahead (scan-read-ahead.ts): PMEMCQL_SCAN_READ_AHEAD=on. Off by
 * default: it pays only when the client does not compete with the server for the CPU (measured on the shared
 * 2-core machine: no gain, docs/arrow-twins.md).
 */
export const scanReadAhead = ['on', '1', 'true'].includes(process.env.PMEMCQL_SCAN_READ_AHEAD ?? '');

/**
 * Whether the next page of a paged scan continues from where the previous page left its segment cursors
 * (scan-read-ahead.ts keeps them) instead of opening every segment again: on unless PMEMCQL_SCAN_CONTINUE=off.
 */
export const scanContinuation = process.env.PMEMCQL_SCAN_CONTINUE !== 'off';
