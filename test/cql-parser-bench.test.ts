import { it } from 'vitest';
import { tokenize } from '../cql/parser/lexer.js';
import { parseStatement } from '../cql/parser/parser.js';

it('bench', () => {
  const qs = [
    "SELECT a, b, c FROM ks.tbl WHERE pk = ? AND ck > 'x' LIMIT 100",
    'INSERT INTO ks.users (id, name, email, age) VALUES (?, ?, ?, ?)',
    "SELECT * FROM system.local WHERE key='local'",
  ];
  for (const q of qs) {
    for (let i = 0; i < 50_000; i++) parseStatement(q);
    let start = process.hrtime.bigint();
    const N = 200_000;
    for (let i = 0; i < N; i++) parseStatement(q);
    const parse = Number(process.hrtime.bigint() - start) / N;
    start = process.hrtime.bigint();
    for (let i = 0; i < N; i++) tokenize(q);
    const lex = Number(process.hrtime.bigint() - start) / N;
    console.log(`${q}: parse ${parse.toFixed(0)} ns, lex ${lex.toFixed(0)} ns`);
  }
});
