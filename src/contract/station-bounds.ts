/**
 * Physical bounds of each station data type, in its unit (docs/data.md,
 * "Plausible values"). A value outside is impossible, not merely rare: the
 * build refuses it (or, when asked, keeps and counts it), so a typo such as
 * humidity 150 % or rain −5 mm never reaches an average. Bounds are wide on
 * purpose — world records, not South African climate — so no real reading
 * is refused: air and dew-point temperatures −90 to 60 °C (records −89.2
 * and 56.7 °C), relative humidity 0–100 %, directions 0–360°, amounts
 * (rain, evaporation, radiation, sunshine, wind speed, ET₀) never below 0,
 * and the few amounts with a hard ceiling per hour: sunshine and leaf
 * wetness at most 60 minutes, radiation at most 1,500 W/m² (the solar
 * constant is 1,361).
 */
import type { StationTimeScale } from './station-data-types.ts';

/** [lowest, highest] allowed; null where there is no hard bound on that side. */
export type Bounds = readonly [number | null, number | null];

/** The bounds of `type` at `scale` (every name of contract table 2.4 has some). */
export function plausibleBounds(scale: StationTimeScale, type: string): Bounds {
  if (/^(temperature|dew_point)/.test(type)) return [-90, 60];
  if (/^humidity/.test(type)) return [0, 100];
  if (/^wind_direction/.test(type)) return [0, 360];
  if (/^leaf_wet/.test(type)) return [0, 60];
  if (type === 'sunshine_duration') return [0, 60];
  if (type === 'solar_radation' || /^solar_rad_std_(mean|min|max)$/.test(type)) return [0, 1500];
  if (/^wind_speed/.test(type)) return [0, 150];
  // Amounts: rain, evaporation, radiation and sunshine totals, ET₀, the spread of radiation.
  void scale;
  return [0, null];
}
