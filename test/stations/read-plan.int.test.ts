// The station read planner alone, on real files of the demo built by the real build: the row groups
// it picks are exactly those holding a row of the asked periods (found by decoding every time value
// with hyparquet), and its ranges cover each wanted column chunk, once, merged only across small gaps.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { RangeCache } from '../../src/io/range-cache.ts';
import {
  FAST_LINK_MS,
  MAX_MERGE_GAP,
  MERGE_GAP,
  REQUEST_COST_MS,
  WHOLE_FILE_SLACK,
  mergeGapFor,
  mergeRanges,
  planFileRead,
  planFromChunks,
  planOpening,
  readWholeFirst,
} from '../../src/stations/read-plan.ts';
import { keyOfTime, ordinalOfKey } from '../../src/stations/time-keys.ts';
import type { StationFileChunks } from '../../src/dataset/catalog.ts';
import type { StationTimeScale } from '../../src/contract/station-data-types.ts';

const demo = inject('demoDataset');

describe('planFileRead', () => {
  it('picks exactly the row groups holding the periods, and ranges that cover their chunks', async () => {
    const engine = createNodeEngine(demo);
    const stations = await engine.stations();
    await engine.close();
    let checked = 0;
    for (const scale of ['hourly', 'daily'] as StationTimeScale[]) {
      // The file of this scale with the most row groups (the build sizes groups per scale).
      let best: { buffer: ArrayBuffer; metadata: ReturnType<typeof parquetMetadata>; at: [number, number] } | undefined;
      for (const st of stations.filter((x) => x.files[scale]).slice(0, 40)) {
        const bytes = await readFile(join(demo, st.files[scale]!.path));
        const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
        const md = parquetMetadata(buf);
        if (!best || md.row_groups.length > best.metadata.row_groups.length)
          best = { buffer: buf, metadata: md, at: st.files[scale]!.coverageAt };
      }
      const { buffer, metadata } = best!;
      // The file's chunk map, as indexing wrote it into its coverage line.
      const coverage = await readFile(join(demo, 'stations/coverage.jsonl'));
      const line = JSON.parse(coverage.subarray(best!.at[0], best!.at[0] + best!.at[1]).toString('utf8')) as {
        chunks?: StationFileChunks;
      };
      expect(line.chunks?.groups).toHaveLength(metadata.row_groups.length);
      // Hourly files hold several groups of 4,096 rows; a daily file of two years, one.
      expect(metadata.row_groups.length).toBeGreaterThan(scale === 'hourly' ? 3 : 0);
      // Every time value, decoded independently of the planner, and the row group it sits in.
      const rows = await parquetReadObjects({ file: buffer, columns: ['time'], compressors });
      const keys = rows.map((r) => keyOfTime(scale, r.time)!);
      const groupOf: number[] = [];
      metadata.row_groups.forEach((rg, g) => {
        for (let i = 0; i < Number(rg.num_rows); i++) groupOf.push(g);
      });
      expect(groupOf.length).toBe(keys.length);
      const columns = ['time', metadata.schema.find((e) => e.name !== 'time' && !e.num_children)!.name];
      for (let k = 0; k < 12; k++) {
        const a = keys[Math.floor((((k * 7919) % 997) / 997) * keys.length)]!;
        const b = keys[Math.floor((((k * 104729) % 991) / 991) * keys.length)]!;
        const [first, last] = a <= b ? [a, b] : [b, a];
        const plan = planFileRead(metadata, scale, columns, first, last)!;
        const needed = [...new Set(keys.flatMap((key, i) => (key >= first && key <= last ? [groupOf[i]!] : [])))].sort(
          (x, y) => x - y,
        );
        expect(plan.groups.map((g) => g.index)).toEqual(needed);
        // Group starts are the running row counts.
        for (const g of plan.groups) expect(g.start).toBe(groupOf.indexOf(g.index));
        // Each wanted chunk lies inside one range; ranges are sorted and apart by more than the gap.
        for (const g of plan.groups) {
          for (const c of metadata.row_groups[g.index]!.columns) {
            if (!columns.includes(c.meta_data!.path_in_schema[0]!)) continue;
            const s = Number(c.meta_data!.dictionary_page_offset || c.meta_data!.data_page_offset);
            const e = s + Number(c.meta_data!.total_compressed_size);
            expect(plan.ranges.filter(([r0, r1]) => r0 <= s && e <= r1)).toHaveLength(1);
          }
        }
        for (let i = 1; i < plan.ranges.length; i++)
          expect(plan.ranges[i]![0] - plan.ranges[i - 1]![1]).toBeGreaterThan(MERGE_GAP);
        // The chunk map plans the same chunks before the footer is read.
        const fromMap = planFromChunks(line.chunks!, columns, ordinalOfKey(scale, first)!, ordinalOfKey(scale, last)!)!;
        expect(mergeRanges(fromMap, MERGE_GAP)).toEqual(plan.ranges);
        // Chunks already decoded need no bytes.
        expect(planFileRead(metadata, scale, columns, first, last, () => true)!.ranges).toEqual([]);
        expect(
          planFromChunks(line.chunks!, columns, ordinalOfKey(scale, first)!, ordinalOfKey(scale, last)!, () => true),
        ).toEqual([]);
        checked++;
      }
      // Periods outside the file: nothing to read.
      expect(planFileRead(metadata, scale, columns, '1900-01-01', '1900-01-02')!.groups).toEqual([]);
    }
    expect(checked).toBe(24);
  });

  it('opens a file with its footer and the mapped chunks in one read, or whole when that costs little more', () => {
    const file = { bytes: 200_000, footer: 9_000 };
    const tail: [number, number] = [200_000 - 9_008, 200_000];
    // No map: the footer alone.
    expect(planOpening(file, null)).toEqual([tail]);
    // Chunks near the footer join it; far ones stay apart.
    expect(
      planOpening(file, [
        [185_000, 189_000],
        [20_000, 30_000],
      ]),
    ).toEqual([
      [20_000, 30_000],
      [185_000, 200_000],
    ]);
    // A map's chunk outside the data part (another file's map) is left to the footer's plan.
    expect(
      planOpening(file, [
        [195_000, 199_000],
        [-5, 10],
      ]),
    ).toEqual([tail]);
    // Within WHOLE_FILE_SLACK of the file: the whole file, one read.
    expect(planOpening(file, [[4, 190_000]])).toEqual([[0, 200_000]]);
    expect(planOpening(file, [[WHOLE_FILE_SLACK + 10, 190_000]])).toEqual([[WHOLE_FILE_SLACK + 10, 200_000]]);
    expect(planOpening({ bytes: 12_000, footer: 3_000 }, null)).toEqual([[0, 12_000]]);
  });

  it('a measured link sets the merge gap: the bytes that arrive while one more request would wait', () => {
    // Unmeasured, or a local link: the fixed gap.
    expect(mergeGapFor(undefined)).toBe(MERGE_GAP);
    expect(mergeGapFor({ latencyMs: null, bytesPerMs: 1e6 })).toBe(MERGE_GAP);
    expect(mergeGapFor({ latencyMs: 40, bytesPerMs: null })).toBe(MERGE_GAP);
    expect(mergeGapFor({ latencyMs: FAST_LINK_MS - 1, bytesPerMs: 1e6 })).toBe(MERGE_GAP);
    // 150 ms at 4 Mbit/s (500 B/ms): 7.5 KB arrive in the 15 ms a request costs, so the floor.
    expect(mergeGapFor({ latencyMs: 150, bytesPerMs: 500 })).toBe(MERGE_GAP);
    // 40 ms at 20 Mbit/s: 37.5 KB.
    expect(mergeGapFor({ latencyMs: 40, bytesPerMs: 2_500 })).toBe(2_500 * REQUEST_COST_MS);
    // No bandwidth limit: capped; a slow, short link: floored.
    expect(mergeGapFor({ latencyMs: 40, bytesPerMs: 1e5 })).toBe(MAX_MERGE_GAP);
    expect(mergeGapFor({ latencyMs: 30, bytesPerMs: 100 })).toBe(MERGE_GAP);
    // A wide gap joins a chunk and the footer into one range; it does not read the bytes before the
    // first chunk (they would cost bytes and save no request).
    expect(planOpening({ bytes: 60_000, footer: 2_000 }, [[20_000, 30_000]], MAX_MERGE_GAP)).toEqual([
      [20_000, 60_000],
    ]);
    expect(planOpening({ bytes: 60_000, footer: 2_000 }, [[20_000, 30_000]], MERGE_GAP)).toEqual([
      [20_000, 30_000],
      [57_992, 60_000],
    ]);
  });

  it('a plan merged wider than the bytes already held reads only what is new', async () => {
    const reads: Array<[number, number]> = [];
    const file = new Uint8Array(100_000).map((_, i) => i % 251);
    const cache = new RangeCache(
      {
        url: 'mem:file',
        read: async (offset, length) => {
          reads.push([offset, offset + length]);
          return file.slice(offset, offset + length);
        },
      },
      file.length,
    );
    cache.prefetch([
      [1_000, 2_000],
      [5_000, 6_000],
    ]);
    // A wider gap now merges both and a chunk after them: only the two gaps and the new chunk are read.
    cache.prefetch([[1_000, 9_000]]);
    expect(reads).toEqual([
      [1_000, 2_000],
      [5_000, 6_000],
      [2_000, 5_000],
      [6_000, 9_000],
    ]);
    // Each chunk is served whole from one held range.
    expect(new Uint8Array(await cache.slice(6_100, 8_000))).toEqual(file.slice(6_100, 8_000));
    expect(new Uint8Array(await cache.slice(1_500, 1_900))).toEqual(file.slice(1_500, 1_900));
    cache.prefetch([[1_000, 9_000]]);
    expect(reads).toHaveLength(4);
  });

  it('a chunk map that does not fit its columns plans nothing (the footer decides)', () => {
    const map: StationFileChunks = { columns: ['station_id', 'time', 'rain'], groups: [[0, 10, 4, 50, 90, 200]] };
    expect(planFromChunks(map, ['time', 'rain'], 5, 6)).toEqual([
      [50, 90],
      [90, 200],
    ]);
    expect(planFromChunks(map, ['time', 'rain'], 11, 12)).toEqual([]);
    expect(planFromChunks({ ...map, groups: [[0, 10, 4, 50]] }, ['time'], 0, 1)).toBeNull();
  });

  it('a file without a time column has no plan', () => {
    const metadata = { schema: [{ name: 'root' }, { name: 'rain' }], row_groups: [] } as unknown as Parameters<
      typeof planFileRead
    >[0];
    expect(planFileRead(metadata, 'daily', ['time', 'rain'], '2024-01-01', '2024-01-02')).toBeNull();
  });
});

