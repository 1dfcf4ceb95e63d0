/**
 * HTTP Range reads as a {@link ByteSource}: every answer checked before its
 * bytes are used (range-answer.ts, multi-range-answer.ts, against the file's
 * identity: file-identity.ts), every wait bounded and faults that may pass
 * retried (timed-fetch.ts). Free of node:* imports: it is bundled for the browser.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { asSourceError, type ByteSource, type ExpectedFile } from './byte-source.ts';
import { rangesHeader } from './byte-ranges.ts';
import { FileIdentity } from './file-identity.ts';
import type { LinkMeter } from './link-meter.ts';
import { multiRangeAnswer } from './multi-range-answer.ts';
import { rangeAnswer } from './range-answer.ts';
import {
  DEFAULT_READ_TIMEOUTS,
  DEFAULT_RETRY,
  timedFetch,
  withRetries,
  type ReadTimeouts,
  type RetryPolicy,
  type TimedResponse,
} from './timed-fetch.ts';

/**
 * Range reads skip the HTTP cache in Chromium-family browsers only. Their
 * cache lets one request per URL be in flight at a time (a single-writer
 * lock), so ranges of one file went out one after another: on the scale
 * bench, 20 coverage-line reads took 20 × 45 ms in a row instead of four
 * rounds. Elsewhere `no-store` is not free: Node's fetch and Safari turn it
 * into `Cache-Control: no-cache` request headers, which send every read past
 * a CDN to the origin. `navigator.userAgentData` exists in Chromium's pages
 * and Workers only, on secure origins; over plain HTTP its user-agent string
 * says "Chrome/" (WebKit-based iOS browsers say "CriOS/"). Warm reads are
 * served by the engine's own caches.
 */
const BYPASS_HTTP_CACHE =
  typeof navigator !== 'undefined' && ('userAgentData' in navigator || /\bChrome\//.test(navigator.userAgent ?? ''));

/** Options of {@link createHttpSource}. */
export interface HttpSourceOptions {
  /** The fetch to use; defaults to the global one (tests and service workers pass their own). */
  fetch?: typeof fetch;
  /** Extra request headers, e.g. authorisation for a private bucket. */
  headers?: Record<string, string>;
  /** The file as the catalog lists it. */
  expected?: ExpectedFile;
  /** Time limits of each request (default {@link DEFAULT_READ_TIMEOUTS}). */
  timeouts?: ReadTimeouts;
  /** Retries of failed reads (default {@link DEFAULT_RETRY}). */
  retry?: RetryPolicy;
  /** Told the timing of every answer received whole (the dataset's {@link LinkMeter}). */
  meter?: LinkMeter;
  /**
   * Whether the host answers several ranges in one request (`multipart/byteranges`), as its
   * dataset location found out ({@link MultiRange}); without it every range is its own request.
   */
  multiRange?: MultiRange;
}

/**
 * What a dataset's host is known to do with several ranges in one request, shared by the files
 * of one location: `usable()` is true only once a probe saw a `multipart/byteranges` answer, and
 * `unusable()` turns it off when an answer could not be used (then every range is read alone).
 */
export interface MultiRange {
  usable(): boolean;
  unusable(): void;
}

/** Most ranges asked in one request: hosts cap them (Apache's default is 200), and a long header may be refused. */
export const MAX_RANGES_PER_REQUEST = 64;

/**
 * A {@link ByteSource} over HTTP Range requests. Works wherever `fetch`
 * exists (browsers, workers, Node ≥ 18).
 *
 * Every request is bounded in time and retried when the fault may pass
 * (timed-fetch.ts). Every answer is checked before its bytes are used: a
 * 206 must start where asked, be as long as its Content-Range says, and
 * name the total size the catalog lists, and end where asked unless the
 * file ends first; the ETag and Last-Modified must stay the ones first
 * seen. A file that no longer matches fails with `dataset_changed`, so
 * bytes of two versions are never mixed.
 *
 * A server that ignores Range and answers 200 with the whole file is
 * tolerated: the body is kept (after checking its length, and its SHA-256
 * when the catalog gives one) and every later read is served from it, so
 * such a server costs one download, not one per read.
 */
export function createHttpSource(url: string, options: HttpSourceOptions = {}): ByteSource {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeouts = options.timeouts ?? DEFAULT_READ_TIMEOUTS;
  const retry = options.retry ?? DEFAULT_RETRY;
  const id = new FileIdentity(url, options.expected);
  // The whole file, once a host that ignores Range has sent it (checked): later reads are cut from it.
  let whole: Uint8Array | null = null;

  const slice = (bytes: Uint8Array, offset: number, length: number) =>
    bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length));

  /** One GET of `range`, bounded in time; `timed` tells the link meter of the body once received. */
  async function rangeGet(
    range: string,
    signal?: AbortSignal,
  ): Promise<{ answer: TimedResponse; timed: (bytes: Uint8Array) => void }> {
    // No If-Match: it is not a CORS-safelisted header, so every cross-origin
    // Range read would need a preflight, and hosts that allow only Range would
    // refuse it. The ETag of each answer is compared instead.
    const headers: Record<string, string> = { ...options.headers, Range: range };
    const sent = performance.now();
    const answer = await timedFetch(
      doFetch,
      url,
      BYPASS_HTTP_CACHE ? { headers, cache: 'no-store' } : { headers },
      timeouts,
      signal,
    );
    const headed = performance.now();
    const timed = (bytes: Uint8Array) =>
      options.meter?.record({
        bytes: bytes.length,
        waitMs: headed - sent,
        bodyMs: performance.now() - headed,
        url,
        sentAt: sent,
      });
    return { answer, timed };
  }

  async function read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array> {
    if (length <= 0) return new Uint8Array(0);
    if (whole) return slice(whole, offset, length);
    try {
      const got = await withRetries(
        async () => {
          const { answer, timed } = await rangeGet(`bytes=${offset}-${offset + length - 1}`, signal);
          return rangeAnswer(id, answer, timed, offset, length);
        },
        retry,
        signal,
      );
      if (!got.whole) return got.bytes;
      // Only a complete, checked body is kept (never one cut short).
      whole = got.bytes;
      return slice(whole, offset, length);
    } catch (err) {
      throw asSourceError(err, url, signal);
    }
  }

  return {
    url,
    read,
    readRanges(ranges, signal) {
      const one = ([start, end]: readonly [number, number]) => read(start, end - start, signal);
      const multi = options.multiRange;
      if (whole || ranges.length < 2 || !multi?.usable()) return ranges.map(one);
      const out: Array<Promise<Uint8Array>> = [];
      for (let i = 0; i < ranges.length; i += MAX_RANGES_PER_REQUEST) {
        const batch = ranges.slice(i, i + MAX_RANGES_PER_REQUEST);
        const many = async () => {
          const { answer, timed } = await rangeGet(rangesHeader(batch), signal);
          return multiRangeAnswer(id, answer, timed, batch);
        };
        const got = withRetries(many, retry, signal).then(
          (answer) => {
            if (answer?.whole) whole = answer.whole;
            if (answer?.unsupported) multi.unusable();
            return answer?.parts ?? null;
          },
          (err: unknown) => {
            // A changed file or an abort ends every range; any other failure leaves them to single reads.
            if (signal?.aborted || (err instanceof ClimateQueryError && err.code === 'dataset_changed'))
              throw asSourceError(err, url, signal);
            return null;
          },
        );
        for (const [j, r] of batch.entries()) out.push(got.then((parts) => parts?.[j] ?? one(r)));
      }
      return out;
    },
  };
}
