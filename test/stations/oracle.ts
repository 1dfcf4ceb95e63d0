// An independent oracle for the station endpoints: everything is recomputed
// in plain TypeScript from the *input* CSV files, without the build's SQL,
// the catalog or the engine's planner. Only the list of which daily/monthly
// type comes from which finer type (and its unit factor) is shared, and
// tests below check a few of those mappings by hand.
import { readFileSync } from 'node:fs';
import { csvRecords } from '../helpers/csv-rows.ts';
import {
  DAILY_FROM_HOURLY,
  DAILY_MIN_HOURS,
  MONTHLY_FROM_DAILY,
  MONTHLY_MAX_MISSING_DAYS,
  type DeriveRule,
  deriveRulesInto,
} from '../../src/contract/derive-rules.ts';
import { STATION_TYPES, type StationTimeScale } from '../../src/contract/station-data-types.ts';
import { derivedDecimals, roundValue } from '../../src/contract/station-type-info.ts';

export interface OStation {
  id: string;
  name: string;
  lat: number;
  lon: number;
  elevation: number | null;
}
type Values = Record<string, number | null>;
/** station id → period key → values */
export type Series = Map<string, Map<string, Values>>;

const num = (s: string | undefined) => (s === undefined || s === '' ? null : Number(s));

export function readStations(path: string): OStation[] {
  return csvRecords(readFileSync(path, 'utf8')).map((r) => ({
    id: r.station_id!,
    name: r.name!,
    lat: Number(r.lat),
    lon: Number(r.lon),
    elevation: num(r.elevation),
  }));
}

export function readHourly(path: string): Series {
  return readSeries(path, 'hourly');
}

/**
 * Rows of one scale from one or more CSV files, keyed as answers key periods
 * (hourly `yyyy-mm-ddThh:00:00`, daily `yyyy-mm-dd`, monthly `yyyy-mm-01`).
 */
export function readSeries(paths: string | string[], scale: StationTimeScale): Series {
  const out: Series = new Map();
  for (const path of typeof paths === 'string' ? [paths] : paths) {
    for (const r of csvRecords(readFileSync(path, 'utf8'))) {
      const values: Values = {};
      for (const t of STATION_TYPES[scale]) values[t] = num(r[t]);
      let m = out.get(r.station_id!);
      if (!m) out.set(r.station_id!, (m = new Map()));
      const t = r.time!.trim();
      const key =
        scale === 'hourly'
          ? `${t.slice(0, 10)}T${t.slice(11, 19)}`
          : scale === 'monthly'
            ? `${t.slice(0, 7)}-01`
            : t.slice(0, 10);
      m.set(key, values);
    }
  }
  return out;
}

/** Monthly values derived from a daily series (given or derived), as the build's rules say. */
export function monthlyFromDaily(daily: Series): Series {
  return derive(
    daily,
    MONTHLY_FROM_DAILY,
    'monthly',
    (k) => `${k.slice(0, 7)}-01`,
    daysIn,
    (p) => daysIn(p) - MONTHLY_MAX_MISSING_DAYS,
  );
}

/** Days a dekad may miss for a statistic other than a total (docs/data.md): the month's 5 scaled to 10 days, floored. */
const DEKAD_MAX_MISSING_DAYS = 1;

/** The first day of the dekad holding day `k` (yyyy-mm-dd): 01, 11 or 21. */
const dekadKey = (k: string) => {
  const d = Number(k.slice(8, 10));
  return `${k.slice(0, 8)}${d <= 10 ? '01' : d <= 20 ? '11' : '21'}`;
};
/** Days in the dekad starting at `key`: 10, or the month's rest from day 21 (8 to 11). */
const daysInDekad = (key: string) => (key.endsWith('-21') ? daysIn(key) - 20 : 10);

