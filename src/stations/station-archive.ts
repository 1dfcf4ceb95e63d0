/**
 * Reads the station archive (docs/data.md) over the {@link ByteSource}
 * seam: the index once, each considered station's coverage line by Range
 * read, and of a station file only its footer (exact length from the index,
 * parsed once and cached) and the column chunks of the row groups whose time
 * spans overlap the request — planned by read-plan.ts from the coverage
 * line's chunk map, so both come in one round trip, and decoded by
 * column-decoder.ts. Every file is held open (open-files.ts) with its cache of exact ranges, so warm
 * queries read nothing. The same code runs in the browser's engine Worker,
 * in Node (CLI, `serve`) and in the tests.
 */
import { parquetMetadata, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { decodeColumn, type RowSpan } from './column-decoder.ts';
import { ClimateQueryError } from '../contract/errors.ts';
import { STATION_TIME_SCALES, type StationTimeScale } from '../contract/station-data-types.ts';
import {
  FOOTER_HASH_DIGITS,
  STATION_LAYOUT,
  type StationCoverage,
  type StationFileChunks,
  type StationsSection,
} from '../dataset/catalog.ts';
import type { DatasetLocation } from '../dataset/location.ts';
import { abortable } from '../io/abortable.ts';
import type { MemoryBudget } from '../io/memory-budget.ts';
import { sha256Hex } from '../io/digest.ts';
import { DecodedCache } from './decoded-cache.ts';
import { OpenFiles, type OpenFile } from './open-files.ts';
import {
  readWholeFirst,
  mergeGapFor,
  PART_GAP,
  mergeRanges,
  planFileRead,
  planFromChunks,
  planOpening,
} from './read-plan.ts';
import { keyOfTime, ordinalOfKey, ordinalsOfRowTimes } from './time-keys.ts';
import { isCoverage, StationIndex, type IndexedStation, type StationFile } from './station-index.ts';
import { noRows, orderRows, rowsInRange, type StationRows } from './station-rows.ts';

export { keyOfTime };
export type { StationRows };

/** Options of {@link openStationArchive}. */
export interface StationArchiveOptions {
  /** The dataset: it resolves, confines and opens the files the catalog and the index list. */
  location: DatasetLocation;
  section: StationsSection;
  /** Most station files kept open (with their footers and blocks); least recently used are closed first. */
  maxOpenFiles?: number;
  /** The engine's bound over every cache (src/io/memory-budget.ts). */
  budget?: MemoryBudget;
}

/** A station archive opened for reading. */
export interface StationArchive {
  /**
   * Every station, sorted by id (downloads the index on the first call), with its files of
   * `scales` (default: every scale). A query passes the one scale it reads: the index's other
   * scales are parsed only when a query asks for them, and until then a station's file of such a
   * scale may be absent.
   */
  stations(signal?: AbortSignal, scales?: readonly StationTimeScale[]): Promise<IndexedStation[]>;
  /** Coverage detail of these stations at `scale` (cached per station and scale); stations without a file are left out. */
  coverage(
    stations: readonly IndexedStation[],
    scale: StationTimeScale,
    signal?: AbortSignal,
  ): Promise<Map<string, StationCoverage>>;
  /**
   * The station's rows of `scale` with period keys in [first, last], as columns: one per type of
   * `types`, in that order (NaN where the file has none). `whole`: a file not open yet is fetched
   * whole in one request (see {@link StationArchive.readsWhole}), not planned from its chunk map.
   */
  rows(
    station: IndexedStation,
    scale: StationTimeScale,
    types: readonly string[],
    first: string,
    last: string,
    signal?: AbortSignal,
    options?: { whole?: boolean },
  ): Promise<StationRows>;
  /**
   * The stations among these whose rows are worth reading at once, without their coverage lines:
   * a station's own values say whether it has data. Those whose files are open already (their
   * footers plan the read), and those whose files are worth reading whole on the link as measured
   * (read-plan.ts {@link readWholeFirst}). Reads nothing; pass `{ whole: true }` to
   * {@link StationArchive.rows} for them.
   */
  readsWhole(
    stations: readonly IndexedStation[],
    scale: StationTimeScale,
    types: readonly string[],
    first: string,
    last: string,
  ): Set<string>;
  /** Closes every open file. */
  close(): Promise<void>;
}

/**
 * Coverage lines closer than this are read as one range. Not the link's merge gap: on a fast link
 * that joined a ten-point query's lines into one range of the whole region, 44 KB more on the
 * 2,000-station network's first query (181 KB of index bytes against a 150 KB bound) to save
 * requests that run side by side anyway.
 */
const COVERAGE_GAP = 2 * 1024;

/** Opens the station archive of a dataset. Nothing is read until the first call. */
export function openStationArchive(options: StationArchiveOptions): StationArchive {
  const { location, section } = options;
  if (section.layout !== STATION_LAYOUT) {
    throw new ClimateQueryError(
      'dataset_unavailable',
      `The dataset at ${location.base} has station layout "${String(section.layout)}"; this engine reads "${STATION_LAYOUT}". Rebuild it with \`climate-query build\` or \`climate-query index\`.`,
    );
  }
  const files = new OpenFiles(
    (path, size) => location.open(path, { bytes: size }),
    options.maxOpenFiles,
    options.budget,
  );
  let indexP: Promise<StationIndex> | undefined;
  const coverageCache = new Map<string, Promise<StationCoverage>>();
  /** Chunk maps from the coverage lines read, by file path and footer hash (read-plan.ts planFromChunks). */
  const chunkMaps = new Map<string, StationFileChunks>();
  const chunkKey = (file: StationFile) => `${file.path}\u0000${file.footerHash ?? ''}`;
  const decodedChunks = new DecodedCache(undefined, options.budget);

  const open = (path: string, size: number): OpenFile => files.open(path, size);

  const read = (f: OpenFile, start: number, end: number, signal?: AbortSignal): Promise<ArrayBuffer> =>
    f.cached.slice(start, end, signal);

  const unreadable = (path: string, detail: string, cause?: unknown) =>
    new ClimateQueryError(
      'dataset_unavailable',
      `${location.resolve(path)} ${detail}; the dataset changed or is damaged. Rebuild it, or rerun \`climate-query index\`.`,
      cause === undefined ? {} : { cause },
    );

  const forget = (path: string, f: OpenFile) => files.forget(path, f);

  const metadataOf = (path: string, file: StationFile, signal?: AbortSignal): Promise<FileMetaData> => {
    const f = open(path, file.bytes);
    f.metadata ??= (async () => {
      // The footer's exact length is in the index: one read, no HEAD, no guessing.
      const tail = file.footer + 8;
      const bytes = new Uint8Array(await read(f, file.bytes - tail, file.bytes));
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (
        bytes.length !== tail ||
        view.getUint32(tail - 4, true) !== 0x31524150 ||
        view.getUint32(tail - 8, true) !== file.footer
      ) {
        throw unreadable(
          path,
          `does not end with the ${file.footer}-byte Parquet footer the index records (file of ${file.bytes} bytes)`,
        );
      }
      // Same size, another build: the footer (which carries the build's id) tells them apart.
      if (file.footerHash !== undefined && (await sha256Hex(bytes)).slice(0, FOOTER_HASH_DIGITS) !== file.footerHash) {
        throw new ClimateQueryError(
          'dataset_changed',
          `${location.resolve(path)} is not the file the station index records: its footer's hash differs (same size, another version). If a redeploy is under way, ask again in a moment; otherwise copy the dataset to the host again, whole, or rerun \`climate-query index\`.`,
        );
      }
      try {
        return parquetMetadata(bytes.slice().buffer);
      } catch (cause) {
        throw unreadable(path, `has an unreadable Parquet footer (${(cause as Error).message})`, cause);
      }
    })().catch((err: unknown) => {
      f.metadata = undefined;
      forget(path, f);
      throw err;
    });
    return abortable(f.metadata, signal);
  };

  /** Errors of bytes that would not decode: worth one fresh read of the file. */
  const decodeFailures = new WeakSet<object>();

  const readRows = async (
    station: IndexedStation,
    scale: StationTimeScale,
    types: readonly string[],
    first: string,
    last: string,
    signal?: AbortSignal,
    whole = false,
  ): Promise<StationRows> => {
    const none = noRows(types.length);
    const file = station.files[scale];
    if (!file || file.first > last || file.last < first) return none;
    const wantedRange = ordinalsOf(scale, first, last);
    if (!wantedRange) throw new Error(`station rows asked with period keys that do not parse: ${first}, ${last}`);
    const [lo, hi] = wantedRange;
    const f = open(file.path, file.bytes);
    // One gap for the whole read (the opening and the footer's plan), from the link as measured so far.
    const gap = location.severalRanges?.() ? PART_GAP : mergeGapFor(location.link?.estimate());
    const keyOf = (g: number, column: string) =>
      `${file.path}\u0000${file.bytes}\u0000${file.footerHash ?? ''}\u0000${g}\u0000${column}`;
    if (!f.metadata && whole) f.cached.prefetch([[0, file.bytes]]);
    else if (!f.metadata) {
      // The first read of the file brings its footer and, when its coverage line gave a chunk map,
      // the chunks this query needs, in one round trip (or the whole file when that is as cheap).
      const map = chunkMaps.get(chunkKey(file));
      let chunks: Array<[number, number]> | null = null;
      if (map) {
        const wanted = ['time', ...types.filter((t) => map.columns.includes(t))];
        chunks = planFromChunks(map, wanted, lo, hi, (g, c) => decodedChunks.has(keyOf(g, c)));
      }
      f.cached.prefetch(planOpening(file, chunks, gap));
    }
    const metadata = await metadataOf(file.path, file, signal);
    const names = new Set(metadata.schema.map((e) => e.name));
    const present = types.filter((t) => names.has(t));
    const columns = ['time', ...present];
    // The selected row groups, each decoded once per column and kept (decoded-cache.ts); the chunks
    // not decoded already are fetched as merged ranges, each one exact request, all sent at once.
    const plan = planFileRead(
      metadata,
      scale,
      columns,
      first,
      last,
      (g, column) => decodedChunks.has(keyOf(g, column)),
      gap,
    );
    if (!plan) throw unreadable(file.path, 'has no "time" column');
    const { groups } = plan;
    if (groups.length === 0) return none;
    f.cached.prefetch(plan.ranges);
    const asyncBuffer: AsyncBuffer = {
      byteLength: file.bytes,
      slice: (start, end = file.bytes) => read(f, start, end),
    };
    // hyparquet asks for exactly each column chunk of the group, all already cached.
    const decode = (column: string, g: RowSpan) => decodeColumn(asyncBuffer, metadata, column, g);
    let decoded: Float64Array[][];
    try {
      decoded = await abortable(
        Promise.all(
          groups.map((g) =>
            Promise.all(
              columns.map((column) =>
                decodedChunks.get(keyOf(g.index, column), g.rows, () =>
                  // Times are kept as period ordinals (NaN: no period's row): the filter below needs nothing else.
                  column === 'time' ? decode(column, g).then((t) => ordinalsOfRowTimes(scale, t)) : decode(column, g),
                ),
              ),
            ),
          ),
        ),
        signal,
      );
    } catch (err) {
      if (err instanceof ClimateQueryError) throw err;
      const failure = unreadable(file.path, `could not be decoded (${(err as Error).message})`, err);
      decodeFailures.add(failure);
      throw failure;
    }
    // Per asked type, its column among those read (-1: the file has none).
    const columnOf = types.map((t) => present.indexOf(t));
    return orderRows(rowsInRange(decoded, columnOf, lo, hi));
  };

  return {
    stations(signal, scales = STATION_TIME_SCALES) {
      indexP ??= (async () => {
        const f = open(section.index, section.indexBytes);
        // Starts the host's probe of several ranges per request while the index is read (location.ts).
        location.severalRanges?.();
        const index = await StationIndex.parse(
          await read(f, 0, section.indexBytes),
          location.resolve(section.index),
          section.coverageBytes,
        );
        // The probe's answer decides the first plan (one request with several ranges, or one per
        // range): worth waiting for when it is due within a couple of round trips. Read ahead by
        // the page, the index was in before the probe was sent.
        const latency = location.link?.estimate().latencyMs ?? null;
        await location.severalRangesKnown?.(Math.min(500, Math.max(50, 2 * (latency ?? 50))));
        return index;
      })().catch((err: unknown) => {
        indexP = undefined;
        throw err;
      });
      const stations = indexP.then((index) => index.withScales(scales));
      // Handled here too: a caller whose signal has already fired is refused before it awaits this.
      stations.catch(() => undefined);
      return abortable(stations, signal);
    },

    async coverage(stations, scale, signal) {
      const f = open(section.coverage, section.coverageBytes);
      // Lines of one scale are stored in id order: near ones are fetched as one range.
      f.cached.prefetch(
        mergeRanges(
          stations.flatMap((s) => {
            const at = s.files[scale]?.coverageAt;
            return at ? [[at[0], at[0] + at[1]] as [number, number]] : [];
          }),
          COVERAGE_GAP,
        ),
      );
      const pending = stations.flatMap((s) => {
        const file = s.files[scale];
        if (!file) return [];
        const key = `${scale}\u0000${s.id}`;
        let p = coverageCache.get(key);
        if (!p) {
          const [offset, length] = file.coverageAt;
          const missing = (cause?: unknown) =>
            unreadable(
              section.coverage,
              `has no ${scale} coverage line for station "${s.id}" at byte ${offset}`,
              cause,
            );
          p = read(f, offset, offset + length).then((buf) => {
            let parsed: {
              id?: unknown;
              scale?: unknown;
              footer?: unknown;
              groups?: StationCoverage;
              chunks?: StationFileChunks;
            };
            try {
              parsed = JSON.parse(new TextDecoder().decode(buf)) as typeof parsed;
            } catch (cause) {
              throw missing(cause);
            }
            if (parsed.id !== s.id || parsed.scale !== scale || !isCoverage(parsed.groups)) throw missing();
            // The line must describe the file the index records, not a version of it from another build.
            if (file.footerHash !== undefined && parsed.footer !== file.footerHash) {
              throw new ClimateQueryError(
                'dataset_changed',
                `${location.resolve(section.coverage)} describes another version of station "${s.id}"'s ${scale} file than the index records. If a redeploy is under way, ask again in a moment; otherwise rerun \`climate-query index\`.`,
              );
            }
            if (isChunkMap(parsed.chunks)) chunkMaps.set(chunkKey(file), parsed.chunks);
            return parsed.groups;
          });
          p.catch(() => coverageCache.delete(key));
          coverageCache.set(key, p);
        }
        return [p.then((c) => [s.id, c] as const)];
      });
      return new Map(await abortable(Promise.all(pending), signal));
    },

    readsWhole(stations, scale, types, first, last) {
      const want = ordinalsOf(scale, first, last);
      if (!want) return new Set();
      const direct = new Set<string>();
      // Files not opened yet (an open one has its footer or a read under way) whose span parses.
      const unopened = stations.flatMap((s) => {
        const file = s.files[scale];
        if (!file) return [];
        if (files.get(file.path)?.metadata) {
          direct.add(s.id);
          return [];
        }
        const span = ordinalsOf(scale, file.first, file.last);
        return span ? [{ id: s.id, bytes: file.bytes, first: span[0], last: span[1] }] : [];
      });
      // The asked columns' share of a file: time and the asked types among the scale's types.
      const known = Math.max(section.dataTypes[scale]?.length ?? 0, types.length);
      const share = (types.length + 1) / (known + 1);
      for (const i of readWholeFirst(unopened, want, share, location.link?.estimate())) direct.add(unopened[i]!.id);
      return direct;
    },

    async rows(station, scale, types, first, last, signal, options) {
      const whole = options?.whole ?? false;
      try {
        return await readRows(station, scale, types, first, last, signal, whole);
      } catch (err) {
        if (!decodeFailures.has(err as object)) throw err;
        // Bytes that did not decode may be a fault of the host (a cut or shifted answer): read
        // the file afresh once; a second failure is the file's own.
        const file = station.files[scale]!;
        const f = files.get(file.path);
        if (f) forget(file.path, f);
        return readRows(station, scale, types, first, last, signal, whole);
      }
    },
    async close() {
      indexP = undefined;
      coverageCache.clear();
      chunkMaps.clear();
      decodedChunks.clear();
      await files.closeAll();
    },
  };
}

/** [first, last] period keys of `scale` as ordinals; null when a key does not parse (then no chunk map is used). */
function ordinalsOf(scale: StationTimeScale, first: string, last: string): [number, number] | null {
  const a = ordinalOfKey(scale, first);
  const b = ordinalOfKey(scale, last);
  return a === null || b === null ? null : [a, b];
}

/** Whether a coverage line's `chunks` has the shape of a chunk map (its values are checked against the footer's plan later). */
function isChunkMap(x: unknown): x is StationFileChunks {
  const m = x as StationFileChunks | undefined;
  return (
    typeof m === 'object' &&
    m !== null &&
    Array.isArray(m.columns) &&
    m.columns.every((c) => typeof c === 'string') &&
    Array.isArray(m.groups) &&
    m.groups.every((g) => Array.isArray(g) && g.every((v) => Number.isSafeInteger(v)))
  );
}

/** Parquet values → JSON numbers; anything missing or not finite → null (never a plausible guess). */
export function toNumberOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'bigint' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}
