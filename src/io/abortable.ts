/**
 * Waiting on shared work without tying it to one caller's AbortSignal:
 * opened files and cached blocks serve every query, so one query giving up
 * must not fail the others that wait on the same promise. The caller stops
 * waiting at once; the work itself completes and stays useful.
 */
import { ClimateQueryError } from '../contract/errors.ts';

/** Resolves like `work`, or rejects with `aborted` as soon as `signal` fires. */
export function abortable<T>(work: Promise<T>, signal: AbortSignal | undefined): Promise<T> {
  if (!signal) return work;
  return new Promise<T>((resolve, reject) => {
    const onAbort = () =>
      reject(new ClimateQueryError('aborted', 'The request was aborted.', { cause: signal.reason }));
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}
