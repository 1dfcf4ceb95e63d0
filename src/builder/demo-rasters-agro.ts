/**
 * The agro-climatic indices of the demo layers, defined once here and
 * documented in docs/layers.md: growing degree days, Utah-model chill
 * (UCU) and daily positive chill units (DPCU), their interim variants and
 * frost days. Everything works from daily minimum and maximum temperature,
 * because that is what the temp layers hold.
 */

// The seasons and bases are definitions the app and the station indices share: they live in contract/.
import { CHILL_SEASON, GDD_BASE, GDD_SEASON } from '../contract/agro-seasons.ts';

export { CHILL_SEASON, GDD_BASE, GDD_SEASON };

/** Daily growing degree days: max(0, (Tmin + Tmax) / 2 − base), no upper cut-off. */
export function dailyGdd(tmin: number, tmax: number, base: number): number {
  const mean = (tmin + tmax) / 2;
  return mean > base ? mean - base : 0;
}

/**
 * Utah chill units of one hour at temperature `t` °C (Richardson, Seeley &
 * Walker 1974): ≤1.4 → 0, 1.5–2.4 → 0.5, 2.5–9.1 → 1, 9.2–12.4 → 0.5,
 * 12.5–15.9 → 0, 16.0–18.0 → −0.5, above 18.0 → −1. The published bands
 * are in tenths; the boundaries here sit halfway between them.
 */
export function utahUnits(t: number): number {
  if (t < 1.45) return 0;
  if (t < 2.45) return 0.5;
  if (t < 9.15) return 1;
  if (t < 12.45) return 0.5;
  if (t < 15.95) return 0;
  if (t < 18.05) return -0.5;
  return -1;
}

/** Hour of the daily minimum (about sunrise) and of the maximum, local solar time. */
const HOUR_MIN = 6;
const HOUR_MAX = 14;
/** Night-time decay constant in hours. */
const TAU = 4;

/**
 * Hourly temperature at hour `h` (0–23) of a day with minimum `tmin` and
 * maximum `tmax`: a sine rise from the minimum at 06:00 to the maximum at
 * 14:00, then an exponential decay that reaches the minimum again at 06:00
 * (the sine–exponential shape of Linvill-type models). Hours before 06:00
 * use the same day's extremes, so a day's chill depends on its own
 * (Tmin, Tmax) only; that is what makes the lookup table possible.
 */
export function hourlyTemperature(tmin: number, tmax: number, h: number): number {
  const range = tmax - tmin;
  if (h >= HOUR_MIN && h <= HOUR_MAX)
    return tmin + range * Math.sin((Math.PI / 2) * ((h - HOUR_MIN) / (HOUR_MAX - HOUR_MIN)));
  const since = (h - HOUR_MAX + 24) % 24; // hours since the maximum: 1..15
  const span = 24 - (HOUR_MAX - HOUR_MIN); // 16 h from maximum to next minimum
  const floor = Math.exp(-span / TAU);
  return tmin + (range * (Math.exp(-since / TAU) - floor)) / (1 - floor);
}

/** Sum of the 24 hourly Utah units of a day (may be negative). */
export function dailyUtah(tmin: number, tmax: number): number {
  let s = 0;
  for (let h = 0; h < 24; h++) s += utahUnits(hourlyTemperature(tmin, tmax, h));
  return s;
}

/**
 * A lookup table of {@link dailyUtah} on the 0.1 °C grid the temp layers
 * are stored on: evaluating 24 hours per pixel per day for six winters
 * would dominate the demo build; the table makes it one array read.
 */
export class UtahTable {
  private readonly lo = -300; // −30.0 °C
  private readonly hi = 500; // 50.0 °C
  private readonly n = this.hi - this.lo + 1;
  private readonly table: Float32Array;

  constructor() {
    this.table = new Float32Array(this.n * this.n);
    for (let a = 0; a < this.n; a++) {
      for (let b = a; b < this.n; b++) this.table[a * this.n + b] = dailyUtah((a + this.lo) / 10, (b + this.lo) / 10);
    }
  }

  /** Daily Utah units for Tmin and Tmax given in tenths of °C (integers). */
  get(tmin10: number, tmax10: number): number {
    const a = Math.min(this.hi, Math.max(this.lo, tmin10)) - this.lo;
    const b = Math.min(this.hi, Math.max(this.lo, tmax10)) - this.lo;
    return a <= b ? this.table[a * this.n + b]! : this.table[b * this.n + a]!;
  }
}

/** A frost day: daily minimum at or below 0 °C. */
export function isFrostDay(tmin: number): boolean {
  return tmin <= 0;
}
