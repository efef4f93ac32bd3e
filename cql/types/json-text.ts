// A JSON reader that keeps numbers as their source text, so bigint/varint/decimal values of INSERT JSON and
// fromJson() keep full precision (JSON.parse would round them to doubles).
import { InvalidRequest } from '../errors.js';

export type JsonValue =
  | null
  | boolean
  | string
  | { readonly number: string }
  | readonly JsonValue[]
  | { readonly object: ReadonlyMap<string, JsonValue> };

export function isJsonNumber(v: JsonValue): v is { number: string } {
  return typeof v === 'object' && v !== null && 'number' in v;
}

export function isJsonObject(v: JsonValue): v is { object: ReadonlyMap<string, JsonValue> } {
  return typeof v === 'object' && v !== null && 'object' in v;
}

/**
 * Deepest nesting accepted, as Jackson's StreamReadConstraints default (1000) in Cassandra 5.0.
 * Robustness fix (found by fuzzing): without it "[[[[..." thousands deep overflowed the stack and
 * came back as a RangeError (a SERVER_ERROR) instead of an InvalidRequest.
 */
const MAX_JSON_DEPTH = 1000;

/** Malformed JSON text; `detail` says where (INSERT JSON quotes it, as Cassandra quotes Jackson's error). */
export class JsonDecodeError extends InvalidRequest {
  constructor(
    readonly text: string,
    readonly detail: string,
  ) {
    super(`Could not decode JSON string '${text}'`);
  }
}

/** Parses JSON text; throws JsonDecodeError ("Could not decode JSON string ...") on malformed input. */
export function parseJson(text: string): JsonValue {
  let i = 0;
  let depth = 0;
  const fail = (): never => {
    const at = Math.min(i, text.length);
    const c = text.codePointAt(at);
    const what = c === undefined ? 'end-of-input' : `character '${String.fromCodePoint(c)}' (code ${c})`;
    throw new JsonDecodeError(text, `Unexpected ${what} at position ${at}`);
  };
  const ws = () => {
    while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  };
  // Every nested value goes through here; `depth` counts the enclosing ones.
  const value = (): JsonValue => {
    depth++;
    try {
      return valueAt();
    } finally {
      depth--;
    }
  };
  const valueAt = (): JsonValue => {
    ws();
    const c = text[i];
    if ((c === '{' || c === '[') && depth > MAX_JSON_DEPTH) fail(); // bounded nesting
    if (c === '{') {
      i++;
      const object = new Map<string, JsonValue>();
      ws();
      if (text[i] === '}') {
        i++;
        return { object };
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        const k = str();
        ws();
        if (text[i++] !== ':') fail();
        object.set(k, value());
        ws();
        const d = text[i++];
        if (d === '}') return { object };
        if (d !== ',') fail();
      }
    }
    if (c === '[') {
      i++;
      const arr: JsonValue[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value());
        ws();
        const d = text[i++];
        if (d === ']') return arr;
        if (d !== ',') fail();
      }
    }
    if (c === '"') return str();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    const m = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/.exec(text.slice(i));
    if (!m) return fail();
    i += m[0].length;
    return { number: m[0] };
  };
  const str = (): string => {
    const m = /^"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/.exec(text.slice(i));
    if (!m) return fail();
    i += m[0].length;
    return JSON.parse(m[0]) as string;
  };
  const v = value();
  ws();
  if (i !== text.length) fail();
  return v;
}
