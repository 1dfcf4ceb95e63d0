/**
 * The hourly chill and heat models, as pure functions of hourly temperature
 * in °C. Definitions and constants follow chillR 0.77 (Luedeling et al.,
 * CRAN), the reference implementation growers' researchers use, so a value
 * here can be checked against chillR's printed examples (docs/indices.md).
 */

/**
 * Dynamic Model constants (Fishman, Erez & Couvillon 1987; Erez et al. 1990),
 * as in chillR's `Dynamic_Model` and the Erez spreadsheet it translates.
 * Temperatures convert to kelvin by adding 273 (not 273.15), as chillR does.
 */
export const DYNAMIC_MODEL = {
  e0: 4153.5,
  e1: 12888.8,
  a0: 139_500,
  a1: 2.567e18,
  slope: 1.6,
  tetmlt: 277,
  kelvin: 273,
} as const;

/**
 * Chill portions realised at each hour of a continuous hourly series (the
 * Dynamic Model, chillR ≥ 0.72's `Dynamic_Model` with `summ = FALSE`). The
 * state starts at zero before the first hour; a portion is realised when the
 * precursor reaches 1, and the unconverted fraction carries over. As in
 * chillR, hour i's temperature acts on the state seen at hour i+1, so the
 * first value is always 0 and the last hour's temperature is not used.
 */
export function dynamicModelPortions(temps: ArrayLike<number>): Float64Array {
  const n = temps.length;
  const out = new Float64Array(n);
  const { e0, e1, a0, a1, slope, tetmlt, kelvin } = DYNAMIC_MODEL;
  const aa = a0 / a1;
  const ee = e1 - e0;
  let x = 0;
  let prevXi = 0;
  for (let l = 1; l < n; l++) {
    const tk = temps[l - 1]! + kelvin;
    const sr = Math.exp((slope * tetmlt * (tk - tetmlt)) / tk);
    const xi = sr / (1 + sr);
    const xs = aa * Math.exp(ee / tk);
    const eak1 = Math.exp(-a1 * Math.exp(-e1 / tk));
    // A portion realised at the previous step leaves only its unconverted fraction.
    const s = x >= 1 ? x * (1 - prevXi) : x;
    x = xs - (xs - s) * eak1;
    out[l] = x >= 1 ? x * xi : 0;
    prevXi = xi;
  }
  return out;
}

/**
 * Utah chill units of one hour (Richardson, Seeley & Walker 1974), chillR's
 * `Utah_Model` bounds: each band excludes its lower bound and includes its
 * upper one.
 */
export function utahUnits(t: number): number {
  if (t <= 1.4) return 0;
  if (t <= 2.4) return 0.5;
  if (t <= 9.1) return 1;
  if (t <= 12.4) return 0.5;
  if (t <= 15.9) return 0;
  if (t <= 18) return -0.5;
  return -1;
}

/** Chilling hours (Weinberger 1950): 1 for an hour from 0 to 7.2 °C, both inclusive (chillR `Chilling_Hours`). */
export function chillingHour(t: number): number {
  return t >= 0 && t <= 7.2 ? 1 : 0;
}

/** Growing degree hour parameters (Anderson, Richardson & Kesner 1986): base, optimum and critical temperature, °C. */
export interface GdhParameters {
  base: number;
  optimum: number;
  critical: number;
}

/** Anderson et al.'s values, as chillR's `GDH` hard-codes them. */
export const GDH_DEFAULTS: GdhParameters = { base: 4, optimum: 25, critical: 36 };

/**
 * Growing degree hours of one hour (Anderson et al. 1986, chillR `GDH`): a
 * half cosine rising from 0 at the base to optimum − base at the optimum,
 * then a quarter cosine falling to 0 at the critical temperature.
 */
export function growingDegreeHours(t: number, p: GdhParameters = GDH_DEFAULTS): number {
  const { base, optimum, critical } = p;
  if (t >= base && t <= optimum)
    return ((optimum - base) / 2) * (1 + Math.cos(Math.PI + (Math.PI * (t - base)) / (optimum - base)));
  if (t > optimum && t <= critical)
    return (optimum - base) * (1 + Math.cos(Math.PI / 2 + ((Math.PI / 2) * (t - optimum)) / (critical - optimum)));
  return 0;
}

/**
 * Growing degree days of one day from its minimum and maximum (°C): the
 * daily mean less the base, never below zero — McMaster & Wilhelm's (1997)
 * "method 1", the one the Winkler index (Amerine & Winkler 1944) uses.
 */
export function degreeDays(tmin: number, tmax: number, base: number): number {
  return Math.max(0, (tmin + tmax) / 2 - base);
}
