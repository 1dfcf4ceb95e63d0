/**
 * Where raster bytes come from. The engine needs exactly one thing from a
 * file: "give me these bytes". Keeping that interface this narrow lets the
 * same engine read over HTTP Range requests (browser and Node), from local
 * files (Node, file-source.ts) or from anything a caller wraps, and lets
 * tests count what is read. This module must stay free of node:* imports:
 * it is bundled for the browser.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { DEFAULT_READ_TIMEOUTS, DEFAULT_RETRY, markTransient, timedFetch, withRetries, type ReadTimeouts, type RetryPolicy } from '../dataset/timed-fetch.ts';

/** A read-only file addressed by byte offsets. */
export interface ByteSource {
  /** Where the bytes come from, for messages and as the cache key of opened files. */
  readonly url: string;
  /**
   * Reads `length` bytes starting at `offset`. Returns fewer bytes only when
   * the file ends first (none when `offset` is at or past the end).
   */
  read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array>;
  /** Releases what the source holds open (file handles); optional. */
  close?(): Promise<void>;
}

/** What the catalog says of a file: a response that disagrees means the file changed since the catalog was written. */
export interface ExpectedFile {
  /** Size in bytes. */
  bytes?: number;
  /** Lower-case hex SHA-256 of the whole file; checked whenever the whole file is downloaded. */
  sha256?: string;
}

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
const BYPASS_HTTP_CACHE = typeof navigator !== 'undefined' && ('userAgentData' in navigator || /\bChrome\//.test(navigator.userAgent ?? ''));

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
}

/**
 * A {@link ByteSource} over HTTP Range requests. Works wherever `fetch`
 * exists (browsers, workers, Node ≥ 18).
 *
 * Every request is bounded in time and retried when the fault may pass
 * (timed-fetch.ts). Every answer is checked before its bytes are used: a
 * 206 must start where asked, be as long as its Content-Range says, and
 * name the total size the catalog lists; the ETag must stay the one first
 * seen. A file that no longer matches fails with
 * `dataset_changed`, so bytes of two versions are never mixed.
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
  const expected = options.expected ?? {};
  let size: number | null = expected.bytes ?? null;
  let etag: string | null = null;
  let whole: Uint8Array | null = null;

  const slice = (bytes: Uint8Array, offset: number, length: number) =>
    bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length));
  const changed = (what: string) =>
    new ClimateQueryError('dataset_changed', `${url} changed while it was being read, or differs from what the dataset records (${what}). If the dataset is being redeployed, ask again in a moment; otherwise the file is damaged: rebuild or redeploy the dataset whole.`);

  /** Checks the answer's identity against what earlier answers and the catalog said. */
  const checkIdentity = (response: Response, total: number | null) => {
    const tag = response.headers.get('ETag');
    if (tag) {
      if (etag && tag !== etag) throw changed(`ETag ${etag} became ${tag}`);
      etag ??= tag;
    }
    if (total !== null) {
      if (size !== null && total !== size) throw changed(`${size} bytes expected, the server has ${total}`);
      size ??= total;
    }
  };

  async function attempt(offset: number, length: number, signal?: AbortSignal): Promise<{ bytes: Uint8Array; whole: boolean }> {
    // No If-Match: it is not a CORS-safelisted header, so every cross-origin
    // Range read would need a preflight, and hosts that allow only Range would
    // refuse it. The ETag of each answer is compared instead.
    const headers: Record<string, string> = { ...options.headers, Range: `bytes=${offset}-${offset + length - 1}` };
    const answer = await timedFetch(doFetch, url, BYPASS_HTTP_CACHE ? { headers, cache: 'no-store' } : { headers }, timeouts, signal);
    const { response } = answer;
    if (response.status === 206) {
      const range = parseContentRange(response.headers.get('Content-Range'));
      if (!range) {
        await answer.discard();
        throw new ClimateQueryError('dataset_unavailable', `${url} answered a Range request without a valid Content-Range header; the server's Range support is broken.`);
      }
      checkIdentity(response, range.total);
      if (range.start !== offset || range.end < range.start) {
        await answer.discard();
        // Seen from proxies and CDNs that pass; another attempt costs little.
        throw markTransient(new ClimateQueryError('dataset_unavailable', `${url} answered a Range request for byte ${offset} with bytes from ${range.start}; the server's Range support is broken.`));
      }
      const bytes = await answer.body();
      const want = range.end - range.start + 1;
      if (bytes.length < want) throw markTransient(new ClimateQueryError('dataset_unavailable', `Reading ${url} failed: the body ended after ${bytes.length} of ${want} bytes.`));
      if (bytes.length > want) throw new ClimateQueryError('dataset_unavailable', `${url} sent ${bytes.length} bytes for a range of ${want}; the server's Range support is broken.`);
      return { bytes: bytes.length > length ? bytes.subarray(0, length) : bytes, whole: false };
    }
    if (response.status === 416) {
      // Asked wholly past the end: block-aligned reads may do that on the last block.
      const range = /^bytes\s+\*\/(\d+)$/i.exec(response.headers.get('Content-Range')?.trim() ?? '');
      await answer.discard();
      const total = range ? Number(range[1]) : null;
      checkIdentity(response, total);
      if (size !== null && offset < size) throw changed(`byte ${offset} is past its end now`);
      return { bytes: new Uint8Array(0), whole: false };
    }
    if (response.status === 412) {
      await answer.discard();
      throw changed('its ETag no longer matches');
    }
    if (response.status === 200) {
      // The server ignores Range: keep the whole file rather than download it again per read.
      const declared = Number(response.headers.get('Content-Length') ?? NaN);
      checkIdentity(response, null);
      const bytes = await answer.body();
      if (Number.isFinite(declared) && bytes.length < declared) {
        throw markTransient(new ClimateQueryError('dataset_unavailable', `Reading ${url} failed: the body ended after ${bytes.length} of ${declared} bytes.`));
      }
      if (size !== null && bytes.length !== size) throw changed(`${size} bytes expected, the server sent ${bytes.length}`);
      if (expected.sha256) {
        const digest = await sha256Hex(bytes);
        if (digest !== null && digest !== expected.sha256) throw changed('its SHA-256 differs from the catalog');
      }
      size ??= bytes.length;
      return { bytes, whole: true };
    }
    await answer.discard();
    const error = new ClimateQueryError('dataset_unavailable', `Reading ${url} failed: HTTP ${response.status} ${response.statusText}.`.replace(' .', '.'));
    // 5xx and 429 pass; 404 and 403 do not.
    throw response.status >= 500 || response.status === 429 ? markTransient(error) : error;
  }

  return {
    url,
    async read(offset, length, signal) {
      if (length <= 0) return new Uint8Array(0);
      if (whole) return slice(whole, offset, length);
      try {
        const got = await withRetries(() => attempt(offset, length, signal), retry, signal);
        if (!got.whole) return got.bytes;
        // Only a complete, checked body is kept (never one cut short).
        whole = got.bytes;
        return slice(whole, offset, length);
      } catch (err) {
        throw asSourceError(err, url, signal);
      }
    },
  };
}

