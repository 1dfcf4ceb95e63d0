// A damaged or hostile station index: each file field is checked
// before any read uses it, so a bad value is `dataset_unavailable` naming
// the station and the column, never a 500 `internal`, from a folder and
// over HTTP alike.
import { createHash } from 'node:crypto';
import { cp, mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { STATION_TIME_SCALES } from '../../src/contract/station-data-types.ts';
import { parseStationIndex, StationIndex } from '../../src/stations/station-index.ts';
import { startRangeServer, type RangeServer } from '../helpers/range-server.ts';
import { catalogJson } from '../helpers/catalog-json.ts';

const fx = inject('stationFixture');
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'cq-hostile-index-'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

/**
 * A copy of the fixture whose index has `column` of the first hourly station (by id; `last`: the
 * last) set to `value` (SQL), the catalog updated to match.
 */
async function withIndexField(
  name: string,
  column: string,
  value: string,
  last = false,
): Promise<{ root: string; id: string; lon: number; lat: number }> {
  const root = join(dir, name);
  await cp(fx.dataset, root, { recursive: true });
  const index = join(root, 'stations/index.parquet');
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  const first = (
    await con.runAndReadAll(
      `SELECT station_id, lon, lat FROM read_parquet('${index}') WHERE hourly_path IS NOT NULL ORDER BY station_id${last ? ' DESC' : ''} LIMIT 1`,
    )
  ).getRowObjectsJS()[0]!;
  const id = String(first.station_id);
  await con.run(
    `COPY (SELECT * REPLACE (CASE WHEN station_id = '${id}' THEN ${value} ELSE ${column} END AS ${column}) FROM read_parquet('${index}')) TO '${index}.new' (FORMAT parquet)`,
  );
  con.closeSync();
  db.closeSync();
  await cp(`${index}.new`, index);
  await rm(`${index}.new`);
  const bytes = await readFile(index);
  const catalog = await catalogJson(join(root, 'catalog.json'));
  catalog.stations.indexBytes = (await stat(index)).size;
  const entry = catalog.files.find((f: { path: string }) => f.path === 'stations/index.parquet');
  entry.bytes = bytes.length;
  entry.sha256 = createHash('sha256').update(bytes).digest('hex');
  await writeFile(join(root, 'catalog.json'), JSON.stringify(catalog));
  return { root, id, lon: Number(first.lon), lat: Number(first.lat) };
}

const CASES: Array<[string, string, string, RegExp]> = [
  ['negative footer', 'hourly_footer', '-4', /hourly_footer = -4/],
  [
    'footer as long as the file',
    'hourly_footer',
    'hourly_bytes',
    /hourly_footer = \d+, which is not a footer length inside a file/,
  ],
  ['size too small', 'hourly_bytes', '5', /hourly_bytes = 5/],
  ['coverage past its file', 'hourly_coverage_offset', '999999999', /hourly_coverage_offset\/length = 999999999/],
];

describe('a hostile station index', () => {
  for (const [what, column, value, message] of CASES) {
    it(`${what}: dataset_unavailable naming the station and column, from a folder and over HTTP`, async () => {
      const { root, id, lon, lat } = await withIndexField(what.replace(/\W/g, '-'), column, value);
      const body = JSON.stringify({
        wkts: `POINT (${lon} ${lat})`,
        dataTypes: ['temperature_mean'],
        options: { timeScale: 'hourly' },
        startDate: '2024-02-10T00:00:00',
        endDate: '2024-02-10T01:00:00',
      });
      let server: RangeServer | undefined;
      try {
        server = await startRangeServer(root);
        for (const dataset of [root, server.url]) {
          const engine = createNodeEngine(dataset);
          const answer = await engine.handle({ method: 'POST', path: '/api/nearest-station/', body });
          await engine.close();
          expect(answer.status, dataset).toBe(503);
          const error = (answer.body as { error: { code: string; message: string } }).error;
          expect(error.code).toBe('dataset_unavailable');
          expect(error.message).toContain(`station "${id}"`);
          expect(error.message).toMatch(message);
        }
      } finally {
        await server?.close();
      }
    });
  }

  it('a damaged entry of one time scale refuses queries of that scale only, in the same engine', async () => {
    // Each scale's files are parsed when a query first reads that scale (StationIndex).
    const { root, lon, lat } = await withIndexField('one-scale', 'daily_footer', '-4');
    const body = (timeScale: string, startDate: string, endDate: string) =>
      JSON.stringify({
        wkts: `POINT (${lon} ${lat})`,
        dataTypes: ['temperature_mean'],
        options: { timeScale },
        startDate,
        endDate,
      });
    const hourly = body('hourly', '2024-02-10T00:00:00', '2024-02-10T01:00:00');
    const daily = body('daily', '2024-02-10', '2024-02-11');
    let server: RangeServer | undefined;
    try {
      server = await startRangeServer(root);
      for (const dataset of [root, server.url]) {
        const engine = createNodeEngine(dataset);
        const ask = (b: string) => engine.handle({ method: 'POST', path: '/api/nearest-station/', body: b });
        const first = await ask(hourly);
        expect(first.status, dataset).toBe(200);
        const refused = await ask(daily);
        expect(refused.status, dataset).toBe(503);
        const error = (refused.body as { error: { code: string; message: string } }).error;
        expect(error.code).toBe('dataset_unavailable');
        expect(error.message).toMatch(/daily_footer = -4/);
        // Refused again, and the hourly answer is unchanged.
        expect((await ask(daily)).status).toBe(503);
        const again = await ask(hourly);
        expect(again.status).toBe(200);
        expect(JSON.stringify(again.body)).toBe(JSON.stringify(first.body));
        await engine.close();
      }
    } finally {
      await server?.close();
    }
  });

  it('a scale refused for a damaged entry in its last row gives no station a file of that scale', async () => {
    const { root, id } = await withIndexField('last-row', 'daily_footer', '-4', true);
    const bytes = await readFile(join(root, 'stations/index.parquet'));
    const index = await StationIndex.parse(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
      'fixture',
      (await stat(join(root, 'stations/coverage.jsonl'))).size,
    );
    const stations = await index.withScales(['hourly']);
    await expect(index.withScales(['daily'])).rejects.toMatchObject({
      code: 'dataset_unavailable',
      message: expect.stringContaining(`station "${id}" has daily_footer = -4`),
    });
    // Checked whole before any station got one: not the rows before the damaged one either.
    expect(stations.filter((s) => s.files.daily)).toEqual([]);
    expect(stations.filter((s) => s.files.hourly).length).toBeGreaterThan(30);
    // The damaged station is among the last rows of the file (DuckDB reads them in file order), so
    // a fill row by row would have shown.
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const ids = (
      await con.runAndReadAll(`SELECT station_id FROM read_parquet('${join(root, 'stations/index.parquet')}')`)
    )
      .getRowObjectsJS()
      .map((r) => String(r.station_id));
    con.closeSync();
    db.closeSync();
    expect(ids.indexOf(id)).toBeGreaterThan(ids.length / 2);
  });

  it('parses one time scale at a time, every field as DuckDB reads it', async () => {
    const index = join(fx.dataset, 'stations/index.parquet');
    const bytes = await readFile(index);
    const parsed = await StationIndex.parse(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
      'fixture',
      (await stat(join(fx.dataset, 'stations/coverage.jsonl'))).size,
    );
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const rows = (
      await con.runAndReadAll(`SELECT * FROM read_parquet('${index}') ORDER BY station_id`)
    ).getRowObjectsJS();
    con.closeSync();
    db.closeSync();
    /** What DuckDB reads of a station's file entry of `scale` (null: the station has none). */
    const expected = (r: Record<string, unknown>, scale: string) =>
      r[`${scale}_path`] === null
        ? null
        : {
            path: r[`${scale}_path`],
            bytes: Number(r[`${scale}_bytes`]),
            footer: Number(r[`${scale}_footer`]),
            footerHash: r[`${scale}_footer_hash`],
            first: String(r[`${scale}_first`]),
            last: String(r[`${scale}_last`]),
            coverageAt: [Number(r[`${scale}_coverage_offset`]), Number(r[`${scale}_coverage_length`])],
          };
    const check = (stations: ReadonlyArray<{ id: string; files: Record<string, unknown> }>, scales: string[]) => {
      expect(stations.map((s) => s.id)).toEqual(rows.map((r) => String(r.station_id)));
      stations.forEach((s, i) => {
        for (const scale of STATION_TIME_SCALES) {
          const want = scales.includes(scale) ? expected(rows[i]!, scale) : null;
          expect(s.files[scale] ?? null, `${s.id} ${scale}`).toEqual(want);
        }
      });
    };
    const withDaily = await parsed.withScales(['daily']);
    check(withDaily, ['daily']);
    expect(withDaily.filter((s) => s.files.daily).length).toBeGreaterThan(30);
    // The same station objects gain the other scales when asked; asking twice parses nothing again.
    const all = await parsed.withScales(STATION_TIME_SCALES);
    expect(all).toBe(withDaily);
    check(all, [...STATION_TIME_SCALES]);
    expect(all.some((s) => s.files.hourly) && all.some((s) => s.files.monthly)).toBe(true);
  });

  it('reads every string as DuckDB does: ASCII, other scripts and long text', async () => {
    const { root, id } = await withIndexField(
      'names',
      'name',
      `'Kléin Drakenstein – Ōtautahi 站 ' || repeat('ä', 200)`,
    );
    const index = join(root, 'stations/index.parquet');
    const bytes = await readFile(index);
    const stations = await parseStationIndex(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
      'fixture',
      (await stat(join(root, 'stations/coverage.jsonl'))).size,
    );
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    const expected = (
      await con.runAndReadAll(`SELECT station_id, name, hourly_path FROM read_parquet('${index}') ORDER BY station_id`)
    ).getRowObjectsJS();
    con.closeSync();
    db.closeSync();
    const byId = new Map(stations.map((s) => [s.id, s]));
    expect(stations.length).toBe(expected.length);
    for (const r of expected) {
      const s = byId.get(String(r.station_id))!;
      expect(s.name).toBe(r.name);
      expect(s.files.hourly?.path ?? null).toBe(r.hourly_path);
    }
    expect(byId.get(id)!.name).toBe(`Kléin Drakenstein – Ōtautahi 站 ${'ä'.repeat(200)}`);
  });

  it('the index of a good dataset passes the same checks', async () => {
    const bytes = await readFile(join(fx.dataset, 'stations/index.parquet'));
    const stations = await parseStationIndex(
      bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength),
      'fixture',
      (await stat(join(fx.dataset, 'stations/coverage.jsonl'))).size,
    );
    expect(stations.length).toBeGreaterThan(30);
  });
});
