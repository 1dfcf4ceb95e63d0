/**
 * The hourly models and the hourly reconstruction against chillR 0.77's
 * printed outputs (the package vignette "hourly_temperatures" and the book
 * "Tree phenology analysis with R", chapters 7 and 8, which print them), and
 * against hand-computed cases. The 100 hours are the first 100 of chillR's
 * `Winters_hours_gaps$Temp` (Winters, California, from 2008-03-03 10:00) as
 * the book prints them.
 */
import { describe, expect, it } from 'vitest';
import {
  chillingHour,
  degreeDays,
  dynamicModelPortions,
  growingDegreeHours,
  utahUnits,
} from '../../src/indices/hourly-models.ts';
import { dayLength, hourlyFromDaily } from '../../src/indices/hourly-from-daily.ts';

const WINTERS_100 = [
  15.127, 17.153, 18.699, 18.699, 18.842, 19.508, 19.318, 17.701, 15.414, 12.727, 10.369, 9.706, 9.04, 7.92, 6.535,
  6.687, 8.767, 9.139, 6.788, 5.076, 3.985, 3.775, 10.001, 13.69, 15.796, 18.081, 19.888, 20.841, 21.366, 21.867,
  21.604, 20.079, 17.344, 13.93, 11.929, 10.761, 9.854, 9.706, 7.619, 9.509, 10.883, 12.147, 12.606, 11.88, 11.589,
  11.029, 12.171, 14.074, 15.533, 17.605, 19.318, 20.388, 20.412, 20.793, 20.436, 19.579, 16.773, 12.558, 10.149, 9.064,
  7.419, 6.611, 6.611, 6.585, 5.231, 4.844, 3.643, 3.459, 3.063, 3.67, 6.128, 11.248, 15.581, 16.773, 17.534, 16.606,
  17.177, 17.819, 17.701, 17.51, 15.485, 12.05, 9.756, 9.064, 8.02, 6.889, 6.255, 5.205, 4.688, 4.428, 4.037, 4.194,
  3.248, 3.38, 10.418, 13.522, 14.816, 17.843, 19.175, 20.15,
];

const cumsum = (xs: ArrayLike<number>) => {
  let s = 0;
  return Array.from(xs, (x) => (s += x));
};
/** Expands the book's run-length notation: [value, count] pairs. */
const runs = (pairs: Array<[number, number]>) => pairs.flatMap(([v, n]) => Array<number>(n).fill(v));

