// The layers import downward only: server/ -> cql/ -> storage/ (-> native/ through the addon). A new import from a
// lower layer to a higher one fails here. The storage layer still takes the CQL type system and one error class
// from cql/ (KNOWN_UPWARD): that list may only shrink, and an entry that no longer exists must leave it.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '..');
const LAYERS = ['storage', 'cql', 'server'] as const;

/** Imports from storage/ into cql/ that exist today (file -> imported file), until the type system moves below. */
const KNOWN_UPWARD = new Set([
  'storage/arrow/arrow-cell-writer.ts -> cql/types/cql-type.ts',
  'storage/arrow/arrow-schema.ts -> cql/types/cql-type.ts',
  'storage/arrow/cql-column-encoder.ts -> cql/types/cql-type.ts',
  'storage/arrow/cql-column-encoder.ts -> cql/types/decimal-text.ts',
  'storage/arrow/cql-column-encoder.ts -> cql/types/duration.ts',
  'storage/arrow/cql-column-encoder.ts -> cql/types/serialized-layout.ts',
  'storage/arrow/cql-column-encoder.ts -> cql/types/varint-bytes.ts',
  'storage/arrow/cql-value-decoder.ts -> cql/types/cql-type.ts',
  'storage/arrow/cql-value-decoder.ts -> cql/types/decimal-text.ts',
  'storage/arrow/cql-value-decoder.ts -> cql/types/duration.ts',
  'storage/arrow/cql-value-decoder.ts -> cql/types/serialized-layout.ts',
  'storage/arrow/cql-value-decoder.ts -> cql/types/varint-bytes.ts',
  'storage/arrow/segment-builder.ts -> cql/types/value-comparator.ts',
  'storage/partition-key.ts -> cql/errors.ts',
  'storage/twin/twin-flush.ts -> cql/types/cql-type.ts',
]);

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(join(ROOT, dir), { withFileTypes: true })) {
    const path = join(dir, e.name);
    if (e.isDirectory()) out.push(...sourceFiles(path));
    else if (e.name.endsWith('.ts')) out.push(path);
  }
  return out;
}

/** Every relative import or re-export of `file`, static or dynamic, as a path from the repository root (.ts). */
function importsOf(file: string): string[] {
  const text = readFileSync(join(ROOT, file), 'utf8');
  const specs = [...text.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|\bimport\s+)'(\.[^']+)'/g)].map((m) => m[1]!);
  return specs.map((s) => relative(ROOT, resolve(ROOT, dirname(file), s)).replace(/\.js$/, '.ts'));
}

const layerOf = (path: string): number => LAYERS.indexOf(path.split('/')[0] as (typeof LAYERS)[number]);

describe('layer imports', () => {
  const upward: string[] = [];
  for (const layer of LAYERS) {
    for (const file of sourceFiles(layer)) {
      for (const target of importsOf(file)) {
        const to = layerOf(target);
        if (to > layerOf(file)) upward.push(`${file} -> ${target}`);
      }
    }
  }

  it('run downward only, but for the known storage -> cql imports', () => {
    expect(upward.filter((u) => !KNOWN_UPWARD.has(u))).toEqual([]);
  });

  it('the known list names only imports that still exist', () => {
    expect([...KNOWN_UPWARD].filter((k) => !upward.includes(k))).toEqual([]);
  });

  it('finds the imports it checks (a check that reads nothing would pass anything)', () => {
    expect(upward.length).toBeGreaterThan(0);
    expect(importsOf('server/run-server.ts').some((t) => t.startsWith('cql/'))).toBe(true);
  });
});
