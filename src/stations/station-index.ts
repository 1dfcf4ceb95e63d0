/**
 * The station index: one row per station (id, name, position, and per time
 * scale the file that holds its rows, that file's size and footer length,
 * and its first and last period). It grows with the number of stations
 * only, so the first station query of a session downloads it whole, and
 * nothing else about stations it will not read (docs/data.md).
 */
import { parquetMetadata, parquetRead } from 'hyparquet';
import { codecs, codecsFor } from './parquet-codecs.ts';
import { ClimateQueryError } from '../contract/errors.ts';
import { truncate } from '../contract/quote.ts';
import { STATION_TIME_SCALES, type StationTimeScale } from '../contract/station-data-types.ts';
import { FOOTER_HASH_DIGITS, MAX_COVERAGE_MERGED_GAP, type StationCoverage } from '../dataset/catalog.ts';

/** The Parquet file holding one station's rows of one time scale. */
export interface StationFile {
  /** Path relative to the dataset root, '/'-separated, not URL-encoded. */
  path: string;
  /** File size in bytes: lets a reader fetch the footer without a HEAD request, and detect a changed file. */
  bytes: number;
  /** Length of the Parquet footer (the 4-byte length before the closing "PAR1"). */
  footer: number;
  /**
   * The footer's hash ({@link FOOTER_HASH_DIGITS} hex digits of the SHA-256 of the footer and its
   * last 8 bytes), checked when the file is first opened: a file of the same size from another
   * build is `dataset_changed`. Absent in indexes written before it.
   */
  footerHash?: string;
  /** First and last period keys (response format) of the file's rows. */
  first: string;
  last: string;
  /** [offset, length] of the station's line for this scale in the coverage file. */
  coverageAt: [number, number];
}

/** One station as the index lists it. */
export interface IndexedStation {
  id: string;
  name: string;
  lat: number;
  lon: number;
  /** Metres above sea level; null when unknown. */
  elevation: number | null;
  /** Per time scale, the file with its rows; absent when the station has none. */
  files: Partial<Record<StationTimeScale, StationFile>>;
}

/** Columns of the index file, in order (docs/data.md). */
export const INDEX_COLUMNS = [
  'station_id',
  'name',
  'lat',
  'lon',
  'elevation',
  ...STATION_TIME_SCALES.flatMap((s) => [
    `${s}_path`,
    `${s}_bytes`,
    `${s}_footer`,
    `${s}_footer_hash`,
    `${s}_first`,
    `${s}_last`,
    `${s}_coverage_offset`,
    `${s}_coverage_length`,
  ]),
] as const;

const num = (v: unknown): number | null =>
  v === null || v === undefined ? null : typeof v === 'bigint' ? Number(v) : Number(v);

const utf8 = new TextDecoder();

/**
 * The index's strings (ids, names, paths, hashes, dates: 11 per station),
 * ASCII ones made in JavaScript. A browser's TextDecoder costs a call into
 * the engine per string: 104 ms for 22,000 path-sized strings in a fresh
 * Chromium page, against 7 ms this way (Node's is fast either way).
 */
function textOf(bytes: Uint8Array | undefined): string | undefined {
  if (!bytes) return bytes;
  if (bytes.length > 256) return utf8.decode(bytes);
  for (let i = 0; i < bytes.length; i++) if (bytes[i]! > 0x7f) return utf8.decode(bytes);
  return String.fromCharCode.apply(null, bytes as unknown as number[]);
}

/**
 * Parses the index file's bytes into stations sorted by id (JS string
 * order, the order poly-aggregate lists and sums them in), with their files
 * of every time scale. {@link StationIndex} parses a scale only when asked.
 */
export async function parseStationIndex(
  bytes: ArrayBuffer,
  where: string,
  coverageBytes = Infinity,
): Promise<IndexedStation[]> {
  return (await StationIndex.parse(bytes, where, coverageBytes)).withScales(STATION_TIME_SCALES);
}

/** The columns of one time scale's files, in the order {@link StationIndex} reads them. */
const scaleColumns = (scale: StationTimeScale) => INDEX_COLUMNS.filter((c) => c.startsWith(`${scale}_`));
const BASE_COLUMNS = ['station_id', 'name', 'lat', 'lon', 'elevation'];

