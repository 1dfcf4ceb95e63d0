// Rows as columns (station-rows.ts) against the representation they replaced, a map from period
// key to values where the last row given wins, on random rows in random order with duplicates; and
// row times matched to periods exactly as their keys match a range's keys.
import { describe, expect, it } from 'vitest';
import { periodKey } from '../../src/contract/periods.ts';
import type { StationTimeScale } from '../../src/contract/station-data-types.ts';
import {
  hasAnyValue,
  noRows,
  orderRows,
  rowIndexByPeriod,
  rowsInRange,
  rowsOf,
  valuesByPeriod,
} from '../../src/stations/station-rows.ts';
import { keyOfTime, ordinalOfKey, ordinalOfRowTime, ordinalsOfRowTimes } from '../../src/stations/time-keys.ts';
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
      for (let t = 0; t < types; t++) {
        const byPeriod = valuesByPeriod(rows.values[t]!, index);
        expect(byPeriod.length).toBe(length);
        for (let p = 0; p < length; p++) {
          const want = model.get(start + p)?.[t] ?? null;
          expect(Number.isNaN(byPeriod[p]) ? null : byPeriod[p]).toBe(want);
        }
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

describe('rowsInRange', () => {
  it('keeps the rows of decoded groups whose period is in range, each asked type from its column', () => {
    const rand = mulberry32(5);
    for (let trial = 0; trial < 300; trial++) {
      const fileColumns = 1 + Math.floor(rand() * 4);
      const groups: Float64Array[][] = [];
      let t0 = Math.floor(rand() * 20);
      for (let g = 0, n = Math.floor(rand() * 5); g < n; g++) {
        const rows = Math.floor(rand() * 30);
        // Ascending ordinals with gaps, and now and then a row with no period (NaN).
        const times = Float64Array.from({ length: rows }, () =>
          rand() < 0.05 ? NaN : (t0 += 1 + Math.floor(rand() * 3)),
        );
        groups.push([
          times,
          ...Array.from({ length: fileColumns }, () =>
            Float64Array.from({ length: rows }, () => (rand() < 0.2 ? NaN : rand())),
          ),
        ]);
      }
      const columnOf = Array.from(
        { length: 1 + Math.floor(rand() * 4) },
        () => Math.floor(rand() * (fileColumns + 1)) - 1,
      );
      // Ranges that hold whole groups, parts of groups, or nothing.
      const lo = trial % 4 === 0 ? -Infinity : Math.floor(rand() * 60);
      const hi = trial % 4 === 0 ? Infinity : lo + Math.floor(rand() * 80);
      const got = rowsInRange(groups, columnOf, lo, hi);
      const want: Array<[number, number[]]> = [];
      for (const g of groups)
        g[0]!.forEach((o, i) => {
          if (o >= lo && o <= hi) want.push([o, columnOf.map((c) => (c < 0 ? NaN : g[c + 1]![i]!))]);
        });
      expect([...got.at]).toEqual(want.map(([o]) => o));
      columnOf.forEach((_, t) => expect([...got.values[t]!]).toEqual(want.map(([, v]) => v[t])));
    }
  });
});

describe('ordinalOfRowTime', () => {
  it('gives the period whose key keyOfTime gives, and NaN exactly where that key is no period key', () => {
    const rand = mulberry32(7);
    const scales: StationTimeScale[] = ['hourly', 'daily', 'dekadal', 'monthly'];
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

describe('ordinalsOfRowTimes', () => {
  it('gives ordinalOfRowTime of every time, NaN where it gives NaN', () => {
    const rand = mulberry32(11);
    const times = [NaN, Infinity, -Infinity, 9e15, -9e15, 8.64e15, -8.64e15, 0, -1, -3_600_000, 1000.5];
    for (let i = 0; i < 4000; i++) {
      const ms = Math.floor((rand() * 2 - 0.4) * 4e12);
      const k = i % 4;
      times.push(k === 0 ? ms - (ms % 3_600_000) : k === 1 ? ms - (ms % 1000) : k === 2 ? ms - (ms % 86_400_000) : ms);
    }
    for (const scale of ['hourly', 'daily', 'monthly'] as const) {
      const got = ordinalsOfRowTimes(scale, Float64Array.from(times));
      let periods = 0;
      times.forEach((t, i) => {
        expect(Object.is(got[i], ordinalOfRowTime(scale, t)), `${scale} ${t}: ${got[i]}`).toBe(true);
        if (!Number.isNaN(got[i])) periods++;
      });
      // Not all NaN: most times are periods of the coarser scales, a quarter of the hourly ones.
      expect(periods).toBeGreaterThan(scale === 'hourly' ? 900 : 3900);
    }
  });
});
