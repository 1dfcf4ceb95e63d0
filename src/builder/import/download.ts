/**
 * Downloads the files of a NOAA station archive (noaa-paths.ts) for stations and years into a
 * cache that keeps NCEI's paths, so a second run, or a run after a cut connection, fetches only
 * what it lacks: a file is written as `<name>.part` and renamed when whole; a `.part` left by a cut
 * is resumed with a Range request where the host answers one. A station-year NCEI has no file for
 * (404) is reported, not an error; any other failure names the URL. Every file is bounded.
 */
import { MAX_INPUT_BYTES, readInputText } from './input-bytes.ts';
import { createWriteStream } from 'node:fs';
import { mkdir, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { runLimited } from '../../io/run-limited.ts';
import { BuildError } from '../build-error.ts';
import { distanceM } from '../../contract/geodesic.ts';
import { parseGhcndStations } from './ghcnd.ts';
import { parseGhcnhStationList } from './ghcnh.ts';
import type { ImportedStation } from './imported.ts';
import { parseIsdHistory } from './isd-lite.ts';
import { NOAA_PATHS, type NoaaPaths } from './noaa-paths.ts';

/** Most bytes one downloaded file may hold: as many as an import reads of one file (a busy airport's GHCNh year is tens of MB). */
export const MAX_DOWNLOAD_BYTES = MAX_INPUT_BYTES;
/** A transfer that brings no byte for this long is cut (and tried again from where it stopped). */
const IDLE_MS = 60_000;
/** Most station-years one command downloads. */
export const MAX_DOWNLOADS = 5_000;

export interface DownloadOptions {
  format: string;
  stations: readonly string[];
  /** First and last year. */
  years: readonly [number, number];
  /** NCEI's root or a mirror's, ending in `/`. */
  root: string;
  /** The cache folder: files land at their NCEI path under it. */
  cache: string;
  fetch?: typeof fetch;
  /** A transfer that brings no byte for this long is cut and tried again (default {@link IDLE_MS}). */
  idleMs?: number;
  /** Told each file as it is done (for a progress line). */
  progress?: (done: number, total: number, path: string) => void;
}

export interface Downloaded {
  /** The archive's files, in the cache, that exist. */
  files: string[];
  /** The station list, in the cache, when the archive needs one. */
  stationList?: string;
  /** Station-years NCEI has no file for. */
  missing: string[];
  /** Files fetched now (the rest were in the cache). */
  fetched: number;
  /** Bytes fetched now. */
  bytes: number;
}

/** Downloads what `o` asks (what the cache lacks); resolves with the files to import. */
export async function downloadArchive(o: DownloadOptions): Promise<Downloaded> {
  const paths = NOAA_PATHS[o.format];
  if (!paths)
    throw new BuildError(
      'invalid_option',
      `${o.format} is not downloaded; these are: ${Object.keys(NOAA_PATHS).join(', ')}.`,
      {
        option: 'format',
      },
    );
  const stations = o.stations.map((s) => {
    const id = paths.normalise(s);
    if (!paths.id.test(id))
      throw new BuildError('invalid_option', `--station ${s} is not a ${o.format} station id, e.g. ${paths.example}.`, {
        option: 'station',
      });
    return id;
  });
  const [first, last] = o.years;
  const wanted: Array<{ path: string; what: string; year?: number }> = [];
  for (const s of [...new Set(stations)]) {
    if (paths.perYear)
      for (let y = first; y <= last; y++) wanted.push({ path: paths.file(s, y), what: `${s} ${y}`, year: y });
    else wanted.push({ path: paths.file(s, first), what: s, year: Number.POSITIVE_INFINITY });
  }
  if (wanted.length > MAX_DOWNLOADS)
    throw new BuildError(
      'invalid_option',
      `${wanted.length} files asked, more than the ${MAX_DOWNLOADS} one run downloads.`,
      {
        option: 'years',
      },
    );
  const doFetch = o.fetch ?? globalThis.fetch.bind(globalThis);
  const result: Downloaded = { files: [], missing: [], fetched: 0, bytes: 0 };
  const thisYear = new Date().getUTCFullYear();
  const fetchOne = async (path: string, year?: number): Promise<boolean> => {
    const local = join(o.cache, ...path.split('/'));
    // A past year's file (and the station list) is kept; this year's, or a station's whole record, grows: fetched again.
    const kept = year === undefined || year < thisYear;
    if (kept && (await isFile(local))) return true;
    const got = await fetchFile(doFetch, new URL(path, o.root).href, local, o.idleMs);
    if (got !== null) {
      result.fetched++;
      result.bytes += got;
    }
    return got !== null;
  };
  if (paths.stationList) {
    if (!(await fetchOne(paths.stationList)))
      throw new BuildError(
        'unreadable_input',
        `${new URL(paths.stationList, o.root).href} was not found (404): the archive's station list is needed.`,
        {
          file: paths.stationList,
        },
      );
    result.stationList = join(o.cache, ...paths.stationList.split('/'));
  }
  let done = 0;
  const there = new Array<boolean>(wanted.length);
  await runLimited(
    wanted.map((w, i) => async () => {
      there[i] = await fetchOne(w.path, w.year);
      o.progress?.(++done, wanted.length, w.path);
    }),
    4,
  );
  wanted.forEach((w, i) => {
    if (there[i]) result.files.push(join(o.cache, ...w.path.split('/')));
    else result.missing.push(w.what);
  });
  return result;
}

async function isFile(path: string): Promise<boolean> {
  return (await stat(path).catch(() => null))?.isFile() ?? false;
}

/**
 * Fetches `url` into `local` (through `local.part`, resumed where it was cut); resolves with the
 * bytes fetched, or null for a 404. Retries a failed transfer twice.
 */
async function fetchFile(doFetch: typeof fetch, url: string, local: string, idleMs = IDLE_MS): Promise<number | null> {
  const part = `${local}.part`;
  // The version of the file the part holds (its ETag, else Last-Modified): a resumed request asks for
  // the rest only of that version (If-Range), so a file that changed meanwhile is fetched whole again
  // rather than spliced onto the old one's start.
  const version = `${part}.version`;
  await mkdir(dirname(local), { recursive: true });
  for (let attempt = 0; ; attempt++) {
    const have = (await stat(part).catch(() => null))?.size ?? 0;
    // A part from a host that named no version is resumed as it is (NCEI's hosts name one).
    const validator = have > 0 ? await readFile(version, 'utf8').catch(() => '') : '';
    let response: Response;
    const idle = new AbortController();
    // Each attempt's own watch; unref'd, so one an early return leaves set never holds the process.
    const watch = () => setTimeout(() => idle.abort(new Error(`no byte for ${idleMs / 1000} s`)), idleMs).unref();
    let timer = watch();
    const stillAlive = () => {
      clearTimeout(timer);
      timer = watch();
    };
    try {
      response = await doFetch(url, {
        // The bytes as stored: a length or an offset counted in bytes a host compressed on the way would not match.
        headers: {
          'Accept-Encoding': 'identity',
          ...(have > 0 ? { Range: `bytes=${have}-`, ...(validator ? { 'If-Range': validator } : {}) } : {}),
        },
        signal: AbortSignal.any([idle.signal, AbortSignal.timeout(600_000)]),
      });
    } catch (err) {
      clearTimeout(timer);
      if (attempt < 2) continue;
      throw unreachable(url, err);
    }
    // Only NCEI's (or the mirror's) own host is read: a redirect elsewhere is not taken as its file.
    if (response.url && new URL(response.url).origin !== new URL(url).origin) {
      clearTimeout(timer);
      await response.body?.cancel().catch(() => undefined);
      throw new BuildError(
        'unreachable',
        `${url} redirected to ${new URL(response.url).origin}; files are downloaded from ${new URL(url).origin} only.`,
        { file: url },
      );
    }
    if (response.status === 404 || response.status === 410) {
      await response.body?.cancel().catch(() => undefined);
      return null;
    }
    // A host that answers a resumed request whole (200) starts the file again; a 206 must go on
    // exactly where the part ends.
    const range = /^bytes (\d+)-\d+\/(\d+|\*)$/.exec(response.headers.get('Content-Range') ?? '');
    const resumed = response.status === 206 && have > 0 && range !== null && Number(range[1]) === have;
    if (response.status === 416 && have > 0) {
      await response.body?.cancel().catch(() => undefined);
      // The part is the whole file only if the host says the file is that long; else it starts again.
      if (/\/(\d+)$/.exec(response.headers.get('Content-Range') ?? '')?.[1] === String(have)) {
        await rename(part, local);
        return 0;
      }
      await rm(part, { force: true });
      continue;
    }
    if (response.status === 206 && !resumed) {
      await response.body?.cancel().catch(() => undefined);
      await rm(part, { force: true });
      if (attempt < 2) continue;
      throw new BuildError('unreadable_input', `${url} answered a range other than the one asked; not kept.`, {
        file: url,
      });
    }
    if (!(response.status === 200 || resumed)) {
      await response.body?.cancel().catch(() => undefined);
      if (attempt < 2 && response.status >= 500) continue;
      throw new BuildError(
        'unreadable_input',
        `${url} could not be downloaded: the host answered ${response.status}.`,
        {
          file: url,
        },
      );
    }
    const length = Number(response.headers.get('Content-Length') ?? Number.NaN);
    if ((resumed ? have : 0) + (Number.isFinite(length) ? length : 0) > MAX_DOWNLOAD_BYTES) {
      await response.body?.cancel().catch(() => undefined);
      throw new BuildError('invalid_input', `${url} is larger than the ${MAX_DOWNLOAD_BYTES} bytes one file may be.`, {
        file: url,
      });
    }
    let bytes = 0;
    if (!resumed) {
      const v = response.headers.get('ETag') ?? response.headers.get('Last-Modified') ?? '';
      // A weak ETag cannot be an If-Range validator (RFC 9110, 13.1.5): such a part is not resumed.
      if (v && !v.startsWith('W/')) await writeFile(version, v);
      else await rm(version, { force: true });
    }
    const counted = async function* (body: AsyncIterable<Uint8Array>) {
      for await (const chunk of body) {
        stillAlive();
        bytes += chunk.length;
        if ((resumed ? have : 0) + bytes > MAX_DOWNLOAD_BYTES)
          throw new BuildError(
            'invalid_input',
            `${url} is larger than the ${MAX_DOWNLOAD_BYTES} bytes one file may be.`,
            {
              file: url,
            },
          );
        yield chunk;
      }
    };
    try {
      await pipeline(
        Readable.fromWeb(response.body! as import('node:stream/web').ReadableStream<Uint8Array>),
        counted,
        createWriteStream(part, { flags: resumed ? 'a' : 'w' }),
      );
    } catch (err) {
      clearTimeout(timer);
      if (err instanceof BuildError) {
        await rm(part, { force: true });
        await rm(version, { force: true });
        throw err;
      }
      // A cut transfer: what arrived stays in the part, and the next attempt resumes from it.
      if (attempt < 2) continue;
      throw unreachable(url, err);
    }
    if (Number.isFinite(length) && bytes !== length) {
      if (attempt < 2) continue;
      throw unreachable(url, new Error(`${bytes} of ${length} bytes arrived`));
    }
    clearTimeout(timer);
    await rename(part, local);
    await rm(version, { force: true });
    return bytes;
  }
}

function unreachable(url: string, err: unknown): BuildError {
  const host = new URL(url).host;
  return new BuildError(
    'unreachable',
    `Could not download from ${host} (${(err as Error).message}): is this machine online? Files downloaded so far are kept; run the same command again to go on.`,
    { file: url, cause: err },
  );
}

/** How each archive's station list is read (noaa-paths.ts names which one an archive has). */
const NEAR_LIST_READERS: Record<
  NonNullable<NoaaPaths['nearList']>['kind'],
  (text: string, file: string) => Map<string, ImportedStation>
> = {
  'isd-history': parseIsdHistory,
  'ghcnd-stations': parseGhcndStations,
  'ghcnh-station-list': parseGhcnhStationList,
};

/** Most stations `--near` picks: the nearest ones, the rest named as left out. */
export const MAX_NEAR_STATIONS = 25;

/** A station `--near` found. */
export interface NearStation {
  id: string;
  name: string;
  km: number;
}

/**
 * The archive's stations within `radiusKm` of `near` (lon, lat), nearest first, from its station
 * list (downloaded into the cache like its files): at most {@link MAX_NEAR_STATIONS}, and how many
 * more there were.
 */
export async function stationsNear(o: {
  format: string;
  near: readonly [number, number];
  radiusKm: number;
  root: string;
  cache: string;
  fetch?: typeof fetch;
}): Promise<{ stations: NearStation[]; more: number }> {
  const list = NOAA_PATHS[o.format]?.nearList;
  if (!list)
    throw new BuildError(
      'invalid_option',
      `--near needs a station list; ${o.format}'s is not one this reads: name stations with --station.`,
      {
        option: 'near',
      },
    );
  const local = join(o.cache, ...list.path.split('/'));
  if (!(await isFile(local))) {
    const got = await fetchFile(o.fetch ?? globalThis.fetch.bind(globalThis), new URL(list.path, o.root).href, local);
    if (got === null)
      throw new BuildError(
        'unreadable_input',
        `${new URL(list.path, o.root).href} was not found (404): --near searches it.`,
        {
          file: list.path,
        },
      );
  }
  const text = await readInputText(local, 'latin1');
  const all = NEAR_LIST_READERS[list.kind](text, local);
  const found = [...all.values()]
    .map((s) => ({ id: s.station_id, name: s.name, km: distanceM([o.near[0], o.near[1]], [s.lon, s.lat]) / 1000 }))
    .filter((s) => s.km <= o.radiusKm)
    .sort((a, b) => a.km - b.km || (a.id < b.id ? -1 : 1));
  return { stations: found.slice(0, MAX_NEAR_STATIONS), more: Math.max(0, found.length - MAX_NEAR_STATIONS) };
}
