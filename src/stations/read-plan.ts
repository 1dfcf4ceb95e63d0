/**
 * What one station file read fetches, planned from its footer alone (no I/O,
 * as hyparquet's plan.js): the row groups whose time statistics overlap the
 * asked periods, and the byte ranges of their column chunks not decoded
 * already, merged across small gaps. The archive fetches exactly these
 * ranges, all at once, so a request count can be checked against the plan.
 */
import { ClimateQueryError } from '../contract/errors.ts';
import type { FileMetaData } from 'hyparquet';
import type { StationTimeScale } from '../contract/station-data-types.ts';
import type { StationFileChunks } from '../dataset/catalog.ts';
import type { LinkEstimate } from '../io/link-meter.ts';
import { keyOfTime } from './time-keys.ts';

/**
 * Column chunks of one station file closer than this are read as one range.
 * Chosen on four links (docs/decisions/0003-station-read-path.md, "The merge
 * gap"): a request costs a browser 5–10 ms whatever the link, so in Chromium
 * a 16 KiB gap is 18–21 % faster at 40 ms, but it reads 3× the bytes of the
 * chunks that hold the answer (8 KiB: under 2×, the archive's target) and is
 * 11 % slower for an hourly year on a 4 Mbit/s line, the link growers have.
 */
export const MERGE_GAP = 8 * 1024;

/** The widest merge gap a measured link may call for: past it a slow estimate would cost more bytes than time saves. */
export const MAX_MERGE_GAP = 64 * 1024;

/**
 * Links whose quickest answer came sooner than this keep {@link MERGE_GAP}: a request costs next
 * to nothing there (a LAN, a local server) and bytes are what count. A wait is timed by the
 * client, so a busy machine stretches it: loopback answers took 9 ms at best with both cores of
 * a 2-core machine building a dataset, hence the margin.
 */
export const FAST_LINK_MS = 25;

/**
 * What one more request costs a query whatever the link, ms: a browser's own cost per request
 * (40 Range fetches sent at once from a fresh Worker took Chromium 230–450 ms at 0 ms latency on
 * a 2-core machine, 6–11 ms each; 192 took 1.1–2.0 s), and the share of a 40 ms round trip it
 * takes queued behind six connections (7 ms). At 7 ms in all, a polygon's 62 daily files at
 * 20 Mbit/s went out as 157 requests of 0.6–11 KB and took 2.8 s against 2.2 s for whole files;
 * at 15 ms, 67–71 requests and 1.9 s (Chromium, 3 runs each; other queries and links unchanged).
 * Not more on a slower link: where the bandwidth is the bottleneck the requests overlap the
 * transfer and only bytes add time (an 8 KiB gap is quickest for an hourly year at 150 ms,
 * 4 Mbit/s: 3.37 s, against 3.55 s at 16 KiB and 3.88 s at 32 KiB).
 */
export const REQUEST_COST_MS = 15;

/**
 * The merge gap where one request carries several ranges (the host answers `multipart/byteranges`):
 * merging then saves no request, only a part's own headers (about 100 bytes), so only gaps that
 * small are read through.
 */
export const PART_GAP = 256;

/**
 * The merge gap for a measured link: the bytes that arrive in {@link REQUEST_COST_MS}, between
 * {@link MERGE_GAP} and {@link MAX_MERGE_GAP}. 40 ms with no bandwidth limit: 64 KiB (a request
 * costs more than any gap); 20 Mbit/s: 37.5 KB; 4 Mbit/s: 8 KiB. Unmeasured links, and links
 * whose quickest answer came in under {@link FAST_LINK_MS}, get {@link MERGE_GAP}.
 */
export function mergeGapFor(link: LinkEstimate | undefined): number {
  const latency = link?.latencyMs ?? null;
  const rate = link?.bytesPerMs ?? null;
  if (latency === null || rate === null || latency < FAST_LINK_MS) return MERGE_GAP;
  return Math.round(Math.min(MAX_MERGE_GAP, Math.max(MERGE_GAP, rate * REQUEST_COST_MS)));
}

/** Merges sorted-or-not ranges closer than `gap`. */
export function mergeRanges(ranges: Array<[number, number]>, gap: number): Array<[number, number]> {
  const sorted = [...ranges].sort((x, y) => x[0] - y[0]);
  const merged: Array<[number, number]> = [];
  for (const [a0, b0] of sorted) {
    const last = merged[merged.length - 1];
    if (last && a0 - last[1] <= gap) last[1] = Math.max(last[1], b0);
    else merged.push([a0, b0]);
  }
  return merged;
}

