// Runs a Python script from test/python/ with Debian's python3-cassandra driver (at /usr/bin/python3, not the
// pyenv python3 on PATH) against a running server, and parses the JSON document the script prints last.
// Scripts take `host port [args...]` on argv and print exactly one JSON line on stdout.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';

import { expect } from 'vitest';

export const PYTHON = '/usr/bin/python3';

/** A driver exception as test/python/common.py reports it. */
export interface PythonErrorInfo {
  type: string;
  code: number | null;
  message: string;
  keyspace?: string;
  table?: string;
}

/** One scenario's outcome (common.py `run()`): `ok` plus what the scenario returned, or the error. */
export interface ScenarioResult {
  ok: boolean;
  error?: PythonErrorInfo;
  trace?: string;
  [key: string]: unknown;
}

/** The named scenario's result; fails the test when it did not run or raised. */
export function scenarioResult<R extends ScenarioResult>(results: Record<string, R>, name: string): R {
  const r = results[name];
  expect(r, `scenario ${name} did not run`).toBeDefined();
  expect(r!.ok, `scenario ${name} failed: ${JSON.stringify(r!.error)}\n${r!.trace ?? ''}`).toBe(true);
  return r!;
}

/** The server's message in the driver's text: `<Error from server: ... message="<server message>">`, maybe `info={...}`. */
export function serverMessage(e: PythonErrorInfo): string {
  const m = /message="([\s\S]*?)"(?: info=\{[\s\S]*\})?>?$/.exec(e.message);
  return m ? m[1]! : e.message;
}

/** A scenario's named error as expected: [driver exception, code, exact server message or a pattern]. */
export type ExpectedError = [type: string, code: number, message: string | RegExp];

/** Checks each named error a scenario collected; with `exhaustive`, also that it collected no other. */
export function expectScenarioErrors(
  name: string,
  expected: Record<string, ExpectedError>,
  errors: Record<string, PythonErrorInfo | null>,
  exhaustive = true,
): void {
  for (const [key, [type, code, message]] of Object.entries(expected)) {
    const e = errors[key];
    expect(e, `${name}.${key} did not fail`).toBeTruthy();
    expect([e!.type, e!.code], `${name}.${key}: ${e!.message}`).toEqual([type, code]);
    if (typeof message === 'string') expect(serverMessage(e!), `${name}.${key}`).toBe(message);
    else expect(serverMessage(e!), `${name}.${key}`).toMatch(message);
  }
  if (exhaustive) expect(Object.keys(errors).sort()).toEqual(Object.keys(expected).sort());
}

export function pythonScript(name: string): string {
  return resolve(import.meta.dirname, '../python', name);
}

/** True when /usr/bin/python3 can import the cassandra driver (tests skip otherwise). */
export async function pythonDriverAvailable(): Promise<boolean> {
  if (!existsSync(PYTHON)) return false;
  return await new Promise((ok) => {
    execFile(PYTHON, ['-c', 'import cassandra, cassandra.cluster'], { timeout: 30_000 }, (err) => ok(!err));
  });
}

export interface PythonRunOptions {
  env?: Record<string, string>;
  timeoutMs?: number;
}

export class PythonScriptError extends Error {
  constructor(
    message: string,
    readonly stdout: string,
    readonly stderr: string,
  ) {
    super(message);
  }
}

/** Runs test/python/<script> host port ...args and returns the last JSON line it printed. */
export async function runPython<T = Record<string, unknown>>(
  script: string,
  host: string,
  port: number,
  args: string[] = [],
  options: PythonRunOptions = {},
): Promise<T> {
  const file = pythonScript(script);
  return await new Promise<T>((ok, fail) => {
    execFile(
      PYTHON,
      [file, host, String(port), ...args],
      {
        timeout: options.timeoutMs ?? 60_000,
        maxBuffer: 16 * 1024 * 1024,
        env: { ...process.env, PYTHONDONTWRITEBYTECODE: '1', PYTHONIOENCODING: 'utf-8', ...options.env },
      },
      (err, stdout, stderr) => {
        const lines = stdout.split('\n').filter((l) => l.trim().startsWith('{'));
        const last = lines.at(-1);
        if (last === undefined) {
          fail(
            new PythonScriptError(`${script} printed no JSON (${err?.message ?? 'exit 0'})\n${stderr}`, stdout, stderr),
          );
          return;
        }
        try {
          ok(JSON.parse(last) as T);
        } catch (e) {
          fail(new PythonScriptError(`${script} printed bad JSON: ${(e as Error).message}\n${last}`, stdout, stderr));
        }
      },
    );
  });
}
