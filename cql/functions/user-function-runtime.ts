// Runs user-defined functions: Cassandra's switches (user_defined_functions_enabled, scripted_...), compiling a
// body into a sandbox program (Java or JavaScript), one isolate per function, the warn/fail timeouts with their
// client warning and policy, and Cassandra's errors for every way a call can fail.

import type { Logger } from 'pino';
import { FunctionFailure, InvalidRequest } from '../errors.js';
import { noSpam } from '../execution/no-spam-log.js';
import type { SchemaCatalog } from '../schema/schema-catalog.js';
import { type CqlType, cqlTypeToString } from '../types/cql-type.js';
import { validateValue } from '../types/value-validator.js';
import { compileJavaUdf } from './java/java-udf-compiler.js';
import { compileJsUdf, JsUdfSyntaxError } from './js-udf-compiler.js';
import { ENGINE_INITIAL_BYTES, QuickJsInstances } from './sandbox/quickjs-instances.js';
import { SandboxFailure } from './sandbox/sandbox-failure.js';
import { SandboxIsolate } from './sandbox/sandbox-isolate.js';
import type { SandboxProgram } from './sandbox/sandbox-program.js';
import type { UserFunctionMetadata } from './user-function-metadata.js';
import type { UserFunctionSettings } from './user-function-settings.js';

/** Types whose empty value a function receives as null (AbstractType.isEmptyValueMeaningless). */
const EMPTY_IS_NULL = new Set([
  'int',
  'bigint',
  'counter',
  'varint',
  'decimal',
  'float',
  'double',
  'boolean',
  'timestamp',
  'uuid',
  'timeuuid',
  'inet',
]);

/** Isolates kept at most (each holds an engine instance, ~1-2 MB); the least recently used beyond are freed. */
const MAX_ISOLATES = 128;
const STACK_BYTES = 256 * 1024;

export type TimeoutPolicyAction = (policy: 'die' | 'die_immediate', message: string) => void;

export class UserFunctionRuntime {
  private readonly isolates = new Map<UserFunctionMetadata, SandboxIsolate>();
  private warnings: string[] | undefined;

  private constructor(
    readonly settings: UserFunctionSettings,
    private readonly instances: QuickJsInstances | undefined,
    private readonly catalog: SchemaCatalog,
    private readonly logger: Logger,
    private readonly onTimeoutPolicy: TimeoutPolicyAction,
  ) {}

  /** Loads the sandbox engine only when functions are enabled. */
  static async start(
    settings: UserFunctionSettings,
    catalog: SchemaCatalog,
    logger: Logger,
    onTimeoutPolicy: TimeoutPolicyAction,
  ): Promise<UserFunctionRuntime> {
    const instances = settings.enabled ? await QuickJsInstances.start(settings.memoryLimitBytes) : undefined;
    const runtime = new UserFunctionRuntime(settings, instances, catalog, logger, onTimeoutPolicy);
    catalog.onChange(() => runtime.forgetDropped());
    return runtime;
  }

  /** UDFunction.assertUdfsEnabled. */
  assertEnabled(language: string): void {
    if (!this.settings.enabled)
      throw new InvalidRequest(
        'User-defined functions are disabled in cassandra.yaml - set user_defined_functions_enabled=true to enable',
      );
    if (language !== 'java' && !this.settings.scriptedEnabled)
      throw new InvalidRequest(
        'Scripted user-defined functions are disabled in cassandra.yaml - set scripted_user_defined_functions_enabled=true to enable if you are aware of the security risks',
      );
  }

  /** CREATE FUNCTION: the body must compile and its isolate build, or the statement is refused. */
  async validate(f: UserFunctionMetadata): Promise<void> {
    this.assertEnabled(f.language);
    const isolate = new SandboxIsolate(this.instances!, this.program(f), this.limits());
    try {
      await isolate.prepare();
    } catch (e) {
      if (e instanceof SandboxFailure)
        throw new InvalidRequest(
          `Failed to compile function '${f.keyspace}.${f.name}' for language ${f.language}: ${e.detail}`,
        );
      throw e;
    }
    this.remember(f, isolate);
  }

