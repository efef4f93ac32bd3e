// The Java regular expressions a UDF may use: those whose meaning JavaScript's RegExp shares. Possessive
// quantifiers, Unicode classes (\\p{...}), quoting (\\Q...\\E), inline flags, class intersections and Java-only
// escapes are refused: at CREATE time for a literal pattern, at call time (UnsupportedOperationException) for a
// computed one. The runtime's copy of this test is in java-lang-prelude.ts.

export const UNSUPPORTED_REGEX = /\\[pPQEZzAGhHvVR]|\(\?[a-zA-Z]|\(\?<[a-zA-Z]|\[\[|&&|[*+?}]\+/;

/** A problem for a literal Java pattern this server cannot run as Java would, or undefined. */
export function regexProblem(pattern: string): string | undefined {
  if (UNSUPPORTED_REGEX.test(pattern))
    return `The regular expression "${pattern}" uses syntax not supported in Java UDFs by this server`;
  return undefined;
}
