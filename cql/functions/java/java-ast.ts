// The syntax tree of a Java UDF body: the statements and expressions of the Java 8 subset the parser accepts.
// Every node carries the 1-based line of the body it starts on, for ECJ-style "Line N: ..." problems.

export interface TypeNode {
  readonly kind: 'type';
  readonly line: number;
  /** Dotted name as written (`int`, `String`, `java.util.List`, `Map.Entry`). */
  readonly name: string;
  readonly args: readonly TypeArgNode[] | null;
  readonly dims: number;
  /** `<>` as in `new HashMap<>()`. */
  readonly diamond: boolean;
}

export type TypeArgNode =
  | TypeNode
  | { readonly kind: 'wildcard'; readonly line: number; readonly bound: TypeNode | null };

export type Expr =
  | {
      readonly kind: 'literal';
      readonly line: number;
      readonly type: 'int' | 'long' | 'float' | 'double' | 'char' | 'string' | 'boolean' | 'null';
      /** number for int/float/double/char, bigint for long, string, boolean, null. */
      readonly value: number | bigint | string | boolean | null;
      /** The literal's source text, for "out of range" problems. */
      readonly text: string;
    }
  | { readonly kind: 'name'; readonly line: number; readonly name: string }
  | { readonly kind: 'field'; readonly line: number; readonly target: Expr; readonly name: string }
  | {
      readonly kind: 'call';
      readonly line: number;
      readonly target: Expr | null;
      readonly name: string;
      readonly args: readonly Expr[];
    }
  | {
      readonly kind: 'new';
      readonly line: number;
      readonly type: TypeNode;
      readonly args: readonly Expr[];
      /** An anonymous class body was written (always refused). */
      readonly anonymousBody: boolean;
    }
  | {
      readonly kind: 'newArray';
      readonly line: number;
      readonly element: TypeNode;
      readonly dimExprs: readonly Expr[];
      /** Total dimensions, with and without size expressions. */
      readonly dims: number;
      readonly init: ArrayInit | null;
    }
  | ArrayInit
  | { readonly kind: 'index'; readonly line: number; readonly target: Expr; readonly index: Expr }
  | { readonly kind: 'unary'; readonly line: number; readonly op: '+' | '-' | '!' | '~'; readonly operand: Expr }
  | {
      readonly kind: 'incdec';
      readonly line: number;
      readonly op: '++' | '--';
      readonly prefix: boolean;
      readonly target: Expr;
    }
  | { readonly kind: 'binary'; readonly line: number; readonly op: string; readonly left: Expr; readonly right: Expr }
  | { readonly kind: 'assign'; readonly line: number; readonly op: string; readonly target: Expr; readonly value: Expr }
  | {
      readonly kind: 'conditional';
      readonly line: number;
      readonly cond: Expr;
      readonly then: Expr;
      readonly else: Expr;
    }
  | { readonly kind: 'cast'; readonly line: number; readonly type: TypeNode; readonly operand: Expr }
  | { readonly kind: 'instanceof'; readonly line: number; readonly operand: Expr; readonly type: TypeNode }
  | { readonly kind: 'classLit'; readonly line: number; readonly type: TypeNode }
  | { readonly kind: 'this'; readonly line: number }
  | { readonly kind: 'super'; readonly line: number }
  /** Lambdas and method references are parsed only to be refused with a precise message. */
  | { readonly kind: 'lambda'; readonly line: number }
  | { readonly kind: 'methodRef'; readonly line: number };

export interface ArrayInit {
  readonly kind: 'arrayInit';
  readonly line: number;
  readonly elements: readonly Expr[];
}

export interface VarDeclarator {
  readonly name: string;
  readonly line: number;
  /** Extra `[]` after the name (`int a[]`). */
  readonly dims: number;
  readonly init: Expr | null;
}

export interface CatchClause {
  readonly line: number;
  readonly types: readonly TypeNode[];
  readonly name: string;
  readonly body: Block;
}

export interface SwitchCase {
  readonly line: number;
  /** null for `default:`. */
  readonly labels: readonly (Expr | null)[];
  readonly body: readonly Stmt[];
}

export interface Block {
  readonly kind: 'block';
  readonly line: number;
  readonly body: readonly Stmt[];
}

export interface LocalVarDecl {
  readonly kind: 'local';
  readonly line: number;
  readonly final: boolean;
  readonly type: TypeNode;
  readonly declarators: readonly VarDeclarator[];
}

export type Stmt =
  | Block
  | LocalVarDecl
  | { readonly kind: 'expr'; readonly line: number; readonly expr: Expr }
  | { readonly kind: 'if'; readonly line: number; readonly cond: Expr; readonly then: Stmt; readonly else: Stmt | null }
  | { readonly kind: 'while'; readonly line: number; readonly cond: Expr; readonly body: Stmt }
  | { readonly kind: 'doWhile'; readonly line: number; readonly body: Stmt; readonly cond: Expr }
  | {
      readonly kind: 'for';
      readonly line: number;
      readonly init: LocalVarDecl | readonly Expr[];
      readonly cond: Expr | null;
      readonly update: readonly Expr[];
      readonly body: Stmt;
    }
  | {
      readonly kind: 'forEach';
      readonly line: number;
      readonly final: boolean;
      readonly type: TypeNode;
      readonly name: string;
      readonly iterable: Expr;
      readonly body: Stmt;
    }
  | { readonly kind: 'return'; readonly line: number; readonly value: Expr | null }
  | { readonly kind: 'break'; readonly line: number; readonly label: string | null }
  | { readonly kind: 'continue'; readonly line: number; readonly label: string | null }
  | { readonly kind: 'throw'; readonly line: number; readonly value: Expr }
  | {
      readonly kind: 'try';
      readonly line: number;
      /** try-with-resources was written (refused: no AutoCloseable is reachable from a UDF). */
      readonly resources: boolean;
      readonly block: Block;
      readonly catches: readonly CatchClause[];
      readonly finally: Block | null;
    }
  | { readonly kind: 'switch'; readonly line: number; readonly selector: Expr; readonly cases: readonly SwitchCase[] }
  | { readonly kind: 'labeled'; readonly line: number; readonly label: string; readonly body: Stmt }
  | { readonly kind: 'empty'; readonly line: number }
  | { readonly kind: 'assert'; readonly line: number; readonly cond: Expr; readonly message: Expr | null }
  | { readonly kind: 'synchronized'; readonly line: number; readonly lock: Expr; readonly body: Block }
  | { readonly kind: 'localClass'; readonly line: number; readonly name: string };

/** What follows the method body when the body closes it early (`return 0d; } Object field; {`). */
export type ClassMember =
  | {
      readonly kind: 'field';
      readonly line: number;
      readonly name: string;
      readonly static: boolean;
      readonly init: boolean;
    }
  /** `empty`: no statements, so no code is generated for it (and the verifier sees nothing). */
  | { readonly kind: 'initializer'; readonly line: number; readonly static: boolean; readonly empty: boolean }
  | { readonly kind: 'method'; readonly line: number; readonly name: string; readonly descriptor: string }
  | { readonly kind: 'class'; readonly line: number; readonly name: string };

export interface MethodBody {
  readonly statements: readonly Stmt[];
  readonly members: readonly ClassMember[];
}
