/**
 * Loads the dataset the app was opened with (`?data=URL`) and, when that
 * fails, says why in words a person can act on: the URL, and whether it
 * was not found (HTTP status), a web page instead of the catalog, not
 * reachable at all (server down, or no CORS), or not a catalog. It also
 * checks that the host answers HTTP Range requests, which station and
 * layer reads use; a host that ignores them still works (the engine then
 * downloads whole files, src/rasters/byte-source.ts), so that is a
 * warning, not an error.
 */
import type { Catalog } from '../dataset/catalog.ts';
import { checkCatalog } from '../dataset/catalog-check.ts';

/** A dataset that could not be loaded; `message` is for people and names the URL. */
export class DatasetLoadError extends Error {
  constructor(
    message: string,
    /** Why: the HTTP status, a web page, the network (or CORS), or content that is not a catalog. */
    readonly reason: 'http' | 'html' | 'network' | 'not-catalog',
    /** The URL that failed. */
    readonly url: string,
  ) {
    super(message);
    this.name = 'DatasetLoadError';
  }
}

/** The message for a fetch that threw: browsers give only "Failed to fetch", for a dead host and a CORS refusal alike. */
function unreachable(url: string): DatasetLoadError {
  return new DatasetLoadError(`${url} could not be reached — the server may be down or not allow cross-origin requests (CORS).`, 'network', url);
}

/** What to do about a missing or wrong catalog, when the app was opened with ?data=. */
export const DATA_ADVICE = 'Check that ?data= points to the folder that holds catalog.json.';

/**
 * Fetches `url` (`what` names it for people, e.g. "The dataset's catalog")
 * and returns the response when it is a 2xx, or throws a
 * {@link DatasetLoadError} saying why not, followed by `advice`.
 */
export async function fetchChecked(url: string, what: string, advice = DATA_ADVICE): Promise<Response> {
  let response: Response;
  try {
    response = await fetch(url);
  } catch {
    throw unreachable(url);
  }
  if (!response.ok) {
    await response.body?.cancel().catch(() => undefined);
    const why = response.status === 404 ? 'was not found (HTTP 404)' : `could not be read: the server answered HTTP ${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
    throw new DatasetLoadError(`${what} ${url} ${why}. ${advice}`, 'http', url);
  }
  return response;
}

/** Whether a body is a web page: by its Content-Type, or by how it starts (hosts that answer every path with their index page). */
function isHtml(response: Response, text: string): boolean {
  return /html/i.test(response.headers.get('Content-Type') ?? '') || /^\s*<(!doctype|html|head|body)/i.test(text);
}

/** Reads and checks `catalog.json` under `datasetUrl`; `advice` ends the message of a missing catalog or a web page. */
export async function loadCatalog(datasetUrl: string, advice = DATA_ADVICE): Promise<Catalog> {
  const url = new URL('catalog.json', datasetUrl).href;
  const response = await fetchChecked(url, "The dataset's catalog", advice);
  let text: string;
  try {
    text = await response.text();
  } catch {
    throw unreachable(url);
  }
  if (isHtml(response, text)) {
    throw new DatasetLoadError(`${url} is a web page (HTML), not a dataset catalog (JSON); the server may answer every address with its home page. ${advice}`, 'html', url);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    throw new DatasetLoadError(`${url} is not a dataset catalog: it is not JSON (${(e as Error).message}).`, 'not-catalog', url);
  }
  try {
    return checkCatalog(value, url);
  } catch (e) {
    throw new DatasetLoadError((e as Error).message, 'not-catalog', url);
  }
}

/**
 * Checks that the dataset's host answers a Range request for bytes=0-0
 * with 206. Returns a warning for people, or null when Range works (or
 * could not be checked: the catalog read already succeeded, so the host
 * is there, and the queries will say more if it fails).
 */
export async function rangeWarning(datasetUrl: string): Promise<string | null> {
  const url = new URL('catalog.json', datasetUrl).href;
  let response: Response;
  try {
    // A single range is a CORS-safelisted header: no preflight, so this works cross-origin as the reads do.
    response = await fetch(url, { headers: { Range: 'bytes=0-0' }, cache: 'no-store' });
  } catch {
    return null;
  }
  await response.body?.cancel().catch(() => undefined);
  if (response.status === 206) return null;
  if (response.status !== 200) return null;
  const host = new URL(datasetUrl).host;
  return `The server ${host} does not support HTTP Range requests (it answered 200 instead of 206 to a request for one byte of ${url}). Station and layer reads need Range support to fetch only the bytes a query uses; here each query downloads whole files, so answers will be slow and use much more data.`;
}
