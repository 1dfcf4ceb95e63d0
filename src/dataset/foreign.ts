/**
 * Sources a catalog references at an absolute URL, outside the dataset: a published Zarr store or
 * a COG collection read where it is (docs/decisions/0005-published-stores.md). Every other path a
 * catalog lists stays confined to the dataset (dataset-path.ts); only a referenced layer's source
 * may be foreign, and who may fetch what is the host's choice, made once in a
 * {@link ForeignOpener}: a page fetches under the browser's own rules (CORS), a server only from
 * the origins its operator allows (src/node/foreign-guard.ts).
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { truncate } from '../contract/quote.ts';
import { type ByteSource, type ExpectedFile, refusal } from '../io/byte-source.ts';
import { createHttpSource } from '../io/http-source.ts';
import { LinkMeter } from '../io/link-meter.ts';
import { DEFAULT_READ_TIMEOUTS, DEFAULT_RETRY, type ReadTimeouts, type RetryPolicy } from '../io/timed-fetch.ts';
import type { DatasetLocation } from './location.ts';

/** Longest foreign URL a catalog may hold (a template or a store's root). */
export const MAX_FOREIGN_URL = 1024;

/** Whether a catalog path is an absolute http(s) URL (a source referenced where it is published). */
export function isForeignPath(path: string): boolean {
  return /^https?:\/\//i.test(path);
}

/**
 * `value` as a foreign source's URL, or why it is not one: http or https, no user name or password
 * (a catalog is public), no query or fragment (a key is appended to it), no white space or control
 * character, at most {@link MAX_FOREIGN_URL} characters.
 */
export function foreignUrlProblem(value: string): string | null {
  if (value.length > MAX_FOREIGN_URL) return `is longer than ${MAX_FOREIGN_URL} characters`;
  if (/[\u0000-\u0020\u007f-\u009f\\]/.test(value)) return 'holds white space, a control character or "\\"';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'is not an http(s) URL';
  if (url.username || url.password) return 'holds a user name or password';
  if (url.search || url.hash || value.includes('?') || value.includes('#')) return 'holds a query or fragment';
  if (
    value
      .split('/')
      .slice(3)
      .some((s) => s === '..' || s === '.')
  )
    return 'holds a "." or ".." segment';
  return null;
}

/** How an engine reads a foreign source: checks a URL before any read, and opens it. */
export interface ForeignOpener {
  /** Throws `dataset_unavailable` when this engine may not read `url`, naming why and the way out. */
  check(url: string): void;
  /** Opens `url` (already checked) for reading. */
  open(url: string, expected: ExpectedFile): ByteSource;
}

/** An opener that reads nothing: every foreign URL is refused with `why`. */
export function noForeign(why: string): ForeignOpener {
  // A refusal (io/byte-source.ts): said as it is, never taken for a dataset changed on its host.
  const refuse = (url: string) => refusal(new ClimateQueryError('dataset_unavailable', `${truncate(url)}: ${why}`));
  return {
    check(url) {
      throw refuse(url);
    },
    open(url) {
      throw refuse(url);
    },
  };
}

/** Options of {@link directForeign}. */
export interface DirectForeignOptions {
  fetch?: typeof fetch;
  timeouts?: ReadTimeouts;
  retry?: RetryPolicy;
}

/**
 * Reads any http(s) URL with the platform's fetch: a page's or a Worker's, whose browser already
 * bounds what it may read (CORS: the foreign host must allow the app's origin, docs/deploy.md).
 * Each origin's reads are timed together, as a dataset's are.
 */
export function directForeign(options: DirectForeignOptions = {}): ForeignOpener {
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const meters = new Map<string, LinkMeter>();
  return {
    check(url) {
      const problem = foreignUrlProblem(url);
      if (problem)
        throw refusal(
          new ClimateQueryError('dataset_unavailable', `The catalog's source ${truncate(url)} ${problem}.`),
        );
    },
    open(url, expected) {
      const origin = new URL(url).origin;
      let meter = meters.get(origin);
      if (!meter) meters.set(origin, (meter = new LinkMeter()));
      return createHttpSource(url, {
        expected,
        fetch: doFetch,
        timeouts: options.timeouts ?? DEFAULT_READ_TIMEOUTS,
        retry: options.retry ?? DEFAULT_RETRY,
        meter,
      });
    },
  };
}

/**
 * `location` with foreign paths (absolute http(s) URLs) resolved and opened by `foreign`, every
 * other path by the location itself. Only the raster readers use it, and only a referenced
 * layer's source may be foreign (catalog-check.ts): a station file or a built layer's file
 * named by URL is refused before any reader sees it.
 */
export function withForeign(location: DatasetLocation, foreign: ForeignOpener): DatasetLocation {
  const resolve = (path: string) => {
    if (!isForeignPath(path)) return location.resolve(path);
    foreign.check(path);
    return path;
  };
  return {
    ...location,
    resolve,
    open: (path, expected = {}) =>
      isForeignPath(path) ? foreign.open(resolve(path), expected) : location.open(path, expected),
    readText: (path, signal, what) => location.readText(path, signal, what),
  };
}
