/**
 * Where a dataset lives: a base URL (browser, or Node over HTTP) or a local
 * folder (Node, see src/node/file-location.ts). The engine only needs to
 * read catalog.json as text and to resolve the paths the catalog lists.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { checkCatalog, type Catalog } from './catalog.ts';
import { DEFAULT_READ_TIMEOUTS, DEFAULT_RETRY, markTransient, timedFetch, withRetries, type ReadTimeouts, type RetryPolicy } from './timed-fetch.ts';

/** A dataset root. */
export interface DatasetLocation {
  /** The root as given, for messages. */
  readonly base: string;
  /** Absolute URL or path of a file the catalog lists. */
  resolve(path: string): string;
  /** Reads a small text file (catalog.json). */
  readText(path: string, signal?: AbortSignal): Promise<string>;
}

/** Time limits and retries of a {@link urlLocation}'s reads. */
export interface UrlLocationOptions {
  timeouts?: ReadTimeouts;
  retry?: RetryPolicy;
  /** The fetch to use; defaults to the global one. */
  fetch?: typeof fetch;
}

/**
 * A dataset served over HTTP(S) (or any URL `fetch` understands). Reads are
 * bounded in time and retried when the fault may pass (timed-fetch.ts).
 */
export function urlLocation(base: string | URL, options: UrlLocationOptions = {}): DatasetLocation {
  const root = new URL(String(base).endsWith('/') ? String(base) : `${String(base)}/`, globalThis.location?.href);
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeouts = options.timeouts ?? DEFAULT_READ_TIMEOUTS;
  return {
    base: root.href,
    resolve: (path) => new URL(path, root).href,
    async readText(path, signal) {
      const url = new URL(path, root).href;
      const bytes = await withRetries(
        async () => {
          const answer = await timedFetch(doFetch, url, { cache: 'no-cache' }, timeouts, signal);
          const { response } = answer;
          if (!response.ok) {
            await answer.discard();
            const error = new ClimateQueryError('dataset_unavailable', `Cannot fetch ${url}: HTTP ${response.status}. Is the dataset served there?`);
            throw response.status >= 500 || response.status === 429 ? markTransient(error) : error;
          }
          return answer.body();
        },
        options.retry ?? DEFAULT_RETRY,
        signal,
      );
      return new TextDecoder().decode(bytes);
    },
  };
}

/** Reads and checks catalog.json at the root of `location`. */
export async function loadCatalog(location: DatasetLocation, signal?: AbortSignal): Promise<Catalog> {
  const text = await location.readText('catalog.json', signal);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new ClimateQueryError('dataset_unavailable', `${location.resolve('catalog.json')} is not JSON; rebuild the dataset.`, { cause });
  }
  return checkCatalog(json, location.resolve('catalog.json'));
}
