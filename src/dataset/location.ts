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
import { byteRangesBoundary } from '../io/byte-ranges.ts';
import { createHttpSource, type MultiRange } from '../io/http-source.ts';
import { describeHostAnswer } from '../io/host-answer.ts';
import { LinkMeter } from '../io/link-meter.ts';
import {
  DEFAULT_READ_TIMEOUTS,
  DEFAULT_RETRY,
  markTransient,
  timedFetch,
  withRetries,
  type ReadTimeouts,
  type RetryPolicy,
} from '../io/timed-fetch.ts';
import type { Catalog } from './catalog.ts';
import { checkDataset } from './catalog-check.ts';
import { checkDatasetPath, datasetRoot, encodeDatasetPath } from './dataset-path.ts';

/**
 * Most bytes a text file a dataset is opened with may hold (catalog.json): 20 years of three daily
 * layers list ≈ 0.3 MB of dates; 32 MiB bounds a hostile or gzip-bombed catalog before it is parsed.
 */
export const MAX_TEXT_BYTES = 32 * 1024 * 1024;

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
  /** Reads a small text file (catalog.json); `what` names it in messages ("The dataset's catalog"). */
  readText(path: string, signal?: AbortSignal, what?: string): Promise<string>;
  /**
   * Whether the host answers a Range request for one byte of `path` with 206
   * (true) or with the whole file (false); null when it could not be told.
   * Absent where reads are not HTTP (a local folder).
   */
  probeRange?(path: string, signal?: AbortSignal): Promise<boolean | null>;
  /**
   * What this location's reads have measured of the link (io/link-meter.ts): the station
   * reader sizes its merge gap from it. Absent for a local folder and for wrapped openers.
   */
  readonly link?: Pick<LinkMeter, 'estimate'>;
  /**
   * Whether one request now carries several ranges of a file (the host answered a probe with
   * `multipart/byteranges`): the station reader then merges only tiny gaps. Absent or false: one
   * request per range. The first call starts the probe, on the file opened last: the station
   * reader calls it as it opens its index, so the answer is in before its files are read (raster
   * reads never ask, and make no probe).
   */
  severalRanges?(): boolean;
  /**
   * Resolves once the probe {@link severalRanges} started has been answered, at once when none is
   * in flight, and never later than `maxMs`. The station reader waits for it before its first
   * plan: a busy Worker reads the probe's answer only when it is free, after the reads were
   * already planned one range per request.
   */
  severalRangesKnown?(maxMs: number): Promise<void>;
}

/** Time limits and retries of a {@link urlLocation}'s reads. */
export interface UrlLocationOptions {
  timeouts?: ReadTimeouts;
  retry?: RetryPolicy;
  /** The fetch to use; defaults to the global one. */
  fetch?: typeof fetch;
  /** Opens a resolved file URL; default HTTP Range reads ({@link createHttpSource}) with these options. */
  openSource?: (url: string, expected: ExpectedFile) => ByteSource;
  /** Times the default reads (a new one per location by default); share one between locations on one host. */
  meter?: LinkMeter;
  /**
   * Ask the host whether it answers several ranges in one request, and do so where it does
   * (default true; io/http-source.ts MultiRange). false: one request per range, always.
   */
  multiRange?: boolean;
}

/**
 * A dataset served over HTTP(S) (or any URL `fetch` understands). Reads are
 * bounded in time and retried when the fault may pass (io/timed-fetch.ts).
 */
