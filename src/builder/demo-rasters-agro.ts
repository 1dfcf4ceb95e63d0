/**
 * The agro-climatic indices of the demo layers, defined once here and
 * documented in docs/layers.md: growing degree days, Utah-model chill
 * (UCU) and daily positive chill units (DPCU), their interim variants and
 * frost days. Everything works from daily minimum and maximum temperature,
 * because that is what the temp layers hold.
 */

// The seasons and bases are definitions the app and the station indices share: they live in contract/.
import { CHILL_SEASON, GDD_BASE, GDD_SEASON } from '../contract/agro-seasons.ts';
// Degree days and the Utah scores are the station indices' own (src/indices/hourly-models.ts), so a
// layer and a station answer count by the same definition: one function each, not two.
import { degreeDays, utahUnits } from '../indices/hourly-models.ts';

export { CHILL_SEASON, GDD_BASE, GDD_SEASON, degreeDays as dailyGdd, utahUnits };

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

/**
 * A frost day: daily minimum below 0 °C (ETCCDI's FD index, TN < 0 °C), as the station indices'
 * `frost_days` count it.
 */
export function isFrostDay(tmin: number): boolean {
  return tmin < 0;
}
