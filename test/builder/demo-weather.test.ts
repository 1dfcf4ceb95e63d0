/**
 * The demo's one weather: the same by date whoever asks and in whatever
 * order, continuous across its epoch and across midnight, and shifted by
 * height at the documented lapse rate.
 */
import { describe, expect, it } from 'vitest';
import { SiteClimates, WEATHER_EPOCH, WeatherDrivers, siteHours, type Site } from '../../src/builder/demo-weather.ts';

const STELLENBOSCH: Site = { lon: 18.86, lat: -33.93, elevation: 400, coastKm: 25 };

function lagOne(x: number[]): number {
  const m = x.reduce((a, v) => a + v, 0) / x.length;
  let [num, den] = [0, 0];
  for (let i = 0; i < x.length; i++) {
    den += (x[i]! - m) ** 2;
    if (i > 0) num += (x[i]! - m) * (x[i - 1]! - m);
  }
  return num / den;
}

describe('the demo weather', () => {
  it('is a function of the date: asked in any order, by any instance, the same day is the same weather', () => {
    const a = new WeatherDrivers();
    const b = new WeatherDrivers();
    const days = [WEATHER_EPOCH + 2000, WEATHER_EPOCH - 1500, WEATHER_EPOCH, WEATHER_EPOCH - 1, WEATHER_EPOCH + 17];
    const forward = days.map((d) => a.at(d));
    const backward = [...days].reverse().map((d) => b.at(d));
    expect(forward).toEqual(backward.reverse());
    expect(new WeatherDrivers(7).at(WEATHER_EPOCH + 10)).not.toEqual(a.at(WEATHER_EPOCH + 10));
  });

  it('before its epoch is the same stationary process as after it (σ 2 °C, lag-one correlation 0.75)', () => {
    const w = new WeatherDrivers();
    const before = Array.from({ length: 4000 }, (_, i) => w.at(WEATHER_EPOCH - 4000 + i).alpha[0]!);
    const after = Array.from({ length: 4000 }, (_, i) => w.at(WEATHER_EPOCH + i).alpha[0]!);
    for (const x of [before, after]) {
      const sd = Math.sqrt(x.reduce((a, v) => a + v * v, 0) / x.length);
      expect(sd).toBeGreaterThan(1.8);
      expect(sd).toBeLessThan(2.2);
      expect(lagOne(x)).toBeGreaterThan(0.7);
      expect(lagOne(x)).toBeLessThan(0.8);
    }
    // No seam: the step across the epoch is an ordinary day's step.
    const steps = after.slice(1).map((v, i) => Math.abs(v - after[i]!));
    const seam = Math.abs(w.at(WEATHER_EPOCH).alpha[0]! - w.at(WEATHER_EPOCH - 1).alpha[0]!);
    expect(seam).toBeLessThan(Math.max(...steps));
  });

  it('a site 1 km higher is 5 °C colder on the mean of its minimum and maximum, day after day', () => {
    const climates = new SiteClimates([STELLENBOSCH, { ...STELLENBOSCH, elevation: 1400 }]);
    const w = new WeatherDrivers();
    const [lo, hi] = [new Int16Array(2), new Int16Array(2)];
    for (let d = WEATHER_EPOCH; d < WEATHER_EPOCH + 365; d++) {
      climates.extremes(d, w.at(d), lo, hi);
      const mid = (k: number) => (lo[k]! + hi[k]!) / 20;
      expect(mid(0) - mid(1)).toBeCloseTo(5, 0);
      expect(Math.abs(mid(0) - mid(1) - 5)).toBeLessThanOrEqual(0.1);
    }
  });

  it("a station's hours pass through each day's extremes and have no step at midnight", () => {
    const climates = new SiteClimates([STELLENBOSCH]);
    const first = Date.UTC(2024, 0, 1) / 86_400_000;
    const days = 366;
    const [hours] = siteHours(climates, first, first + days - 1);
    const w = new WeatherDrivers();
    const [lo, hi] = [new Int16Array(1), new Int16Array(1)];
    const midnight: number[] = [];
    let night = 0;
    for (let d = 0; d < days; d++) {
      climates.extremes(first + d, w.at(first + d), lo, hi);
      const day = Array.from(hours!.subarray(d * 24, d * 24 + 24));
      expect(Math.min(...day)).toBeCloseTo(lo[0]! / 10, 5);
      expect(day[6]).toBeCloseTo(lo[0]! / 10, 5);
      expect(Math.max(...day)).toBeCloseTo(hi[0]! / 10, 5);
      expect(day[14]).toBeCloseTo(hi[0]! / 10, 5);
      for (let h = 1; h < 24; h++) if (h < 6 || h > 15) night = Math.max(night, Math.abs(day[h]! - day[h - 1]!));
      if (d > 0) midnight.push(Math.abs(day[0]! - hours![d * 24 - 1]!));
    }
    // The step from 23:00 to 00:00 is an ordinary night hour's, not the jump between two days' curves
    // (up to 4 °C at this site before the curves were joined).
    midnight.sort((a, b) => a - b);
    expect(midnight.at(-1)).toBeLessThanOrEqual(night);
    expect(midnight[Math.floor(0.95 * midnight.length)]).toBeLessThan(1);
  });
});
