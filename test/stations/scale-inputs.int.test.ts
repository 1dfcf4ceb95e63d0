// The scale bench's synthetic inputs (bench/scale-inputs.ts) at a tiny size:
// the same rows on every run, and the gaps the bench relies on are there.
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { ensureScaleInputs, type ScaleInputSpec } from '../../bench/scale-inputs.ts';

const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

const TINY: ScaleInputSpec = {
  id: 'network',
  folder: 'tiny',
  stations: 40,
  firstYear: 2021,
  lastYear: 2024,
  scale: 'daily',
};

async function digest(
  file: string,
  stations: string,
): Promise<{ rows: number; hash: string; perStation: number[]; noHumidity: number; stationsHash: string }> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const one = async (sql: string) => (await con.runAndReadAll(sql)).getRowObjectsJS()[0]!;
  const all = await one(
    `SELECT count(*) AS n, CAST(sum(hash(station_id, time, temperature_mean, rain_sum, humidity_mean)) AS VARCHAR) AS h FROM read_parquet('${file}')`,
  );
  const per = (
    await con.runAndReadAll(`SELECT count(*) AS n FROM read_parquet('${file}') GROUP BY station_id ORDER BY station_id`)
  )
    .getRowObjectsJS()
    .map((r) => Number(r.n));
  const noHum = await one(
    `SELECT count(*) AS n FROM (SELECT station_id FROM read_parquet('${file}') GROUP BY 1 HAVING count(humidity_mean) = 0)`,
  );
  const st = await one(
    `SELECT CAST(sum(hash(station_id, lat, lon, elevation)) AS VARCHAR) AS h FROM read_csv('${stations}', header = true)`,
  );
  con.closeSync();
  db.closeSync();
  return {
    rows: Number(all.n),
    hash: String(all.h),
    perStation: per,
    noHumidity: Number(noHum.n),
    stationsHash: String(st.h),
  };
}

describe('scale bench inputs', () => {
  it('are the same on every run and have late, early-closing and sensor-less stations', async () => {
    const got = [];
    for (let i = 0; i < 2; i++) {
      const dir = await mkdtemp(join(tmpdir(), 'cq-scale-inputs-'));
      dirs.push(dir);
      const files = await ensureScaleInputs(TINY, dir);
      got.push(await digest(files.observations, files.stations));
    }
    expect(got[1]).toEqual(got[0]);
    const { rows, perStation, noHumidity } = got[0]!;
    const full = 4 * 365 + 1;
    // Gaps: fewer rows than 40 complete station-series, and stations of very different lengths.
    expect(rows).toBeLessThan(40 * full);
    expect(rows).toBeGreaterThan(0.5 * 40 * full);
    expect(Math.max(...perStation)).toBeLessThan(full); // single readings lost everywhere
    expect(Math.min(...perStation)).toBeLessThan(0.8 * full); // some open late or close early
    expect(noHumidity).toBeGreaterThan(0);
  });
});
