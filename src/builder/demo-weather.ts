/**
 * The one synthetic weather of the demo: the raster layers hold it on a
 * grid and the stations record it at their own positions and heights, so a
 * station and the layer pixel it stands in differ by what lies between
 * them (height, a pixel's distance to the sea) and by the stations' sensor
 * noise, as measured ones would (docs/indices.md, "The demo's layers and
 * stations").
 *
 * Climatology of a site: annual mean 18.6 °C at the coast at 30 °S,
 * −0.3 °C per degree further south, +2 °C far inland, −5 °C per km of
 * elevation; seasonal half-range 3.6 °C at the coast to 7 °C inland,
 * warmest about 24 January; diurnal range 7.5 °C at the coast to 16 °C
 * inland (+1.2 °C per km, ±12 % with the season). Weather of a day, shared
 * by every site: five smooth spatial patterns (uniform, east–west,
 * north–south, two waves) with AR(1) amplitudes (lag-one correlation 0.75;
 * 2 °C for the uniform one, 0.7 °C for the others), stronger inland, plus
 * an AR(1) anomaly of the diurnal range (cloudy and clear spells). A day's
 * extremes are rounded to 0.1 °C, the precision the layers store, before
 * anything is derived from them. Hours follow one diurnal shape through
 * the day's extremes ({@link hourlyTemperature}).
 */
import { Random } from './prng.ts';

/** Seed of the demo's weather. */
export const WEATHER_SEED = 20240101;
/** The first day (days since 1970-01-01) the weather steps to from its initial draw: the first day the demo layers count. */
export const WEATHER_EPOCH = Date.UTC(2018, 8, 1) / 86_400_000;

/** Where a site is, as the climatology needs it. */
export interface Site {
  lon: number;
  lat: number;
  /** Metres above the sea; negative is taken as 0. */
  elevation: number;
  /** Kilometres to the nearest sea. */
  coastKm: number;
}

/** The weather of one day shared by every site. */
export interface DayWeather {
  /** Amplitudes (°C) of the five spatial patterns. */
  alpha: readonly number[];
  /** Anomaly of the diurnal range (°C). */
  dtrAnom: number;
}

const SIGMA = [2.0, 0.7, 0.7, 0.7, 0.7];
const RHO = 0.75;
const DTR_RHO = 0.6;
const DTR_SIGMA = 1.5;

/**
 * The day-to-day weather, by date. From the epoch on it is drawn forward
 * from `seed`; the days before it are drawn backward from the epoch's
 * initial state by a second stream (a stationary Gaussian AR(1) process
 * reversed in time is the same process), so a record that starts earlier
 * than the layers joins theirs without a seam and never shifts them.
 */
export class WeatherDrivers {
  private readonly forward: DayWeather[] = [];
  /** backward[j] is day WEATHER_EPOCH − 1 − j; backward[0] the initial draw. */
  private readonly backward: DayWeather[] = [];
  private readonly rngForward: Random;
  private readonly rngBackward: Random;

  constructor(seed = WEATHER_SEED) {
    this.rngForward = new Random(seed);
    const g = this.rngForward;
    // The initial draw comes from the stationary distribution, so the first days are not special.
    const alpha = SIGMA.map((s) => s * g.gauss());
    this.backward.push({ alpha, dtrAnom: DTR_SIGMA * g.gauss() });
    this.rngBackward = new Random((seed ^ 0x5bd1e995) >>> 0);
  }

  /** The weather of `day` (days since 1970-01-01). */
  at(day: number): DayWeather {
    const i = day - WEATHER_EPOCH;
    if (i >= 0) {
      while (this.forward.length <= i)
        this.forward.push(step(this.forward.at(-1) ?? this.backward[0]!, this.rngForward));
      return this.forward[i]!;
    }
    const j = -1 - i;
    while (this.backward.length <= j) this.backward.push(step(this.backward.at(-1)!, this.rngBackward));
    return this.backward[j]!;
  }
}

function step(from: DayWeather, g: Random): DayWeather {
  const innov = Math.sqrt(1 - RHO * RHO);
  const alpha = from.alpha.map((a, k) => RHO * a + SIGMA[k]! * innov * g.gauss());
  const dtrAnom = DTR_RHO * from.dtrAnom + DTR_SIGMA * Math.sqrt(1 - DTR_RHO * DTR_RHO) * g.gauss();
  return { alpha, dtrAnom };
}

/** The climatology of many sites, one entry per site in each array (single precision, as the grids store it). */
export class SiteClimates {
  readonly base: Float32Array;
  readonly amp: Float32Array;
  readonly dtr: Float32Array;
  readonly inland: Float32Array;
  readonly patterns: Float32Array[];

  constructor(sites: readonly Site[]) {
    const n = sites.length;
    this.base = new Float32Array(n);
    this.amp = new Float32Array(n);
    this.dtr = new Float32Array(n);
    this.inland = new Float32Array(n);
    this.patterns = Array.from({ length: 5 }, () => new Float32Array(n));
    for (let k = 0; k < n; k++) {
      const { lon, lat, coastKm: d } = sites[k]!;
      const z = Math.max(0, sites[k]!.elevation);
      const inland = 1 - Math.exp(-d / 60);
      this.inland[k] = inland;
      this.base[k] = 18.6 - 0.3 * (Math.abs(lat) - 30) + 2.0 * inland - (5.0 * z) / 1000;
      this.amp[k] = 3.6 + 3.4 * inland;
      this.dtr[k] = 7.5 + 8.5 * (1 - Math.exp(-d / 45)) + (1.2 * z) / 1000;
      this.patterns[0]![k] = 1;
      this.patterns[1]![k] = (lon - 21) / 4;
      this.patterns[2]![k] = (lat + 32) / 3;
      this.patterns[3]![k] = Math.sin(0.9 * lon + 0.4 * lat);
      this.patterns[4]![k] = Math.cos(0.5 * lon - 1.1 * lat);
    }
  }

