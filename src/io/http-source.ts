/**
 * HTTP Range reads as a {@link ByteSource}: every answer checked before its
 * bytes are used, every wait bounded (timed-fetch.ts). Free of node:*
 * imports: it is bundled for the browser.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { absence, asSourceError, type ByteSource, type ExpectedFile } from './byte-source.ts';
import { byteRangesBoundary, parseByteRanges, rangesHeader, type BytePart } from './byte-ranges.ts';
import { sha256Hex } from './digest.ts';
import { describeHostAnswer, isPageAnswer, looksLikePage, PAGE_INSTEAD_OF_FILE } from './host-answer.ts';
import {
  DEFAULT_READ_TIMEOUTS,
  DEFAULT_RETRY,
  markTransient,
  timedFetch,
  withRetries,
  type ReadTimeouts,
  type RetryPolicy,
  type TimedResponse,
} from './timed-fetch.ts';
import type { LinkMeter } from './link-meter.ts';

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

/** A whole file sent for several ranges is kept when at most this much larger than they are; larger, it is not read on. */
const WHOLE_ANSWER_SLACK = 64 * 1024;

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
  const expected = options.expected ?? {};
  let size: number | null = expected.bytes ?? null;
  let etag: string | null = null;
  let modified: string | null = null;
  let whole: Uint8Array | null = null;

  const slice = (bytes: Uint8Array, offset: number, length: number) =>
    bytes.subarray(Math.min(offset, bytes.length), Math.min(offset + length, bytes.length));
  const changed = (what: string) =>
    new ClimateQueryError(
      'dataset_changed',
      `The dataset file ${url} is not the one its index records (${what}): it changed while being read, or the host serves another version. If a redeploy is under way, ask again in a moment; otherwise copy the dataset to the host again, whole.`,
    );
  /** The host answered a page (SPA fallback, 404 page as 200, S3 XML): not the file, and not a changed dataset. */
  const notTheFile = (what: string) =>
    new ClimateQueryError(
      'dataset_unavailable',
      `The dataset file ${url} could not be read: ${PAGE_INSTEAD_OF_FILE} (${what}).`,
    );

  /** Checks the answer's identity against what earlier answers and the catalog said. */
  const checkIdentity = (response: Response, total: number | null) => {
    const tag = response.headers.get('ETag');
    if (tag) {
      if (etag && tag !== etag) throw changed(`ETag ${etag} became ${tag}`);
      etag ??= tag;
    }
    // Hosts without ETags (Python's http.server, some WebDAV shares) still say when the file last
    // changed: a different date is a different file, even of the same size.
    const date = response.headers.get('Last-Modified');
    if (date) {
      if (modified && date !== modified) throw changed(`Last-Modified ${modified} became ${date}`);
      modified ??= date;
    }
    if (total !== null) {
      if (size !== null && total !== size) throw changed(`${size} bytes expected, the server has ${total}`);
      size ??= total;
    }
  };

  /** The body of a 200 (the server ignores Range), checked to be the whole file, to keep rather than download again per read. */
  async function wholeBody(answer: TimedResponse, timed: (bytes: Uint8Array) => void): Promise<Uint8Array> {
    const { response } = answer;
    const declared = Number(response.headers.get('Content-Length') ?? NaN);
    checkIdentity(response, null);
    // The whole file: at most its catalogued size (a page or a bomb is cut there), else the default bound.
    const bytes = await answer.body(size !== null ? size + 1 : undefined);
    timed(bytes);
    // A page sent without a Content-Type (or as octet-stream) is still a page.
    if (size !== null && bytes.length !== size && looksLikePage(bytes))
      throw notTheFile(`HTTP 200, ${bytes.length} bytes of HTML where ${size} bytes of data were expected`);
    if (Number.isFinite(declared) && bytes.length < declared) {
      throw markTransient(
        new ClimateQueryError(
          'dataset_unavailable',
          `Reading ${url} failed: the body ended after ${bytes.length} of ${declared} bytes.`,
        ),
      );
    }
    if (size !== null && bytes.length !== size)
      throw changed(`${size} bytes expected, the server sent ${bytes.length}`);
    if (expected.sha256 && (await sha256Hex(bytes)) !== expected.sha256)
      throw changed('its SHA-256 differs from the catalog');
    size ??= bytes.length;
    return bytes;
  }

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

  async function attempt(
    offset: number,
    length: number,
    signal?: AbortSignal,
  ): Promise<{ bytes: Uint8Array; whole: boolean }> {
    const { answer, timed } = await rangeGet(`bytes=${offset}-${offset + length - 1}`, signal);
    const { response } = answer;
    if ((response.status === 206 || response.status === 200) && isPageAnswer(response)) {
      await answer.discard();
      throw notTheFile(`HTTP ${response.status}, ${response.headers.get('Content-Type')}`);
    }
    if (response.status === 206) {
      const range = parseContentRange(response.headers.get('Content-Range'));
      if (!range) {
        await answer.discard();
        throw new ClimateQueryError(
          'dataset_unavailable',
          `${url} answered a Range request without a valid Content-Range header; the server's Range support is broken.`,
        );
      }
      checkIdentity(response, range.total);
      if (range.start !== offset || range.end < range.start) {
        await answer.discard();
        // Seen from proxies and CDNs that pass; another attempt costs little.
        throw markTransient(
          new ClimateQueryError(
            'dataset_unavailable',
            `${url} answered a Range request for byte ${offset} with bytes from ${range.start}; the server's Range support is broken.`,
          ),
        );
      }
      const bytes = await answer.body(range.end - range.start + 1);
      timed(bytes);
      const want = range.end - range.start + 1;
      if (bytes.length < want)
        throw markTransient(
          new ClimateQueryError(
            'dataset_unavailable',
            `Reading ${url} failed: the body ended after ${bytes.length} of ${want} bytes.`,
          ),
        );
      if (bytes.length > want)
        throw new ClimateQueryError(
          'dataset_unavailable',
          `${url} sent ${bytes.length} bytes for a range of ${want}; the server's Range support is broken.`,
        );
      // Fewer bytes than asked are only right at the end of the file: a shorter answer before it
      // (headers that match a cut body) would be taken as the end, and zeros read past it.
      const total = range.total ?? size;
      if (want < length && total !== null && range.end + 1 < total) {
        throw markTransient(
          new ClimateQueryError(
            'dataset_unavailable',
            `Reading ${url} failed: asked for bytes ${offset}–${offset + length - 1}, the server sent only up to ${range.end} of a ${total}-byte file.`,
          ),
        );
      }
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
    if (response.status === 200) return { bytes: await wholeBody(answer, timed), whole: true };
    await answer.discard();
    const error = new ClimateQueryError(
      'dataset_unavailable',
      `The dataset file ${url} could not be read: ${describeHostAnswer(response)}.`,
    );
    // 5xx and 429 pass; 404 and 403 do not.
    if (response.status >= 500 || response.status === 429) throw markTransient(error);
    throw response.status === 404 ? absence(error) : error;
  }

  /**
   * Several ranges in one request. `parts`: the bytes of each range a part of the answer holds
   * (null for those it does not); `unsupported`: the answer shows the host does not send parts
   * (a 200, a single range, a body that is not parts), so later reads ask one range each. Null:
   * an answer not to use (a 404, a page), whose ranges are read one by one and tell why. A failed
   * request (timeout, reset, 5xx, 429) throws a transient error, retried like single reads; a
   * file that changed throws `dataset_changed`, as for single reads.
   */
  async function attemptMany(
    ranges: ReadonlyArray<readonly [number, number]>,
    signal?: AbortSignal,
  ): Promise<{ parts: Array<Uint8Array | null>; unsupported: boolean } | null> {
    const { answer, timed } = await rangeGet(rangesHeader(ranges), signal);
    const { response } = answer;
    const none = { parts: ranges.map(() => null), unsupported: true };
    if (response.status === 200 && !isPageAnswer(response)) {
      // The whole file: kept when it is about what was asked (as for one range), else not read on:
      // every multi-range read of a large file would otherwise download it whole.
      const declared = Number(response.headers.get('Content-Length') ?? NaN);
      const asked = ranges.reduce((n, [a, b]) => n + b - a, 0);
      if (Number.isFinite(declared) && declared <= asked + WHOLE_ANSWER_SLACK) whole = await wholeBody(answer, timed);
      else await answer.discard();
      return none;
    }
    if (response.status >= 500 || response.status === 429) {
      await answer.discard();
      throw markTransient(
        new ClimateQueryError('dataset_unavailable', `${url} could not be read: ${describeHostAnswer(response)}.`),
      );
    }
    if (response.status === 416) {
      await answer.discard();
      return none;
    }
    if (response.status !== 206 || isPageAnswer(response)) {
      await answer.discard();
      return null;
    }
    const body = await answer.body();
    timed(body);
    const boundary = byteRangesBoundary(response.headers.get('Content-Type'));
    let parts: BytePart[] | null;
    if (boundary) parts = parseByteRanges(body, boundary);
    else {
      // One range sent back as a plain 206 (a host that answers only the first): used for that one.
      const r = parseContentRange(response.headers.get('Content-Range'));
      parts = r && body.length === r.end - r.start + 1 ? [{ ...r, bytes: body }] : null;
    }
    if (!parts) return none;
    checkIdentity(response, null);
    for (const p of parts) {
      if (p.total !== null) checkIdentity(response, p.total);
      if (size !== null && p.end >= size) return none;
    }
    // A host may merge near ranges into one part (RFC 9110 §14.6): any part covering a range serves
    // it, copied out when the part is larger (not to keep the whole part for one range).
    return {
      parts: ranges.map(([start, end]) => {
        const p = parts.find((x) => x.start <= start && end - 1 <= x.end);
        if (!p) return null;
        const bytes = p.bytes.subarray(start - p.start, end - p.start);
        return bytes.length === p.bytes.length ? bytes : bytes.slice();
      }),
      unsupported: !boundary,
    };
  }

  async function read(offset: number, length: number, signal?: AbortSignal): Promise<Uint8Array> {
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
        const got = withRetries(() => attemptMany(batch, signal), retry, signal).then(
          (many) => {
            if (many?.unsupported) multi.unusable();
            return many?.parts ?? null;
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

interface ContentRange {
  start: number;
  end: number;
  total: number | null;
}

function parseContentRange(header: string | null): ContentRange | null {
  const m = header ? /^bytes\s+(\d+)-(\d+)\/(\d+|\*)$/i.exec(header.trim()) : null;
  return m ? { start: Number(m[1]), end: Number(m[2]), total: m[3] === '*' ? null : Number(m[3]) } : null;
}
