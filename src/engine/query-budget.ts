/**
 * Every query ends within its time budget. Per-request timeouts
 * (timed-fetch.ts) bound each read, but a query makes many reads, with
 * retries; the budget bounds the whole. When it runs out the query's reads
 * are aborted and the caller gets `upstream_timeout` at once, even if some
 * work does not honour the signal promptly.
 */
import { ClimateQueryError } from '../contract/errors.ts';

/** Default overall budget of one query: a cold query on a slow rural link takes a few seconds, a dead host never ends. */
export const DEFAULT_QUERY_BUDGET_MS = 30_000;

/**
 * Runs `work` with a signal that fires when `caller` aborts or `budgetMs`
 * passes. `where` names what was being read, for the timeout message.
 */
export function withBudget<T>(
  budgetMs: number,
  caller: AbortSignal | undefined,
  where: string,
  work: (signal: AbortSignal) => Promise<T>,
): Promise<T> {
  const controller = new AbortController();
  return new Promise<T>((resolve, reject) => {
    const expire = () => {
      const error = new ClimateQueryError(
        'upstream_timeout',
        `The query did not finish within its ${budgetMs / 1000} s budget while reading ${where}. The host is slow or stalled; try again, or raise the budget (timeoutMs, --timeout).`,
      );
      controller.abort(error);
      reject(error);
    };
    const onCallerAbort = () => {
      const error = new ClimateQueryError('aborted', 'The request was aborted.', { cause: caller?.reason });
      controller.abort(error);
      reject(error);
    };
    if (caller?.aborted) return onCallerAbort();
    const timer = Number.isFinite(budgetMs) && budgetMs > 0 ? setTimeout(expire, budgetMs) : undefined;
    caller?.addEventListener('abort', onCallerAbort, { once: true });
    work(controller.signal)
      .then(resolve, reject)
      .finally(() => {
        clearTimeout(timer);
        caller?.removeEventListener('abort', onCallerAbort);
      });
  });
}

/** True when `err` says a dataset file no longer matches the catalog the query was planned on. */
export function isDatasetChange(err: unknown): boolean {
  return err instanceof ClimateQueryError && err.code === 'dataset_changed';
}

/** True when `err` is an abort (of this query, or of shared work it waited on). */
export function isAbortedError(err: unknown): boolean {
  if (err instanceof ClimateQueryError) return err.code === 'aborted';
  return typeof err === 'object' && err !== null && (err as { name?: unknown }).name === 'AbortError';
}