  /**
   * Before a statement that calls `functions` runs: builds the isolates that have no engine instance (or must
   * replace theirs). Undefined when all are ready, the usual case, so the statement runs without waiting.
   */
  prepare(functions: readonly UserFunctionMetadata[]): Promise<void> | undefined {
    if (!this.instances || functions.length === 0) return undefined;
    let pending: Promise<void>[] | undefined;
    for (const f of functions) {
      let isolate = this.isolates.get(f);
      if (!isolate) {
        try {
          isolate = new SandboxIsolate(this.instances, this.program(f), this.limits());
        } catch {
          continue; // a body that no longer compiles fails at its call, with Cassandra's message
        }
      }
      this.remember(f, isolate);
      if (isolate.needsPreparation) {
        pending ??= [];
        pending.push(isolate.prepare().catch(() => undefined)); // a failure shows at the call
      }
    }
    return pending && Promise.all(pending).then(() => undefined);
  }

  /** Calls `f` with serialized arguments (null for null); its serialized result or null. */
  call(f: UserFunctionMetadata, args: readonly (Buffer | null)[]): Buffer | null {
    this.assertEnabled(f.language);
    if (this.rejectsNullInput(f, args)) return null;
    const values = args.some((a, i) => a !== null && a.length === 0 && emptyIsNull(f.argTypes[i]!))
      ? args.map((a, i) => (a !== null && a.length === 0 && emptyIsNull(f.argTypes[i]!) ? null : a))
      : args;
    const isolate = this.isolates.get(f) ?? this.isolate(f);
    const started = performance.now();
    let result: Buffer | null;
    try {
      result = isolate.call(values);
    } catch (e) {
      if (!(e instanceof SandboxFailure)) throw e;
      throw this.failure(f, e);
    } finally {
      const took = performance.now() - started;
      if (took > this.settings.warnTimeoutMs && took <= this.settings.failTimeoutMs) this.warnSlow(f);
    }
    if (result !== null) {
      try {
        validateValue(f.returnType, result);
      } catch (e) {
        throw functionFailure(f, `java.lang.IllegalArgumentException: ${(e as Error).message}`);
      }
    }
    return result;
  }

  /**
   * UDFunction.isCallableWrtNullable: a RETURNS NULL ON NULL INPUT function is not called when an argument (given
   * from argument `first` on) is null, or empty for a type whose empty value means nothing.
   */
  rejectsNullInput(f: UserFunctionMetadata, args: readonly (Buffer | null)[], first = 0): boolean {
    return (
      !f.calledOnNullInput && args.some((a, i) => a === null || (a.length === 0 && emptyIsNull(f.argTypes[first + i]!)))
    );
  }

  /** Client warnings raised since the last call (the warn timeout), for the response of the current request. */
  takeWarnings(): string[] | undefined {
    const w = this.warnings;
    this.warnings = undefined;
    return w;
  }

  /** Frees the isolates of functions that no longer exist in the schema (after DROP / OR REPLACE). */
  forgetDropped(): void {
    for (const [f, isolate] of this.isolates) {
      const current = this.catalog.keyspace(f.keyspace)?.functions;
      if (![...(current?.values() ?? [])].includes(f)) {
        isolate.dispose();
        this.isolates.delete(f);
      }
    }
  }

  private isolate(f: UserFunctionMetadata): SandboxIsolate {
    const isolate = new SandboxIsolate(this.instances!, this.program(f), this.limits());
    this.remember(f, isolate);
    return isolate;
  }

