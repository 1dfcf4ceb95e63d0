// What a station query reads over HTTP, counted by a real static server with
// Range: only the index, the considered stations' coverage lines, their
// footers and the column chunks of the row groups that hold the answer.
// The chunk sizes come from native DuckDB's parquet_metadata (independent of
// the hyparquet reader). Also: raster queries read nothing about stations,
// answers are byte-identical across runs and adapters, and a damaged file
// gives a clear error instead of numbers.
import { cp, mkdtemp, rm, truncate, writeFile, readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { ClimateQueryError } from '../../src/contract/errors.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { urlLocation } from '../../src/dataset/location.ts';
import { LinkMeter } from '../../src/io/link-meter.ts';
import type { Catalog } from '../../src/dataset/catalog.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const demo = inject('demoDataset');
const fx = inject('stationFixture');
let server: RangeServer;

beforeAll(async () => {
  server = await startRangeServer(demo);
});
afterAll(() => server.close());

const TYPES = ['temperature_mean', 'rain', 'humidity', 'wind_speed', 'solar_radation'];

/** Ten points spread over the demo area (deterministic). */
function tenPoints(): string {
  return Array.from(
    { length: 10 },
    (_, i) => `POINT (${(18.2 + 0.55 * i).toFixed(3)} ${(-34.1 + 0.35 * (i % 5)).toFixed(3)})`,
  ).join(';');
}

const kindOf = (path: string) =>
  path.endsWith('catalog.json')
    ? 'catalog'
    : path.endsWith('index.parquet')
      ? 'index'
      : path.endsWith('coverage.jsonl')
        ? 'coverage'
        : path.startsWith('/stations/')
          ? 'station-file'
          : 'other';

describe('station reads over HTTP Range', () => {
  it('a cold 10-point × 5-type hourly year reads at most 2× the column chunks that hold the answer', async () => {
    // A meter that has timed five loopback answers, as a page talking to a local host has: the
    // plan for a fast link is what is measured here. (Alone, the first query's one timed read is
    // no measurement: on a loaded machine a loopback answer can wait 25 ms and more, and a link
    // that slow gets files read whole, read-plan.ts readWholeFirst.)
    const meter = new LinkMeter();
    for (let i = 0; i < 5; i++) meter.record({ bytes: 60_000, waitMs: 1, bodyMs: 0.5 });
    const engine = createClimateEngine({ dataset: urlLocation(server.url, { meter }) });
    server.reset();
    const req = {
      wkts: tenPoints(),
      dataTypes: TYPES,
      options: { timeScale: 'hourly' as const },
      startDate: '2023-01-01T00:00:00',
      endDate: '2023-12-31T23:00:00',
    };
    const res = await engine.nearestStation(req);
    expect(Object.keys(res)).toHaveLength(10);
    const byKind: Record<string, { requests: number; bytes: number }> = {};
    // Distinct ranges: the plan's reads. A read repeated after a timeout (a loaded CI machine) is
    // fault handling, not planning, and is counted apart.
    const seen = new Set<string>();
    let repeats = 0;
    for (const e of server.log) {
      // The location's probe of several ranges (checked below) is not a read of the plan.
      if (e.range?.includes(',')) continue;
      const id = `${e.path} ${e.range}`;
      if (seen.has(id)) {
        repeats++;
        continue;
      }
      seen.add(id);
      const k = kindOf(e.path);
      byKind[k] ??= { requests: 0, bytes: 0 };
      byKind[k].requests++;
      byKind[k].bytes += e.bytes;
    }
    expect(byKind.other).toBeUndefined();
    // Every read is a 206, but for the catalog, and for the location's one probe of several ranges
    // (answered whole by this host, which reads one range: dropped at once, so few bytes).
    expect(
      server.log.every(
        (e) => e.method === 'GET' && (e.path.endsWith('catalog.json') || e.status === 206 || e.range?.includes(',')),
      ),
    ).toBe(true);
    expect(server.log.filter((e) => e.range?.includes(','))).toHaveLength(1);

    // The answer's chunks, by native DuckDB: the chosen stations' hourly files, row groups overlapping 2023, time + the types.
    const chosen = new Set(server.log.filter((e) => kindOf(e.path) === 'station-file').map((e) => e.path));
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    let answerChunks = 0;
    let footers = 0;
    const footerRanges = new Set<string>();
    for (const path of chosen) {
      const file = join(demo, path);
      const r = (
        await con.runAndReadAll(`SELECT sum(total_compressed_size) AS b FROM parquet_metadata('${file.replace(/'/g, "''")}') m
          WHERE path_in_schema IN ('time', ${TYPES.map((t) => `'${t}'`).join(', ')}) AND row_group_id IN (
            SELECT row_group_id FROM parquet_metadata('${file.replace(/'/g, "''")}') WHERE path_in_schema = 'time'
              AND CAST(stats_max AS TIMESTAMP) >= TIMESTAMP '2023-01-01' AND CAST(stats_min AS TIMESTAMP) <= TIMESTAMP '2023-12-31 23:00:00')`)
      ).getRowObjectsJS();
      answerChunks += Number(r[0]!.b);
      const size = (await readFile(file)).length;
      const footer = (await readFile(file)).readUInt32LE(size - 8) + 8;
      footers += footer;
      footerRanges.add(`${path} bytes=${size - footer}-${size - 1}`);
    }
    con.closeSync();
    db.closeSync();
    const data = byKind['station-file']!.bytes - footers;
    const total = server.bytes;
    console.log(
      `cold nearest 10 points × 5 types × 2023 hourly (demo, ${chosen.size} station files): ${server.requests} requests, ${total} bytes; ` +
        Object.entries(byKind)
          .map(([k, v]) => `${k} ${v.requests} req / ${v.bytes} B`)
          .join(', ') +
        `; footers ${footers} B; data ${data} B for answer chunks of ${answerChunks} B (ratio ${(data / answerChunks).toFixed(2)}); ${repeats} repeated reads`,
    );
    expect(data / answerChunks).toBeLessThanOrEqual(2);
    expect(data / answerChunks).toBeGreaterThanOrEqual(1);

    // Warm: the same query reads nothing; footers and coverage are cached.
    server.reset();
    expect(await engine.nearestStation(req)).toEqual(res);
    expect(server.requests).toBe(0);
    // Another month: the catalog, the index and the footers already read are not read again.
    server.reset();
    await engine.nearestStation({ ...req, startDate: '2024-06-01T00:00:00', endDate: '2024-06-30T23:00:00' });
    expect(server.log.filter((e) => !['station-file', 'coverage'].includes(kindOf(e.path)))).toEqual([]);
    expect(server.log.filter((e) => footerRanges.has(`${e.path} ${e.range}`))).toEqual([]);
    expect(server.log.some((e) => kindOf(e.path) === 'station-file')).toBe(true);
    await engine.close();
  });

  it('raster queries read nothing about stations, and catalog.json only points at the station index', async () => {
    const engine = createNodeEngine(server.url);
    server.reset();
    const res = await engine.point({
      wkts: 'POINT (19.0 -33.9)',
      dataType: 'temp',
      options: { subDataType: 'mean', timeScale: 'daily', dataExtent: 'tc' },
      startDate: '2024-01-01',
      endDate: '2024-01-02',
    });
    expect(Object.keys(res)).toHaveLength(1);
    expect(server.log.length).toBeGreaterThan(0);
    expect(server.log.filter((e) => e.path.startsWith('/stations/'))).toEqual([]);
    const catalog = (await catalogJson(join(demo, 'catalog.json'))) as Catalog;
    expect(Object.keys(catalog.stations!).sort()).toEqual([
      'count',
      'coverage',
      'coverageBytes',
      'dataTypes',
      'index',
      'indexBytes',
      'layout',
      'utcOffset',
    ]);
    await engine.close();
  });

  it('poly-aggregate answers are byte-identical across runs and across file and HTTP reads', async () => {
    const req = {
      wkts: 'POLYGON ((17.8 -34.9, 22.5 -34.9, 22.5 -32.0, 17.8 -32.0, 17.8 -34.9))',
      dataTypes: ['temperature_mean', 'rain_sum', 'et0'],
      options: { timeScale: 'daily' as const },
      startDate: '2023-01-01',
      endDate: '2023-12-31',
    };
    const texts: string[] = [];
    for (const dataset of [server.url, demo, server.url, demo]) {
      const engine = createNodeEngine(dataset);
      texts.push(JSON.stringify(await engine.polyAggregate(req)));
      await engine.close();
    }
    expect(Object.keys(JSON.parse(texts[0]!).stations_metadata).length).toBeGreaterThan(20);
    expect(new Set(texts).size).toBe(1);
  });

  it('a truncated or changed station file gives dataset_changed or dataset_unavailable, never numbers', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'cq-damaged-'));
    try {
      await cp(fx.dataset, dir, { recursive: true });
      const engine = createNodeEngine(dir);
      const all = await engine.stations();
      const s = all.find((x) => x.files.hourly)!;
      const file = join(dir, s.files.hourly!.path);
      const req = {
        wkts: `POINT (${s.lon} ${s.lat})`,
        dataTypes: ['temperature_mean'],
        options: { timeScale: 'hourly' as const },
        startDate: s.files.hourly!.first,
        endDate: s.files.hourly!.first,
      };
      await truncate(file, s.files.hourly!.bytes - 100);
      const err = await engine.nearestStation(req).then(
        () => null,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(ClimateQueryError);
      // The file's size no longer matches the index: caught when it is opened, before any footer is parsed.
      expect(['dataset_changed', 'dataset_unavailable']).toContain((err as ClimateQueryError).code);
      expect((err as Error).message).toMatch(/footer|bytes/);
      await engine.close();
      // Replaced by another station's file (another size): refused too.
      const other = all.find((x) => x.files.hourly && x.files.hourly.bytes !== s.files.hourly!.bytes)!;
      await writeFile(file, await readFile(join(fx.dataset, other.files.hourly!.path)));
      const engine2 = createNodeEngine(dir);
      const err2 = await engine2.nearestStation(req).then(
        () => null,
        (e: unknown) => e,
      );
      expect(['dataset_changed', 'dataset_unavailable']).toContain((err2 as ClimateQueryError).code);
      await engine2.close();
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
