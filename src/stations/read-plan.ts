/**
 * What one station file read fetches, planned from its footer alone (no I/O,
 * as hyparquet's plan.js): the row groups whose time statistics overlap the
 * asked periods, and the byte ranges of their column chunks not decoded
 * already, merged across small gaps. The archive fetches exactly these
 * ranges, all at once, so a request count can be checked against the plan.
 */
import type { FileMetaData } from 'hyparquet';
import type { StationTimeScale } from '../contract/station-data-types.ts';
import { keyOfTime } from './time-keys.ts';

/**
 * Column chunks of one station file closer than this are read as one range:
 * a gap of 8 KiB costs less on any real link than another request (40 ms at
 * 20 Mbit/s moves 100 KB). Measured on the demo, cold, 10 points × 5 types ×
 * one hourly year (8 files, answer chunks 279 KB, footers 62 KB): gap 4 KiB
 * 88 data requests / 341 KB; 8 KiB 55 / 521 KB; 16 KiB 16 / 898 KB.
 */
export const MERGE_GAP = 8 * 1024;

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
