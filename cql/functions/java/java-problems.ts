// Problems found while compiling a Java UDF body, reported the way Cassandra reports them: ECJ's compile problems as
// "Java source compilation failed:\nLine N: <message>\n", its byte-code verifier's as "Java UDF validation failed: [...]".
import { InvalidRequest } from '../../errors.js';

export interface JavaProblem {
  readonly line: number;
  readonly message: string;
}

/** Thrown by the parser on the first syntax error it cannot recover from. */
export class JavaSyntaxError extends Error {
  constructor(
    readonly line: number,
    message: string,
    /** Further problems ECJ reports with this one. */
    readonly more: readonly JavaProblem[] = [],
  ) {
    super(message);
  }
}

/** Collects compile problems in source order, as ECJ lists them. */
export class ProblemList {
  private readonly problems: JavaProblem[] = [];

  report(line: number, message: string): void {
    if (this.problems.some((p) => p.line === line && p.message === message)) return;
    this.problems.push({ line, message });
  }

  get size(): number {
    return this.problems.length;
  }

  /** Throws Cassandra's InvalidRequest if any problem was reported. */
  throwIfAny(): void {
    if (this.problems.length === 0) return;
    const sorted = [...this.problems].sort((a, b) => a.line - b.line);
    throw compilationFailed(sorted);
  }
}

export function compilationFailed(problems: readonly JavaProblem[]): InvalidRequest {
  const lines = problems.map((p) => `Line ${p.line}: ${p.message}\n`).join('');
  return new InvalidRequest(`Java source compilation failed:\n${lines}`);
}

/** The byte-code verifier's refusal; Cassandra sorts the findings (a TreeSet). */
export function validationFailed(findings: Iterable<string>): InvalidRequest {
  const sorted = [...new Set(findings)].sort();
  return new InvalidRequest(`Java UDF validation failed: [${sorted.join(', ')}]`);
}
