/**
 * A dataset location fed with files another party read for it: a page reads
 * catalog.json and the station index while its engine Worker's own script
 * still downloads and compiles, and hands the Worker their bytes
 * (browser/engine-client.ts). The Worker's first read of each takes what the
 * page read; whatever the page could not read, or did not hand over in time,
 * the Worker reads from the host as always. Every later read (a reload after
 * the dataset changed) goes to the host.
 */
import type { ByteSource, ExpectedFile } from '../io/byte-source.ts';
import { abortable } from '../io/abortable.ts';
import { LinkMeter, type Transfer } from '../io/link-meter.ts';
import { urlLocation, type DatasetLocation, type UrlLocationOptions } from './location.ts';

/** A location whose first reads take files read elsewhere. */
export interface ReadAheadLocation {
  /** The location to open the engine on. */
  readonly location: DatasetLocation;
  /**
   * The catalog's text as read elsewhere (null: it could not be), and the paths (as the catalog
   * lists them) whose bytes will follow through {@link ReadAheadLocation.file}.
   */
  catalog(text: string | null, files?: readonly string[]): void;
  /**
   * A file announced with the catalog: its bytes (null: it could not be read), and the times of
   * the reads that fetched it, for the location's link meter.
   */
  file(path: string, bytes: Uint8Array | null, transfers?: readonly Transfer[]): void;
}

/** A promise and its resolver. */
function deferred<T>(): { promise: Promise<T>; resolve: (v: T) => void } {
  let resolve: (v: T) => void = () => undefined;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

/** `p`, or null when it has not settled within `ms` (or rejects). */
function within<T>(p: Promise<T | null>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((r) => (timer = setTimeout(() => r(null), ms)));
  return Promise.race([p.catch(() => null), late]).finally(() => clearTimeout(timer));
}

/**
 * The dataset at `base` (urlLocation, with `options`), its first catalog read waiting up to
 * `waitMs` for {@link ReadAheadLocation.catalog}, and the first opening of each announced file
 * up to `waitMs` for its bytes. Bytes of another size than the catalog records are not used.
 */
export function readAheadLocation(
  base: string | URL,
  waitMs: number,
  options: UrlLocationOptions = {},
): ReadAheadLocation {
  const meter = options.meter ?? new LinkMeter();
  const inner = urlLocation(base, { ...options, meter });
  const catalogText = deferred<string | null>();
  let catalogTaken = false;
  /** Announced files: their bytes to come, whether an opening took them, whether they came. */
  const files = new Map<
    string,
    { promise: Promise<Uint8Array | null>; resolve: (v: Uint8Array | null) => void; taken: boolean; came: boolean }
  >();

  /** A source on the announced file `path`: its reads take the given bytes, or go to `real`. */
  const given = (real: ByteSource, bytes: Promise<Uint8Array | null>, expected: ExpectedFile): ByteSource => {
    const usable = within(bytes, waitMs).then((b) =>
      b !== null && expected.bytes !== undefined && b.length === expected.bytes ? b : null,
    );
    const slice = (b: Uint8Array, start: number, end: number) =>
      b.subarray(Math.min(start, b.length), Math.min(end, b.length));
    return {
      url: real.url,
      async read(offset, length, signal) {
        const b = await abortable(usable, signal);
        return b ? slice(b, offset, offset + length) : real.read(offset, length, signal);
      },
      readRanges(ranges, signal) {
        const all = abortable(usable, signal).then((b) =>
          b
            ? ranges.map(([s, e]) => Promise.resolve(slice(b, s, e)))
            : real.readRanges
              ? real.readRanges(ranges, signal)
              : ranges.map(([s, e]) => real.read(s, e - s, signal)),
        );
        return ranges.map((_, i) => all.then((list) => list[i]!));
      },
      ...(real.close ? { close: () => real.close!() } : {}),
    };
  };

  const location: DatasetLocation = {
    ...inner,
    async readText(path, signal, what) {
      if (path === 'catalog.json' && !catalogTaken) {
        catalogTaken = true;
        const text = await abortable(within(catalogText.promise, waitMs), signal);
        if (text !== null) return text;
      }
      return inner.readText(path, signal, what);
    },
    open(path, expected = {}) {
      const real = inner.open(path, expected);
      const ahead = files.get(path);
      if (!ahead || ahead.taken) return real;
      ahead.taken = true;
      if (ahead.came) files.delete(path);
      return given(real, ahead.promise, expected);
    },
  };

  return {
    location,
    catalog(text, announced = []) {
      if (text !== null)
        for (const path of announced)
          if (!files.has(path)) files.set(path, { ...deferred(), taken: false, came: false });
      catalogText.resolve(text);
    },
    file(path, bytes, transfers = []) {
      for (const t of transfers) meter.record(t);
      const ahead = files.get(path);
      if (!ahead || ahead.came) return;
      ahead.came = true;
      ahead.resolve(bytes);
      // Held until an opening takes them, then only by that opening's source.
      if (ahead.taken) files.delete(path);
    },
  };
}
