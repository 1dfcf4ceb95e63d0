/**
 * A station build replaces a station's series at a scale as a whole; an archive comes a year a file
 * (GSOD, ISD-Lite, GHCNh), so importing 2024 into a dataset that holds the same station's 2019–2023
 * would drop them. The import therefore reads, for every station and scale it brings, the series the
 * dataset already holds and keeps each of its rows the import does not give again (a period the
 * import gives is the import's). What it kept is counted in the report.
 */
import { join } from 'node:path';
import type { Catalog } from '../../dataset/catalog.ts';
import { stationsUtcOffset } from '../../dataset/catalog.ts';
import { parseUtcOffset } from '../../contract/utc-offset.ts';
import type { DuckDBConnection } from '@duckdb/node-api';
import { lit, rows } from '../build-duckdb.ts';
import { SOURCE_KEY } from '../stations-build.ts';
import { buildTimeZone } from '../time-zone.ts';
import type { Imported, ImportScale } from './imported.ts';

/** The local time key an imported hourly instant (`…Z`) has in a dataset `offset` minutes east of UTC. */
export function localHour(utcKey: string, offset: number): string {
  return new Date(Date.parse(utcKey) + offset * 60_000).toISOString().slice(0, 19);
}

/** The minutes east of UTC the build will keep station times in (the stated zone, else the dataset's, else SAST). */
export function importOffset(catalog: Catalog, zone: string | undefined, replace: boolean): number {
  return parseUtcOffset(buildTimeZone(zone, catalog.stations ? stationsUtcOffset(catalog) : null, replace))!;
}

/**
 * Adds to `into` the rows the dataset at `dir` (its `catalog`) holds for the stations and scales
 * `into` brings, at the periods `into` does not give; hourly keys of `into` are made local (`offset`
 * minutes east of UTC) first. `con` reads the dataset's files. Returns station → scale → rows kept.
 */
export async function keepDatasetRows(
  dir: string,
  catalog: Catalog,
  into: Imported,
  offset: number,
  replace: boolean,
  con: DuckDBConnection,
): Promise<Map<string, Partial<Record<ImportScale, number>>>> {
  const kept = new Map<string, Partial<Record<ImportScale, number>>>();
  // Hourly rows of the import are UTC instants; the dataset's are its local standard time.
  for (const [station, times] of into.rows.hourly) {
    into.rows.hourly.set(station, new Map([...times].map(([t, r]) => [t.endsWith('Z') ? localHour(t, offset) : t, r])));
  }
  if (!catalog.stations || replace) return kept;
  const index = join(dir, catalog.stations.index);
  for (const scale of ['hourly', 'daily'] as const) {
    const ids = [...into.rows[scale].keys()];
    if (ids.length === 0) continue;
    const files = await rows(
      con,
      `SELECT station_id, ${scale}_path AS path FROM read_parquet(${lit(index)}, hive_partitioning = false)
       WHERE ${scale}_path IS NOT NULL AND station_id IN (${ids.map(lit).join(', ')})`,
    );
    for (const f of files) {
      const id = String(f.station_id);
      const times = into.rows[scale].get(id)!;
      const path = join(dir, String(f.path));
      // A series the build derived (daily from hourly) is derived again; only given rows are the dataset's to keep.
      const derived = await rows(
        con,
        `SELECT 1 FROM parquet_kv_metadata(${lit(path)}) WHERE decode(key) = ${lit(SOURCE_KEY)} AND decode(value) = 'derived'`,
      );
      if (derived.length > 0) continue;
      const old = await rows(
        con,
        `SELECT * EXCLUDE (station_id, time), strftime(time, ${lit(scale === 'hourly' ? '%Y-%m-%dT%H:%M:%S' : '%Y-%m-%d')}) AS __t
         FROM read_parquet(${lit(path)}, hive_partitioning = false)`,
      );
      let n = 0;
      for (const r of old) {
        const t = String(r.__t);
        if (times.has(t)) continue;
        const values: Record<string, number> = {};
        for (const [k, v] of Object.entries(r)) if (k !== '__t' && v !== null && v !== undefined) values[k] = Number(v);
        times.set(t, values);
        n++;
      }
      if (n > 0) kept.set(id, { ...kept.get(id), [scale]: n });
    }
  }
  return kept;
}
