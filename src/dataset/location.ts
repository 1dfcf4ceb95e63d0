/**
 * Where a dataset lives: a base URL (browser, or Node over HTTP) or a local
 * folder (Node, see src/node/file-location.ts). The engine only needs to
 * read catalog.json as text and to resolve the paths the catalog lists.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import { checkCatalog, type Catalog } from './catalog.ts';

/** A dataset root. */
export interface DatasetLocation {
  /** The root as given, for messages. */
  readonly base: string;
  /** Absolute URL or path of a file the catalog lists. */
  resolve(path: string): string;
  /** Reads a small text file (catalog.json). */
  readText(path: string, signal?: AbortSignal): Promise<string>;
}

/** A dataset served over HTTP(S) (or any URL `fetch` understands). */
export function urlLocation(base: string | URL): DatasetLocation {
  const root = new URL(String(base).endsWith('/') ? String(base) : `${String(base)}/`, globalThis.location?.href);
  return {
    base: root.href,
    resolve: (path) => new URL(path, root).href,
    async readText(path, signal) {
      const url = new URL(path, root).href;
      let res: Response;
      try {
        res = await fetch(url, signal ? { signal } : {});
      } catch (cause) {
        if (signal?.aborted) throw cause;
        throw new ClimateQueryError('dataset_unavailable', `Cannot fetch ${url}: ${(cause as Error).message}. Is the dataset served there?`, { cause });
      }
      if (!res.ok) throw new ClimateQueryError('dataset_unavailable', `Cannot fetch ${url}: HTTP ${res.status}. Is the dataset served there?`);
      return res.text();
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
