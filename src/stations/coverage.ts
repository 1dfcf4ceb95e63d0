/**
 * Which stations have data when, answered from catalog.json alone (no SQL):
 * the build records, per station, time scale and data type, the runs of
 * consecutive periods that hold a value.
 */
import type { StationTimeScale } from '../contract/station-data-types.ts';
import type { CatalogStation } from '../dataset/catalog.ts';

/**
 * True when `station` has at least one value of any of `types` at `scale`
 * between the period keys `first` and `last` (inclusive). Keys of one scale
 * have one fixed-width format, so they compare as strings.
 */
export function hasDataIn(station: CatalogStation, scale: StationTimeScale, types: readonly string[], first: string, last: string): boolean {
  for (const group of station.coverage[scale] ?? []) {
    if (!group.types.some((t) => types.includes(t))) continue;
    for (const [a, b] of group.runs) if (a <= last && b >= first) return true;
  }
  return false;
}
