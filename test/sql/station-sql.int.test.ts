// Station SQL in Node (native DuckDB): answers equal an independent
// computation over the raw input CSV and the endpoints' own answers; only
// one read-only query runs, with no file access; every refusal is a 400
// that names the field; the CLI prints CSV and exits 2 on bad SQL.
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createClimateEngine } from '../../src/engine/engine.ts';
import { createNodeEngine } from '../../src/node/node-engine.ts';
import { locationOf } from '../../src/node/file-location.ts';
import { openLocalOrHttpSource } from '../../src/io/file-source.ts';
import type { ClimateEngine } from '../../src/engine/engine.ts';
import { expectClimateError } from '../helpers/expect-error.ts';

const exec = promisify(execFile);
const fx = inject('stationFixture');
let engine: ClimateEngine;
let ids: string[];

/** Rows of native DuckDB over the input file, as the oracle. */
async function oracle(sql: string): Promise<unknown[][]> {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  try {
    const r = await con.runAndReadAll(sql);
    return r.getRowsJson() as unknown[][];
  } finally {
    con.closeSync();
    db.closeSync();
  }
}

beforeAll(async () => {
  engine = createNodeEngine(fx.dataset);
  ids = (await engine.stations()).map((s) => s.id).slice(0, 6);
});
afterAll(() => engine.close());

const hourly = (sql: string, extra: Record<string, unknown> = {}) => ({
  sql,
  stations: ids,
  timeScale: 'hourly',
  startDate: '2024-01-01T00:00:00',
  endDate: '2024-03-31T23:00:00',
  ...extra,
});

describe('answers', () => {
  it('cold hours and monthly means per station equal native DuckDB over the input CSV', async () => {
    const sql = `SELECT station_id, strftime(time, '%Y-%m') AS month,
        count(*) FILTER (WHERE temperature_min < 12) AS cold_hours,
        count(temperature_mean) AS n, avg(temperature_mean) AS mean, max(rain) AS wettest_hour
      FROM observations GROUP BY ALL ORDER BY ALL`;
    const got = await engine.sql(hourly(sql));
    expect(got.columns.map((c) => [c.name, c.type])).toEqual([
      ['station_id', 'text'],
      ['month', 'text'],
      ['cold_hours', 'number'],
      ['n', 'number'],
      ['mean', 'number'],
      ['wettest_hour', 'number'],
    ]);
    const want = await oracle(`SELECT station_id, strftime(CAST(time AS TIMESTAMP), '%Y-%m') AS month,
        count(*) FILTER (WHERE temperature_min < 12), count(temperature_mean), avg(temperature_mean), max(rain)
      FROM read_csv('${fx.hourlyCsv}', header = true)
      WHERE station_id IN (${ids.map((i) => `'${i}'`).join(',')})
      GROUP BY ALL ORDER BY ALL`);
    expect(got.rows.length).toBe(want.length);
    expect(want.length).toBeGreaterThan(6);
    // Cold hours must not all be zero, or the comparison proves little.
    expect(got.rows.some((r) => (r[2] as number) > 0)).toBe(true);
    got.rows.forEach((r, i) => {
      const w = want[i]!;
      expect(r.slice(0, 4)).toEqual([w[0], w[1], Number(w[2]), Number(w[3])]);
      expect(r[4] as number).toBeCloseTo(Number(w[4]), 9);
      expect(r[5]).toBe(w[5] === null ? null : Number(w[5]));
    });
    expect(got.loaded).toMatchObject({ stations: 6, timeScale: 'hourly' });
  });

  it("daily rows equal the nearest-station endpoint's answer at each station", async () => {
    const stations = (await engine.stations()).filter((s) => ids.slice(0, 3).includes(s.id));
    const got = await engine.sql({
      sql: 'SELECT station_id, CAST(time AS VARCHAR) AS day, temperature_max, rain_sum FROM observations ORDER BY station_id, day',
      stations: ids.slice(0, 3),
      timeScale: 'daily',
      startDate: '2024-02-01',
      endDate: '2024-02-29',
    });
    expect(got.rows.length).toBeGreaterThan(0);
    for (const s of stations) {
      const answer = await engine.nearestStation({
        wkts: `POINT(${s.lon} ${s.lat})`,
        dataTypes: ['temperature_max', 'rain_sum'],
        options: { timeScale: 'daily' },
        startDate: '2024-02-01',
        endDate: '2024-02-29',
      });
      const data = Object.values(answer)[0]!.data;
      const mine = got.rows.filter((r) => r[0] === s.id);
      expect(mine.length).toBeGreaterThan(0);
      for (const [, day, tmax, rain] of mine) {
        expect(data[day as string]).toEqual({ temperature_max: tmax, rain_sum: rain });
      }
      // Every day the endpoint answers with a value is a row here.
      const withValues = Object.entries(data).filter(([, v]) => v.temperature_max !== null).length;
      expect(mine.filter((r) => r[2] !== null).length).toBe(withValues);
    }
  });

  it('joins the stations table, keeps types as JSON, and is the same on a second run', async () => {
    const sql = `SELECT s.name, s.lat, o.time, o.temperature_mean > 20 AS warm, [1, 2] AS list, 12::DECIMAL(4,1) AS dec
      FROM observations o JOIN stations s USING (station_id) ORDER BY s.name, o.time LIMIT 3`;
    const a = await engine.sql(hourly(sql));
    expect(a.columns.map((c) => c.type)).toEqual(['text', 'number', 'text', 'boolean', 'text', 'number']);
    expect(typeof a.rows[0]![3]).toBe('boolean');
    expect(a.rows[0]![2]).toMatch(/^2024-01-\d\d \d\d:00:00$/);
    expect(a.rows[0]![4]).toBe('[1, 2]');
    expect(a.rows[0]![5]).toBe(12);
    expect(JSON.stringify(await engine.sql(hourly(sql)))).toBe(JSON.stringify(a));
  });
});

