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
// The diurnal shape is the demo weather's own: its stations record the same hours (demo-weather.ts).
import { hourlyTemperature } from './demo-weather.ts';

export { CHILL_SEASON, GDD_BASE, GDD_SEASON, degreeDays as dailyGdd, utahUnits };

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
