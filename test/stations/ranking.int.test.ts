// The lazy station ranking must give exactly the order of a full geodesic
// sort (distance, then id), while measuring only a few stations per point.
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { distanceLowerBoundM, distanceM } from '../../src/contract/geodesic.ts';
import { StationRanking } from '../../src/stations/nearest-station.ts';
import { parseStationIndex, type IndexedStation } from '../../src/stations/station-index.ts';
import { mulberry32 as rng } from '../../src/builder/prng.ts';

const station = (id: string, lon: number, lat: number): IndexedStation => ({
  id,
  name: id,
  lon,
  lat,
  elevation: null,
  files: {},
});

function bruteForce(stations: IndexedStation[], p: [number, number]) {
  return stations
    .map((s) => ({ id: s.id, d: distanceM(p, [s.lon, s.lat]) }))
    .sort((a, b) => a.d - b.d || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
}

describe('station ranking', () => {
  it('the lower bound never exceeds the geodesic distance (pairs anywhere on Earth, near and far)', () => {
    const r = rng(7);
    let worst = Infinity;
    for (let i = 0; i < 20_000; i++) {
      const a: [number, number] = [r() * 360 - 180, r() * 180 - 90];
      // Half the pairs close together (metres to kilometres), half anywhere.
      const b: [number, number] =
        i % 2
          ? [a[0] + (r() - 0.5) * 0.02, Math.max(-90, Math.min(90, a[1] + (r() - 0.5) * 0.02))]
          : [r() * 360 - 180, r() * 180 - 90];
      const g = distanceM(a, b);
      const low = distanceLowerBoundM(a, b);
      expect(low).toBeLessThanOrEqual(g);
      if (g > 1000) worst = Math.min(worst, g / Math.max(low, 1));
    }
    // And it is tight enough to prune: within 1.2 % of the geodesic.
    expect(1 / worst).toBeGreaterThan(0.988);
  });

  it('orders every station exactly as a full sort does, ties by id, for points in South Africa and at the edges of the globe', () => {
    const r = rng(42);
    const stations: IndexedStation[] = [];
    for (let i = 0; i < 600; i++)
      stations.push(station(`S${String(i).padStart(4, '0')}`, 16 + r() * 17, -35 + r() * 13));
    // Two stations at one place (a tie broken by id, listed out of id order), and stations near a pole and the antimeridian.
    stations.push(
      station('Z-twin', 19.5, -33.5),
      station('A-twin', 19.5, -33.5),
      station('pole', 0, -89.99),
      station('date-line', 179.999, -33.5),
    );
    const points: Array<[number, number]> = [
      [19.5, -33.5],
      [19.5001, -33.5],
      [25, -29],
      [-179.999, -33.5],
      [10, -89.9],
      [0, 0],
      [-60, 40],
    ];
    for (let i = 0; i < 20; i++) points.push([16 + r() * 17, -35 + r() * 13]);
    for (const p of points) {
      const want = bruteForce(stations, p);
      const ranking = new StationRanking(stations, p);
      // The first few, as a query usually asks them.
      for (let i = 0; i < 5; i++)
        expect([ranking.at(i)!.station.id, ranking.at(i)!.d]).toEqual([want[i]!.id, want[i]!.d]);
      // Then every rank, and nothing past the end.
      const got: Array<{ id: string; d: number }> = [];
      for (let i = 0; ranking.at(i); i++) got.push({ id: ranking.at(i)!.station.id, d: ranking.at(i)!.d });
      expect(got).toEqual(want);
      expect(ranking.at(stations.length)).toBeUndefined();
    }
    const tie = new StationRanking(stations, [19.5, -33.5]);
    expect([tie.at(0)!.station.id, tie.at(1)!.station.id]).toEqual(['A-twin', 'Z-twin']);
  });

  it('measures only the stations that could be nearest', () => {
    const r = rng(3);
    const stations: IndexedStation[] = [];
    for (let i = 0; i < 2000; i++) stations.push(station(`S${i}`, 16 + r() * 17, -35 + r() * 13));
    let measured = 0;
    const counting = stations.map(
      (s) => new Proxy(s, { get: (t, k) => (k === 'id' ? t.id : (k === 'lon' && measured++, Reflect.get(t, k))) }),
    );
    const ranking = new StationRanking(counting, [22, -31]);
    const before = measured; // the lower bounds read every station's lon once
    expect(ranking.at(0)!.station.id).toBe(bruteForce(stations, [22, -31])[0]!.id);
    expect(measured - before).toBeLessThan(20);
  });
});

describe('station index positions', () => {
  it('refuses a station whose position is not on Earth, naming it, instead of ranking it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cq-index-'));
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    try {
      const write = async (name: string, lat: string) => {
        const file = join(dir, name);
        await con.run(
          `COPY (SELECT * FROM (VALUES ('A', 'Alpha', ${lat}, 19.0, NULL::DOUBLE), ('B', 'Beta', -33.0, 20.0, 120.0)) t(station_id, name, lat, lon, elevation)) TO '${file}' (FORMAT parquet)`,
        );
        const b = await readFile(file);
        return b.buffer.slice(b.byteOffset, b.byteOffset + b.byteLength);
      };
      expect((await parseStationIndex(await write('ok.parquet', '-34.0'), 'ok')).map((s) => s.id)).toEqual(['A', 'B']);
      for (const lat of ['95.0', "'NaN'::DOUBLE"]) {
        await expect(parseStationIndex(await write('bad.parquet', lat), 'bad index')).rejects.toMatchObject({
          code: 'dataset_unavailable',
          message: expect.stringMatching(/^bad index: station "A" has lat (95|NaN), lon 19, not a position on Earth/),
        });
      }
    } finally {
      con.closeSync();
      db.closeSync();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