interface ContentRange {
  start: number;
  end: number;
  total: number | null;
}

function parseContentRange(header: string | null): ContentRange | null {
  const m = header ? /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(header.trim()) : null;
  return m ? { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? null : Number(m[3]) } : null;
}

/** Hex SHA-256 with Web Crypto; null where it is missing (insecure origins), so the check is skipped, not failed. */
async function sha256Hex(bytes: Uint8Array): Promise<string | null> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) return null;
  const digest = new Uint8Array(await subtle.digest('SHA-256', bytes as Uint8Array<ArrayBuffer>));
  return [...digest].map((b) => b.toString(16).padStart(2, '0')).join('');
}

/** Maps a failed read to `aborted` (the caller gave up) or `dataset_unavailable` (the file is not there). */
export function asSourceError(err: unknown, url: string, signal?: AbortSignal): ClimateQueryError {
  if (err instanceof ClimateQueryError) return err;
  const name = typeof err === 'object' && err !== null ? (err as { name?: unknown }).name : undefined;
  if (signal?.aborted || name === 'AbortError') {
    return new ClimateQueryError('aborted', 'The request was aborted.', { cause: err });
  }
  const detail = err instanceof Error ? err.message : String(err);
  return new ClimateQueryError('dataset_unavailable', `Reading ${url} failed: ${detail}`, { cause: err });
}

/**
 * Resolves `path` (relative to a dataset root, as catalog.json lists it)
 * against `baseUrl`. A base without a trailing slash is taken as a folder.
 * Relative bases ("/data/demo/") resolve against the page in a browser; in
 * Node, where there is no page, they are joined as plain paths.
 */
export function resolveDatasetUrl(baseUrl: string, path: string): string {
  const base = baseUrl.endsWith('/') ? baseUrl : `${baseUrl}/`;
  try {
    return new URL(path, base).href;
  } catch {
    // Not an absolute URL: resolve against the page when there is one.
    // (gdal3.js sets a fake `location` without `href` in Node, hence the type check.)
    const href = (globalThis as { location?: { href?: unknown } }).location?.href;
    if (typeof href === 'string') return new URL(path, new URL(base, href)).href;
    return base + path;
  }
}
