/**
 * What each station data type of contract table 2.4 is, for a person and
 * for the numbers: a plain name, its unit and its step (how many decimals a
 * reading carries), read from the one description of the types
 * (station-types.ts), so the app's headers, the CSV, the OpenAPI document
 * and the build's rounding read the same facts (docs/data.md, "Units and
 * precision").
 *
 * Precision (docs/data.md): a type is shown at its step (temperatures to
 * 0.1 °C, humidity to 1 %); a value the build derives (a daily mean of 24
 * hourly readings, a monthly total) is written one decimal finer than the
 * step, so a mean keeps what many readings tell without binary float noise
 * (5.4, never 5.3999999999999995); a mean over stations that poly-aggregate
 * computes at query time is answered two decimals finer than the step.
 */
import { STATION_TYPE_TABLE, stationTypeAt, stationTypeSpec } from './station-types.ts';
import type { StationTimeScale } from './time-scales.ts';

/** A station data type at one time scale as a person reads it, and its step. */
export interface StationTypeInfo {
  /** Plain name, e.g. "Air temperature, daily maximum". */
  name: string;
  /** Unit of the values ("" for an unknown name). */
  unit: string;
  /** Decimals of one reading (its step): 1 for 0.1 °C, 0 for whole percent. */
  decimals: number;
}

/** Decimals an unknown name is shown at (the build refuses such names; a hand-made catalog may still list one). */
const UNKNOWN_DECIMALS = 2;

/**
 * A station data type at a time scale: plain name, unit and step. An unknown
 * name is returned as it is, without a unit, at {@link UNKNOWN_DECIMALS}.
 */
export function stationTypeInfo(scale: StationTimeScale | string, type: string): StationTypeInfo {
  const e = stationTypeSpec(type);
  if (!e) return { name: type, unit: '', decimals: UNKNOWN_DECIMALS };
  // Per-scale words where the same contract name means another thing hourly, daily or monthly (docs/data.md).
  const over = stationTypeAt(scale, type);
  return { name: over?.name ?? e.name, unit: over?.unit ?? e.unit, decimals: over?.decimals ?? e.decimals };
}

/** Every station data type the table describes (tests check it covers contract table 2.4). */
export const STATION_TYPE_INFO_NAMES: readonly string[] = Object.keys(STATION_TYPE_TABLE);

/** Decimals a derived value (daily from hourly, monthly from daily, ET₀) is written at: one finer than the step. */
export function derivedDecimals(scale: StationTimeScale | string, type: string): number {
  return stationTypeInfo(scale, type).decimals + 1;
}

/** Decimals poly-aggregate answers a mean over stations at: two finer than the step. */
export function stationMeanDecimals(scale: StationTimeScale | string, type: string): number {
  return stationTypeInfo(scale, type).decimals + 2;
}

/** Places every value is first rounded to, so binary noise cannot decide a half (see {@link roundValue}). */
export const NOISE_DECIMALS = 9;

/**
 * `x` rounded to `decimals` places, halves away from zero, after a first
 * rounding to {@link NOISE_DECIMALS} places. The first step makes a half
 * that binary arithmetic left at 0.12499999999999999 in one summing order
 * and 0.12500000000000001 in another round the same way (to 0.13); the
 * second is what DuckDB's `round(DOUBLE, n)` does (`std::round(x·10ⁿ)/10ⁿ`),
 * so the build's SQL `round(round(x, 9), n)` and this function agree to the bit.
 */
export function roundValue(x: number, decimals: number): number {
  return halfAway(halfAway(x, NOISE_DECIMALS), decimals);
}

/** The SQL expression that rounds `expr` as {@link roundValue} does. */
export function roundValueSql(expr: string, decimals: number): string {
  return `round(round(${expr}, ${NOISE_DECIMALS}), ${decimals})`;
}

function halfAway(x: number, decimals: number): number {
  const m = 10 ** decimals;
  const r = Math.round(Math.abs(x) * m) / m;
  return x < 0 ? -r : r;
}
