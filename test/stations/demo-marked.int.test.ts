import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, inject, it } from 'vitest';
import { checkCatalog } from '../../src/dataset/catalog-check.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const demo = inject('demoDataset');

describe('the demo dataset is marked synthetic', () => {
  it('every station name, the attribution and the notice say the weather is synthetic', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const names = (
      await con.runAndReadAll(`SELECT name FROM read_parquet('${join(demo, 'stations', 'index.parquet')}')`)
    )
      .getRowObjectsJS()
      .map((r) => String(r.name));
    con.closeSync();
    db.closeSync();
    expect(names.length).toBe(130);
    expect(names.filter((n) => !n.endsWith('(synthetic weather)'))).toEqual([]);
    // Real NOAA names are kept before the mark, so a user still finds "Paarl".
    expect(names.some((n) => /^Paarl .*\(synthetic weather\)$/i.test(n))).toBe(true);
    const catalog = await catalogJson(join(demo, 'catalog.json'));
    expect(catalog.attribution.some((a: string) => /station records are synthetic weather/i.test(a))).toBe(true);
    expect(catalog.notice).toMatch(/^Demo dataset: synthetic weather/);
    expect(catalog.stations.utcOffset).toBe('+02:00');
  });

  it('a catalog whose notice or zone is not what it should be is dataset_unavailable, naming the field', async () => {
    const catalog = await catalogJson(join(demo, 'catalog.json'));
    expect(() => checkCatalog({ ...catalog, notice: 42 }, 'catalog.json')).toThrow(
      expect.objectContaining({ code: 'dataset_unavailable', message: expect.stringContaining('"notice"') }),
    );
    for (const bad of ['+2', 'UTC+02:00', '+25:00', 2]) {
      expect(() =>
        checkCatalog({ ...catalog, stations: { ...catalog.stations, utcOffset: bad } }, 'catalog.json'),
      ).toThrow(
        expect.objectContaining({
          code: 'dataset_unavailable',
          message: expect.stringContaining('stations.utcOffset'),
        }),
      );
    }
    const { utcOffset: _, ...old } = catalog.stations;
    expect(checkCatalog({ ...catalog, stations: old }, 'catalog.json').stations!.utcOffset).toBeUndefined();
  });
});
