import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { expect } from 'vitest';
import { STATION_TYPES, type StationTimeScale } from '../../src/contract/station-data-types.ts';
import type { Series } from './oracle.ts';
import { catalogJsonSync } from '../helpers/catalog-json.ts';

/** Runs SQL on a fresh native DuckDB and returns the rows. */
export async function sql(query: string): Promise<Record<string, unknown>[]> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    return (await con.runAndReadAll(query)).getRowObjectsJS() as Record<string, unknown>[];
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

/** Every row of one scale in the archive, read with DuckDB from the station files, as a Series keyed like answers. */
/**
 * The station archive folder of dataset `out`, as its catalog names it: `stations`, or
 * `stations-<build>` once a build has replaced an archive (docs/data.md).
 */
export function archiveDir(out: string): string {
  const c = catalogJsonSync(join(out, 'catalog.json')) as { stations: { index: string } | null };
  return join(out, c.stations ? c.stations.index.slice(0, c.stations.index.lastIndexOf('/')) : 'stations');
}

export async function archiveSeries(out: string, scale: StationTimeScale): Promise<Series> {
  const fmt = { hourly: '%Y-%m-%dT%H:%M:%S', daily: '%Y-%m-%d', dekadal: '%Y-%m-%d', monthly: '%Y-%m-01' }[scale];
  const got = await sql(
    `SELECT *, strftime(time, '${fmt}') AS __key FROM read_parquet('${join(archiveDir(out), scale)}/**/*.parquet', union_by_name = true) ORDER BY station_id, time`,
  );
  const series: Series = new Map();
  for (const r of got) {
    const values: Record<string, number | null> = {};
    for (const t of STATION_TYPES[scale]) values[t] = r[t] === undefined || r[t] === null ? null : Number(r[t]);
    let m = series.get(String(r.station_id));
    if (!m) series.set(String(r.station_id), (m = new Map()));
    m.set(String(r.__key), values);
  }
  return series;
}

/** Same stations, same periods in the same order, same values (relative tolerance 1e-9; null is null). */
export function expectSameSeries(got: Series, want: Series, what: string): void {
  expect([...got.keys()].sort(), `${what}: stations`).toEqual([...want.keys()].sort());
  for (const [id, rows] of want) {
    const g = got.get(id)!;
    expect([...g.keys()].sort(), `${what}: ${id} periods`).toEqual([...rows.keys()].sort());
    for (const [key, v] of rows) {
      for (const [t, x] of Object.entries(v)) {
        const y = g.get(key)![t] ?? null;
        if (x === null || y === null) expect(y, `${what} ${id} ${key} ${t}`).toBe(x);
        else
          expect(Math.abs(y - x), `${what} ${id} ${key} ${t}: ${y} vs ${x}`).toBeLessThanOrEqual(
            1e-9 * Math.max(1, Math.abs(x)),
          );
      }
    }
  }
}