describe('readWholeFirst', () => {
  // Ten daily files of two years (40 KB), a one-year query of 5 of their 27 types: 6 of 28 columns.
  const files = Array.from({ length: 10 }, () => ({ bytes: 40_000, first: 19_358, last: 20_088 }));
  const year: [number, number] = [19_723, 20_088];
  const share = 6 / 28;

  it('reads whole, least extra first, while the extra bytes arrive within the round trip and requests saved', () => {
    // Unlimited at 40 ms (20 KB/ms): 10 × 19.3 KB extra fit easily.
    expect(readWholeFirst(files, year, share, { latencyMs: 40, bytesPerMs: 20_000 })).toEqual([
      0, 1, 2, 3, 4, 5, 6, 7, 8, 9,
    ]);
    // 150 ms at 4 Mbit/s (500 B/ms): each file's need is 40,000 × 366/731 × 6/28 = 4,291 B, its extra
    // 40,000 − 4,291 − 16,384 = 19,325 B; six files (116.0 KB) arrive in 150 + 6 × 15 ms (120 KB),
    // seven (135.3 KB) not in 255 ms (127.5 KB).
    expect(REQUEST_COST_MS).toBe(15);
    expect(readWholeFirst(files, year, share, { latencyMs: 150, bytesPerMs: 500 })).toEqual([0, 1, 2, 3, 4, 5]);
    // The smallest first: a 200 KB file is left to its coverage line, the small ones are read.
    const mixed = [{ bytes: 200_000, first: 19_358, last: 20_088 }, ...files.slice(0, 3)];
    expect(readWholeFirst(mixed, year, share, { latencyMs: 150, bytesPerMs: 500 })).toEqual([1, 2, 3]);
    // Never more than MAX_MERGE_GAP beyond a file's need, however fast the link: a day of a 210 KB hourly file.
    const hourly = { bytes: 210_000, first: 0, last: 17_543 };
    expect(readWholeFirst([hourly], [8_760, 8_783], 6 / 18, { latencyMs: 150, bytesPerMs: 100_000 })).toEqual([]);
    expect(readWholeFirst([hourly], [0, 17_543], 1, { latencyMs: 150, bytesPerMs: 100_000 })).toEqual([0]);
    // A file within the slack of its need costs nothing extra: read whole on any measured link.
    expect(
      readWholeFirst([{ bytes: 12_000, first: 0, last: 99 }], [0, 99], 1, { latencyMs: 150, bytesPerMs: 1 }),
    ).toEqual([0]);
  });

  it('reads nothing whole on an unmeasured link, or one whose answers come within FAST_LINK_MS', () => {
    expect(readWholeFirst(files, year, share, undefined)).toEqual([]);
    expect(readWholeFirst(files, year, share, { latencyMs: null, bytesPerMs: 20_000 })).toEqual([]);
    expect(readWholeFirst(files, year, share, { latencyMs: 40, bytesPerMs: null })).toEqual([]);
    expect(readWholeFirst(files, year, share, { latencyMs: FAST_LINK_MS - 1, bytesPerMs: 20_000 })).toEqual([]);
  });
});
