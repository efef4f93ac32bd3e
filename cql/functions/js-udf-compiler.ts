// LANGUAGE javascript bodies as sandbox programs. As with Cassandra's scripted UDFs, a body is a script whose
// completion value is the result (`a + b`, or statements ending in an expression); a body that uses `return` is a
// function body. Either way it becomes a strict function of the arguments, created outside the entry's own scope
// so that it cannot reach the entry's decoders.

import { type Node, parse } from 'acorn';
import type { CqlType } from '../types/cql-type.js';
import { JS_VALUE_PRELUDE } from './sandbox/js-value-prelude.js';
import type { SandboxProgram } from './sandbox/sandbox-program.js';

export interface JsUdfDefinition {
  readonly argNames: readonly string[];
  readonly argTypes: readonly CqlType[];
  readonly returnType: CqlType;
  readonly body: string;
}

/** Thrown for a body that does not parse; the message is the parser's. */
export class JsUdfSyntaxError extends Error {}

const COMPLETION = '__completion';
/**
 * Deepest syntax tree accepted. The engine's parser recurses on the host thread's stack (WebAssembly frames), and
 * a few thousand nested parentheses would exhaust it; no real function body nests anywhere near this deep.
 */
const MAX_NESTING = 100;
const RESERVED = new Set(
  (
    'break case catch class const continue debugger default delete do else enum export extends false finally for ' +
    'function if implements import in instanceof interface let new null package private protected public return ' +
    'static super switch this throw true try typeof var void while with yield await eval arguments'
  ).split(' '),
);

/** An argument whose CQL name is not a usable JavaScript name is still passed, under a name of its position. */
function parameterName(name: string, i: number): string {
  return /^[A-Za-z_$][\w$]*$/.test(name) && !RESERVED.has(name) ? name : `__arg${i}`;
}

export function compileJsUdf(def: JsUdfDefinition): SandboxProgram {
  const params = def.argNames.map(parameterName);
  const user = `(function (${params.join(', ')}) {\n"use strict";\n${functionBody(def.body)}\n})`;
  const types = JSON.stringify({ args: def.argTypes, result: def.returnType });
  const entry = `((user) => {
  const types = ${types};
  const decode = types.args.map(__jsValues.decoder);
  const encode = __jsValues.encoder(types.result);
  const values = new Array(decode.length);
  return (args) => {
    for (let i = 0; i < values.length; i++) values[i] = args[i] === null ? null : decode[i](args[i]);
    return encode(user.apply(undefined, values));
  };
})(${user})`;
  return { preludes: [JS_VALUE_PRELUDE], entry };
}

type AnyNode = Node & Record<string, unknown>;

/** The body as a function body: unchanged when it returns, else with its completion value captured and returned. */
function functionBody(body: string): string {
  let program: AnyNode;
  try {
    program = parse(body, {
      ecmaVersion: 2022,
      sourceType: 'script',
      allowReturnOutsideFunction: true,
      preserveParens: true,
    }) as unknown as AnyNode;
  } catch (e) {
    const deep = e instanceof RangeError || /stack space/.test((e as Error).message);
    throw new JsUdfSyntaxError(deep ? 'the body nests too deeply' : (e as Error).message);
  }
  if (depth(program) > MAX_NESTING) throw new JsUdfSyntaxError(`the body nests deeper than ${MAX_NESTING} levels`);
  if (returns(program)) return body;
  const starts: number[] = [];
  const ends: number[] = [];
  captureCompletions(program.body as AnyNode[], starts, ends);
  let out = '';
  let last = 0;
  const edits = [...starts.map((at) => ({ at, text: `${COMPLETION} = (` })), ...ends.map((at) => ({ at, text: ')' }))];
  edits.sort((a, b) => a.at - b.at || (a.text === ')' ? -1 : 1));
  for (const e of edits) {
    out += body.slice(last, e.at) + e.text;
    last = e.at;
  }
  out += body.slice(last);
  return `let ${COMPLETION};\n${out}\nreturn ${COMPLETION};`;
}

function children(node: AnyNode): AnyNode[] {
  const out: AnyNode[] = [];
  for (const value of Object.values(node)) {
    for (const c of Array.isArray(value) ? value : [value])
      if (c && typeof c === 'object' && typeof (c as AnyNode).type === 'string') out.push(c as AnyNode);
  }
  return out;
}

/** Depth of the syntax tree, without recursion (the tree can be as deep as the parser allowed). */
function depth(root: AnyNode): number {
  let max = 0;
  const pending: [AnyNode, number][] = [[root, 1]];
  while (pending.length > 0) {
    const [node, d] = pending.pop()!;
    if (d > max) max = d;
    for (const c of children(node)) pending.push([c, d + 1]);
  }
  return max;
}

/** Whether a `return` occurs outside nested functions. */
function returns(node: AnyNode): boolean {
  if (node.type === 'ReturnStatement') return true;
  if (/Function/.test(node.type) || node.type === 'ClassDeclaration' || node.type === 'ClassExpression') return false;
  return children(node).some(returns);
}

/** Marks the expression statements whose value can be the script's completion value (not inside functions). */
function captureCompletions(statements: readonly (AnyNode | null | undefined)[], starts: number[], ends: number[]) {
  for (const s of statements) {
    if (!s) continue;
    switch (s.type) {
      case 'ExpressionStatement': {
        const e = s.expression as AnyNode;
        starts.push(e.start);
        ends.push(e.end);
        break;
      }
      case 'BlockStatement':
        captureCompletions(s.body as AnyNode[], starts, ends);
        break;
      case 'IfStatement':
        captureCompletions([s.consequent as AnyNode, s.alternate as AnyNode], starts, ends);
        break;
      case 'ForStatement':
      case 'ForInStatement':
      case 'ForOfStatement':
      case 'WhileStatement':
      case 'DoWhileStatement':
      case 'LabeledStatement':
        captureCompletions([s.body as AnyNode], starts, ends);
        break;
      case 'TryStatement':
        captureCompletions([s.block as AnyNode, (s.handler as AnyNode | null)?.body as AnyNode], starts, ends);
        break;
      case 'SwitchStatement':
        for (const c of s.cases as AnyNode[]) captureCompletions(c.consequent as AnyNode[], starts, ends);
        break;
    }
  }
}
