/**
 * Where a dataset lives, and the one place its files are resolved, confined
 * and opened: a base URL (browser, or Node over HTTP) or a local folder
 * (Node, src/node/file-location.ts). Both readers (stations and rasters)
 * and the UI's previews go through {@link DatasetLocation.resolve} and
 * {@link DatasetLocation.open}, so a URL rule lives in one place.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { truncate } from '../contract/quote.ts';
import type { ByteSource, ExpectedFile } from '../io/byte-source.ts';
import { createHttpSource } from '../io/http-source.ts';
import { describeHostAnswer } from '../io/host-answer.ts';
import { DEFAULT_READ_TIMEOUTS, DEFAULT_RETRY, markTransient, timedFetch, withRetries, type ReadTimeouts, type RetryPolicy } from '../io/timed-fetch.ts';
import type { Catalog } from './catalog.ts';
import { checkCatalog } from './catalog-check.ts';
import { checkDatasetPath, encodeDatasetPath } from './dataset-path.ts';

/** A dataset root. */
export interface DatasetLocation {
  /** The root as given, for messages. */
  readonly base: string;
  /**
   * Absolute URL or path of a file the catalog or index lists: checked to be
   * a plain relative path, encoded for the host, and confined to the root
   * after parsing. Throws `dataset_unavailable` for a path that would leave it.
   */
  resolve(path: string): string;
  /** Opens a listed file for reading, told what the dataset records of it (a file that disagrees is refused). */
  open(path: string, expected?: ExpectedFile): ByteSource;
  /** Reads a small text file (catalog.json). */
  readText(path: string, signal?: AbortSignal): Promise<string>;
}

/** Time limits and retries of a {@link urlLocation}'s reads. */
export interface UrlLocationOptions {
  timeouts?: ReadTimeouts;
  retry?: RetryPolicy;
  /** The fetch to use; defaults to the global one. */
  fetch?: typeof fetch;
  /** Opens a resolved file URL; default HTTP Range reads ({@link createHttpSource}) with these options. */
  openSource?: (url: string, expected: ExpectedFile) => ByteSource;
}

/**
 * A dataset served over HTTP(S) (or any URL `fetch` understands). Reads are
 * bounded in time and retried when the fault may pass (io/timed-fetch.ts).
 */
export function urlLocation(base: string | URL, options: UrlLocationOptions = {}): DatasetLocation {
  const root = new URL(String(base).endsWith('/') ? String(base) : `${String(base)}/`, globalThis.location?.href);
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeouts = options.timeouts ?? DEFAULT_READ_TIMEOUTS;
  const retry = options.retry ?? DEFAULT_RETRY;
  const where = new URL('catalog.json', root).href;
  const resolve = (path: string): string => {
    const url = new URL(encodeDatasetPath(checkDatasetPath(path, where)), root);
    // Checked again after parsing: the text rules above are not the parser's rules.
    if (url.origin !== root.origin || !url.pathname.startsWith(root.pathname) || url.search || url.hash) {
      throw new ClimateQueryError('dataset_unavailable', `${where} lists the file ${JSON.stringify(truncate(path))}, which resolves to ${truncate(url.href)}, outside the dataset ${root.href}. Rebuild the dataset.`);
    }
    return url.href;
  };
  const openSource = options.openSource ?? ((url: string, expected: ExpectedFile) => createHttpSource(url, { expected, fetch: doFetch, timeouts, retry }));
  return {
    base: root.href,
    resolve,
    open: (path, expected = {}) => openSource(resolve(path), expected),
    async readText(path, signal) {
      const url = resolve(path);
      const bytes = await withRetries(
        async () => {
          const answer = await timedFetch(doFetch, url, { cache: 'no-cache' }, timeouts, signal);
          const { response } = answer;
          if (!response.ok) {
            await answer.discard();
            const error = new ClimateQueryError('dataset_unavailable', `Cannot fetch ${url}: ${describeHostAnswer(response)}. Is the dataset served there?`);
            throw response.status >= 500 || response.status === 429 ? markTransient(error) : error;
          }
          return answer.body();
        },
        retry,
        signal,
      );
      return new TextDecoder().decode(bytes);
    },
  };
}

/** The same location with files opened by `open` (a resolved URL or path in, a byte source out): for callers that count or wrap reads. */
export function withOpener(location: DatasetLocation, open: (resolved: string, expected?: ExpectedFile) => ByteSource): DatasetLocation {
  return { base: location.base, resolve: (p) => location.resolve(p), readText: (p, s) => location.readText(p, s), open: (p, e) => open(location.resolve(p), e) };
}

/** Reads and checks catalog.json at the root of `location`. */
export async function loadCatalog(location: DatasetLocation, signal?: AbortSignal): Promise<Catalog> {
  const text = await location.readText('catalog.json', signal);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    const head = text.trimStart().slice(0, 15).toLowerCase();
    const html = head.startsWith('<!doctype html') || head.startsWith('<html');
    throw new ClimateQueryError(
      'dataset_unavailable',
      html
        ? `${location.resolve('catalog.json')} is an HTML page, not the dataset's catalog: the dataset is not at that address, or the host answers index.html for unknown paths.`
        : `${location.resolve('catalog.json')} is not JSON; rebuild the dataset.`,
      { cause },
    );
  }
  return checkCatalog(json, location.resolve('catalog.json'));
}
