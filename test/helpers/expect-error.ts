/** Expecting the project's two errors: a contract error (ClimateQueryError) and a build's (BuildError). */
import { expect } from 'vitest';
import { BuildError } from '../../src/builder/build-error.ts';
import { ClimateQueryError } from '../../src/contract/errors.ts';

/** Runs `fn`, expecting it to throw a ClimateQueryError, and returns that error. */
export function errorOf(fn: () => unknown): ClimateQueryError {
  return thrownBy(fn, ClimateQueryError);
}

/** Runs `fn`, expecting it to throw the build's one error, and returns it. */
export function buildErrorOf(fn: () => unknown): BuildError {
  return thrownBy(fn, BuildError);
}

function thrownBy<T>(fn: () => unknown, type: abstract new (...args: never[]) => T): T {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(type);
    return e as T;
  }
  throw new Error(`expected a ${type.name}, got success`);
}

/** Awaits `p`, expecting a ClimateQueryError with `code` (and `field`, when given), and returns it. */
export async function expectClimateError(
  p: Promise<unknown>,
  code: string,
  field?: string,
): Promise<ClimateQueryError> {
  const e = await p.then(
    () => {
      throw new Error(`expected a ClimateQueryError ${code}, got success`);
    },
    (err: unknown) => err,
  );
  expect(e).toBeInstanceOf(ClimateQueryError);
  const err = e as ClimateQueryError;
  expect({ code: err.code, ...(field !== undefined ? { field: err.field } : {}) }).toEqual({
    code,
    ...(field !== undefined ? { field } : {}),
  });
  return err;
}