describe('hourly chill and heat models, against chillR', () => {
  it('chilling hours: the book prints Chilling_Hours(Temp)[1:100]', () => {
    const expected = runs([
      [0, 14],
      [1, 1],
      [2, 3],
      [3, 1],
      [4, 1],
      [5, 1],
      [6, 40],
      [7, 1],
      [8, 1],
      [9, 1],
      [10, 1],
      [11, 1],
      [12, 1],
      [13, 1],
      [14, 1],
      [15, 1],
      [16, 15],
      [17, 1],
      [18, 1],
      [19, 1],
      [20, 1],
      [21, 1],
      [22, 1],
      [23, 1],
      [24, 1],
      [25, 7],
    ]);
    expect(expected).toHaveLength(100);
    expect(cumsum(WINTERS_100.map(chillingHour))).toEqual(expected);
  });

  it('Utah chill units: the book prints Utah_Model(Temp)[1:100]', () => {
    const printed = `0 -0.5 -1.5 -2.5 -3.5 -4.5 -5.5 -6 -6 -6 -5.5 -5 -4 -3 -2 -1 0 0.5 1.5 2.5 3.5 4.5 5 5 5 4 3 2 1 0
      -1 -2 -2.5 -2.5 -2 -1.5 -1 -0.5 0.5 1 1.5 2 2 2.5 3 3.5 4 4 4 3.5 2.5 1.5 0.5 -0.5 -1.5 -2.5 -3 -3
      -2.5 -1.5 -0.5 0.5 1.5 2.5 3.5 4.5 5.5 6.5 7.5 8.5 9.5 10 10 9.5 9 8.5 8 7.5 7 6.5 6.5 7 7.5 8.5
      9.5 10.5 11.5 12.5 13.5 14.5 15.5 16.5 17.5 18.5 19 19 19 18.5 17.5 16.5`
      .trim()
      .split(/\s+/)
      .map(Number);
    expect(printed).toHaveLength(100);
    expect(cumsum(WINTERS_100.map(utahUnits))).toEqual(printed);
  });

  it('Dynamic Model: the book prints 0 for hours 1–71 and 0.9698435 from hour 72', () => {
    const cp = cumsum(dynamicModelPortions(WINTERS_100));
    expect(cp.slice(0, 71).every((v) => v === 0)).toBe(true);
    for (const v of cp.slice(71)) expect(v).toBeCloseTo(0.9698435, 7);
  });

  it('Utah bands: lower bound excluded, upper included, at every breakpoint', () => {
    const cases: Array<[number, number]> = [
      [1.4, 0],
      [1.41, 0.5],
      [2.4, 0.5],
      [2.41, 1],
      [9.1, 1],
      [9.11, 0.5],
      [12.4, 0.5],
      [12.41, 0],
      [15.9, 0],
      [15.91, -0.5],
      [18, -0.5],
      [18.01, -1],
      [-5, 0],
      [35, -1],
    ];
    for (const [t, u] of cases) expect(utahUnits(t), `${t} °C`).toBe(u);
    // A day crossing every breakpoint once each way sums to the hand count.
    const day = [1, 2, 5, 10, 14, 17, 20, 17, 14, 10, 5, 2];
    expect(day.map(utahUnits).reduce((a, b) => a + b)).toBe(0 + 0.5 + 1 + 0.5 + 0 - 0.5 - 1 - 0.5 + 0 + 0.5 + 1 + 0.5);
  });

  it('chilling hours include both 0 and 7.2 °C', () => {
    expect([-0.01, 0, 3, 7.2, 7.21].map(chillingHour)).toEqual([0, 1, 1, 1, 0]);
  });

  it('growing degree hours: the curve of Anderson et al. (chillR GDH) at hand-checked temperatures', () => {
    // Base 4, optimum 25, critical 36: half of 21 at the midpoint 14.5, 21 at the optimum, 0 outside.
    expect(growingDegreeHours(4)).toBe(0);
    expect(growingDegreeHours(14.5)).toBeCloseTo(10.5, 12);
    expect(growingDegreeHours(25)).toBeCloseTo(21, 12);
    expect(growingDegreeHours(36)).toBeCloseTo(0, 12);
    expect(growingDegreeHours(3.9)).toBe(0);
    expect(growingDegreeHours(36.1)).toBe(0);
    // From the cosine by hand: 21/2·(1+cos(π+π·6/21)) at 10 °C.
    expect(growingDegreeHours(10)).toBeCloseTo(10.5 * (1 + Math.cos(Math.PI + (Math.PI * 6) / 21)), 12);
    expect(growingDegreeHours(30)).toBeCloseTo(21 * (1 + Math.cos(Math.PI / 2 + ((Math.PI / 2) * 5) / 11)), 12);
  });

  it('Dynamic Model at constant temperatures: none above 12.4 °C, a plateau near 6–8 °C', () => {
    // Reference totals of 720 h (30 days) from a second, independent port of chillR's code.
    const reference: Array<[number, number]> = [
      [-2, 0.160089],
      [0, 3.327314],
      [2, 18.719693],
      [4, 21.245762],
      [6, 24.432564],
      [8, 24.401032],
      [10, 23.313028],
      [12, 18.001112],
      [13, 0],
      [20, 0],
    ];
    for (const [t, cp] of reference) {
      const total = dynamicModelPortions(new Float64Array(720).fill(t)).reduce((a, b) => a + b, 0);
      expect(total, `${t} °C`).toBeCloseTo(cp, 5);
    }
    const alternating = Float64Array.from({ length: 720 }, (_, i) => (Math.floor(i / 12) % 2 === 0 ? 2 : 16));
    expect(dynamicModelPortions(alternating).reduce((a, b) => a + b, 0)).toBeCloseTo(4.352806, 5);
  });

  it('degree days: the mean less the base, never negative (method 1 of McMaster & Wilhelm 1997)', () => {
    expect(degreeDays(12, 28, 10)).toBe(10);
    expect(degreeDays(2, 14, 10)).toBe(0);
    expect(degreeDays(5, 17, 10)).toBe(1);
  });
});

