// The precision rule of station values (docs/data.md, "Units and
// precision"): the build's SQL rounding and the engine's JavaScript
// rounding must agree to the bit, or the build and a query-time mean could
// disagree on a half. Checked against native DuckDB on halves, negatives,
// binary-noise neighbours of halves and random values.
import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { STATION_TYPES } from '../../src/contract/station-data-types.ts';
import {
  STATION_TYPE_INFO_NAMES,
  derivedDecimals,
  roundValue,
  roundValueSql,
  stationTypeInfo,
} from '../../src/contract/station-type-info.ts';

describe('station type facts', () => {
  it('every name of contract table 2.4 has a name, a unit and a step', () => {
    for (const [scale, types] of Object.entries(STATION_TYPES)) {
      for (const t of types) {
        expect(STATION_TYPE_INFO_NAMES).toContain(t);
        const info = stationTypeInfo(scale, t);
        expect(info.unit).not.toBe('');
        expect(info.name).not.toMatch(/_/);
        expect(Number.isInteger(info.decimals) && info.decimals >= 0 && info.decimals <= 2).toBe(true);
      }
    }
  });

  it('a derived value is written one decimal finer than a reading', () => {
    expect(derivedDecimals('daily', 'temperature_mean')).toBe(2);
    expect(derivedDecimals('monthly', 'humidity_mean')).toBe(1);
  });
});

describe('roundValue agrees with DuckDB round(round(x, 9), n)', () => {
  it('on halves, negatives, noisy halves and random values', async () => {
    const xs: number[] = [
      0.125, -0.125, 1.005, -1.005, 2.675, 5.3999999999999995, 43.599999999999994, 0.12499999999999999,
      0.12500000000000001, -2.5, 2.5, 0, -0.001, 101.19999999999999, 238.89959999999996, 183.89999999999998,
    ];
    // Means of 24 readings at 0.1 °C, summed in two orders: the two sums differ in the last bits.
    let seed = 7;
    const r = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
    for (let i = 0; i < 400; i++) {
      const v = Array.from({ length: 24 }, () => Math.round((r() * 60 - 15) * 10) / 10);
      xs.push(v.reduce((a, b) => a + b, 0) / 24, [...v].reverse().reduce((a, b) => a + b, 0) / 24, (r() - 0.5) * 1e5);
    }
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    try {
      for (const d of [0, 1, 2, 3]) {
        const sql = `SELECT ${roundValueSql('x', d)} AS y FROM (SELECT unnest([${xs.map((x) => `${x}::DOUBLE`).join(',')}]) AS x, generate_subscripts([${xs.map(() => 0).join(',')}], 1) AS i) ORDER BY i`;
        const rows = (await (await con.run(sql)).getRowObjectsJS()).map((o) => Number(o.y));
        expect(rows).toEqual(xs.map((x) => roundValue(x, d)));
      }
    } finally {
      con.closeSync();
      db.closeSync();
    }
    expect(roundValue(5.3999999999999995, 2)).toBe(5.4);
    expect(roundValue(0.12499999999999999, 2)).toBe(0.13);
    expect(roundValue(-0.125, 2)).toBe(-0.13);
  });
});