/**
 * The station index, its stations parsed first and each time scale's files
 * only when a query asks for that scale: a query reads one scale, and the
 * other scales' columns were half the parse of the 2,000-station index
 * (Node, cold: 100 ms for every column, 42–69 ms for the stations and one
 * scale). The file is read as columns, not as one object per row: rows of
 * 29 named fields and a field name made per scale and row took half the
 * parse before (227 ms cold in Node, the scale bench's index).
 */
export class StationIndex {
  /** Per scale, its files' parse, shared by concurrent queries (a failed one is tried again). */
  private readonly scales = new Map<StationTimeScale, Promise<void>>();

  private constructor(
    private readonly bytes: ArrayBuffer,
    private readonly where: string,
    private readonly coverageBytes: number,
    /** The stations in the file's row order (their `files` filled scale by scale). */
    private readonly byRow: readonly IndexedStation[],
    /** The same stations sorted by id. */
    private readonly sorted: IndexedStation[],
  ) {}

  /** Parses the stations (id, name, position) of an index file; no station has files until {@link withScales}. */
  static async parse(bytes: ArrayBuffer, where: string, coverageBytes = Infinity): Promise<StationIndex> {
    const { rows, column } = await readOrRefuse(bytes, where, BASE_COLUMNS);
    const ids = column('station_id');
    const names = column('name');
    const lats = column('lat');
    const lons = column('lon');
    const elevations = column('elevation');
    const byRow: IndexedStation[] = [];
    for (let i = 0; i < rows; i++) {
      const id = ids[i];
      const lat = num(lats[i]);
      const lon = num(lons[i]);
      if (typeof id !== 'string' || lat === null || lon === null) {
        throw new ClimateQueryError(
          'dataset_unavailable',
          `${where} has a row without station_id, lat or lon; rebuild it with \`climate-query index\`.`,
        );
      }
      // A position that is not a place on Earth would rank as nearest to nothing, or to everything.
      if (!(Math.abs(lat) <= 90 && Math.abs(lon) <= 180)) {
        throw new ClimateQueryError(
          'dataset_unavailable',
          `${where}: station "${id}" has lat ${lat}, lon ${lon}, not a position on Earth; fix the stations file and rebuild with \`climate-query index\`.`,
        );
      }
      byRow.push({ id, name: String(names[i] ?? id), lat, lon, elevation: num(elevations[i]), files: {} });
    }
    const sorted = [...byRow].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    return new StationIndex(bytes, where, coverageBytes, byRow, sorted);
  }

  /**
   * Every station, sorted by id, once each one's file of every scale in
   * `scales` is parsed in (a station's file of a scale not asked for yet may
   * be absent). A damaged entry of a scale refuses that scale's queries.
   */
  async withScales(scales: readonly StationTimeScale[]): Promise<IndexedStation[]> {
    await Promise.all(scales.map((scale) => this.scale(scale)));
    return this.sorted;
  }

  private scale(scale: StationTimeScale): Promise<void> {
    let p = this.scales.get(scale);
    if (!p) {
      p = this.parseScale(scale);
      this.scales.set(scale, p);
      p.catch(() => this.scales.delete(scale));
    }
    return p;
  }

  private async parseScale(scale: StationTimeScale): Promise<void> {
    const { column } = await readOrRefuse(this.bytes, this.where, scaleColumns(scale));
    const c = {
      path: column(`${scale}_path`),
      bytes: column(`${scale}_bytes`),
      footer: column(`${scale}_footer`),
      footerHash: column(`${scale}_footer_hash`),
      first: column(`${scale}_first`),
      last: column(`${scale}_last`),
      coverageOffset: column(`${scale}_coverage_offset`),
      coverageLength: column(`${scale}_coverage_length`),
    };
    // Checked whole before any station gets one: a refused scale leaves no station half filled.
    const files: Array<StationFile | undefined> = this.byRow.map((station, i) => {
      const path = c.path[i];
      if (typeof path !== 'string') return undefined;
      const hash = c.footerHash[i];
      const file: StationFile = {
        path,
        bytes: num(c.bytes[i]) ?? NaN,
        footer: num(c.footer[i]) ?? NaN,
        ...(hash === null || hash === undefined ? {} : { footerHash: hash as string }),
        first: String(c.first[i]),
        last: String(c.last[i]),
        coverageAt: [num(c.coverageOffset[i]) ?? NaN, num(c.coverageLength[i]) ?? NaN],
      };
      checkFile(file, scale, station.id, this.where, this.coverageBytes);
      return file;
    });
    this.byRow.forEach((station, i) => {
      const file = files[i];
      if (file) station.files[scale] = file;
    });
  }
}

