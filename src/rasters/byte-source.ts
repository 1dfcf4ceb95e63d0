/**
 * Where raster bytes come from. The engine needs exactly one thing from a
 * file: "give me these bytes". Keeping that interface this narrow lets the
 * same engine read over HTTP Range requests (browser and Node), from local
 * files (Node, file-source.ts) or from anything a caller wraps, and lets
 * tests count what is read. This module must stay free of node:* imports:
 * it is bundled for the browser.
 */
import { ClimateQueryError } from '../contract/errors.ts';

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

/** Options of {@link createHttpSource}. */
export interface HttpSourceOptions {
  /** The fetch to use; defaults to the global one (tests and service workers pass their own). */
  fetch?: typeof fetch;
  /** Extra request headers, e.g. authorisation for a private bucket. */
  headers?: Record<string, string>;
}

/**
 * A {@link ByteSource} over HTTP Range requests. Works wherever `fetch`
 * exists (browsers, workers, Node ≥ 18). A server that ignores Range and
 * answers 200 with the whole file is tolerated: the body is kept and every
 * later read is served from it, so such a server costs one download, not
 * one per read.
 */
export function createHttpSource(url: string, options: HttpSourceOptions = {}): ByteSource {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  let whole: Uint8Array | null = null;
  let wholeRequest: Promise<Uint8Array> | null = null;

  const slice = (bytes: Uint8Array, offset: number, length: number) =>
    bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length));

  return {
    url,
    async read(offset, length, signal) {
      if (length <= 0) return new Uint8Array(0);
      if (whole) return slice(whole, offset, length);
      if (wholeRequest) return slice(await wholeRequest, offset, length);
      let response: Response;
      try {
        response = await doFetch(url, {
          headers: { ...options.headers, Range: `bytes=${offset}-${offset + length - 1}` },
          signal: signal ?? null,
        });
      } catch (err) {
        throw asSourceError(err, url, signal);
      }
      if (response.status === 206) {
        const bytes = new Uint8Array(await readBody(response, url, signal));
        const start = contentRangeStart(response.headers.get('Content-Range'));
        if (start !== null && start !== offset) {
          throw new ClimateQueryError('dataset_unavailable', `${url} answered a Range request for byte ${offset} with bytes from ${start}; the server's Range support is broken.`);
        }
        return bytes.length > length ? bytes.subarray(0, length) : bytes;
      }
      if (response.status === 416) {
        // Asked wholly past the end: block-aligned reads may do that on the last block.
        await response.body?.cancel().catch(() => undefined);
        return new Uint8Array(0);
      }
      if (response.status === 200) {
        // The server ignores Range: keep the whole file rather than download it again per read.
        wholeRequest = readBody(response, url, signal).then((b) => new Uint8Array(b));
        try {
          whole = await wholeRequest;
        } finally {
          wholeRequest = null;
        }
        return slice(whole, offset, length);
      }
      await response.body?.cancel().catch(() => undefined);
      throw new ClimateQueryError('dataset_unavailable', `Reading ${url} failed: HTTP ${response.status} ${response.statusText}.`.replace(' .', '.'));
    },
  };
}

async function readBody(response: Response, url: string, signal: AbortSignal | undefined): Promise<ArrayBuffer> {
  try {
    return await response.arrayBuffer();
  } catch (err) {
    throw asSourceError(err, url, signal);
  }
}

function contentRangeStart(header: string | null): number | null {
  const m = header ? /^bytes\s+(\d+)-\d+\/(?:\d+|\*)$/i.exec(header.trim()) : null;
  return m ? Number(m[1]) : null;
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