describe('refusals', () => {
  it('runs only one read-only query, with no file access', async () => {
    await expectClimateError(engine.sql(hourly('DROP TABLE observations')), 'invalid_sql', '/sql');
    await expectClimateError(engine.sql(hourly('SELECT 1; DROP TABLE observations')), 'invalid_sql', '/sql');
    await expectClimateError(
      engine.sql(hourly('SELECT 1) AS q; DROP TABLE stations; SELECT * FROM (SELECT 1')),
      'invalid_sql',
      '/sql',
    );
    const file = await expectClimateError(
      engine.sql(hourly(`SELECT * FROM read_csv('${fx.hourlyCsv}')`)),
      'invalid_sql',
      '/sql',
    );
    expect(file.message).toMatch(/disabled by configuration/);
    await expectClimateError(
      engine.sql(
        hourly(
          "SELECT * FROM (SELECT 1) AS x, (SELECT current_setting('lock_configuration')) AS y; SET enable_external_access = true",
        ),
      ),
      'invalid_sql',
      '/sql',
    );
    await expectClimateError(engine.sql(hourly("COPY observations TO '/tmp/cq-leak.csv'")), 'invalid_sql', '/sql');
    // The tables are still whole afterwards.
    const n = await engine.sql(hourly('SELECT count(*) FROM observations'));
    expect(n.rows[0]![0]).toBeGreaterThan(0);
  });

  it("bad SQL is a 400 carrying DuckDB's message", async () => {
    const e = await expectClimateError(engine.sql(hourly('SELECT nope FROM observations')), 'invalid_sql', '/sql');
    expect(e.status).toBe(400);
    expect(e.message).toMatch(/Referenced column "nope" not found/);
    // A trailing line comment does not swallow the wrapper.
    const ok = await engine.sql(hourly('SELECT count(*) AS n FROM observations -- all of them'));
    expect(ok.columns[0]!.name).toBe('n');
  });

  it('a result over the cap is an error naming the cap, never a cut-off answer', async () => {
    const e = await expectClimateError(
      engine.sql(hourly('SELECT * FROM observations', { maxRows: 100 })),
      'result_too_large',
      '/sql',
    );
    expect(e.message).toMatch(/more than 100 rows/);
    const exact = await engine.sql(hourly('SELECT * FROM range(100)', { maxRows: 100 }));
    expect(exact.rows.length).toBe(100);
  });

  it('names the field of a bad request', async () => {
    await expectClimateError(engine.sql(hourly('SELECT 1', { stations: [] })), 'invalid_field', '/stations');
    await expectClimateError(engine.sql(hourly('SELECT 1', { stations: ['nope'] })), 'invalid_field', '/stations/0');
    await expectClimateError(
      engine.sql(hourly('SELECT 1', { stations: Array.from({ length: 51 }, (_, i) => `s${i}`) })),
      'limit_exceeded',
      '/stations',
    );
    await expectClimateError(engine.sql(hourly('SELECT 1', { timeScale: 'annual' })), 'invalid_field', '/timeScale');
    await expectClimateError(engine.sql(hourly('SELECT 1', { startDate: '2024-01-01' })), 'invalid_date', '/startDate');
    await expectClimateError(
      engine.sql(hourly('SELECT 1', { dataTypes: ['rain_sum'] })),
      'unknown_data_type',
      '/dataTypes/0',
    );
    await expectClimateError(engine.sql(hourly('SELECT 1', { maxRows: 0 })), 'invalid_field', '/maxRows');
    await expectClimateError(engine.sql(hourly('SELECT 1', { colour: 'red' })), 'unknown_field', '/colour');
    await expectClimateError(engine.sql(hourly('')), 'invalid_field', '/sql');
  });

  it('an engine without a SQL runner says how to get one', async () => {
    const bare = createClimateEngine({ dataset: locationOf(fx.dataset), openByteSource: openLocalOrHttpSource });
    const e = await expectClimateError(bare.sql(hourly('SELECT 1')), 'sql_unavailable');
    expect(e.status).toBe(501);
    expect(e.message).toMatch(/sqlRunner/);
    await bare.close();
  });

  it('an abort interrupts a long query at once', async () => {
    const controller = new AbortController();
    const t0 = Date.now();
    const p = engine.sql(hourly('SELECT count(*) FROM range(100000000000) a'), { signal: controller.signal });
    setTimeout(() => controller.abort(), 300);
    await expectClimateError(p, 'aborted');
    expect(Date.now() - t0).toBeLessThan(5000);
    // The runner is free again.
    expect((await engine.sql(hourly('SELECT 42'))).rows).toEqual([[42]]);
  });
});