/** Dekadal values derived from a daily series, as docs/data.md states the rule, by string arithmetic on the keys. */
export function dekadalFromDaily(daily: Series): Series {
  return derive(
    daily,
    deriveRulesInto('dekadal'),
    'dekadal',
    dekadKey,
    daysInDekad,
    (p) => daysInDekad(p) - DEKAD_MAX_MISSING_DAYS,
  );
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const rad = (d: number) => (d * Math.PI) / 180;
const deg = (r: number) => (r * 180) / Math.PI;
const circMean = (xs: number[]) => {
  const s = xs.reduce((a, x) => a + Math.sin(rad(x)), 0) / xs.length;
  const c = xs.reduce((a, x) => a + Math.cos(rad(x)), 0) / xs.length;
  return (deg(Math.atan2(s, c)) + 360) % 360;
};

function aggregate(rule: DeriveRule, to: StationTimeScale, xs: number[], full: number, min: number): number | null {
  if (xs.length < (rule.complete ? full : min)) return null;
  let v: number;
  switch (rule.agg) {
    case 'mean':
      v = xs.reduce((a, b) => a + b, 0) / xs.length;
      break;
    case 'sum':
      v = xs.reduce((a, b) => a + b, 0);
      break;
    case 'min':
      v = Math.min(...xs);
      break;
    case 'max':
      v = Math.max(...xs);
      break;
    case 'median':
      v = median(xs);
      break;
    case 'std': {
      const m = xs.reduce((a, b) => a + b, 0) / xs.length;
      v = Math.sqrt(xs.reduce((a, b) => a + (b - m) ** 2, 0) / (xs.length - 1));
      break;
    }
    case 'circmean':
      v = circMean(xs);
      break;
    case 'circmedian': {
      const m = circMean(xs);
      v = (median(xs.map((x) => (x - m + 540) % 360)) + m + 540) % 360;
      break;
    }
  }
  // The documented precision of a derived value (docs/data.md, "Units and precision").
  return roundValue(rule.factor === undefined ? v : v * rule.factor, derivedDecimals(to, rule.out));
}

function derive(
  src: Series,
  rules: DeriveRule[],
  to: StationTimeScale,
  periodOf: (key: string) => string,
  full: (period: string) => number,
  min: (period: string) => number,
): Series {
  const out: Series = new Map();
  for (const [id, rows] of src) {
    const groups = new Map<string, Values[]>();
    for (const [key, v] of rows) {
      const p = periodOf(key);
      let g = groups.get(p);
      if (!g) groups.set(p, (g = []));
      g.push(v);
    }
    const m = new Map<string, Values>();
    for (const [p, vs] of groups) {
      const values: Values = {};
      for (const rule of rules) {
        const xs = vs.map((v) => v[rule.src]).filter((x): x is number => x !== null && x !== undefined);
        values[rule.out] = aggregate(rule, to, xs, full(p), min(p));
      }
      m.set(p, values);
    }
    out.set(id, m);
  }
  return out;
}

/** FAO-56 Penman–Monteith, written out from Allen et al. (1998). */
export function et0(d: Values, elevation: number | null, latDeg: number, dateKey: string): number | null {
  const tx = d.temperature_max,
    tn = d.temperature_min,
    rhx = d.humidity_max,
    rhn = d.humidity_min,
    u2 = d.wind_speed_mean,
    rs = d.solar_radiation_sum;
  if (tx == null || tn == null || rhx == null || rhn == null || u2 == null || rs == null || elevation == null)
    return null;
  const J =
    Math.round((Date.parse(`${dateKey}T00:00:00Z`) - Date.UTC(Number(dateKey.slice(0, 4)), 0, 1)) / 86_400_000) + 1;
  const T = (tx + tn) / 2;
  const e0 = (t: number) => 0.6108 * Math.exp((17.27 * t) / (t + 237.3));
  const delta = (4098 * e0(T)) / (T + 237.3) ** 2;
  const P = 101.3 * ((293 - 0.0065 * elevation) / 293) ** 5.26;
  const gamma = 0.000665 * P;
  const es = (e0(tx) + e0(tn)) / 2;
  const ea = (e0(tn) * (rhx / 100) + e0(tx) * (rhn / 100)) / 2;
  const phi = rad(latDeg);
  const dr = 1 + 0.033 * Math.cos((2 * Math.PI * J) / 365);
  const dec = 0.409 * Math.sin((2 * Math.PI * J) / 365 - 1.39);
  const ws = Math.acos(Math.max(-1, Math.min(1, -Math.tan(phi) * Math.tan(dec))));
  const Ra =
    ((24 * 60) / Math.PI) *
    0.082 *
    dr *
    (ws * Math.sin(phi) * Math.sin(dec) + Math.cos(phi) * Math.cos(dec) * Math.sin(ws));
  const Rso = (0.75 + 2e-5 * elevation) * Ra;
  const Rns = 0.77 * rs;
  const Rnl =
    4.903e-9 *
    (((tx + 273.16) ** 4 + (tn + 273.16) ** 4) / 2) *
    (0.34 - 0.14 * Math.sqrt(ea)) *
    (1.35 * Math.min(1, rs / Rso) - 0.35);
  const Rn = Rns - Rnl;
  return roundValue(
    (0.408 * delta * Rn + ((gamma * 900) / (T + 273)) * u2 * (es - ea)) / (delta + gamma * (1 + 0.34 * u2)),
    derivedDecimals('daily', 'et0'),
  );
}

const daysIn = (monthKey: string) =>
  new Date(Date.UTC(Number(monthKey.slice(0, 4)), Number(monthKey.slice(5, 7)), 0)).getUTCDate();

/** All three scales, derived in TypeScript from the hourly input. */
export function allScales(stations: OStation[], hourly: Series): Record<StationTimeScale, Series> {
  const daily = derive(
    hourly,
    DAILY_FROM_HOURLY,
    'daily',
    (k) => k.slice(0, 10),
    () => 24,
    () => DAILY_MIN_HOURS,
  );
  const byId = new Map(stations.map((s) => [s.id, s]));
  for (const [id, rows] of daily) {
    const s = byId.get(id)!;
    for (const [day, v] of rows) v.et0 = et0(v, s.elevation, s.lat, day);
  }
  const monthly = derive(
    daily,
    MONTHLY_FROM_DAILY,
    'monthly',
    (k) => `${k.slice(0, 7)}-01`,
    daysIn,
    (p) => daysIn(p) - MONTHLY_MAX_MISSING_DAYS,
  );
  return { hourly, daily, dekadal: dekadalFromDaily(daily), monthly };
}

/**
 * Vincenty's inverse formula on WGS84 (a second method: the engine uses
 * Karney's algorithm from GeographicLib). Agrees to well under a millimetre
 * at these distances.
 */
export function distance(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const a = 6378137,
    f = 1 / 298.257223563,
    b = a * (1 - f);
  const L = rad(lon2 - lon1);
  const U1 = Math.atan((1 - f) * Math.tan(rad(lat1)));
  const U2 = Math.atan((1 - f) * Math.tan(rad(lat2)));
  const [sinU1, cosU1, sinU2, cosU2] = [Math.sin(U1), Math.cos(U1), Math.sin(U2), Math.cos(U2)];
  let lambda = L;
  for (let i = 0; i < 200; i++) {
    const sinL = Math.sin(lambda),
      cosL = Math.cos(lambda);
    const sinSigma = Math.sqrt((cosU2 * sinL) ** 2 + (cosU1 * sinU2 - sinU1 * cosU2 * cosL) ** 2);
    if (sinSigma === 0) return 0;
    const cosSigma = sinU1 * sinU2 + cosU1 * cosU2 * cosL;
    const sigma = Math.atan2(sinSigma, cosSigma);
    const sinAlpha = (cosU1 * cosU2 * sinL) / sinSigma;
    const cos2Alpha = 1 - sinAlpha ** 2;
    const cos2SigmaM = cos2Alpha === 0 ? 0 : cosSigma - (2 * sinU1 * sinU2) / cos2Alpha;
    const C = (f / 16) * cos2Alpha * (4 + f * (4 - 3 * cos2Alpha));
    const prev = lambda;
    lambda =
      L + (1 - C) * f * sinAlpha * (sigma + C * sinSigma * (cos2SigmaM + C * cosSigma * (-1 + 2 * cos2SigmaM ** 2)));
    if (Math.abs(lambda - prev) < 1e-13) {
      const u2 = (cos2Alpha * (a * a - b * b)) / (b * b);
      const A = 1 + (u2 / 16384) * (4096 + u2 * (-768 + u2 * (320 - 175 * u2)));
      const B = (u2 / 1024) * (256 + u2 * (-128 + u2 * (74 - 47 * u2)));
      const dSigma =
        B *
        sinSigma *
        (cos2SigmaM +
          (B / 4) *
            (cosSigma * (-1 + 2 * cos2SigmaM ** 2) -
              (B / 6) * cos2SigmaM * (-3 + 4 * sinSigma ** 2) * (-3 + 4 * cos2SigmaM ** 2)));
      return b * A * (sigma - dSigma);
    }
  }
  throw new Error('Vincenty did not converge');
}

/** Winding-number point in polygon (a different rule from the engine's crossing test), boundary inside. */
export function insideOrOn(p: [number, number], rings: [number, number][][]): boolean {
  const onSeg = (a: [number, number], b: [number, number]) => {
    const cross = (b[0] - a[0]) * (p[1] - a[1]) - (b[1] - a[1]) * (p[0] - a[0]);
    return (
      cross === 0 &&
      p[0] >= Math.min(a[0], b[0]) &&
      p[0] <= Math.max(a[0], b[0]) &&
      p[1] >= Math.min(a[1], b[1]) &&
      p[1] <= Math.max(a[1], b[1])
    );
  };
  const wind = (ring: [number, number][]) => {
    let w = 0;
    for (let i = 0; i + 1 < ring.length; i++) {
      const a = ring[i]!,
        b = ring[i + 1]!;
      const isLeft = (b[0] - a[0]) * (p[1] - a[1]) - (p[0] - a[0]) * (b[1] - a[1]);
      if (a[1] <= p[1]) {
        if (b[1] > p[1] && isLeft > 0) w++;
      } else if (b[1] <= p[1] && isLeft < 0) w--;
    }
    return w;
  };
  const [outer, ...holes] = rings;
  if (outer!.some((a, i) => i + 1 < outer!.length && onSeg(a, outer![i + 1]!))) return true;
  if (wind(outer!) === 0) return false;
  for (const h of holes) {
    if (h.some((a, i) => i + 1 < h.length && onSeg(a, h[i + 1]!))) return true;
    if (wind(h) !== 0) return false;
  }
  return true;
}
