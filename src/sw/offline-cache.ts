/**
 * The service worker's offline part (docs/offline.md, "Offline"):
 *
 * - the app shell (index.html, the built JS/CSS, the offline basemap's
 *   data and font) is precached at install, in a cache named by the
 *   build's content hash, and served cache-first: every name but
 *   index.html carries its content hash, and index.html belongs to the
 *   build whose sw.js lists it;
 * - the dataset files a page asks to keep (catalog.json, the station
 *   index) are served network-first with a short timeout and a cached
 *   fallback, so a redeployed dataset is picked up online and the app
 *   still starts offline;
 * - everything else (Range reads of station Parquet, layer chunks and GeoTIFF tiles) goes to
 *   the network untouched: answers already obtained are kept by the page
 *   in IndexedDB instead (src/ui/saved-store.ts).
 *
 * The build writes the shell's list into sw.js (scripts/vite-precache-plugin.ts);
 * without it (the dev server, a library user's own bundle) nothing is precached.
 */
/// <reference lib="webworker" />

declare const self: ServiceWorkerGlobalScope & {
  __CLIMATE_QUERY_PRECACHE__?: { version: string; files: string[]; bytes: number };
};

/** Prefix of the shell caches; the build's hash follows it. */
export const SHELL_CACHE_PREFIX = 'climate-query-shell-';
/** The cache of kept dataset files; not versioned, as a dataset changes apart from the app. */
export const DATA_CACHE = 'climate-query-data';
/** How long a network-first read waits before the cached copy answers (a farm's link can hang for minutes). */
export const NETWORK_FIRST_TIMEOUT_MS = 4000;

/** Page → service worker: keep these dataset files for offline starts; the reply on `ports[0]` says what was kept. */
export interface KeepRequest {
  type: 'climate-query:keep';
  urls: string[];
}

/** Service worker → page: what {@link KeepRequest} stored. */
export interface KeepReply {
  type: 'climate-query:kept';
  kept: string[];
  failed: string[];
}

const manifest = () => self.__CLIMATE_QUERY_PRECACHE__;

/** Whether this service worker was built with a shell to precache (the built app; not the dev server or a library user's bundle). */
export function hasShell(): boolean {
  return manifest() !== undefined;
}
const shellCache = () => `${SHELL_CACHE_PREFIX}${manifest()!.version}`;
/** Absolute URL of a manifest path (paths are relative to sw.js, which sits at the scope's root). */
const shellUrl = (path: string) => new URL(path, self.location.href).href;

/**
 * Types of the shell's files by extension. The build knows what each file
 * is; a host may not (Debian's nginx serves `.mjs` as octet-stream, which a
 * module script refuses), and the stored copy is what the app runs from.
 */
const SHELL_TYPES: Record<string, string> = {
  html: 'text/html; charset=utf-8',
  js: 'text/javascript',
  mjs: 'text/javascript',
  css: 'text/css',
  json: 'application/json',
  wasm: 'application/wasm',
  woff2: 'font/woff2',
  svg: 'image/svg+xml',
  png: 'image/png',
};

/**
 * A copy of `response` that a cache serves to any later request: status 200
 * (not "redirected": `serve` answers /index.html with 301 → /index, and
 * Chromium refuses a redirected response for a navigation), no `Vary`
 * (`vite preview` varies on Origin, which module scripts send and the
 * install's fetch did not), and the type the build gave the file.
 */
async function storable(response: Response, path?: string): Promise<Response> {
  const headers = new Headers(response.headers);
  headers.delete('Vary');
  headers.delete('Set-Cookie');
  const type = path === undefined ? undefined : SHELL_TYPES[/\.([a-z0-9]+)$/i.exec(path)?.[1]?.toLowerCase() ?? ''];
  if (type) headers.set('Content-Type', type);
  // Encoding headers describe the wire, not the decoded body stored here.
  headers.delete('Content-Encoding');
  headers.delete('Content-Length');
  return new Response(await response.arrayBuffer(), { status: 200, statusText: 'OK', headers });
}

/**
 * Install: download the whole shell before this version takes over (an
 * incomplete shell would not open offline), store each file so any later
 * request matches it, then check every entry is there: a shell that would
 * not open offline fails the install, and the previous version stays.
 */
export async function precacheShell(): Promise<void> {
  const m = manifest();
  if (!m) return;
  const cache = await caches.open(shellCache());
  await Promise.all(
    m.files.map(async (f) => {
      // `reload` skips the HTTP cache, so no stale file of an older build gets in.
      const response = await fetch(new Request(shellUrl(f), { cache: 'reload' }));
      if (!response.ok)
        throw new Error(`The app's file ${f} answered HTTP ${response.status}; the shell is not complete.`);
      await cache.put(shellUrl(f), await storable(response, f));
    }),
  );
  for (const f of m.files) {
    const hit = await cache.match(shellUrl(f), { ignoreVary: true });
    if (!hit || hit.status !== 200 || hit.redirected) throw new Error(`The app's file ${f} is not usable offline.`);
  }
}

