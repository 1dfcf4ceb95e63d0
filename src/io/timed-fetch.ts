/**
 * HTTP reads that always end. `fetch` has no timeout of its own, in Node or
 * in browsers: a server that stalls before its headers, or after them in
 * the middle of a body, hangs the read forever (FIELD-NOTES, reliability).
 * Every dataset read goes through here, so each has a first-byte limit
 * (connect + headers), an idle limit between body chunks, and bounded
 * retries with exponential backoff and jitter for the faults that heal
 * (network errors, 5xx, timeouts, truncated bodies). Free of node:*
 * imports: it is bundled for the browser.
 */
import { ClimateQueryError } from '../contract/errors.ts';

/** Time limits of one HTTP request. */
export interface ReadTimeouts {
  /** Most milliseconds from sending the request to its response headers (connect and first byte). */
  firstByteMs: number;
  /** Most milliseconds between two chunks of the body (a stall or a 2 KiB/s drip ends here). */
  idleMs: number;
}

/** Retries of idempotent reads. */
export interface RetryPolicy {
  /** Further attempts after the first; 0 disables retries. */
  retries: number;
  /** Delay before the first retry; doubles each time, with ±50 % jitter. */
  baseDelayMs: number;
}

/** Defaults: generous for a slow rural link (a 64 KiB block at 1 Mbit/s takes ~0.5 s), short enough to give up on a dead one. */
export const DEFAULT_READ_TIMEOUTS: ReadTimeouts = { firstByteMs: 10_000, idleMs: 10_000 };
/** Two retries at 250 ms then 500 ms (±50 %): a passing fault heals, a dead host fails in about a second more. */
export const DEFAULT_RETRY: RetryPolicy = { retries: 2, baseDelayMs: 250 };

/** Errors worth another attempt: the same request may succeed a moment later. */
const transient = new WeakSet<object>();

/** Marks `err` as a passing fault (retried by {@link withRetries}); returns it. */
export function markTransient<E extends object>(err: E): E {
  transient.add(err);
  return err;
}

/** True for an error {@link markTransient} marked. */
export function isTransient(err: unknown): boolean {
  return typeof err === 'object' && err !== null && transient.has(err);
}

/** A response whose body is read under the idle limit. */
export interface TimedResponse {
  response: Response;
  /** Reads the whole body; rejects with `upstream_timeout` when it stalls longer than the idle limit. */
  body(): Promise<Uint8Array>;
  /** Stops reading the body (frees the connection). */
  discard(): Promise<void>;
}

/**
 * One fetch under `timeouts`. The caller's `signal` aborts it at once
 * (`aborted`); a timeout rejects with a transient `upstream_timeout` naming
 * the URL; a network failure with a transient `dataset_unavailable`.
 */
export async function timedFetch(
  doFetch: typeof fetch,
  url: string,
  init: RequestInit,
  timeouts: ReadTimeouts,
  signal?: AbortSignal,
): Promise<TimedResponse> {
  if (signal?.aborted) throw abortedError(signal);
  const controller = new AbortController();
  let timedOut: string | null = null;
  const onCallerAbort = () => controller.abort(signal?.reason);
  signal?.addEventListener('abort', onCallerAbort, { once: true });
  const detach = () => signal?.removeEventListener('abort', onCallerAbort);
  const timeout = (what: string, ms: number) =>
    setTimeout(() => {
      timedOut = `${what} within ${ms} ms`;
      controller.abort();
    }, ms);

  const failed = (err: unknown): ClimateQueryError => {
    if (timedOut)
      return markTransient(
        new ClimateQueryError(
          'upstream_timeout',
          `Reading ${url} timed out: no ${timedOut}. The host is too slow or not answering; try again later.`,
          { cause: err },
        ),
      );
    if (signal?.aborted) return abortedError(signal, err);
    if (err instanceof ClimateQueryError) return err;
    const detail = err instanceof Error ? err.message : String(err);
    // Browsers say only "Failed to fetch", for a dead host and a CORS refusal alike; Node names the cause.
    const why =
      typeof (globalThis as { document?: unknown }).document !== 'undefined' ||
      typeof (globalThis as { WorkerGlobalScope?: unknown }).WorkerGlobalScope !== 'undefined'
        ? 'the server may be down or not allow cross-origin requests (CORS)'
        : `the server may be down or the address wrong (${detail})`;
    return markTransient(
      new ClimateQueryError('dataset_unavailable', `${url} could not be reached — ${why}.`, { cause: err }),
    );
  };

  let timer = timeout('response', timeouts.firstByteMs);
  let response: Response;
  try {
    response = await doFetch(url, { ...init, signal: controller.signal });
  } catch (err) {
    clearTimeout(timer);
    detach();
    throw failed(err);
  } finally {
    clearTimeout(timer);
  }

  return {
    response,
    async body() {
      const reader = response.body?.getReader();
      if (!reader) {
        detach();
        return new Uint8Array(0);
      }
      const chunks: Uint8Array[] = [];
      let total = 0;
      // One watchdog per body, not a timer per chunk: it looks at the time of the last chunk when it
      // fires and waits again for the rest. (Two timer calls per chunk were 44 ms of a cold Worker's
      // 780 ms in a 62-station poly-aggregate, Chromium profile.)
      let lastChunk = performance.now();
      const watch = (ms: number) => {
        timer = setTimeout(() => {
          const idle = performance.now() - lastChunk;
          if (idle < timeouts.idleMs) return watch(timeouts.idleMs - idle);
          timedOut = `data within ${timeouts.idleMs} ms`;
          controller.abort();
        }, ms);
      };
      watch(timeouts.idleMs);
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          lastChunk = performance.now();
          chunks.push(value);
          total += value.length;
        }
      } catch (err) {
        await reader.cancel().catch(() => undefined);
        throw failed(err);
      } finally {
        clearTimeout(timer);
        detach();
      }
      if (chunks.length === 1) return chunks[0]!;
      const out = new Uint8Array(total);
      let at = 0;
      for (const c of chunks) {
        out.set(c, at);
        at += c.length;
      }
      return out;
    },
    async discard() {
      detach();
      await response.body?.cancel().catch(() => undefined);
    },
  };
}

/**
 * Runs `attempt` until it succeeds, fails with a non-transient error, or
 * `policy.retries` further attempts have failed. Waits are cut short by
 * `signal`.
 */
export async function withRetries<T>(attempt: () => Promise<T>, policy: RetryPolicy, signal?: AbortSignal): Promise<T> {
  for (let n = 0; ; n++) {
    try {
      return await attempt();
    } catch (err) {
      if (n >= policy.retries || !isTransient(err) || signal?.aborted) throw err;
      await sleep(policy.baseDelayMs * 2 ** n * (0.5 + Math.random()), signal);
    }
  }
}

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(abortedError(signal));
    const onAbort = () => {
      clearTimeout(t);
      reject(abortedError(signal!));
    };
    const t = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal?.addEventListener('abort', onAbort, { once: true });
  });
}

function abortedError(signal: AbortSignal, cause?: unknown): ClimateQueryError {
  // The engine's query budget aborts with an upstream_timeout as its reason: pass that on.
  if (signal.reason instanceof ClimateQueryError) return signal.reason;
  return new ClimateQueryError('aborted', 'The request was aborted.', { cause: cause ?? signal.reason });
}