  get length(): number {
    return this.base.length;
  }

  /** Every site's minimum and maximum of `day` (days since 1970-01-01) in tenths of °C, into `tmin10` and `tmax10`. */
  extremes(day: number, weather: DayWeather, tmin10: Int16Array, tmax10: Int16Array): void {
    const doy = day - Date.UTC(new Date(day * 86_400_000).getUTCFullYear(), 0, 1) / 86_400_000;
    const season = Math.cos((2 * Math.PI * (doy - 24)) / 365.25);
    const [a0, a1, a2, a3, a4] = weather.alpha as [number, number, number, number, number];
    const [p0, p1, p2, p3, p4] = this.patterns as [
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
      Float32Array,
    ];
    const dtrSeason = 1 + 0.12 * season;
    for (let k = 0; k < this.base.length; k++) {
      const inland = this.inland[k]!;
      const anomaly = (0.75 + 0.5 * inland) * (a0 * p0[k]! + a1 * p1[k]! + a2 * p2[k]! + a3 * p3[k]! + a4 * p4[k]!);
      const mean = this.base[k]! + this.amp[k]! * season + anomaly;
      const range = Math.max(1, this.dtr[k]! * dtrSeason + weather.dtrAnom * (0.6 + 0.6 * inland));
      tmin10[k] = Math.round((mean - range / 2) * 10);
      tmax10[k] = Math.round((mean + range / 2) * 10);
    }
  }
}

/**
 * Daily minimum and maximum temperature of many sites, day after day: the
 * layers' grid steps through it pixel by pixel.
 */
export class DailyTemperature {
  /** Tmin and Tmax of the current day in tenths of °C, per site. */
  readonly tmin10: Int16Array;
  readonly tmax10: Int16Array;
  private readonly drivers: WeatherDrivers;

  constructor(
    readonly climates: SiteClimates,
    seed = WEATHER_SEED,
  ) {
    this.tmin10 = new Int16Array(climates.length);
    this.tmax10 = new Int16Array(climates.length);
    this.drivers = new WeatherDrivers(seed);
  }

  /** Fills `tmin10`/`tmax10` for `date` (UTC midnight). */
  step(date: Date): void {
    const day = Math.round(date.getTime() / 86_400_000);
    this.climates.extremes(day, this.drivers.at(day), this.tmin10, this.tmax10);
  }
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
 * (Tmin, Tmax) only; that is what makes the layers' lookup table possible.
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

/**
 * Hourly temperature (°C) of each site over days [firstDay, lastDay]
 * (days since 1970-01-01), 24 values a day from 00:00: the day's
 * {@link hourlyTemperature} shape through its extremes, joined to the
 * previous day's without a jump at midnight. The two curves meet halfway:
 * the previous evening's last six hours ease towards the midpoint and this
 * day's hours before dawn ease from it, each kept within its own day's
 * minimum and maximum, so a station's daily extremes are the layers' Tmin
 * and Tmax and the easing warms as often as it cools (a season's chill
 * moves by a few units, docs/indices.md).
 */
export function siteHours(
  climates: SiteClimates,
  firstDay: number,
  lastDay: number,
  drivers = new WeatherDrivers(),
): Float32Array[] {
  const n = climates.length;
  const days = lastDay - firstDay + 1;
  const out = Array.from({ length: n }, () => new Float32Array(days * 24));
  const lo = new Int16Array(n);
  const hi = new Int16Array(n);
  const prev = new Float64Array(n * 2); // the previous day's minimum and maximum
  climates.extremes(firstDay - 1, drivers.at(firstDay - 1), lo, hi);
  for (let k = 0; k < n; k++) [prev[2 * k], prev[2 * k + 1]] = [lo[k]! / 10, hi[k]! / 10];
  const clamp = (v: number, a: number, b: number) => Math.min(b, Math.max(a, v));
  for (let d = 0; d < days; d++) {
    climates.extremes(firstDay + d, drivers.at(firstDay + d), lo, hi);
    for (let k = 0; k < n; k++) {
      const [tmin, tmax] = [lo[k]! / 10, hi[k]! / 10];
      const [pmin, pmax] = [prev[2 * k]!, prev[2 * k + 1]!];
      const series = out[k]!;
      for (let h = 0; h < 24; h++) series[d * 24 + h] = hourlyTemperature(tmin, tmax, h);
      // Both curves at 00:00: where the previous evening's ends (its shape one hour after 23:00) and this day's starts.
      const [end, start] = [hourlyTemperature(pmin, pmax, 0), hourlyTemperature(tmin, tmax, 0)];
      const mid = (end + start) / 2;
      if (d > 0) {
        for (let h = 18; h < 24; h++) {
          const i = (d - 1) * 24 + h;
          series[i] = clamp(series[i]! + ((mid - end) * (h - 17)) / 7, pmin, pmax);
        }
      }
      for (let h = 0; h < HOUR_MIN; h++) {
        const i = d * 24 + h;
        series[i] = clamp(series[i]! + ((mid - start) * (HOUR_MIN - h)) / HOUR_MIN, tmin, tmax);
      }
      [prev[2 * k], prev[2 * k + 1]] = [tmin, tmax];
    }
  }
  return out;
}