/** Activate: drop the shells of other builds (their files are hashed differently, so nothing of them is reused). */
export async function dropOldShells(): Promise<void> {
  if (!manifest()) return;
  const keep = shellCache();
  for (const name of await caches.keys())
    if (name.startsWith(SHELL_CACHE_PREFIX) && name !== keep) await caches.delete(name);
}

/**
 * The kept files' URLs, known synchronously once loaded: a fetch handler must
 * decide at once whether to answer, and Range reads of every other dataset file
 * are left to the browser (answering them here would route each through the
 * worker). Null until the cache's keys have been read.
 */
let keptUrls: Set<string> | null = null;
/** Reads the kept URLs from the data cache (once per worker start). */
export const keptLoaded: Promise<Set<string>> = (
  typeof caches === 'undefined'
    ? Promise.resolve([] as readonly Request[])
    : caches.open(DATA_CACHE).then((c) => c.keys())
)
  .then((keys) => (keptUrls = new Set(keys.map((k) => k.url))))
  .catch(() => (keptUrls = new Set()));

/** Whether `url` (without its hash) is a kept dataset file; null while not yet known. */
export function isKept(url: string): boolean | null {
  if (!keptUrls) return null;
  const u = new URL(url);
  return keptUrls.has(`${u.origin}${u.pathname}${u.search}`);
}

/** Stores the dataset files a page names, fetched fresh; answers on the message's port. */
export async function keepFiles(message: KeepRequest, port: MessagePort | undefined): Promise<void> {
  const cache = await caches.open(DATA_CACHE);
  const kept: string[] = [];
  const failed: string[] = [];
  for (const url of message.urls) {
    try {
      // no-store: the engine read this file by Range, and the HTTP cache's partial entry must not answer for the whole.
      const res = await fetch(url, { cache: 'no-store' });
      if (res.status !== 200) throw new Error(`HTTP ${res.status}`);
      await cache.put(url, await storable(res));
      kept.push(url);
      (await keptLoaded).add(new URL(url).href.replace(/#.*$/, ''));
    } catch {
      failed.push(url);
    }
  }
  port?.postMessage({ type: 'climate-query:kept', kept, failed } satisfies KeepReply);
}

/**
 * Answers a GET from the offline caches when it should be, else returns
 * null (the browser then fetches as usual). The shell never answers a Range
 * request; a kept dataset file does, sliced from its whole cached copy when
 * the network fails (the engine reads the station index by range). Partial
 * responses are never stored.
 */
export async function offlineAnswer(request: Request): Promise<Response | null> {
  if (request.method !== 'GET') return null;
  const range = request.headers.get('Range');
  const m = manifest();
  const url = new URL(request.url);
  if (m && !range) {
    const scope = new URL(self.registration.scope);
    const cache = await caches.open(shellCache());
    // The app's own page, however it is opened (scope root, index.html, any ?data= or ?basemap=).
    const isApp =
      request.mode === 'navigate' &&
      url.origin === scope.origin &&
      (url.pathname === scope.pathname || url.pathname === `${scope.pathname}index.html`);
    const hit = await cache.match(isApp ? shellUrl('index.html') : request, { ignoreSearch: isApp, ignoreVary: true });
    if (hit) return hit;
  }
  const data = await caches.open(DATA_CACHE);
  const key = `${url.origin}${url.pathname}${url.search}`;
  if (await data.match(key, { ignoreVary: true })) return networkFirst(request, data, key, range);
  return null;
}

/** The network's answer within {@link NETWORK_FIRST_TIMEOUT_MS} (stored when whole), else the cached copy (sliced to `range`). */
async function networkFirst(request: Request, cache: Cache, key: string, range: string | null): Promise<Response> {
  const network = fetch(request).then(async (res) => {
    if (res.status === 200) await cache.put(key, await storable(res.clone()));
    return res;
  });
  const timeout = new Promise<null>((resolve) => setTimeout(() => resolve(null), NETWORK_FIRST_TIMEOUT_MS));
  const first = await Promise.race([network.catch(() => null), timeout]);
  // An HTTP error from a live server is its answer (the dataset is gone or moved); only no answer falls back.
  if (first) return first;
  network.catch(() => undefined);
  const kept = await cache.match(key, { ignoreVary: true });
  if (!kept) return network;
  return range ? sliceResponse(kept, range) : kept;
}

/**
 * A 206 of `bytes=a-b` (or `a-`) cut from a whole response; a range it cannot
 * serve is a 416, as a host would answer, so the reader fails clearly.
 */
export async function sliceResponse(whole: Response, range: string): Promise<Response> {
  const body = new Uint8Array(await whole.arrayBuffer());
  const m = /^bytes=(\d+)-(\d*)$/.exec(range.trim());
  const start = m ? Number(m[1]) : Number.NaN;
  const end = m && m[2] !== '' ? Math.min(Number(m[2]), body.length - 1) : body.length - 1;
  if (!m || start > end || start >= body.length) {
    return new Response(null, { status: 416, headers: { 'Content-Range': `bytes */${body.length}` } });
  }
  const headers = new Headers(whole.headers);
  headers.set('Content-Range', `bytes ${start}-${end}/${body.length}`);
  headers.set('Content-Length', String(end - start + 1));
  return new Response(body.slice(start, end + 1), { status: 206, headers });
}
