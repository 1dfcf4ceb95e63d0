/**
 * Hourly temperatures reconstructed from daily minimum and maximum, for
 * stations that record only those: chillR's `make_hourly_temps` (0.72.7 and
 * later), which follows Linvill (1990): a sine curve by day and a
 * logarithmic decay by night, between sunrise and sunset computed from the
 * latitude (Spencer 1971 declination; Almorox et al. 2005 day length). Times
 * are local solar time; there is no longitude or time-zone correction, as
 * in chillR (docs/indices.md says what that means for a station's hours).
 */

/** Sunrise, sunset and day length in hours of local solar time. */
export interface DayLength {
  sunrise: number;
  sunset: number;
  daylength: number;
}

const RAD = Math.PI / 180;

/** chillR's `daylength(latitude, JDay)` for one day of the year (1-based; 366 allowed). */
export function dayLength(latitude: number, dayOfYear: number): DayLength {
  const g = ((2 * Math.PI) / 365) * (dayOfYear - 1);
  const delta =
    (0.006918 -
      0.399912 * Math.cos(g) +
      0.070257 * Math.sin(g) -
      0.006758 * Math.cos(2 * g) +
      0.000907 * Math.sin(2 * g) -
      0.002697 * Math.cos(3 * g) +
      0.00148 * Math.sin(3 * g)) /
    RAD;
  const cosWo =
    (Math.sin(-0.8333 * RAD) - Math.sin(latitude * RAD) * Math.sin(delta * RAD)) /
    (Math.cos(latitude * RAD) * Math.cos(delta * RAD));
  if (cosWo > 1) return { sunrise: -99, sunset: -99, daylength: 0 };
  if (cosWo < -1) return { sunrise: 99, sunset: 99, daylength: 24 };
  const half = Math.acos(cosWo) / (15 * RAD);
  return { sunrise: 12 - half, sunset: 12 + half, daylength: 2 * half };
}

/** One day's extremes; days follow each other without gaps. */
export interface DailyExtremes {
  /** Day of the year, 1-based. */
  dayOfYear: number;
  tmin: number;
  tmax: number;
}

/**
 * 24 hourly temperatures (hours 0–23) per day, from consecutive days'
 * extremes. The first day's hours before sunrise and the last day's after
 * sunset have no neighbour to decay from and take that day's minimum, as in
 * chillR. Callers pass consecutive days; a missing day breaks the sequence.
 */
export function hourlyFromDaily(days: readonly DailyExtremes[], latitude: number): Float64Array[] {
  const n = days.length;
  if (n === 0) return [];
  // Day lengths of the day before the first to the day after the last; polar sentinels as chillR replaces them.
  const lengths = [days[0]!.dayOfYear - 1, ...days.map((d) => d.dayOfYear), days[n - 1]!.dayOfYear + 1].map((j) => {
    const d = dayLength(latitude, j);
    return {
      sunrise: d.sunrise === 99 ? 0 : d.sunrise === -99 ? 12 : d.sunrise,
      sunset: d.sunset === 99 ? 24 : d.sunset === -99 ? 12 : d.sunset,
      daylength: d.daylength,
    };
  });
  const out: Float64Array[] = [];
  for (let d = 0; d < n; d++) {
    const { tmin, tmax } = days[d]!;
    const { sunrise: sr, sunset: ss, daylength: dl } = lengths[d + 1]!;
    const prev = d > 0 ? days[d - 1]! : undefined;
    const next = d < n - 1 ? days[d + 1]! : undefined;
    const ssPrev = lengths[d]!.sunset;
    const srNext = lengths[d + 2]!.sunrise;
    const tSunset = tmin + (tmax - tmin) * Math.sin((Math.PI * (ss - sr)) / (dl + 4));
    // chillR uses this day's day length with the previous day's extremes.
    const prevTSunset = prev ? prev.tmin + (prev.tmax - prev.tmin) * Math.sin((Math.PI * dl) / (dl + 4)) : NaN;
    const hours = new Float64Array(24).fill(NaN);
    for (let h = 0; h < 24; h++) {
      if (dl === 0 || dl === 24) hours[h] = (tmax + tmin) / 2;
      if (prev && h <= sr) {
        hours[h] =
          prevTSunset -
          ((prevTSunset - tmin) / Math.log(Math.max(1, 24 - (ssPrev - sr)))) * Math.log(h + 24 - ssPrev + 1);
      }
      if (h > sr && h <= ss) hours[h] = tmin + (tmax - tmin) * Math.sin((Math.PI * (h - sr)) / (dl + 4));
      if (next && h >= ss) {
        hours[h] = tSunset - ((tSunset - next.tmin) / Math.log(24 - (ss - srNext) + 1)) * Math.log(h - ss + 1);
      }
      if (Number.isNaN(hours[h]!)) hours[h] = tmin;
    }
    out.push(hours);
  }
  return out;
}