/** A row group to decode: its index in the file and its first row. */
export interface PlannedGroup {
  index: number;
  start: number;
  rows: number;
}

/** The plan of one file read. */
export interface FileReadPlan {
  /** Row groups to decode, in file order (contiguous in a file sorted by time). */
  groups: PlannedGroup[];
  /** Byte ranges [start, end) to fetch, sorted and merged across gaps of {@link MERGE_GAP}. */
  ranges: Array<[number, number]>;
}

/** Most rows a station file's row group may claim (builds write 4,096 hours or 2,048 days a group). */
export const MAX_GROUP_ROWS = 1 << 20;

/**
 * Plans reading `columns` (the first must be "time") for the periods `first`…`last` (response keys of
 * `scale`). A group without time statistics is read, as only its values can tell. `decoded(g, column)`
 * says which chunks are already decoded (no bytes needed). Null when the file has no time column.
 */

export function planFileRead(
  metadata: FileMetaData,
  scale: StationTimeScale,
  columns: readonly string[],
  first: string,
  last: string,
  decoded: (group: number, column: string) => boolean = () => false,
  mergeGap: number = MERGE_GAP,
): FileReadPlan | null {
  if (!metadata.schema.some((e) => e.name === 'time')) return null;
  // A row count the file claims is bounded before a decoder sizes its arrays by it.
  for (const rg of metadata.row_groups) {
    const n = Number(rg.num_rows);
    if (!Number.isSafeInteger(n) || n < 0 || n > MAX_GROUP_ROWS) {
      throw new ClimateQueryError(
        'dataset_unavailable',
        `a row group of the station file claims ${String(rg.num_rows)} rows, more than the ${MAX_GROUP_ROWS.toLocaleString('en')} a reader takes; the file is damaged or not one a build wrote. Rebuild the stations.`,
      );
    }
  }
  const timeIndex = metadata.row_groups[0]?.columns.findIndex((c) => c.meta_data?.path_in_schema[0] === 'time') ?? -1;
  // The span of rows of every overlapping group; sorted files make the groups contiguous.
  let rowStart = Number.POSITIVE_INFINITY;
  let rowEnd = 0;
  let groupStart = 0;
  for (const rg of metadata.row_groups) {
    const n = Number(rg.num_rows);
    const stats = timeIndex >= 0 ? rg.columns[timeIndex]?.meta_data?.statistics : undefined;
    const lo = keyOfTime(scale, stats?.min_value);
    const hi = keyOfTime(scale, stats?.max_value);
    if (lo === null || hi === null || (lo <= last && hi >= first)) {
      rowStart = Math.min(rowStart, groupStart);
      rowEnd = groupStart + n;
    }
    groupStart += n;
  }
  const groups: PlannedGroup[] = [];
  if (rowStart >= rowEnd) return { groups, ranges: [] };
  let at = 0;
  metadata.row_groups.forEach((rg, index) => {
    const n = Number(rg.num_rows);
    if (at + n > rowStart && at < rowEnd) groups.push({ index, start: at, rows: n });
    at += n;
  });
  const wanted: Array<[number, number]> = [];
  for (const g of groups) {
    for (const c of metadata.row_groups[g.index]!.columns) {
      const m = c.meta_data;
      const column = m?.path_in_schema[0];
      if (!m || !column || !columns.includes(column) || decoded(g.index, column)) continue;
      const start = Number(m.dictionary_page_offset || m.data_page_offset);
      wanted.push([start, start + Number(m.total_compressed_size)]);
    }
  }
  return { groups, ranges: mergeRanges(wanted, mergeGap) };
}

/**
 * A file no more than this larger than what a plan would fetch of it is read whole, in one
 * request: 16 KiB is 7 ms at 20 Mbit/s and 33 ms at 4 Mbit/s, less than the round trip a second
 * request costs on either link (docs/performance.md, link profiles).
 */
export const WHOLE_FILE_SLACK = 16 * 1024;

/**
 * The chunk ranges of `columns` for the periods `first`…`last` (ordinals of the file's scale),
 * planned from the file's chunk map (its coverage line) instead of its footer: the same row
 * groups and chunks {@link planFileRead} picks from the footer, so the footer's plan finds them
 * fetched. Null when the map does not fit the file (a column missing, a malformed row group):
 * then the reader plans from the footer alone.
 */
