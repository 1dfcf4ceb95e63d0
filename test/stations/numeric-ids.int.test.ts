/**
 * Station ids are text, even when every id of a dataset is digits (NOAA's USAF + WBAN ids such as
 * 68816099999): the archive's folders are named `station_id=<id>`, and a reader that took those
 * names for Hive partitions typed the column as a number, so such a dataset could not be built.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildStations } from '../../src/builder/stations-build.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';

let root: string;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'cq-numeric-ids-'));
});
afterAll(() => rm(root, { recursive: true, force: true }));

describe('a dataset whose every station id is digits', () => {
  it('builds, keeps the ids as written (digits, as NOAA writes them), and answers', async () => {
    await writeFile(
      join(root, 'stations.csv'),
      'station_id,name,lat,lon,elevation\n68816099999,Cape Town,-33.965,18.602,46\n68828099999,George,-34.006,22.379,197\n',
    );
    await writeFile(
      join(root, 'daily.csv'),
      'station_id,time,temperature_max\n68816099999,2024-06-01,18.5\n68828099999,2024-06-01,16.2\n',
    );
    const dir = join(root, 'ds');
    await buildStations({ stations: join(root, 'stations.csv'), daily: join(root, 'daily.csv') }, dir);
    const engine = createNodeEngine(dir);
    try {
      expect((await engine.stations()).map((s) => s.id).sort()).toEqual(['68816099999', '68828099999']);
      const res = (await engine.query('nearest-station', {
        wkts: 'POINT (22.379 -34.006)',
        dataTypes: ['temperature_max'],
        options: { timeScale: 'daily' },
        startDate: '2024-06-01',
        endDate: '2024-06-01',
      })) as unknown as Record<string, { data: Record<string, Record<string, number | null>> }>;
      expect(Object.values(res)[0]!.data['2024-06-01']).toEqual({ temperature_max: 16.2 });
    } finally {
      await engine.close();
    }
  });
});