describe('hourly temperatures from daily extremes, against chillR', () => {
  it('day length: the vignette prints daylength(50.4, 15) and lat 50.5, days 1–6', () => {
    const d = dayLength(50.4, 15);
    expect(d.sunrise).toBeCloseTo(7.766425, 6);
    expect(d.sunset).toBeCloseTo(16.23357, 5);
    expect(d.daylength).toBeCloseTo(8.467149, 6);
    const sunrises = [7.962814, 7.954191, 7.944763, 7.93454, 7.923534, 7.911757];
    const lengths = [8.074373, 8.091618, 8.110474, 8.13092, 8.152932, 8.176486];
    sunrises.forEach((s, i) => {
      expect(dayLength(50.5, i + 1).sunrise).toBeCloseTo(s, 6);
      expect(dayLength(50.5, i + 1).daylength).toBeCloseTo(lengths[i]!, 6);
    });
    // Polar night and day take chillR's sentinels.
    expect(dayLength(80, 355).daylength).toBe(0);
    expect(dayLength(-80, 355).daylength).toBe(24);
  });

  // chillR's KA_weather (Klein-Altendorf, Germany), 1998-01-01 to 01-10, latitude 50.4.
  const KA = [
    [8.2, 5.1],
    [9.1, 5.0],
    [10.4, 3.3],
    [8.4, 4.5],
    [7.7, 4.5],
    [8.1, 4.4],
    [12.0, 6.9],
    [11.2, 8.6],
    [13.9, 8.5],
    [14.5, 3.6],
  ].map(([tmax, tmin], i) => ({ dayOfYear: i + 1, tmin: tmin!, tmax: tmax! }));
  const hours = hourlyFromDaily(KA, 50.4);

  it('the vignette prints 1998-01-01 hours 19–23 and 01-02 hours 0–5', () => {
    const jan1 = [6.424223, 6.203183, 6.022917, 5.870701, 5.738969];
    const jan2 = [5.574983, 5.468975, 5.373123, 5.28565, 5.205208, 5.13075];
    jan1.forEach((v, i) => expect(hours[0]![19 + i]).toBeCloseTo(v, 6));
    jan2.forEach((v, i) => expect(hours[1]![i]).toBeCloseTo(v, 6));
  });

  it('the book prints 1998-01-05 hours 3–23 (the hour before sunrise dips below the minimum, as in chillR)', () => {
    const printed = [
      4.844164, 4.746566, 4.656244, 4.572187, 4.493583, 4.569464, 5.384001, 6.139939, 6.787169, 7.282787, 7.593939, 7.7,
      7.593939, 7.282787, 6.591821, 6.168074, 5.87057, 5.641106, 5.45428, 5.296704, 5.160445,
    ];
    printed.forEach((v, i) => expect(hours[4]![3 + i], `hour ${3 + i}`).toBeCloseTo(v, 6));
  });

  it('the first day has no evening before it: its early hours are its minimum; its maximum is reached', () => {
    expect(Array.from(hours[0]!.slice(0, 8))).toEqual(Array<number>(8).fill(5.1));
    expect(Math.max(...hours[0]!)).toBeCloseTo(8.2, 9);
  });
});

describe('daily extremes to chill portions and GDH, end to end, against the chillR vignette', () => {
  it('Winters 2008: 20.1 chill portions and 64,813 GDH from 2008-03-03 10:00 to 2008-11-11 11:00 (vignette option 1)', async () => {
    const { readFile } = await import('node:fs/promises');
    const text = await readFile(new URL('./fixtures/winters-2008-daily.csv', import.meta.url), 'utf8');
    const rows = text
      .trim()
      .split('\n')
      .slice(1)
      .map((l) => l.split(','));
    const col = (i: number) => rows.map((r) => (r[i] === 'NA' ? NaN : Number(r[i])));
    // chillR's fix_weather: inner gaps linear, a leading gap takes the first known value.
    const fix = (xs: number[]) => {
      const out = [...xs];
      const first = out.findIndex((v) => !Number.isNaN(v));
      for (let i = 0; i < first; i++) out[i] = out[first]!;
      for (let i = 0; i < out.length; i++) {
        if (!Number.isNaN(out[i]!)) continue;
        let j = i;
        while (Number.isNaN(out[j]!)) j++;
        for (let k = i; k < j; k++) out[k] = out[i - 1]! + ((out[j]! - out[i - 1]!) * (k - i + 1)) / (j - i + 1);
      }
      return out;
    };
    const tmin = fix(col(3));
    const tmax = fix(col(4));
    expect(rows).toHaveLength(366);
    const hours = hourlyFromDaily(
      tmin.map((t, i) => ({ dayOfYear: i + 1, tmin: t, tmax: tmax[i]! })),
      38,
    );
    const flat = hours.flatMap((h) => Array.from(h));
    // 2008-03-03 is day 63 of the leap year: hour 10 of it, to 2008-11-11 (day 316) hour 11.
    const slice = flat.slice(62 * 24 + 10, 315 * 24 + 11 + 1);
    expect(slice).toHaveLength(6074);
    const cp = dynamicModelPortions(slice).reduce((a, b) => a + b, 0);
    const gdh = slice.reduce((a, t) => a + growingDegreeHours(t), 0);
    expect(cp.toFixed(1)).toBe('20.1');
    expect(Math.round(gdh)).toBe(64813);
  });
});
