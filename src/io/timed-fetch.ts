/**
 * HTTP reads that always end. `fetch` has no timeout of its own, in Node or
 * in browsers: a server that stalls before its headers, or after them in
 * the middle of a body, hangs the read forever (docs/decisions/0002-platform-facts.md §HTTP).
 * Every dataset read goes through here, so each has a first-byte limit
 * (connect + headers), an idle limit between body chunks, and bounded
 * retries with exponential backoff and jitter for the faults that heal
 * (network errors, 5xx, timeouts, truncated bodies). Free of node:*
 * imports: it is bundled for the browser.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { onAbort } from './abortable.ts';

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

/** A time limit of one read in flight: `fire` runs once `at` (performance.now(), ms) has passed. */
interface Deadline {
  at: number;
  fire(): void;
}

/**
 * The time limits of every read in flight, watched by one timer armed for the earliest. Each read
 * adds and deletes its limits and moves its idle limit on as chunks arrive; no timer is set or
 * cleared per read or per chunk. (Two timer calls per request and per chunk were 38 ms of a cold
 * Worker's 446 ms in a 10-station daily nearest-station query in Chromium, more than the timer
 * work they guard.) With no read in flight no timer is left, so a Node process can exit.
 */
class Deadlines {
  private readonly all = new Set<Deadline>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private armedAt = Number.POSITIVE_INFINITY;

  add(d: Deadline): void {
    this.all.add(d);
    if (d.at < this.armedAt) this.arm(d.at);
  }

  delete(d: Deadline): void {
    this.all.delete(d);
    if (this.all.size === 0 && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.armedAt = Number.POSITIVE_INFINITY;
    }
  }

  private arm(at: number): void {
    if (this.timer !== undefined) clearTimeout(this.timer);
    this.armedAt = at;
    this.timer = setTimeout(() => this.check(), Math.max(0, at - performance.now()));
  }

  private check(): void {
    this.timer = undefined;
    this.armedAt = Number.POSITIVE_INFINITY;
    const now = performance.now();
    let next = Number.POSITIVE_INFINITY;
    for (const d of [...this.all]) {
      if (d.at <= now) {
        this.all.delete(d);
        d.fire();
      } else next = Math.min(next, d.at);
    }
    if (next < Number.POSITIVE_INFINITY) this.arm(next);
  }
}

const deadlines = new Deadlines();

/**
 * Most bytes one answer's body may bring unless its caller says less: far above any file of a
 * dataset a reader downloads whole (a catalog of 20 years of daily layers is ≈ 0.3 MB, a station
 * index of 2,000 stations ≈ 0.4 MB), far below what would exhaust a phone's tab.
 */
export const MAX_RESPONSE_BODY_BYTES = 256 * 1024 * 1024;

/** A response whose body is read under the idle limit. */
export interface TimedResponse {
  response: Response;
  /**
   * Reads the whole body; rejects with `upstream_timeout` when it stalls longer than the idle limit,
   * and with `dataset_unavailable` as soon as it passes `maxBytes` (default {@link MAX_RESPONSE_BODY_BYTES}):
   * what a host sends — decompressed, for a `Content-Encoding` the platform undoes — is bounded.
   */
  body(maxBytes?: number): Promise<Uint8Array>;
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
  // Behind one listener per signal (abortable.ts): an engine's lifetime signal has a fetch per
  // chunk in flight, and Node warned of a leak past ten (a CLI query of ten years over HTTP).
  const detach = signal ? onAbort(signal, () => controller.abort(signal.reason)) : () => undefined;
  /** A limit on this read, from now; its `at` moves on as the body arrives. */
  const limit = (what: string, ms: number): Deadline => {
    const d: Deadline = {
      at: performance.now() + ms,
      fire: () => {
        timedOut = `${what} within ${ms} ms`;
        controller.abort();
      },
    };
    deadlines.add(d);
    return d;
  };

  const failed = (err: unknown): ClimateQueryError => {
    if (timedOut)
      return markTransient(
        new ClimateQueryError(
          'upstream_timeout',
          `Reading ${url} timed out: no ${timedOut}. The host is too slow or not answering; try again later.`,
          { cause: err, params: { url, reason: 'timeout' } },
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
      new ClimateQueryError('dataset_unavailable', `${url} could not be reached — ${why}.`, {
        cause: err,
        params: { url, reason: 'unreachable' },
      }),
    );
  };

  const headers = limit('response', timeouts.firstByteMs);
  let response: Response;
  try {
    response = await doFetch(url, { ...init, signal: controller.signal });
  } catch (err) {
    detach();
    throw failed(err);
  } finally {
    deadlines.delete(headers);
  }

  return {
    response,
    async body(maxBytes = MAX_RESPONSE_BODY_BYTES) {
      const reader = response.body?.getReader();
      if (!reader) {
        detach();
        return new Uint8Array(0);
      }
      const chunks: Uint8Array[] = [];
      let total = 0;
      // The idle limit moves on with each chunk: no timer call per chunk (Deadlines, above).
      const idle = limit('data', timeouts.idleMs);
      try {
        for (;;) {
          const { done, value } = await reader.read();
          if (done) break;
          idle.at = performance.now() + timeouts.idleMs;
          total += value.length;
          if (total > maxBytes) {
            // A gzip bomb (713 KB inflating to 700 MiB) or a file far larger than asked for: stop here.
            await reader.cancel().catch(() => undefined);
            throw new ClimateQueryError(
              'dataset_unavailable',
              `${url} sent more than ${maxBytes.toLocaleString('en')} bytes${response.headers.get('Content-Encoding') ? ` (after undoing its ${response.headers.get('Content-Encoding')} encoding)` : ''}, more than the file can hold; the host serves something else, or the dataset is damaged.`,
            );
          }
          chunks.push(value);
        }
      } catch (err) {
        await reader.cancel().catch(() => undefined);
        throw failed(err);
      } finally {
        deadlines.delete(idle);
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
