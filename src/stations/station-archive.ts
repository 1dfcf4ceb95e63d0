/**
 * Reads the station archive (docs/data.md) with hyparquet over the
 * {@link ByteSource} seam: the index once, each considered station's
 * coverage line by one Range read, and of a station file only its footer
 * (exact length from the index, parsed once and cached) and the column
 * chunks of the row groups whose time statistics overlap the request.
 * Every file goes through a {@link BlockCachedSource}, so reads asked for
 * in the same tick are merged into one request per contiguous run and
 * warm queries read nothing. The same code runs in the browser's engine
 * Worker, in Node (CLI, `serve`) and in the tests.
 */
import { parquetMetadata, parquetRead, type AsyncBuffer, type FileMetaData } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { ClimateQueryError } from '../contract/errors.ts';
import type { PeriodValues } from '../contract/types.ts';
import type { StationTimeScale } from '../contract/station-data-types.ts';
import { STATION_LAYOUT, type StationCoverage, type StationsSection } from '../dataset/catalog.ts';
import type { DatasetLocation } from '../dataset/location.ts';
import { abortable } from '../rasters/abortable.ts';
import type { ByteSource } from '../rasters/byte-source.ts';
import { BlockCachedSource } from '../rasters/cached-source.ts';
import { parseStationIndex, type IndexedStation, type StationFile } from './station-index.ts';

/** Rows of one station: period key → values of the asked types (null where the file has no value). */
export type StationRows = Map<string, PeriodValues>;

/** Options of {@link openStationArchive}. */
export interface StationArchiveOptions {
  location: DatasetLocation;
  section: StationsSection;
  /** Opens a byte source on a resolved file location (URL or path). */
  openByteSource: (location: string) => ByteSource;
  /** Most station files kept open (with their footers and blocks); least recently used are closed first. */
  maxOpenFiles?: number;
}

/** A station archive opened for reading. */
export interface StationArchive {
  /** Every station, sorted by id (downloads the index on the first call). */
  stations(signal?: AbortSignal): Promise<IndexedStation[]>;
  /** Coverage detail of these stations (cached per station). */
  coverage(stations: readonly IndexedStation[], signal?: AbortSignal): Promise<Map<string, StationCoverage>>;
  /** The station's rows of `scale` with period keys in [first, last], only the columns of `types`. */
  rows(station: IndexedStation, scale: StationTimeScale, types: readonly string[], first: string, last: string, signal?: AbortSignal): Promise<StationRows>;
  /** Closes every open file. */
  close(): Promise<void>;
}

/** Blocks of 16 KiB: a station-year's column chunk of hourly data is a few of them (docs/performance.md). */
const BLOCK_SIZE = 16 * 1024;
/** Per open file: enough for every row group of a decade of hourly data asked twice. */
const FILE_CACHE_BYTES = 4 * 1024 * 1024;

interface OpenFile {
  cached: BlockCachedSource;
  metadata?: Promise<FileMetaData>;
}

/**
 * Resolves a dataset-relative path. For URL datasets every segment is
 * percent-encoded, because Hive-style file names (`station_id=b%3Bc`)
 * contain `%` and `=` literally.
 */
function resolveFile(location: DatasetLocation, path: string): string {
  const isUrl = /^[a-z][a-z0-9+.-]*:\/\//i.test(location.base) || location.base.startsWith('blob:');
  return location.resolve(isUrl ? path.split('/').map(encodeURIComponent).join('/') : path);
}

/** Key of a decoded time value on its scale, as responses write it. */
export function keyOfTime(scale: StationTimeScale, value: unknown): string | null {
  const d = value instanceof Date ? value : null;
  if (!d || Number.isNaN(d.getTime())) return null;
  const iso = d.toISOString();
  return scale === 'hourly' ? iso.slice(0, 19) : scale === 'daily' ? iso.slice(0, 10) : `${iso.slice(0, 7)}-01`;
}