  /**
   * Most recently prepared last (Map iteration is insertion order; prepare() runs before every statement, calls
   * do not reorder); the oldest beyond the cap go.
   */
  private remember(f: UserFunctionMetadata, isolate: SandboxIsolate): void {
    this.isolates.delete(f);
    this.isolates.set(f, isolate);
    while (this.isolates.size > MAX_ISOLATES) {
      const [oldest, victim] = this.isolates.entries().next().value!;
      victim.dispose();
      this.isolates.delete(oldest);
    }
  }

  private program(f: UserFunctionMetadata): SandboxProgram {
    if (f.language === 'java') {
      return compileJavaUdf({
        ...f,
        userType: (name) => {
          const t = this.catalog.keyspace(f.keyspace)?.types.get(name);
          return t && { kind: 'udt', keyspace: t.keyspace, name: t.name, fields: t.fields, frozen: true };
        },
      });
    }
    if (f.language === 'javascript') {
      try {
        return compileJsUdf(f);
      } catch (e) {
        if (e instanceof JsUdfSyntaxError)
          throw new InvalidRequest(
            `Failed to compile function '${f.keyspace}.${f.name}' for language javascript: ${e.message}`,
          );
        throw e;
      }
    }
    throw new InvalidRequest(`Invalid language '${f.language}' for function '${f.keyspace}.${f.name}'`);
  }

  private limits() {
    return {
      timeoutMs: this.settings.failTimeoutMs,
      memoryBytes: Math.max(this.settings.memoryLimitBytes, ENGINE_INITIAL_BYTES),
      stackBytes: STACK_BYTES,
    };
  }

  private failure(f: UserFunctionMetadata, e: SandboxFailure): FunctionFailure | InvalidRequest {
    switch (e.reason) {
      case 'thrown':
        return functionFailure(f, e.detail);
      case 'timeout': {
        const policy = this.settings.timeoutPolicy;
        const message = `User defined function ${describe(f)} ran longer than ${this.settings.failTimeoutMs}ms${policy === 'ignore' ? '' : ' - will stop Cassandra VM'}`;
        this.logger.error({ function: `${f.keyspace}.${f.name}` }, message);
        if (policy !== 'ignore') this.onTimeoutPolicy(policy, message);
        return functionFailure(f, `java.util.concurrent.TimeoutException: ${message}`);
      }
      case 'exhausted':
        return functionFailure(f, `java.lang.OutOfMemoryError: ${e.detail}`);
      case 'compile':
        return new InvalidRequest(
          `Function '${describe(f)}' exists but hasn't been loaded successfully for the following reason: ${e.detail}. Please see the server log for details`,
        );
      case 'engine':
        this.logger.error({ function: `${f.keyspace}.${f.name}` }, e.detail);
        return functionFailure(f, `java.lang.InternalError: ${e.detail}`);
    }
  }

  private warnSlow(f: UserFunctionMetadata): void {
    const message = `User defined function ${describe(f)} ran longer than ${this.settings.warnTimeoutMs}ms`;
    noSpam(this.logger).warn(`slow function ${f.keyspace}.${f.name}`, { function: `${f.keyspace}.${f.name}` }, message);
    this.warnings ??= [];
    this.warnings.push(message);
  }
}

function emptyIsNull(t: CqlType): boolean {
  return t.kind === 'native' && EMPTY_IS_NULL.has(t.name);
}

/** AbstractFunction.toString: `ks.f : (int, text) -> int`. */
function describe(f: UserFunctionMetadata): string {
  return `${f.keyspace}.${f.name} : (${f.argTypes.map(cqlTypeToString).join(', ')}) -> ${cqlTypeToString(f.returnType)}`;
}

/** FunctionExecutionException: `execution of 'ks.f[int, int]' failed: <cause>`. */
export function functionFailure(f: UserFunctionMetadata, detail: string): FunctionFailure {
  const types = f.argTypes.map(cqlTypeToString);
  return new FunctionFailure(
    `execution of '${f.keyspace}.${f.name}[${types.join(', ')}]' failed: ${detail}`,
    f.keyspace,
    f.name,
    types,
  );
}
