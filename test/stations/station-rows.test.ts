// Rows as columns (station-rows.ts) against the representation they replaced, a map from period
// key to values where the last row given wins, on random rows in random order with duplicates; and
// row times matched to periods exactly as their keys match a range's keys.
import { describe, expect, it } from 'vitest';
import { periodKey } from '../../src/contract/periods.ts';
import type { StationTimeScale } from '../../src/contract/station-data-types.ts';
import { hasAnyValue, noRows, orderRows, rowIndexByPeriod, rowsOf } from '../../src/stations/station-rows.ts';
import { keyOfTime, ordinalOfKey, ordinalOfRowTime } from '../../src/stations/time-keys.ts';
import { mulberry32 } from '../../src/builder/prng.ts';

describe('station rows as columns', () => {
  it('hold what a map by period holds (last row wins), in period order', () => {
    const rand = mulberry32(21);
    for (let trial = 0; trial < 200; trial++) {
      const types = 1 + Math.floor(rand() * 4);
      const entries: Array<[number, Array<number | null>]> = [];
      const n = Math.floor(rand() * 60);
      for (let i = 0; i < n; i++) {
        const o = Math.floor(rand() * 40) - 10;
        entries.push([o, Array.from({ length: types }, () => (rand() < 0.3 ? null : Math.round(rand() * 1000) / 10))]);
      }
      if (trial % 3 === 0) entries.sort((a, b) => a[0] - b[0]);
      const model = new Map<number, Array<number | null>>();
      for (const [o, v] of entries) model.set(o, v);
      const rows = rowsOf(types, entries);
      const ordinals = [...model.keys()].sort((a, b) => a - b);
      expect([...rows.at]).toEqual(ordinals);
      for (let t = 0; t < types; t++)
        expect([...rows.values[t]!].map((v) => (Number.isNaN(v) ? null : v))).toEqual(
          ordinals.map((o) => model.get(o)![t]),
        );
      expect(hasAnyValue(rows)).toBe([...model.values()].some((v) => v.some((x) => x !== null)));
      // The row of each period of a window that starts and ends anywhere around them.
      const start = Math.floor(rand() * 50) - 20;
      const length = Math.floor(rand() * 40);
      const index = rowIndexByPeriod(rows, start, length);
      for (let p = 0; p < length; p++) {
        const r = index[p]!;
        if (model.has(start + p)) expect(rows.at[r]).toBe(start + p);
        else expect(r).toBe(-1);
      }
    }
  });

  it('returns ordered rows as they are, and has no rows when empty', () => {
    const rows = { at: Float64Array.of(1, 2, 5), values: [Float64Array.of(NaN, 1, 2)] };
    expect(orderRows(rows)).toBe(rows);
    expect(hasAnyValue(noRows(3))).toBe(false);
    expect(hasAnyValue({ at: Float64Array.of(4), values: [Float64Array.of(NaN), Float64Array.of(NaN)] })).toBe(false);
    expect([...rowIndexByPeriod(noRows(1), 0, 3)]).toEqual([-1, -1, -1]);
  });
});

describe('ordinalOfRowTime', () => {
  it('gives the period whose key keyOfTime gives, and NaN exactly where that key is no period key', () => {
    const rand = mulberry32(7);
    const scales: StationTimeScale[] = ['hourly', 'daily', 'monthly'];
    const times: unknown[] = [null, undefined, 'x', NaN, Infinity, 9e15, new Date(Date.UTC(2023, 0, 1, 5))];
    for (let i = 0; i < 3000; i++) {
      const ms = Math.floor((rand() * 2 - 0.4) * 4e12);
      // On the hour, on the second, on the minute, anywhere: each kind a quarter of the time.
      const k = i % 4;
      times.push(k === 0 ? ms - (ms % 3_600_000) : k === 1 ? ms - (ms % 1000) : k === 2 ? ms - (ms % 60_000) : ms);
    }
    for (const scale of scales) {
      for (const v of times) {
        const o = ordinalOfRowTime(scale, v);
        const key = keyOfTime(scale, v);
        if (Number.isNaN(o)) {
          // No period has this key: a range's keys never match it.
          const back = key === null ? null : ordinalOfKey(scale, key);
          expect(back === null || periodKey(scale, back) !== key).toBe(true);
        } else {
          expect(periodKey(scale, o)).toBe(key);
        }
      }
    }
  });
});
