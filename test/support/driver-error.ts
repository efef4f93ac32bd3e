// A request through cassandra-driver that must fail: the error it failed with, and the check of the server's
// error code and Cassandra's exact message.
import { expect } from 'vitest';

/** What cassandra-driver's ResponseError carries (Unavailable's fields included). */
export interface DriverError extends Error {
  code?: number;
  consistencies?: number;
  required?: number;
  alive?: number;
}

/** The error the request failed with; fails the test when it succeeded. */
export async function errorOf(promise: Promise<unknown>, what = 'the request'): Promise<DriverError> {
  const err = (await promise.then(
    () => undefined,
    (e: unknown) => e,
  )) as DriverError | undefined;
  expect(err, `expected ${what} to fail`).toBeInstanceOf(Error);
  return err as DriverError;
}

/** Expects the error code and the whole message (a RegExp for messages with variable parts). */
export async function expectDriverError(
  promise: Promise<unknown>,
  code: number,
  message: string | RegExp,
  what?: string,
): Promise<DriverError> {
  const err = await errorOf(promise, what);
  expect(err.code, `error code of: ${err.message}`).toBe(code);
  if (typeof message === 'string') expect(err.message).toBe(message);
  else expect(err.message).toMatch(message);
  return err;
}
