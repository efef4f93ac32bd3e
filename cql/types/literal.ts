// The literal shapes the CQL parser hands to literal-parser.ts. Scalar literals keep their raw source text so each
// receiver type can interpret it as Cassandra does (an integer literal may become an int, a timestamp, a varint...).

export type ScalarLiteralKind = 'string' | 'integer' | 'float' | 'boolean' | 'uuid' | 'hex' | 'duration' | 'null';

export type Literal =
  /** `text` is the raw token: string contents without quotes (and with '' unescaped), `0x..` for hex, etc. */
  | { readonly kind: ScalarLiteralKind; readonly text: string }
  | { readonly kind: 'list'; readonly elements: readonly Literal[] }
  /** An empty `{}` may come as an empty set or map: either fits a set or map receiver, as in Cassandra. */
  | { readonly kind: 'set'; readonly elements: readonly Literal[] }
  | { readonly kind: 'map'; readonly entries: readonly (readonly [Literal, Literal])[] }
  | { readonly kind: 'tuple'; readonly elements: readonly Literal[] }
  /** Field names as written, already unquoted/lower-cased by the parser per CQL identifier rules. */
  | { readonly kind: 'udt'; readonly fields: readonly { readonly name: string; readonly value: Literal }[] };

/** The text Cassandra shows for a literal in error messages (Term.Raw.getText). */
export function literalText(l: Literal): string {
  switch (l.kind) {
    case 'string':
      return `'${l.text.replaceAll("'", "''")}'`;
    case 'null':
      return 'NULL';
    case 'integer':
    case 'float':
    case 'boolean':
    case 'uuid':
    case 'hex':
    case 'duration':
      return l.text;
    case 'list':
      return `[${l.elements.map(literalText).join(', ')}]`;
    case 'set':
      return `{${l.elements.map(literalText).join(', ')}}`;
    case 'map':
      return `{${l.entries.map(([k, v]) => `${literalText(k)}: ${literalText(v)}`).join(', ')}}`;
    case 'tuple':
      return `(${l.elements.map(literalText).join(', ')})`;
    case 'udt':
      return `{${l.fields.map((f) => `${f.name}: ${literalText(f.value)}`).join(', ')}}`;
  }
}