/** Opens the station archive of a dataset. Nothing is read until the first call. */
export function openStationArchive(options: StationArchiveOptions): StationArchive {
  const { location, section } = options;
  if (section.layout !== STATION_LAYOUT) {
    throw new ClimateQueryError('dataset_unavailable', `The dataset at ${location.base} has station layout "${String(section.layout)}"; this engine reads "${STATION_LAYOUT}". Rebuild it with \`climate-query build\` or \`climate-query index\`.`);
  }
  const maxOpen = options.maxOpenFiles ?? 256;
  const files = new Map<string, OpenFile>();
  let indexP: Promise<IndexedStation[]> | undefined;
  const coverageCache = new Map<string, Promise<StationCoverage>>();

  const open = (path: string): OpenFile => {
    let f = files.get(path);
    if (f) {
      // Most recently used last.
      files.delete(path);
      files.set(path, f);
      return f;
    }
    f = { cached: new BlockCachedSource(options.openByteSource(resolveFile(location, path)), { blockSize: BLOCK_SIZE, maxBytes: FILE_CACHE_BYTES }) };
    files.set(path, f);
    for (const [oldPath, old] of files) {
      if (files.size <= maxOpen) break;
      files.delete(oldPath);
      void old.cached.close();
    }
    return f;
  };

  /** Bytes [start, end) of a file, through its block cache. */
  const read = async (f: OpenFile, start: number, end: number, signal?: AbortSignal): Promise<ArrayBuffer> => {
    const [buf] = await f.cached.fetch([{ offset: start, length: end - start }], signal);
    return buf!;
  };

  const unreadable = (path: string, detail: string, cause?: unknown) =>
    new ClimateQueryError('dataset_unavailable', `${resolveFile(location, path)} ${detail}; the dataset changed or is damaged. Rebuild it, or rerun \`climate-query index\`.`, cause === undefined ? {} : { cause });

  const metadataOf = (path: string, file: StationFile, signal?: AbortSignal): Promise<FileMetaData> => {
    const f = open(path);
    f.metadata ??= (async () => {
      // The footer's exact length is in the index: one read, no HEAD, no guessing.
      const tail = file.footer + 8;
      const bytes = new Uint8Array(await read(f, file.bytes - tail, file.bytes));
      const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
      if (bytes.length !== tail || view.getUint32(tail - 4, true) !== 0x31524150 || view.getUint32(tail - 8, true) !== file.footer) {
        throw unreadable(path, `does not end with the ${file.footer}-byte Parquet footer the index records (file of ${file.bytes} bytes)`);
      }
      if (f.cached.fileSize !== null && f.cached.fileSize !== file.bytes) throw unreadable(path, `is ${f.cached.fileSize} bytes, not the ${file.bytes} the index records`);
      try {
        return parquetMetadata(bytes.slice().buffer);
      } catch (cause) {
        throw unreadable(path, `has an unreadable Parquet footer (${(cause as Error).message})`, cause);
      }
    })().catch((err: unknown) => {
      f.metadata = undefined;
      throw err;
    });
    return abortable(f.metadata, signal);
  };

  return {
    stations(signal) {
      indexP ??= (async () => {
        const f = open(section.index);
        // The index is small and read whole; its size is unknown to the catalog, so read until the end.
        const chunks: Uint8Array[] = [];
        let offset = 0;
        for (;;) {
          const got = new Uint8Array(await read(f, offset, offset + 256 * 1024));
          const end = f.cached.fileSize;
          const useful = end === null ? got : got.subarray(0, Math.max(0, end - offset));
          chunks.push(useful);
          offset += useful.length;
          if (end !== null && offset >= end) break;
        }
        const all = new Uint8Array(offset);
        let at = 0;
        for (const c of chunks) {
          all.set(c, at);
          at += c.length;
        }
        return parseStationIndex(all.buffer, resolveFile(location, section.index));
      })().catch((err: unknown) => {
        indexP = undefined;
        throw err;
      });
      return abortable(indexP, signal);
    },

    async coverage(stations, signal) {
      const f = open(section.coverage);
      const pending = stations.map((s) => {
        let p = coverageCache.get(s.id);
        if (!p) {
          const [offset, length] = s.coverageAt;
          p = read(f, offset, offset + length).then((buf) => {
            let parsed: { id?: unknown; coverage?: StationCoverage };
            try {
              parsed = JSON.parse(new TextDecoder().decode(buf)) as typeof parsed;
            } catch (cause) {
              throw unreadable(section.coverage, `has no coverage line for station "${s.id}" at byte ${offset}`, cause);
            }
            if (parsed.id !== s.id || !parsed.coverage) throw unreadable(section.coverage, `has no coverage line for station "${s.id}" at byte ${offset}`);
            return parsed.coverage;
          });
          p.catch(() => coverageCache.delete(s.id));
          coverageCache.set(s.id, p);
        }
        return p.then((c) => [s.id, c] as const);
      });
      return new Map(await abortable(Promise.all(pending), signal));
    },

    async rows(station, scale, types, first, last, signal) {
      const out: StationRows = new Map();
      const file = station.files[scale];
      if (!file || file.first > last || file.last < first) return out;
      const metadata = await metadataOf(file.path, file, signal);
      const f = open(file.path);
      const names = new Set(metadata.schema.map((e) => e.name));
      const present = types.filter((t) => names.has(t));
      if (!names.has('time')) throw unreadable(file.path, 'has no "time" column');
      // Row groups whose time statistics overlap [first, last]; sorted files make them contiguous.
      const timeIndex = metadata.row_groups[0]?.columns.findIndex((c) => c.meta_data?.path_in_schema[0] === 'time') ?? -1;
      let rowStart = Infinity;
      let rowEnd = 0;
      let groupStart = 0;
      for (const rg of metadata.row_groups) {
        const n = Number(rg.num_rows);
        const stats = timeIndex >= 0 ? rg.columns[timeIndex]?.meta_data?.statistics : undefined;
        const lo = keyOfTime(scale, stats?.min_value);
        const hi = keyOfTime(scale, stats?.max_value);
        // No statistics: the group must be read to know.
        if (lo === null || hi === null || (lo <= last && hi >= first)) {
          rowStart = Math.min(rowStart, groupStart);
          rowEnd = groupStart + n;
        }
        groupStart += n;
      }
      if (rowStart >= rowEnd) return out;
      const asyncBuffer: AsyncBuffer = { byteLength: file.bytes, slice: (start, end = file.bytes) => read(f, start, end, signal) };
      let rows: Record<string, unknown>[] = [];
      try {
        await parquetRead({
          file: asyncBuffer,
          metadata,
          columns: ['time', ...present],
          rowStart,
          rowEnd,
          rowFormat: 'object',
          compressors,
          onComplete: (r: Record<string, unknown>[]) => {
            rows = r;
          },
        });
      } catch (err) {
        if (err instanceof ClimateQueryError) throw err;
        throw unreadable(file.path, `could not be decoded (${(err as Error).message})`, err);
      }
      for (const row of rows) {
        const key = keyOfTime(scale, row.time);
        if (key === null || key < first || key > last) continue;
        const values: PeriodValues = {};
        for (const t of types) values[t] = toNumberOrNull(row[t]);
        out.set(key, values);
      }
      return out;
    },

    async close() {
      const all = [...files.values()];
      files.clear();
      indexP = undefined;
      coverageCache.clear();
      await Promise.all(all.map((f) => f.cached.close()));
    },
  };
}

/** Parquet values → JSON numbers; anything missing or not finite → null (never a plausible guess). */
export function toNumberOrNull(v: unknown): number | null {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'bigint' ? Number(v) : v;
  return typeof n === 'number' && Number.isFinite(n) ? n : null;
}