/**
 * Most rows (stations) an index may hold: far above a national network (the scale bench's has
 * 2,000), far below what would exhaust a tab (a million rows of 40 columns is ≈ 0.3 GB of values).
 */
export const MAX_INDEX_ROWS = 1_000_000;

/** {@link readColumns} of `names`, its failure a `dataset_unavailable` that says how to fix it. */
async function readOrRefuse(
  bytes: ArrayBuffer,
  where: string,
  names: readonly string[],
): Promise<{ rows: number; column: (name: string) => unknown[] }> {
  try {
    const { rows, columns } = await readColumns(bytes, names);
    const none: unknown[] = [];
    return { rows, column: (name) => columns.get(name) ?? none };
  } catch (cause) {
    throw new ClimateQueryError(
      'dataset_unavailable',
      `${where} is not a readable station index (${(cause as Error).message}); rebuild it with \`climate-query index\`.`,
      { cause },
    );
  }
}

/**
 * The file's row count and those of `names` it has, by name, one value per row (null where there
 * is none). A column the file lacks is left out: indexes written before footer hashes have none.
 */
async function readColumns(
  bytes: ArrayBuffer,
  names: readonly string[],
): Promise<{ rows: number; columns: Map<string, unknown[]> }> {
  const metadata = parquetMetadata(bytes);
  await codecsFor(metadata);
  const rows = Number(metadata.num_rows);
  // A count the file claims is checked before anything is allocated for it: a 17 KB index whose footer
  // claimed 10⁹ rows had a reader fill 10⁹-element arrays (3 GB) and took a server down.
  const grouped = metadata.row_groups.reduce((n, g) => n + Number(g.num_rows), 0);
  if (
    !Number.isSafeInteger(rows) ||
    rows < 0 ||
    rows !== grouped ||
    rows > MAX_INDEX_ROWS ||
    rows > bytes.byteLength * 8
  ) {
    throw new Error(
      `its footer claims ${metadata.num_rows} rows (row groups: ${grouped}) in ${bytes.byteLength} bytes; an index holds at most ${MAX_INDEX_ROWS.toLocaleString('en')} stations`,
    );
  }
  const present = new Set(metadata.schema.map((e) => e.name));
  const wanted = names.filter((n) => present.has(n));
  const columns = new Map<string, unknown[]>();
  if (!wanted.length) return { rows, columns };
  let filled = 0;
  await parquetRead({
    file: bytes,
    metadata,
    columns: wanted,
    compressors: codecs,
    parsers: { stringFromBytes: textOf },
    onChunk: ({ columnName, columnData, rowStart }) => {
      let column = columns.get(columnName);
      if (!column) columns.set(columnName, (column = new Array<unknown>(rows).fill(null)));
      for (let i = 0; i < columnData.length; i++) column[rowStart + i] = columnData[i];
      filled += columnData.length;
    },
  });
  if (filled !== rows * columns.size) throw new Error(`${filled} values for ${rows} rows of ${columns.size} columns`);
  return { rows, columns };
}

/**
 * Refuses a file entry no reader could use safely: the index is data, maybe
 * damaged or hostile, and a footer length of −4 had reached a DataView as an
 * offset (a 500 `internal`). A Parquet file is "PAR1", data, the footer, its
 * 4-byte length and "PAR1": so footer ≥ 1 and footer + 12 ≤ bytes.
 */
