/**
 * The calendars (src/contract/calendars.ts): keys and ordinals round-trip,
 * dekads split months as FAO/WMO bulletins do (1–10, 11–20, 21 to the end),
 * and each calendar's SQL agrees with its TypeScript on native DuckDB for
 * every day of 1999–2001 (a leap year, and two that are not).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { CALENDARS, type Calendar, calendarSql, daysInMonth } from '../../src/contract/calendars.ts';
import { enumeratePeriods, parseDate, parseRange, periodKey } from '../../src/contract/periods.ts';

const DAY = 86_400_000;
const ALL = Object.keys(CALENDARS) as Calendar[];

describe('calendars', () => {
  it('every key reads back as its ordinal, and keys sort as their ordinals do', () => {
    for (const c of ALL) {
      const cal = CALENDARS[c];
      const ordinals = cal.wraps
        ? [1, 2, 11, 12]
        : c === 'year'
          ? [1800, 1999, 2024]
          : [-50, -1, 0, 1, 35, 36, 37, 600, 1000];
      const keys = ordinals.map((o) => cal.keyOf(o));
      for (const [i, k] of keys.entries()) expect(cal.ordinalOfKey(k), `${c} ${k}`).toBe(ordinals[i]);
      if (!cal.wraps) expect([...keys].sort()).toEqual(keys);
      expect(cal.ordinalOfKey('not a key'), c).toBeNaN();
    }
  });

  it('dekads: days 1–10, 11–20 and 21 to the month end, keyed by the first day', () => {
    const dekad = CALENDARS.dekad;
    // Every day of 2024 (leap) and 2023 falls in the dekad a person would name, by day of month alone.
    for (let ms = Date.UTC(2023, 0, 1); ms < Date.UTC(2025, 0, 1); ms += DAY) {
      const iso = new Date(ms).toISOString().slice(0, 10);
      const day = Number(iso.slice(8));
      const first = day <= 10 ? '01' : day <= 20 ? '11' : '21';
      expect(dekad.keyOf(dekad.ordinalOfMs(ms)), iso).toBe(`${iso.slice(0, 8)}${first}`);
    }
    // 36 a year, in order, without gaps.
    const start = parseDate('dekadal', '2024-01-01', 'startDate');
    const end = parseDate('dekadal', '2024-12-21', 'endDate');
    const keys = enumeratePeriods('dekadal', start, end).map((o) => periodKey('dekadal', o));
    expect(keys).toHaveLength(36);
    expect(keys.slice(0, 4)).toEqual(['2024-01-01', '2024-01-11', '2024-01-21', '2024-02-01']);
    expect(keys.at(-1)).toBe('2024-12-21');
    expect(parseRange('dekadal', '2023-12-21', '2024-01-11').keys).toEqual(['2023-12-21', '2024-01-01', '2024-01-11']);
  });

  it('a dekadal request date must be a dekad’s first day; the error names the field and the rule', () => {
    for (const bad of ['2024-01-02', '2024-01-10', '2024-01-31', '2024-02-30', '2024-01', '2024-13-01']) {
      expect(() => parseDate('dekadal', bad, 'startDate'), bad).toThrowError(/startDate/);
    }
    expect(() => parseDate('dekadal', '2024-01-15', 'endDate')).toThrowError(
      'endDate "2024-01-15" is not the first day of a dekad (day 01, 11 or 21)',
    );
  });

  it('each calendar’s SQL buckets and numbers every day as its TypeScript does (native DuckDB, 1999–2001)', async () => {
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    try {
      for (const c of ['day', 'dekad', 'month'] as const) {
        const sql = calendarSql(c);
        const got = (
          await con.runAndReadAll(
            `WITH d AS (SELECT CAST(range AS DATE) AS time FROM range(DATE '1999-01-01', DATE '2002-01-01', INTERVAL 1 DAY)),
             b AS (SELECT time, ${sql.ordinal} AS o, strftime(${sql.derive!.period}, '${sql.keyFormat}') AS k FROM d)
             SELECT strftime(time, '%Y-%m-%d') AS day, o, k FROM b ORDER BY time`,
          )
        ).getRowObjectsJS() as { day: string; o: bigint | number; k: string }[];
        expect(got).toHaveLength(1096);
        const cal = CALENDARS[c];
        for (const r of got) {
          const ms = Date.parse(`${r.day}T00:00:00Z`);
          expect(Number(r.o), `${c} ${r.day}`).toBe(cal.ordinalOfMs(ms));
          expect(r.k, `${c} ${r.day}`).toBe(cal.keyOf(cal.ordinalOfMs(ms)));
        }
        // Off the grid exactly where the key is not the day itself.
        const off = (
          await con.runAndReadAll(
            `SELECT count(*) AS n FROM (SELECT CAST(range AS DATE) AS time FROM range(DATE '1999-01-01', DATE '2002-01-01', INTERVAL 1 DAY)) WHERE ${sql.offGrid}`,
          )
        ).getRowObjectsJS()[0]!.n;
        const starts = got.filter((r) => r.k === r.day).length;
        expect(Number(off), c).toBe(1096 - starts);
      }
      // A period's full count: days in a dekad (10, or the month's rest) and in a month.
      const full = (
        await con.runAndReadAll(
          `SELECT strftime(p, '%Y-%m-%d') AS p, ${calendarSql('dekad').derive!.full} AS dekad, ${calendarSql('month').derive!.full} AS month
           FROM (SELECT CAST(range AS DATE) AS p FROM range(DATE '2000-01-01', DATE '2001-12-31', INTERVAL 1 DAY)) WHERE day(p) IN (1, 11, 21)`,
        )
      ).getRowObjectsJS() as { p: string; dekad: number; month: number }[];
      for (const r of full) {
        const [y, m, d] = r.p.split('-').map(Number) as [number, number, number];
        expect(Number(r.month), r.p).toBe(daysInMonth(y, m));
        expect(Number(r.dekad), r.p).toBe(d < 21 ? 10 : daysInMonth(y, m) - 20);
      }
    } finally {
      con.closeSync();
      db.closeSync();
    }
  });
});