export function urlLocation(base: string | URL, options: UrlLocationOptions = {}): DatasetLocation {
  const root = datasetRoot(base);
  const doFetch = options.fetch ?? globalThis.fetch.bind(globalThis);
  const timeouts = options.timeouts ?? DEFAULT_READ_TIMEOUTS;
  const retry = options.retry ?? DEFAULT_RETRY;
  const where = new URL('catalog.json', root).href;
  const resolve = (path: string): string => {
    const url = new URL(encodeDatasetPath(checkDatasetPath(path, where)), root);
    // Checked again after parsing: the text rules above are not the parser's rules.
    if (url.origin !== root.origin || !url.pathname.startsWith(root.pathname) || url.search || url.hash) {
      throw new ClimateQueryError(
        'dataset_unavailable',
        `${where} lists the file ${JSON.stringify(truncate(path))}, which resolves to ${truncate(url.href)}, outside the dataset ${root.href}. Rebuild the dataset.`,
      );
    }
    return url.href;
  };
  // Only reads this location makes itself are timed: a caller's openSource may not be HTTP at all.
  const meter = options.openSource ? undefined : (options.meter ?? new LinkMeter());
  // Several ranges in one request, once a probe saw the host answer them as parts. The probe asks
  // for the third-last and the last byte of the file of known size opened last when the station
  // reader first asks (its index: a binary file, served as the others are; a JSON file may be
  // compressed on the fly, which drops Range), while that file is read, so its answer is in before
  // the station files' reads, one round trip or more later. Hosts that misread several ranges send from the
  // first one to the end (Vite, sirv, s3rver: 206 with the rest of the file), so near the end that
  // is three bytes; a host that sends the whole file (200) has its answer dropped at once.
  const crossOrigin = globalThis.location?.origin !== undefined && root.origin !== globalThis.location.origin;
  let multi: 'unknown' | 'probing' | 'yes' | 'no' =
    options.openSource || options.multiRange === false || crossOrigin ? 'no' : 'unknown';
  /** The last file of known size opened: what the probe reads, once asked. */
  let probeTarget: { url: string; size: number } | undefined;
  const usable = () => {
    if (multi === 'unknown' && probeTarget) probeMultiRange(probeTarget.url, probeTarget.size);
    return multi === 'yes';
  };
  const multiRange: MultiRange = { usable, unusable: () => void (multi = 'no') };
  /** Settles when the probe has been answered (or failed). */
  let probed: Promise<void> | undefined;
  const probeMultiRange = (url: string, size: number) => {
    multi = 'probing';
    const range = `bytes=${size - 3}-${size - 3},${size - 1}-${size - 1}`;
    probed = timedFetch(doFetch, url, { headers: { Range: range }, cache: 'no-store' }, timeouts).then(
      async (answer) => {
        const { response } = answer;
        const parts = response.status === 206 && byteRangesBoundary(response.headers.get('Content-Type')) !== null;
        if (multi === 'probing') multi = parts ? 'yes' : 'no';
        await answer.discard();
      },
      () => void (multi = 'no'),
    );
  };
  const openSource =
    options.openSource ??
    ((url: string, expected: ExpectedFile) =>
      createHttpSource(url, { expected, fetch: doFetch, timeouts, retry, meter: meter!, multiRange }));
  return {
    base: root.href,
    ...(meter ? { link: meter } : {}),
    severalRanges: usable,
    severalRangesKnown(maxMs) {
      if (multi !== 'probing' || !probed) return Promise.resolve();
      let timer: ReturnType<typeof setTimeout> | undefined;
      const bound = new Promise<void>((r) => (timer = setTimeout(r, maxMs)));
      return Promise.race([probed, bound]).finally(() => clearTimeout(timer));
    },
    resolve,
    open: (path, expected = {}) => {
      const url = resolve(path);
      if (expected.bytes !== undefined && expected.bytes >= 3) probeTarget = { url, size: expected.bytes };
      return openSource(url, expected);
    },
    async readText(path, signal, what = 'The file') {
      const url = resolve(path);
      const bytes = await withRetries(
        async () => {
          const answer = await timedFetch(doFetch, url, { cache: 'no-cache' }, timeouts, signal);
          const { response } = answer;
          if (!response.ok) {
            await answer.discard();
            const why =
              response.status === 404
                ? 'was not found (HTTP 404)'
                : `could not be read: the server answered ${describeHostAnswer(response).replace(': ', '. The ')}`;
            const error = new ClimateQueryError('dataset_unavailable', `${what} ${url} ${why}.`);
            throw response.status >= 500 || response.status === 429 ? markTransient(error) : error;
          }
          return answer.body(MAX_TEXT_BYTES);
        },
        retry,
        signal,
      );
      return new TextDecoder().decode(bytes);
    },
    async probeRange(path, signal) {
      try {
        // One range is a CORS-safelisted header: no preflight, so this works cross-origin as the reads do.
        const answer = await timedFetch(
          doFetch,
          resolve(path),
          { headers: { Range: 'bytes=0-0' }, cache: 'no-store' },
          timeouts,
          signal,
        );
        await answer.discard();
        return answer.response.status === 206 ? true : answer.response.status === 200 ? false : null;
      } catch {
        return null;
      }
    },
  };
}

/** The same location with files opened by `open` (a resolved URL or path in, a byte source out): for callers that count or wrap reads. */
export function withOpener(
  location: DatasetLocation,
  open: (resolved: string, expected?: ExpectedFile) => ByteSource,
): DatasetLocation {
  return {
    base: location.base,
    resolve: (p) => location.resolve(p),
    readText: (p, s, w) => location.readText(p, s, w),
    open: (p, e) => open(location.resolve(p), e),
    ...(location.probeRange ? { probeRange: (p: string, s?: AbortSignal) => location.probeRange!(p, s) } : {}),
  };
}

/** Reads catalog.json at the root of `location` and checks it as every reader does (catalog-check.ts, checkDataset). */
export async function loadCatalog(location: DatasetLocation, signal?: AbortSignal): Promise<Catalog> {
  const text = await location.readText('catalog.json', signal, "The dataset's catalog");
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    const url = location.resolve('catalog.json');
    throw new ClimateQueryError(
      'dataset_unavailable',
      /^\s*<(!doctype|html|head|body)/i.test(text)
        ? `${url} is a web page (HTML), not a dataset catalog (JSON); the server may answer every address with its home page.`
        : `${url} is not a dataset catalog: it is not JSON (${(cause as Error).message}); rebuild the dataset.`,
      { cause },
    );
  }
  return checkDataset(json, location.resolve('catalog.json'));
}
