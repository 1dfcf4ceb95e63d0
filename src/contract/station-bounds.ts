/**
 * Plausible bounds of each station data type, in its unit (docs/data.md,
 * "Plausible values"): what its instruments can read. A value outside is
 * impossible, not merely rare: the build refuses it (or, when asked, keeps
 * and counts it), so a typo such as humidity 150 % or rain −5 mm never
 * reaches an average. Where instruments read past the physical range
 * (humidity above 100 % near saturation), the values between are kept and
 * counted. The bounds are
 * part of each type's description (station-types.ts, which says how they
 * were chosen).
 */
import { stationTypeSpec, type Bounds } from './station-types.ts';
import type { StationTimeScale } from './time-scales.ts';

export type { Bounds } from './station-types.ts';

/** A name the table does not have: an amount, never below 0. */
const UNKNOWN_BOUNDS: Bounds = [0, null];

/** The bounds of `type` at `scale` (every name of contract table 2.4 has some). */
export function plausibleBounds(scale: StationTimeScale, type: string): Bounds {
  // The same at every scale today; the scale stays in the signature for a type whose ceiling is per hour.
  void scale;
  return stationTypeSpec(type)?.bounds ?? UNKNOWN_BOUNDS;
}

/**
 * The physical range of `type` where its instruments read past it (relative humidity: 0–100 %, read to
 * 105 %), else null: values between it and {@link plausibleBounds} are kept and counted, not refused.
 */
export function physicalBounds(scale: StationTimeScale, type: string): Bounds | null {
  void scale;
  return stationTypeSpec(type)?.physical ?? null;
}
