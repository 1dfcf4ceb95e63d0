/**
 * A station file's coverage line's groups, from its runs of consecutive periods with a value per
 * data type: short gaps merged where the scale says so (COVERAGE_MERGED_GAP, src/dataset/catalog.ts),
 * then the types whose runs are identical (sensors come in groups) put together, in the contract's
 * type order. Pure: the index build streams each station's runs here.
 */
import { STATION_TYPES, type StationTimeScale } from '../contract/station-data-types.ts';
import { COVERAGE_MERGED_GAP, type CoverageGroup, type CoverageRun, type StationCoverage } from '../dataset/catalog.ts';

/** `flat` ([a₀, b₀, a₁, b₁, …], sorted) as runs, those separated by fewer than `gap` missing periods joined. */
export function mergeShortGaps(flat: readonly number[], gap: number): { runs: CoverageRun[]; merged: boolean } {
  const runs: CoverageRun[] = [];
  let merged = false;
  for (let i = 0; i < flat.length; i += 2) {
    const a = flat[i]!;
    const b = flat[i + 1]!;
    const last = runs.at(-1);
    // a − last[1] − 1 periods are missing between the two runs.
    if (last && a - last[1] - 1 < gap) {
      last[1] = Math.max(last[1], b);
      merged = true;
    } else runs.push([a, b]);
  }
  return { runs, merged };
}

/** The groups of one line from each type's flat runs. */
export function coverageGroups(
  byType: ReadonlyMap<string, readonly number[]>,
  scale: StationTimeScale,
): StationCoverage {
  const gap = COVERAGE_MERGED_GAP[scale] ?? 0;
  const groups = new Map<string, CoverageGroup>();
  for (const type of STATION_TYPES[scale]) {
    const flat = byType.get(type);
    if (flat === undefined) continue;
    const { runs, merged } = mergeShortGaps(flat, gap);
    const key = `${merged ? gap : 0}:${JSON.stringify(runs)}`;
    const g = groups.get(key);
    if (g) g.types.push(type);
    else groups.set(key, { types: [type], runs, ...(merged ? { merged: gap } : {}) });
  }
  return [...groups.values()];
}