export function planFromChunks(
  chunks: StationFileChunks,
  columns: readonly string[],
  first: number,
  last: number,
  decoded: (group: number, column: string) => boolean = () => false,
): Array<[number, number]> | null {
  const n = chunks.columns.length;
  const at = columns.map((c) => chunks.columns.indexOf(c));
  const out: Array<[number, number]> = [];
  // The span of overlapping groups, as planFileRead takes it (files are sorted by time).
  let lo = -1;
  let hi = -1;
  for (const [g, row] of chunks.groups.entries()) {
    if (!Array.isArray(row) || row.length !== n + 3) return null;
    if (row[0]! <= last && row[1]! >= first) {
      if (lo < 0) lo = g;
      hi = g;
    }
  }
  if (lo < 0) return out;
  for (let g = lo; g <= hi; g++) {
    const row = chunks.groups[g]!;
    columns.forEach((column, k) => {
      const i = at[k]!;
      if (i < 0 || decoded(g, column)) return;
      out.push([row[2 + i]!, row[3 + i]!]);
    });
  }
  return out;
}

/**
 * The first read of a station file: its footer (exact length from the index) together with the
 * chunks planned from its chunk map when there is one, merged across gaps of `mergeGap`; the
 * whole file instead when that is at most {@link WHOLE_FILE_SLACK} more. One round trip then
 * brings the footer and, usually, every byte the query needs (the last row groups lie just
 * before the footer, and most queries ask for recent periods).
 */
export function planOpening(
  file: { bytes: number; footer: number },
  chunks: ReadonlyArray<[number, number]> | null,
  mergeGap: number = MERGE_GAP,
): Array<[number, number]> {
  const tail: [number, number] = [file.bytes - file.footer - 8, file.bytes];
  // A chunk outside the data part would be a map of another file: left to the footer's plan.
  const inside = (chunks ?? []).filter(([a, b]) => a >= 0 && a < b && b <= tail[0]);
  const merged = mergeRanges([...inside, tail], mergeGap);
  const planned = merged.reduce((s, [a, b]) => s + (b - a), 0);
  // No wider slack for a wider gap: the merge already joined every pair of ranges a request would
  // cost more than, so a second range means a gap worth a request (the bytes before the first range
  // are what remains, and they are not worth reading beyond the slack).
  return file.bytes - planned <= WHOLE_FILE_SLACK ? [[0, file.bytes]] : merged;
}

/** A station file as the index describes it, for {@link readWholeFirst}: size and period span (ordinals). */
export interface IndexedFileSpan {
  bytes: number;
  first: number;
  last: number;
}

/**
 * Which files to read whole at once instead of after their coverage lines (indexes into
 * `files`). A file read whole tells by its own values whether the station has data, so its line
 * is not needed: that saves the round trip between line and file and one request per file, and
 * costs the bytes the planned read would not have fetched. Files are taken, least extra first,
 * while the extra bytes of all taken arrive in the time saved on the measured link: one round
 * trip and {@link REQUEST_COST_MS} per request not sent. A file's need is estimated from the index
 * alone: its share of the asked periods times `columnShare` (the asked columns' share of its
 * columns), less the {@link WHOLE_FILE_SLACK} an opening reads anyway. No file more than
 * {@link MAX_MERGE_GAP} beyond its need, whatever the link: bytes cost growers money on mobile
 * data, and a link read as fast would otherwise fetch every hourly file whole for a day of it.
 * None on an unmeasured link, or one whose answers come within {@link FAST_LINK_MS} (a round trip
 * costs next to nothing there, and bytes are what count).
 */
export function readWholeFirst(
  files: readonly IndexedFileSpan[],
  want: readonly [number, number],
  columnShare: number,
  link: LinkEstimate | undefined,
): number[] {
  const latency = link?.latencyMs ?? null;
  const rate = link?.bytesPerMs ?? null;
  if (latency === null || rate === null || latency < FAST_LINK_MS) return [];
  const share = Math.min(1, Math.max(0, columnShare));
  const extra = files.map((f, i) => {
    const span = f.last - f.first + 1;
    const overlap = Math.min(f.last, want[1]) - Math.max(f.first, want[0]) + 1;
    const need = span > 0 && overlap > 0 ? f.bytes * (overlap / span) * share : 0;
    return { i, extra: Math.max(0, f.bytes - need - WHOLE_FILE_SLACK) };
  });
  extra.sort((a, b) => a.extra - b.extra || a.i - b.i);
  const out: number[] = [];
  let spent = 0;
  for (const { i, extra: e } of extra) {
    if (e > MAX_MERGE_GAP || spent + e > rate * (latency + (out.length + 1) * REQUEST_COST_MS)) break;
    spent += e;
    out.push(i);
  }
  return out.sort((a, b) => a - b);
}
