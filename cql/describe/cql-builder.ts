// Cassandra's CqlBuilder: the text of CREATE statements as DESCRIBE prints them. Indentation is
// four spaces per level, written lazily at the first append after a newline, so a line that
// closes a block (`)`) after decreaseIndent() starts at the new, smaller indent.

const INDENTATION = '    ';

export class CqlBuilder {
  private text = '';
  private indent = 0;
  private isNewLine = false;

  append(s: string): this {
    this.indentIfNeeded();
    this.text += s;
    return this;
  }

  /** A string literal: single quotes, inner quotes doubled. */
  appendWithSingleQuotes(s: string): this {
    return this.append(`'${s.replaceAll("'", "''")}'`);
  }

  /** `{'k': 'v', ...}` sorted by key as Java's TreeMap sorts (UTF-16 code units, i.e. JS `<`). */
  appendMap(map: Readonly<Record<string, string>>, quoteValues = true): this {
    const keys = Object.keys(map).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const entries = keys.map((k) => {
      const v = map[k]!;
      return `'${k.replaceAll("'", "''")}': ${quoteValues ? `'${v.replaceAll("'", "''")}'` : v}`;
    });
    return this.append(`{${entries.join(', ')}}`);
  }

  newLine(): this {
    this.text += '\n';
    this.isNewLine = true;
    return this;
  }

  increaseIndent(): this {
    this.indent++;
    return this;
  }

  decreaseIndent(): this {
    if (this.indent > 0) this.indent--;
    return this;
  }

  toString(): string {
    return this.text;
  }

  private indentIfNeeded(): void {
    if (this.isNewLine) {
      this.text += INDENTATION.repeat(this.indent);
      this.isNewLine = false;
    }
  }
}