function checkFile(f: StationFile, scale: StationTimeScale, id: string, where: string, coverageBytes: number): void {
  const bad = (column: string, value: unknown, rule: string) =>
    new ClimateQueryError(
      'dataset_unavailable',
      `${where}: station "${id}" has ${column} = ${truncate(String(value))}, which ${rule}; the index is damaged. Rebuild it with \`climate-query index\`.`,
    );
  const whole = (v: number) => Number.isSafeInteger(v) && v >= 0;
  if (!whole(f.bytes) || f.bytes < 13) throw bad(`${scale}_bytes`, f.bytes, 'is not the size of a Parquet file');
  if (!whole(f.footer) || f.footer < 1 || f.footer + 12 > f.bytes)
    throw bad(`${scale}_footer`, f.footer, `is not a footer length inside a file of ${f.bytes} bytes`);
  const [offset, length] = f.coverageAt;
  if (!whole(offset) || !whole(length) || length < 1 || offset + length > coverageBytes) {
    throw bad(
      `${scale}_coverage_offset/length`,
      `${offset}/${length}`,
      `does not lie inside the coverage file${Number.isFinite(coverageBytes) ? ` of ${coverageBytes} bytes` : ''}`,
    );
  }
  if (
    f.footerHash !== undefined &&
    !(
      typeof f.footerHash === 'string' &&
      f.footerHash.length === FOOTER_HASH_DIGITS &&
      /^[0-9a-f]+$/.test(f.footerHash)
    )
  ) {
    throw bad(`${scale}_footer_hash`, f.footerHash, `is not ${FOOTER_HASH_DIGITS} lower-case hex digits`);
  }
  if (!(f.first <= f.last)) throw bad(`${scale}_first/last`, `${f.first}/${f.last}`, 'is not a period range');
}

/**
 * True when the station's file of `scale` spans some of [first, last]: a
 * cheap test from the index alone. False means no data for sure; true
 * still needs the coverage detail (gaps) or the rows.
 */
export function spansRange(station: IndexedStation, scale: StationTimeScale, first: string, last: string): boolean {
  const f = station.files[scale];
  return f !== undefined && f.first <= last && f.last >= first;
}

/** What a coverage line says of a range: a value there, none, or (in merged gaps) that the rows must tell. */
export type CoverageAnswer = 'yes' | 'no' | 'maybe';

/**
 * Whether the coverage (of one station and scale) has a value of any of `types` between the period
 * ordinals `first` and `last` (inclusive). Runs are exact, except in a group whose short gaps were
 * merged (CoverageGroup.merged): there a range shorter than those gaps and inside a run may hold
 * no value, and the answer is `maybe`. `no` is always exact.
 */
export function dataIn(
  coverage: StationCoverage,
  types: readonly string[],
  first: number,
  last: number,
): CoverageAnswer {
  let answer: CoverageAnswer = 'no';
  for (const group of coverage) {
    if (!group.types.some((t) => types.includes(t))) continue;
    for (const [a, b] of group.runs) {
      if (a > last || b < first) continue;
      // A run's first and last periods have values; a range as long as the merged gaps cannot fall in one.
      if (!group.merged || first <= a || last >= b || last - first + 1 >= group.merged) return 'yes';
      answer = 'maybe';
    }
  }
  return answer;
}

/** True when `groups` is a coverage line's groups as the index build writes them (a hostile line is not read). */
export function isCoverage(groups: unknown): groups is StationCoverage {
  return (
    Array.isArray(groups) &&
    groups.every((g: Partial<Record<keyof StationCoverage[number], unknown>>) => {
      if (typeof g !== 'object' || g === null) return false;
      const { types, runs, merged } = g;
      return (
        Array.isArray(types) &&
        types.every((t) => typeof t === 'string') &&
        Array.isArray(runs) &&
        runs.every(
          (r) =>
            Array.isArray(r) &&
            r.length === 2 &&
            Number.isSafeInteger(r[0]) &&
            Number.isSafeInteger(r[1]) &&
            r[0] <= r[1],
        ) &&
        (merged === undefined ||
          (Number.isSafeInteger(merged) && (merged as number) >= 1 && (merged as number) <= MAX_COVERAGE_MERGED_GAP))
      );
    })
  );
}
