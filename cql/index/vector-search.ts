// ORDER BY v ANN OF [...] LIMIT k on a column with an SAI vector index: exact top-k by similarity, computed
// over the rows the query reads (brute force; no approximate graph). Similarities are Cassandra's (the
// `similarity_*` functions): cosine and dot product mapped to [0, 1] as (1 + x) / 2, euclidean 1 / (1 + d²).

import { InvalidRequest } from '../errors.js';
import type { CqlType } from '../types/cql-type.js';

export type SimilarityFunction = 'COSINE' | 'DOT_PRODUCT' | 'EUCLIDEAN';

export const SIMILARITY_FUNCTIONS: readonly SimilarityFunction[] = ['COSINE', 'DOT_PRODUCT', 'EUCLIDEAN'];

/** `similarity_cosine` / `similarity_dot_product` / `similarity_euclidean`. */
export function similarityFunctionOf(name: string): SimilarityFunction | undefined {
  switch (name) {
    case 'similarity_cosine':
      return 'COSINE';
    case 'similarity_dot_product':
      return 'DOT_PRODUCT';
    case 'similarity_euclidean':
      return 'EUCLIDEAN';
    default:
      return undefined;
  }
}

/** Cassandra's limit on ANN queries (SelectStatement.TOPK_LIMIT). */
export const ANN_MAX_LIMIT = 1000;

export function similarityOf(options: Readonly<Record<string, string>>): SimilarityFunction {
  const f = (options.similarity_function ?? 'COSINE').toUpperCase();
  if (!SIMILARITY_FUNCTIONS.includes(f as SimilarityFunction)) {
    throw new InvalidRequest(
      `Similarity function ${options.similarity_function} was not recognized. Valid values are: cosine, euclidean, dot_product`,
    );
  }
  return f as SimilarityFunction;
}

/** A serialized vector<float, n> as numbers. */
export function decodeFloatVector(type: CqlType, bytes: Buffer): Float64Array {
  const n = type.kind === 'vector' ? type.dimension : bytes.length / 4;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = bytes.readFloatBE(i * 4);
  return out;
}

export function similarity(f: SimilarityFunction, a: Float64Array, b: Float64Array): number {
  let dot = 0;
  let na = 0;
  let nb = 0;
  let d2 = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    dot += x * y;
    na += x * x;
    nb += y * y;
    d2 += (x - y) * (x - y);
  }
  switch (f) {
    case 'COSINE':
      return na === 0 || nb === 0 ? 0 : (1 + dot / Math.sqrt(na * nb)) / 2;
    case 'DOT_PRODUCT':
      return (1 + dot) / 2;
    case 'EUCLIDEAN':
      return 1 / (1 + d2);
  }
}

/** Indices of the k best scores, best first (ties: earlier first). */
export function topK(scores: readonly number[], k: number): number[] {
  const order = scores.map((_, i) => i).filter((i) => !Number.isNaN(scores[i]!));
  order.sort((x, y) => scores[y]! - scores[x]! || x - y);
  return order.slice(0, k);
}
