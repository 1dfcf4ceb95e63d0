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