describe('climate-query sql', () => {
  const cli = (args: string[]) =>
    exec('node', ['bin/climate-query.js', 'sql', ...args], { cwd: new URL('../..', import.meta.url).pathname }).then(
      (r) => ({ code: 0, stdout: r.stdout, stderr: r.stderr }),
      (e: { code: number; stdout: string; stderr: string }) => ({ code: e.code, stdout: e.stdout, stderr: e.stderr }),
    );

  it('prints the result as CSV, and exits 2 with the error JSON on bad SQL', async () => {
    const base = [
      '--data',
      fx.dataset,
      '--stations',
      ids.slice(0, 2).join(','),
      '--time-scale',
      'daily',
      '--from',
      '2024-01-01',
      '--to',
      '2024-01-31',
    ];
    const ok = await cli([...base, 'SELECT station_id, count(*) AS days FROM observations GROUP BY ALL ORDER BY ALL']);
    expect(ok.code).toBe(0);
    const want = await engine.sql({
      sql: 'SELECT station_id, count(*) AS days FROM observations GROUP BY ALL ORDER BY ALL',
      stations: ids.slice(0, 2),
      timeScale: 'daily',
      startDate: '2024-01-01',
      endDate: '2024-01-31',
    });
    expect(ok.stdout).toBe(`station_id,days\n${want.rows.map((r) => r.join(',')).join('\n')}\n`);
    const bad = await cli([...base, 'SELECT FROM WHERE']);
    expect(bad.code).toBe(2);
    expect(JSON.parse(bad.stdout).error.code).toBe('invalid_sql');
    const usage = await cli(['SELECT 1']);
    expect(usage.code).toBe(2);
    expect(usage.stderr).toMatch(/--stations is required/);
  });
});
