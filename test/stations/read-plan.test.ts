// The station read planner alone, on real files of the demo built by the real build: the row groups
// it picks are exactly those holding a row of the asked periods (found by decoding every time value
// with hyparquet), and its ranges cover each wanted column chunk, once, merged only across small gaps.
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { MERGE_GAP, planFileRead } from '../../src/stations/read-plan.ts';
import { keyOfTime } from '../../src/stations/time-keys.ts';
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
      let best: { buffer: ArrayBuffer; metadata: ReturnType<typeof parquetMetadata> } | undefined;
      for (const st of stations.filter((x) => x.files[scale]).slice(0, 40)) {
        const bytes = await readFile(join(demo, st.files[scale]!.path));
        const buf = bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength);
        const md = parquetMetadata(buf);
        if (!best || md.row_groups.length > best.metadata.row_groups.length) best = { buffer: buf, metadata: md };
      }
      const { buffer, metadata } = best!;
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
        // Chunks already decoded need no bytes.
        expect(planFileRead(metadata, scale, columns, first, last, () => true)!.ranges).toEqual([]);
        checked++;
      }
      // Periods outside the file: nothing to read.
      expect(planFileRead(metadata, scale, columns, '1900-01-01', '1900-01-02')!.groups).toEqual([]);
    }
    expect(checked).toBe(24);
  });

  it('a file without a time column has no plan', () => {
    const metadata = { schema: [{ name: 'root' }, { name: 'rain' }], row_groups: [] } as unknown as Parameters<
      typeof planFileRead
    >[0];
    expect(planFileRead(metadata, 'daily', ['time', 'rain'], '2024-01-01', '2024-01-02')).toBeNull();
  });
});
