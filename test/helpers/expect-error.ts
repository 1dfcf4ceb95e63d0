/** Runs `fn`, expecting it to throw a ClimateQueryError, and returns that error. */
import { expect } from 'vitest';
import { ClimateQueryError } from '../../src/contract/errors.ts';

export function errorOf(fn: () => unknown): ClimateQueryError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(ClimateQueryError);
    return e as ClimateQueryError;
  }
  throw new Error('expected a ClimateQueryError, got success');
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
