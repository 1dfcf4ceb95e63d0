/**
 * Table 2.4 of the contract: which station data type names are valid at
 * which time scale. A view of the one description in station-types.ts
 * (types) and time-scales.ts (scales); names are exact, including the
 * contract's spellings `solar_radation` (hourly) and `leaf_wetnes_min`
 * (daily, monthly).
 */
import { typesAtScale } from './station-types.ts';
import { STATION_TIME_SCALES, type StationTimeScale } from './time-scales.ts';

export { STATION_TIME_SCALES, type StationTimeScale } from './time-scales.ts';

/** Every valid name per time scale, in table order. */
export const STATION_TYPES: Record<StationTimeScale, readonly string[]> = Object.fromEntries(
  STATION_TIME_SCALES.map((s) => [s, typesAtScale(s)]),
) as unknown as Record<StationTimeScale, readonly string[]>;

/** Data types valid at the hourly time scale, in table order. */
export const HOURLY_TYPES: readonly string[] = STATION_TYPES.hourly;
/** Data types valid at the daily time scale, in table order. */
export const DAILY_TYPES: readonly string[] = STATION_TYPES.daily;
/** Data types valid at the monthly time scale, in table order. */
export const MONTHLY_TYPES: readonly string[] = STATION_TYPES.monthly;

/** True when `name` is valid at `scale` (exact, case-sensitive). */
export function isStationType(scale: StationTimeScale, name: string): boolean {
  return STATION_TYPES[scale].includes(name);
}

/** The time scales at which `name` is valid, for error messages. */
export function scalesOf(name: string): StationTimeScale[] {
  return STATION_TIME_SCALES.filter((s) => isStationType(s, name));
}
